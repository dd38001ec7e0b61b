"""The stored replay format (``store.replays``): orjson JSON of the record, in a Zstandard frame;
records stored before as zlib-compressed JSON are still read."""

from __future__ import annotations

import json
import zlib

import pytest
import zstandard

from referee.games import games
from store.replays import ZSTD_MAGIC, decode_json, decode_record, encode_record
from tests.test_record_json import short_record


@pytest.mark.parametrize("game", games())
def test_stored_json_is_the_records_json(game: str) -> None:
    for seed in range(4):
        record = short_record(game, seed)
        assert record.faults and record.decisions and record.events
        blob, size = encode_record(record)
        assert blob[:4] == ZSTD_MAGIC
        raw = zstandard.ZstdDecompressor().decompress(blob)
        assert size == len(raw)
        # the same JSON document as the standard library writes from to_json(), value for value
        assert json.loads(raw) == json.loads(json.dumps(record.to_json())) == decode_json(blob)
        assert decode_record(blob) == record


@pytest.mark.parametrize("game", games())
def test_a_record_stored_with_zlib_is_read(game: str) -> None:
    record = short_record(game, 1)
    old = zlib.compress(json.dumps(record.to_json(), separators=(",", ":")).encode(), 6)
    assert decode_record(old) == record
    # no zlib stream, whatever its level and window, starts as a Zstandard frame does
    for level in range(10):
        for wbits in range(9, 16):
            compressor = zlib.compressobj(level, zlib.DEFLATED, wbits)
            assert (compressor.compress(b"{}") + compressor.flush())[:4] != ZSTD_MAGIC


@pytest.mark.parametrize("game", games())
def test_non_string_keys_are_written_as_json_writes_them(game: str) -> None:
    record = short_record(game, 0)
    record.params = {**record.params, 7: "seven"}  # type: ignore[dict-item]
    blob, _ = encode_record(record)
    assert decode_json(blob)["params"] == json.loads(json.dumps(record.to_json()))["params"]


@pytest.mark.parametrize("game", games())
def test_an_integer_beyond_64_bits_is_kept(game: str) -> None:
    record = short_record(game, 0)
    record.events[0] = {**record.events[0], "data": {"big": 2**70}}
    blob, size = encode_record(record)
    assert decode_record(blob) == record and size == len(json.dumps(record.to_json(), separators=(",", ":")))


def test_bytes_that_are_no_record_raise() -> None:
    with pytest.raises(zlib.error):
        decode_json(b"x")
    with pytest.raises(zstandard.ZstdError):
        decode_json(ZSTD_MAGIC + b"not a frame")


@pytest.mark.parametrize("game", games())
def test_a_record_is_smaller_stored(game: str) -> None:
    record = short_record(game, 2)
    blob, size = encode_record(record)
    assert len(blob) < size / 4
