"""Svara's informed-play score for the duplicate audit (``GameSpec.informed``, rules §2, rules §0.6).

A bot that played a deal in an earlier rotation of a duplicate season may remember the other seats'
hands; the duplicate audit (``league.integrity.audit``) tests whether its moves fit those hidden
hands better in its later rotations than in its first. :func:`informed` is the per-seat score it
tests, declared in :data:`referee.games.svara.SPEC`; :func:`held_fit` reads the moves against the hands a seat
held in the rotations it played before (the audit's held-hands test).

Pure logic over a record's events; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations
from typing import Any

from referee.games.svara.points import MAX_POINTS, SVARA_RANKS, hand_points


def informed(events: Iterable[Mapping[str, Any]], num_seats: int, params: Mapping[str, Any]) -> tuple[float, ...]:
    """Per seat, how well its Svara moves fit the cards it could not see: each stake or see (rules §2.4)
    while its hand's points (rules §2.2) are at least every other hand still in the deal counts +1, and
    each fold while they are not; the opposite moves count -1. An honest bot's moves depend on the other
    hands only through what it was shown, so this score has the same distribution in its first and its later
    rotations of a deal; a bot that knows the other hands (from earlier rotations) scores higher later.
    ``events`` as a record holds them (``deal``, ``dealt``, ``stake``, ``see``, ``fold``); ``params`` the
    game's parameters (``szacha``). Raises KeyError for an event without its data."""
    score = [0.0] * num_seats
    for m in moves(events, str(params.get("szacha", "6c"))):
        best = all(m.points >= p for _, p in m.others)
        score[m.seat] += 1.0 if m.fold != best else -1.0
    return tuple(score)


@lru_cache(maxsize=8)
def at_most(szacha: str) -> tuple[float, ...]:
    """``at_most(szacha)[p]``: the share of the 7,140 three-card hands of the 36-card pack (rules §2) whose points
    (rules §2.2, ``szacha`` wild) are at most ``p``, for ``p`` in 0..33."""
    pack = [rank + suit for rank in SVARA_RANKS for suit in "cdhs"]
    counts = [0] * (MAX_POINTS + 1)
    for hand in combinations(pack, 3):
        counts[hand_points(hand, szacha)] += 1
    total = sum(counts)
    return tuple(sum(counts[: p + 1]) / total for p in range(MAX_POINTS + 1))


@dataclass(frozen=True)
class Move:
    """One stake, see or fold (rules §2.4) of ``seat`` in hand ``hand`` (counting the record's deals from 0):
    ``fold`` whether it folded, ``points`` its hand's points (rules §2.2), ``others`` the points of every other
    seat still in the deal then, by seat; ``tokens`` what the move put in the bank (a stake's or a see's amount)
    or, for a fold, what staying in would have cost (the last stake, at least ``min_stake``, rules §2.6);
    ``raised`` whether a seat had staked more than the minimum stake in the deal before the move (rules §2.6);
    ``level`` the level of the last stake before the move and ``levels`` that of each seat of ``others``' highest
    stake in the deal before it (:func:`_level`: 0 none or the minimum, 1 raised above it, 2 the maximum; rules §2.3,
    §2.6)."""

    seat: int
    hand: int
    fold: bool
    points: int
    others: tuple[tuple[int, int], ...]
    tokens: int = 0
    raised: bool = False
    level: int = 0
    levels: tuple[int, ...] = ()

    @property
    def context(self) -> tuple[int, int, bool]:
        """What the seat's own view showed that shapes the move: its hand's points in steps of 3 (rules §2.2), the
        seats still in (2 or 3 and more) and whether the stake was raised."""
        return (self.points // 3, min(len(self.others) + 1, 3), self.raised)

    def spot(self, other: int) -> tuple[int, int, int, int]:
        """Where the move stands against the hand of ``others[other]``: its hand's points, the seats still in (2 or 3
        and more), the stake's level (0: not raised, 1: raised, 2: at the maximum) and that seat's own stakes' level
        (:attr:`levels`). Seats raise with strong hands, so the levels tell how often that hand beats this one,
        beyond what the points alone tell."""
        level = self.levels[other] if other < len(self.levels) else 0
        return (self.points, min(len(self.others) + 1, 3), self.level, level)

    def response(self, max_stake: int) -> float:
        """The move as a number, in units of ``max_stake``: its tokens, negative for a fold."""
        return (-self.tokens if self.fold else self.tokens) / max_stake


#: The keys of a :class:`HeldFit`'s observations: a move's response in its context, and whether one other hand beat
#: the move's hand in its spot.
MOVE, BEATEN = "move", "beaten"
#: What each reading of :meth:`HeldFit.__call__` reads a seat's moves against, in its order (named on a flag line).
READINGS = ("the best hand it held", "each hand it held, apart")


@dataclass(frozen=True)
class HeldFit:
    """A Svara record's moves, read against hands a seat may have held in an earlier rotation of the deal (the
    duplicate audit's held-hands test, ``GameSpec.held_fit``, rules §0.6). ``table``: :func:`at_most` of the
    record's szacha; ``max_stake`` the game's (rules §2.3), the unit the moves' tokens are counted in."""

    moves: tuple[Move, ...]
    table: tuple[float, ...]
    max_stake: int = 100
    readings: tuple[str, ...] = READINGS

    def responses(self, seat: int) -> Iterator[tuple[tuple[Any, ...], float]]:
        """The observations of ``seat`` whose means over a season make the audit's centre: each move as
        ``((MOVE, context), response)`` (:attr:`Move.context`, :meth:`Move.response`), and for each other hand still
        in at that move ``((BEATEN, spot), 1.0 or 0.0)``, whether that hand held more points (:meth:`Move.spot`)."""
        for m in self.moves:
            if m.seat == seat:
                yield (MOVE, m.context), m.response(self.max_stake)
                for i, (_, points) in enumerate(m.others):
                    yield (BEATEN, m.spot(i)), 1.0 if points > m.points else 0.0

    def __call__(self, seat: int, held: frozenset[int],
                 centre: Mapping[Hashable, float] | None = None) -> tuple[float, float]:
        """How much better the moves of ``seat`` fit the hands of the ``held`` seats than its own view lets it
        expect, in tokens at stake (units of ``max_stake``), read two ways: ``(best, each)``. At each move, for each
        held seat still in the deal, ``beaten`` is 1 when that seat holds more points (rules §2.2), else 0, and
        ``expected`` how often a hand still in beat the bot's in the same spot (``centre[(BEATEN, spot)]``, the bot's
        own rate over the season, :meth:`Move.spot`; where absent, a hand dealt at random: ``1 - table[points]``).
        ``each`` counts every held hand apart, ``(expected - beaten) x move``; ``best`` counts the move once against
        the held hands together, ``(1 - product of (1 - expected)) - (1 if any of them beats it)``, times the move.
        The move is its response, its tokens, negative for a fold (:class:`Move`), less the bot's mean response in
        the same context (``centre[(MOVE, context)]``, 0 where absent). So a move its own view
        explains (a fold of a weak hand, a call of a stake raised to the maximum, which other seats raise with strong
        hands) counts little, one that only the held hands explain (a fold of a strong hand one of them beats, a
        stake on a middling hand it beats) nearly its tokens; a bot cannot cancel the large stakes its memory wins
        with small moves against it (a see of a hand it knows is beaten); and the bot's usual move in that spot is
        taken out, so that only how it departs from it is read against the held hands. ``(0.0, 0.0)`` for no held seat.

        A bot that plays by the best hand it remembers fits ``best``; one that plays by one remembered hand among
        several still in fits ``each``, which the best of them may not show (the audit tests the larger of the two).
        Both read against the spot's rate, for a stake raised by others makes a hand that beats the bot's likely
        whatever the bot remembers (a framer, ``bench.bench_audit --frame``, that staked the most when it beat one
        remembered hand was flagged in 1 of 20 seasons before the spot's rate and the ``each`` reading)."""
        centre = centre or {}
        best: list[float] = []
        each: list[float] = []
        for response, move_key, unknown, others in self._by_seat.get(seat, ()):
            known = [(beats, key) for s, beats, key in others if s in held]
            if not known:
                continue
            move = response - centre.get(move_key, 0.0)
            rates = [centre.get(key, unknown) for _, key in known]
            each.extend((r - beats) * move for r, (beats, _) in zip(rates, known))
            beaten = max(beats for beats, _ in known)
            best.append((1.0 - math.prod(1.0 - r for r in rates) - beaten) * move)
        return math.fsum(best), math.fsum(each)

    @cached_property
    def _by_seat(self) -> dict[int, list[tuple[float, Hashable, float, tuple[tuple[int, float, Hashable], ...]]]]:
        """Per seat, its moves, each as ``(response, (MOVE, context), 1 - table[points], others)`` with ``others``
        ``(seat, 1.0 if that hand beats it else 0.0, (BEATEN, spot))`` for every other hand still in: what
        :meth:`__call__` reads for every order of the rotations, worked out once."""
        out: dict[int, list[tuple[float, Hashable, float, tuple[tuple[int, float, Hashable], ...]]]] = {}
        for m in self.moves:
            others = tuple((s, 1.0 if p > m.points else 0.0, (BEATEN, m.spot(i))) for i, (s, p) in enumerate(m.others))
            out.setdefault(m.seat, []).append((m.response(self.max_stake), (MOVE, m.context), 1.0 - self.table[m.points],
                                               others))
        return out


def held_fit(events: Iterable[Mapping[str, Any]], num_seats: int, params: Mapping[str, Any]) -> HeldFit:
    """The :class:`HeldFit` of a Svara record: its stakes, sees and folds (rules §2.4) with every seat's points
    (rules §2.2) at each deal and their tokens. ``events`` and ``params`` as for :func:`informed` (``szacha``,
    ``min_stake``, ``max_stake``, rules §2.3); ``num_seats`` is not needed (the record's deals name their seats).
    Raises KeyError for an event without its data."""
    szacha = str(params.get("szacha", "6c"))
    max_stake = int(params.get("max_stake", 100))
    return HeldFit(tuple(moves(events, szacha, int(params.get("min_stake", 10)), max_stake)), at_most(szacha), max_stake)


def _level(stake: int, min_stake: int, max_stake: int) -> int:
    """A stake's level: 0 none or the minimum, 1 raised above it, 2 the maximum (rules §2.3)."""
    return 2 if stake >= max_stake else int(stake > min_stake)


def moves(events: Iterable[Mapping[str, Any]], szacha: str, min_stake: int = 10, max_stake: int = 100) -> Iterator[Move]:
    """Every stake, see and fold (rules §2.4) of a record's ``events`` by a seat still in the deal, with the points
    (rules §2.2, ``szacha`` wild) of its hand and of every other hand still in, and its tokens (:class:`Move`;
    ``min_stake`` and ``max_stake`` the game's, rules §2.3). Raises KeyError for an event without its data."""
    points: dict[int, int] = {}
    playing: set[int] = set()
    hand = -1
    stake = 0  # the last stake of the deal
    top: dict[int, int] = {}  # each seat's highest stake in the deal
    for e in events:
        kind, data = e["kind"], e["data"]
        if kind == "deal":
            points[data["seat"]] = hand_points(data["cards"], szacha)
        elif kind == "dealt":
            playing = set(data["seats"])
            hand += 1
            stake = 0
            top = {}
        elif kind in ("stake", "see", "fold") and data["seat"] in points and data["seat"] in playing:
            seat = data["seat"]
            others = tuple((o, points[o]) for o in sorted(playing) if o != seat and o in points)
            tokens = int(data["amount"]) if kind != "fold" else max(stake, min_stake)
            levels = tuple(_level(top.get(o, 0), min_stake, max_stake) for o, _ in others)
            yield Move(seat, hand, kind == "fold", points[seat], others, tokens, stake > min_stake,
                       _level(stake, min_stake, max_stake), levels)
            if kind == "stake":
                stake = top[seat] = int(data["amount"])
            if kind == "fold":
                playing.discard(seat)
