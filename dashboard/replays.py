"""What a replay shows: everything after the game, only public information while it runs.

This module is the one place that decides what of a stored record a spectator
may see; the API, the pages and the download all go through
:func:`load_replay`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError

from referee.record import GameRecord
from referee.replay import expand
from store import GameStatus, Store
from store.queries import GameRow, get_game_row

#: Statuses after which nothing about a game is secret any more.
FINISHED = frozenset({GameStatus.DONE.value, GameStatus.FAILED.value})
log = logging.getLogger("cardarena.dashboard")


class NoReplay(LookupError):
    """The game exists but has no stored record (not started, or no events yet)."""


@dataclass(frozen=True)
class ReplayData:
    """A game, whether only public information may be shown, and the record to show."""

    game: GameRow
    public_only: bool
    record: dict[str, Any]


def public_record(record: GameRecord) -> dict[str, Any]:
    """The parts of a record that every seat and spectator may see while the game runs:
    the public events (``visible_to`` is None) and nothing else that could reveal a card
    (no views, answers, actions, chance outcomes, fault answers or results)."""
    return {
        "game": record.game,
        "params": record.params,
        "num_seats": record.num_seats,
        "game_id": record.game_id,
        "events": [e for e in record.events if e.get("visible_to") is None],
        "faults": [{"seat": f.seat, "decision": f.decision, "kind": f.kind.value, "detail": "", "answer": None}
                   for f in record.faults],
        "decisions": [],
        "chance": [],
        "results": [],
        "started_at": record.started_at,
    }


def load_replay(store: Store, game_id: int) -> ReplayData:
    """The replay of ``game_id`` as it may be shown now. Raises NotFound (no such game)
    or NoReplay (the game has no stored record yet)."""
    game = get_game_row(store, game_id)
    record = store.get_replay(game_id)
    if record is None:
        still = "yet " if game.status not in FINISHED else ""
        raise NoReplay(f"game {game_id} has no replay {still}(status {game.status})")
    if game.status in FINISHED:
        return ReplayData(game, False, _expanded(record, game_id))
    return ReplayData(game, True, public_record(record))


def _expanded(record: GameRecord, game_id: int) -> dict[str, Any]:
    """The record with every decision decoded; if a stored message cannot be decoded (a record
    written by an incompatible version), the record as stored, saying why, rather than an error."""
    try:
        return expand(record)
    except (DecodeError, ValueError, KeyError, TypeError) as exc:
        log.warning("replay of game %s cannot be decoded: %s", game_id, exc)
        data = record.to_json()
        data["decode_error"] = f"the views and answers of this record could not be decoded: {exc}"
        for d in data["decisions"]:
            d["view"], d["answer"], d["action"] = {"base64": d["view"]}, None, {"base64": d["action"]}
        return data
