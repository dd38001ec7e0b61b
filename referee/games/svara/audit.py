"""Svara's informed-play score for the duplicate audit (``GameSpec.informed``, rules §2, rules §0.6).

A bot that played a deal in an earlier rotation of a duplicate season may remember the other seats'
hands; the duplicate audit (``league.integrity.audit``) tests whether its moves fit those hidden
hands better in its later rotations than in its first. :func:`informed` is the per-seat score it
tests, declared in :data:`referee.games.svara.SPEC`.

Pure logic over a record's events; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from referee.games.svara.points import hand_points


def informed(events: Iterable[Mapping[str, Any]], num_seats: int, params: Mapping[str, Any]) -> tuple[float, ...]:
    """Per seat, how well its Svara moves fit the cards it could not see: each stake or see (rules §2.4)
    while its hand's points (rules §2.2) are at least every other hand still in the deal counts +1, and
    each fold while they are not; the opposite moves count -1. An honest bot's moves depend on the other
    hands only through what it was shown, so this score has the same distribution in its first and its later
    rotations of a deal; a bot that knows the other hands (from earlier rotations) scores higher later.
    ``events`` as a record holds them (``deal``, ``dealt``, ``stake``, ``see``, ``fold``); ``params`` the
    game's parameters (``szacha``)."""
    szacha = str(params.get("szacha", "6c"))
    score = [0.0] * num_seats
    points: dict[int, int] = {}
    playing: set[int] = set()
    for e in events:
        kind, data = e["kind"], e["data"]
        if kind == "deal":
            points[data["seat"]] = hand_points(data["cards"], szacha)
        elif kind == "dealt":
            playing = set(data["seats"])
        elif kind in ("stake", "see", "fold") and data["seat"] in points and data["seat"] in playing:
            seat = data["seat"]
            best = all(points[seat] >= points[o] for o in playing if o != seat and o in points)
            score[seat] += 1.0 if (kind == "fold") != best else -1.0
            if kind == "fold":
                playing.discard(seat)
    return tuple(score)
