"""Contract rummy's informed-play score for the duplicate audit (``GameSpec.informed``, rules §3, rules §0.6).

A bot that played a deal in an earlier rotation of a duplicate season may remember the stock's
order; the duplicate audit (``league.integrity.audit``) tests whether its draws and discards fit the
stock's next cards better in its later rotations than in its first. :func:`informed` is the
per-seat score it tests, declared in :data:`referee.games.rummy.SPEC`.

Pure logic over a record's events; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from referee.games.rummy.bots import deficiency_without


def informed(events: Iterable[Mapping[str, Any]], num_seats: int, params: Mapping[str, Any]) -> tuple[float, ...]:
    """Per seat, how well its contract-rummy moves fit the stock cards it could not see (rules §3),
    counted while the seat is not down, each +1 when the move fits the hidden card, -1 when it goes
    against it, 0 when the card makes no difference:

    - a draw with the live discard on offer (rules §3.5-3.6): the card it took (the discard or the
      stock's next card) against the one it left, by how close each brings its hand to the round's
      contract after its best discard (:func:`referee.games.rummy.bots.deficiency`); the stock card it
      left is the next one drawn from the stock (a draw or a penalty card, rules §3.5);
    - a discard (rules §3.7): among the discards that leave its hand as close to the contract as the
      one it made (all alike to a bot that sees only its hand), whether its discard leaves the hand
      closest (+1) or farthest (-1) once the next card it draws from the stock is added.

    A rebuilt stock (rules §3.12) or the round's end drops the moves still waiting for their card. An
    honest bot's moves depend on the stock only through what it was shown, so this score has the same
    distribution in its first and its later rotations of a deal; a bot that knows the stock order (from
    earlier rotations) scores higher later. ``events`` as a record holds them (``round``, ``hand``,
    ``upcard``, ``draw``, ``drawn_card``, ``take_it``, ``discard``, ``go_down``, ``lay_off``,
    ``rebuild``, ``round_end``); ``params`` is unused (the contract comes with each ``round``)."""
    score = [0.0] * num_seats
    hands: dict[int, list[str]] = {}
    down: set[int] = set()
    contract = (0, 0)
    offered: str | None = None  # the live card on the pile at the start of the turn
    pending: list[tuple[int, list[str], str, bool]] = []  # (seat, hand, offered card, took it)
    discards: dict[int, tuple[list[str], str]] = {}  # seat -> (hand before its last discard, the discard)

    def remove(seat: int, cards: Iterable[str]) -> None:
        for c in cards:
            if c in hands.get(seat, []):
                hands[seat].remove(c)

    for e in events:
        kind, data = e["kind"], e["data"]
        if kind == "round":
            hands, down, pending, offered, discards = {}, set(), [], None, {}
            contract = (int(data["sets"]), int(data["runs"]))
        elif kind == "hand":
            hands[data["seat"]] = list(data["cards"])
        elif kind == "upcard":
            offered = data["card"]
        elif kind == "discard":
            if data["seat"] not in down and data["seat"] in hands:
                discards[data["seat"]] = (list(hands[data["seat"]]), data["card"])
            remove(data["seat"], [data["card"]])
            offered = data["card"]
        elif kind == "draw":
            seat = data["seat"]
            took = data["source"] == "discard_pile"
            if offered is not None and seat not in down and seat in hands:
                pending.append((seat, list(hands[seat]), offered, took))
            if took:
                hands.setdefault(seat, []).append(data["card"])
            offered = None
        elif kind == "take_it":
            hands.setdefault(data["seat"], []).append(data["card"])
        elif kind == "drawn_card":
            card = data["card"]
            for seat, hand, top, took in pending:
                pile = _after_discard(hand + [top], contract)
                stock = _after_discard(hand + [card], contract)
                if pile != stock:
                    score[seat] += 1.0 if (pile < stock) == took else -1.0
            pending = []
            seat = data["seat"]
            if seat in discards:
                hand, chosen = discards.pop(seat)
                now = deficiency_without(hand, *contract)
                after = deficiency_without(hand + [card], *contract)  # for each c of hand: hand less c, plus card
                alike = [after[c] for c in now if now[c] == now[chosen]]  # as good for the hand it held
                low, high = min(alike), max(alike)
                if low < high:
                    score[seat] += 1.0 if after[chosen] == low else -1.0 if after[chosen] == high else 0.0
            hands.setdefault(seat, []).append(card)
        elif kind == "go_down":
            remove(data["seat"], [c for m in data["melds"] for c in m["cards"]])
            down.add(data["seat"])
            discards.pop(data["seat"], None)
        elif kind == "lay_off":
            remove(data["seat"], data["cards"])
        elif kind in ("rebuild", "round_end"):
            pending, discards = [], {}
    return tuple(score)


def _after_discard(hand: list[str], contract: tuple[int, int]) -> int:
    """The hand's deficiency (:func:`referee.games.rummy.bots.deficiency`) after its best discard."""
    return min(deficiency_without(hand, *contract).values())
