"""Svara's team-play scorer: moves read against another seat's hidden cards, and chips between seats (rules §2).

Two bots of one author that share their hands play as a team (issue: colluding bots): the weaker folds when only
the two are left, stakes the maximum beside a strong partner, and does not contest a stronger partner. Read from a
record (its ``deal`` events hold every seat's cards), every betting move of a seat that is still in a deal with
another seat gives one :class:`~referee.games.PairMove` per such other seat:

- **two left** (only the seat and the other are in, rules §2.7): ``move`` = +1 for a fold, 0 for a stake of the
  current stake, -1 for a raise or a see (contesting); ``fit`` = 1 when the other's hand has more points (rules §2.2),
  0.5 on equal points, 0 when fewer. A partner who knows the other's cards folds exactly when they are better.
- **more in** (three or more still in): ``move`` = +1 for a raise (a stake above the current stake), 0 for a stake
  of the current stake, -1 for a fold; ``fit`` = 1 when the other's hand is the best still in (ties included), else
  0. A partner stakes the maximum to grow the bank a strong partner will win.

The ``stratum`` holds what the seat saw that shapes its move: which of the two cases (and how many are in), the
current stake's level (``min``, ``mid``, ``max``: the other may have signalled strength by raising, and at the
maximum no raise is left; ``short`` when the seat cannot pay it and may only fold, rules §2.17), and the seat's own
hand points (or ``-`` when it has not looked, rules §2.5). The league's test (``league.integrity.collusion``) centres
each move on the mean of the seat's moves in its stratum; the closer that mean is to what the seat would do given
all it saw, the closer the test is to exact. This matters because whether a seat moves again in a deal depends on
the other's answer, so on the other's cards: a seat that raises at random raises again only when the other, holding
a good hand, stayed in; with the mean taken where the seat's choices are alike (the same legal moves: a stake at
the maximum cannot be a raise), that selection adds nothing. (A first version whose stratum held only "raised or
not" flagged a ``random`` bot for moving against a tight bot's cards in one of 22 honest seasons.)

``flows[a][b]``: tokens seat ``a`` staked, saw or paid to join (rules §2.6-2.8) in the hands seat ``b`` won, the
bank of a split (rules §2.8) shared in proportion to what each tied seat got. Antes and the bottom-card penalty
(rules §2.4) are forced alike on every seat and are left out.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.games import PairMove, TeamPlay
from referee.games.svara.points import hand_points

#: Kinds of move (the first part of a stratum).
TWO_LEFT = "two"
MORE_IN = "more"


def team_play(events: Sequence[Mapping[str, Any]], num_seats: int, params: Mapping[str, Any]) -> TeamPlay:
    """The :class:`~referee.games.TeamPlay` of one Svara game's ``events`` (a record's, as dicts with ``kind`` and
    ``data``: ``hand``, ``deal``, ``dealt``, ``look``, ``stake``, ``see``, ``fold``, ``join``, ``win``, ``split``),
    ``num_seats`` seats, ``params`` the game's parameters (``szacha``, ``min_stake``; the defaults when absent).
    Raises KeyError or ValueError for events that do not fit together (a seat outside the table, a bad hand)."""
    szacha = str(params.get("szacha", "6c"))
    min_stake = int(params.get("min_stake", 10))
    max_stake = int(params.get("max_stake", 100))
    tokens = [float(params.get("starting_tokens", 1000))] * num_seats  # outside the bank
    moves: list[PairMove] = []
    flows = [[0.0] * num_seats for _ in range(num_seats)]
    points: dict[int, int] = {}
    playing: set[int] = set()
    looked: set[int] = set()
    paid = [0.0] * num_seats  # this hand's stakes, sees and joins per seat
    current = min_stake
    for e in events:
        kind, data = e["kind"], e["data"]
        if kind == "hand":
            paid = [0.0] * num_seats
        elif kind == "ante":
            for s in data["seats"]:
                tokens[int(s)] -= int(data["amount"])
        elif kind == "bottom_penalty":
            tokens[int(data["seat"])] -= int(data["amount"])
        elif kind == "deal":
            points[int(data["seat"])] = hand_points(data["cards"], szacha)
        elif kind == "dealt":
            playing = set(int(s) for s in data["seats"])
            looked = set()
            current = min_stake
        elif kind == "svara":
            points, playing, looked = {}, set(), set()
        elif kind == "look":
            looked.add(int(data["seat"]))
        elif kind in ("stake", "see", "fold"):
            seat = int(data["seat"])
            if seat not in playing or seat not in points:
                raise ValueError(f"a {kind} of seat {seat}, not in the deal")
            amount = int(data.get("amount", 0))
            level = "min" if current <= min_stake else "max" if current >= max_stake else "mid"
            if tokens[seat] < current:
                level = "short"  # rules §2.17: it may only fold
            moves.extend(_pair_moves(seat, kind, amount, current, level, playing, points, seat in looked))
            if kind == "fold":
                playing.discard(seat)
            else:
                paid[seat] += amount
                tokens[seat] -= amount
                if kind == "stake":
                    current = amount
        elif kind == "join":
            paid[int(data["seat"])] += int(data["amount"])
            tokens[int(data["seat"])] -= int(data["amount"])
        elif kind == "win":
            winner = int(data["seat"])
            tokens[winner] += int(data["amount"])
            for a in range(num_seats):
                if a != winner:
                    flows[a][winner] += paid[a]
            paid = [0.0] * num_seats
        elif kind == "split":
            seats, amounts = [int(s) for s in data["seats"]], [float(x) for x in data["amounts"]]
            total = sum(amounts) or 1.0
            for s, got in zip(seats, amounts):
                tokens[s] += got
            for a in range(num_seats):
                for s, got in zip(seats, amounts):
                    if s != a:
                        flows[a][s] += paid[a] * got / total
            paid = [0.0] * num_seats
    return TeamPlay(tuple(moves), tuple(tuple(row) for row in flows))


def _pair_moves(seat: int, kind: str, amount: int, current: int, level: str, playing: set[int],
                points: Mapping[int, int], looked: bool) -> list[PairMove]:
    """The :class:`PairMove` of one betting move (``kind`` ``stake``/``see``/``fold``, ``amount`` tokens) of
    ``seat`` against each other seat still in (``playing``), with the deal's hand ``points`` per seat, the
    ``current`` stake before the move and its ``level`` (``min``, ``mid``, ``max``, or ``short``: the seat cannot
    pay it)."""
    others = [o for o in playing if o != seat and o in points]
    if not others:
        return []
    raise_ = kind == "see" or (kind == "stake" and amount > current)
    own = str(points[seat]) if looked else "-"
    mine = points[seat]
    if len(playing) == 2:
        move = 1.0 if kind == "fold" else -1.0 if raise_ else 0.0
        stratum = f"{TWO_LEFT}/{level}/{own}"
        return [PairMove(seat, o, stratum, move,
                         1.0 if points[o] > mine else 0.5 if points[o] == mine else 0.0) for o in others]
    move = -1.0 if kind == "fold" else 1.0 if raise_ else 0.0
    stratum = f"{MORE_IN}{len(playing)}/{level}/{own}"
    best = max(points[s] for s in playing if s in points)
    return [PairMove(seat, o, stratum, move, 1.0 if points[o] == best else 0.0) for o in others]
