"""Stored replays: a done game's whole record (zlib-compressed JSON) and a running game's public progress.

A done game's :class:`~referee.record.GameRecord` is stored once, in the
transaction that stores its result (``store.lifecycle``); a running game's
public progress (``referee.live.LiveView.snapshot``) is overwritten at each
lease renewal and dropped when the attempt ends.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from sqlalchemy import select

from referee.record import GameRecord
from store.models import Game, GameSeat, GameStatus, Replay
from store.session import Database

#: zlib level of stored replays.
COMPRESSION = 6


def encode_record(record: GameRecord) -> tuple[bytes, int]:
    """``(stored bytes, size of the JSON in bytes)`` of a record: compact JSON, zlib-compressed."""
    raw = json.dumps(record.to_json(), separators=(",", ":")).encode()
    return zlib.compress(raw, COMPRESSION), len(raw)


def decode_json(blob: bytes) -> dict[str, Any]:
    """The record JSON of stored bytes (see :func:`encode_record`)."""
    value: dict[str, Any] = json.loads(zlib.decompress(blob))
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

    def season_records(self, season_id: int) -> list[tuple[list[int], GameRecord]]:
        """``(bot of each seat, GameRecord)`` of the season's done games, in schedule order
        (every stored replay is read and decompressed: ~1 ms per game)."""
        with self._db.read() as s:
            rows = s.execute(select(Game.id, Replay.record).join(Replay, Replay.game_id == Game.id)
                             .where(Game.season_id == season_id, Game.status == GameStatus.DONE)
                             .order_by(Game.number)).all()
            seats: dict[int, list[int]] = {}
            for game_id, bot in s.execute(select(GameSeat.game_id, GameSeat.bot_id).join(Game, Game.id == GameSeat.game_id)
                                          .where(Game.season_id == season_id, Game.status == GameStatus.DONE)
                                          .order_by(GameSeat.game_id, GameSeat.seat)):
                seats.setdefault(game_id, []).append(bot)
        return [(seats[game_id], decode_record(blob)) for game_id, blob in rows]

    def live_record(self, game_id: int) -> dict[str, Any] | None:
        """The public progress of a running game as last stored by its worker, or None (not
        running, or nothing stored yet, or an unknown id)."""
        with self._db.read() as s:
            raw = s.scalar(select(Game.live_record).where(Game.id == game_id, Game.status == GameStatus.RUNNING))
        return json.loads(raw) if raw else None
