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
from store.reads.games import GameRow
from store.sealing import SEALED_MESSAGE

#: Statuses after which nothing about a game is secret any more.
FINISHED = frozenset({GameStatus.DONE.value, GameStatus.FAILED.value})
log = logging.getLogger("cardarena.dashboard")


class NoReplay(LookupError):
    """The game exists but has no stored record (not started, or no events yet)."""


class Sealed(NoReplay):
    """The game's replay and live events are withheld: another game of its deal group (the
    same cards, in a duplicate season) is still to be played (``store.sealing``). The API
    answers 403 with the message; pages show the message."""


@dataclass(frozen=True)
class ReplayData:
    """A game, whether only public information may be shown, and the record to show."""

    game: GameRow
    public_only: bool
    record: dict[str, Any]


def public_progress(live: dict[str, Any]) -> dict[str, Any]:
    """A running game's stored progress (``store.replays.live_record``) in a record's shape, with only
    what every seat and spectator may see: the public events (``visible_to`` is None) and the
    faults' seats, decisions and kinds; no views, answers, actions, chance outcomes, fault
    details or results, nor the id its bots are sent (``game_id`` is None: it would tell a bot which
    game of the schedule it is playing). The worker writes nothing else (``referee.live``); this checks again."""
    return {
        "game": live.get("game"),
        "params": live.get("params", {}),
        "num_seats": live.get("num_seats"),
        "game_id": None,  # the id its bots are sent is shown once the game is over, never while it runs
        "events": [{"kind": e["kind"], "data": e["data"], "visible_to": None}
                   for e in live.get("events", []) if e.get("visible_to") is None],
        "faults": [{"seat": f["seat"], "decision": f["decision"], "kind": f["kind"], "detail": "", "answer": None}
                   for f in live.get("faults", [])],
        "decisions": [],
        "chance": [],
        "results": [],
        "started_at": live.get("started_at"),
    }


def load_replay(store: Store, game_id: int) -> ReplayData:
    """The replay of ``game_id`` as it may be shown now: a finished game's stored record in
    full; a running game's public progress so far, as its worker last stored it (every few
    seconds). Raises NotFound (no such game), Sealed (another game with the same deal is
    still to be played) or NoReplay (nothing to show yet)."""
    game = store.game_reads.game_row(game_id)
    if game.sealed:
        raise Sealed(f"game {game_id} is {SEALED_MESSAGE}: its replay and live events are not shown "
                     "while another game with the same cards is pending or running")
    if game.status in FINISHED:
        record = store.replays.get_replay(game_id)
        if record is None:
            raise NoReplay(f"game {game_id} has no replay (status {game.status})")
        return ReplayData(game, False, _expanded(record, game_id))
    live = store.replays.live_record(game_id) if game.status == GameStatus.RUNNING.value else None
    if live is None:
        raise NoReplay(f"game {game_id} has no replay yet (status {game.status})")
    return ReplayData(game, True, public_progress(live))


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
