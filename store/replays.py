"""Stored replays: a done game's whole record (Zstandard-compressed JSON) and a running game's public progress.

A done game's :class:`~referee.record.GameRecord` is stored once, in the
transaction that stores its result (``store.lifecycle``); a running game's
public progress (``referee.live.LiveView.snapshot``) is overwritten at each
lease renewal and dropped when the attempt ends.

Storing a record is on every game's path, and a record is large: every view
sent is in it, and a view carries the game so far, so a record runs to ~100 KB
of JSON for a Slippery Sam game and ~550 KB for a rummy game. The JSON is
written by orjson straight from the record's dataclasses (the same JSON as
``json.dumps(record.to_json())``, about 10x faster) and compressed with
Zstandard at level 3 (6-8x faster than zlib level 6 on these records, for
7-9% more bytes). Records stored before, zlib-compressed, are still read: the two are
told apart by the Zstandard frame's magic number, which no zlib stream starts
with.
"""

from __future__ import annotations

import json
import threading
import zlib
from typing import Any

import orjson
import zstandard
from sqlalchemy import select

from referee.record import GameRecord
from store.models import Game, GameSeat, GameStatus, Replay
from store.session import Database

#: Zstandard level of stored replays.
COMPRESSION = 3
#: The first four bytes of every Zstandard frame. No zlib stream starts with them: a zlib header's first
#: two bytes, read as one big-endian number, are a multiple of 31, and 0x28B5 is not.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: orjson's options: dict keys that are not strings written as strings, as ``json.dumps`` does.
_JSON_OPTIONS = orjson.OPT_NON_STR_KEYS


class _Codecs(threading.local):
    """A compressor and a decompressor per thread (neither may be used by two threads at once,
    and making one costs more than compressing a record)."""

    def __init__(self) -> None:
        self.compressor = zstandard.ZstdCompressor(level=COMPRESSION)
        self.decompressor = zstandard.ZstdDecompressor()


_codecs = _Codecs()


def encode_record(record: GameRecord) -> tuple[bytes, int]:
    """``(stored bytes, size of the JSON in bytes)`` of a record: the compact UTF-8 JSON of
    ``record.to_json()``, Zstandard-compressed (one frame, its size in the header).
    A record orjson cannot write (an integer beyond 64 bits) is written by the standard
    library instead; a value no JSON holds raises TypeError (the referee never puts one in)."""
    try:
        raw = orjson.dumps(record, option=_JSON_OPTIONS)
    except TypeError:
        raw = json.dumps(record.to_json(), separators=(",", ":")).encode()
    return _codecs.compressor.compress(raw), len(raw)


def decode_json(blob: bytes) -> dict[str, Any]:
    """The record JSON of stored bytes: a Zstandard frame (:func:`encode_record`) or, for a record
    stored before, a zlib stream. Raises zstandard.ZstdError or zlib.error for bytes that
    are neither, json.JSONDecodeError for bytes that hold no JSON (no stored record does)."""
    raw = _codecs.decompressor.decompress(blob) if blob[:4] == ZSTD_MAGIC else zlib.decompress(blob)
    value: dict[str, Any] = json.loads(raw)
    return value


def decode_record(blob: bytes) -> GameRecord:
    """The GameRecord of stored bytes (see :func:`encode_record`)."""
    return GameRecord.from_json(decode_json(blob))


class Replays:
    """The replays and live progress over one :class:`~store.session.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get_replay(self, game_id: int) -> GameRecord | None:
        """The stored GameRecord of a done game, or None (not done, or unknown id)."""
        with self._db.read() as s:
            blob = s.scalar(select(Replay.record).where(Replay.game_id == game_id))
        if blob is None:
            return None
        return decode_record(blob)

    def season_records(self, season_id: int) -> list[tuple[int, list[int], GameRecord]]:
        """``(game number, bot of each seat, GameRecord)`` of the season's done games, in schedule order
        (every stored replay is read and decompressed: ~1 ms per game). The number is the row's: a record's
        ``game_id`` is the opaque id its bots were sent, which says nothing of it."""
        with self._db.read() as s:
            rows = s.execute(select(Game.id, Game.number, Replay.record).join(Replay, Replay.game_id == Game.id)
                             .where(Game.season_id == season_id, Game.status == GameStatus.DONE)
                             .order_by(Game.number)).all()
            seats: dict[int, list[int]] = {}
            for game_id, bot in s.execute(select(GameSeat.game_id, GameSeat.bot_id).join(Game, Game.id == GameSeat.game_id)
                                          .where(Game.season_id == season_id, Game.status == GameStatus.DONE)
                                          .order_by(GameSeat.game_id, GameSeat.seat)):
                seats.setdefault(game_id, []).append(bot)
        return [(number, seats[game_id], decode_record(blob)) for game_id, number, blob in rows]

    def live_record(self, game_id: int) -> dict[str, Any] | None:
        """The public progress of a running game as last stored by its worker, or None (not
        running, or nothing stored yet, or an unknown id)."""
        with self._db.read() as s:
            raw = s.scalar(select(Game.live_record).where(Game.id == game_id, Game.status == GameStatus.RUNNING))
        return json.loads(raw) if raw else None
