"""Multiplayer Elo from game rankings, by pairwise decomposition.

Every game ends in a ranking of its ``n`` seats (places, 1 = best, equal places
share a rank). The ranking is read as ``n (n - 1) / 2`` two-player results:
for every ordered pair of seats ``(i, j)``, ``i != j``::

    S_ij = 1    if place_i < place_j      (i finished ahead: a win)
           0.5  if place_i == place_j     (a draw)
           0    if place_i > place_j      (a loss)
    E_ij = 1 / (1 + 10 ** ((R_j - R_i) / 400))       (expected score of i against j)

    R_i' = R_i + K / (n - 1) * sum_{j != i} (S_ij - E_ij)

with ``K = 32`` (:data:`K`) and every bot starting at ``1500`` (:data:`START`).
Dividing by ``n - 1`` keeps a game worth the same total stake whatever the table
size: a bot that beats every other seat gains at most ``K``. For two seats this
is ordinary Elo.

All seats of one game are updated simultaneously from the ratings *before* the
game. If one bot occupies several seats of a game (a self-play table), each
seat is rated as a separate player using the bot's rating, and every seat's
change is added to that bot; the pairs between its own seats then cancel
(``S_ij + S_ji = 1 = E_ij + E_ji``), so it gains only from beating other bots.

A season's ratings are :func:`season_elo` over its done games in schedule
order (the game number), so they never depend on which worker finished first.
Failed games (rules §4.3) are not rated: the caller leaves them out.

Example: three bots at 1500 finishing 1, 2, 3: every ``E = 0.5``, so the winner
gets ``32 / 2 * ((1 - .5) + (1 - .5)) = +16``, the second ``16 * (-.5 + .5) = 0``,
the third ``-16``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: The K-factor: the most a bot's rating can move in one game.
K: float = 32.0
#: Every bot's rating before its first rated game.
START: float = 1500.0


def expected(r_i: float, r_j: float) -> float:
    """Expected score (0..1) of a player rated ``r_i`` against one rated ``r_j``."""
    return 1.0 / (1.0 + 10.0 ** ((r_j - r_i) / 400.0))


def update(
    ratings: Mapping[int, float],
    seats_bots: Sequence[int],
    places: Sequence[int],
    k: float = K,
    start: float = START,
) -> dict[int, float]:
    """Ratings after one game, as a new dict (``ratings`` is not modified).

    ``seats_bots[s]`` is the bot id in seat ``s`` and ``places[s]`` its place
    (1 = best; equal places are draws). Bots missing from ``ratings`` start at
    ``start``. The result holds every bot of ``ratings`` plus the game's bots.
    A game with fewer than two seats changes nothing.

    Raises ValueError if the two sequences differ in length or a place is < 1.
    """
    if len(seats_bots) != len(places):
        raise ValueError(f"{len(seats_bots)} seats but {len(places)} places")
    if any(p < 1 for p in places):
        raise ValueError(f"places must be >= 1, got {list(places)}")
    new = dict(ratings)
    for bot in seats_bots:
        new.setdefault(bot, start)
    n = len(seats_bots)
    if n < 2:
        return new
    before = [new[bot] for bot in seats_bots]
    deltas = []
    for i in range(n):
        total = 0.0
        for j in range(n):
            if i == j:
                continue
            s = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
            total += s - expected(before[i], before[j])
        deltas.append(k / (n - 1) * total)
    for bot, delta in zip(seats_bots, deltas, strict=True):
        new[bot] += delta
    return new


def season_elo(
    games: Iterable[tuple[Sequence[int], Sequence[int]]],
    k: float = K,
    start: float = START,
) -> dict[int, float]:
    """Ratings after a sequence of games: ``{bot_id: elo}``.

    ``games`` are ``(seats_bots, places)`` pairs (see :func:`update`) in
    schedule order; only rated (done) games belong in it. Raises ValueError as
    :func:`update` does.
    """
    ratings: dict[int, float] = {}
    for seats_bots, places in games:
        ratings = update(ratings, seats_bots, places, k=k, start=start)
    return ratings


@dataclass(frozen=True)
class RatingPoint:
    """A bot's Elo right after one of its done games (``number`` in the season's schedule)."""

    game_id: int
    number: int
    elo: float


def replay(
    base: Mapping[int, tuple[float, int]],
    games: Iterable[tuple[int, Sequence[int], Sequence[int]]],
    checkpoint_before: int,
) -> tuple[dict[int, tuple[float, int]], dict[int, tuple[float, int]]]:
    """A season's Elo from a checkpoint: ``(after every game, after the games numbered below
    checkpoint_before)``, each ``{bot_id: (elo, rated games)}`` for every bot of ``base`` and ``games``
    (a bot not yet rated at the checkpoint: ``(START, 0)`` there).

    ``base``: the ratings at the previous checkpoint; ``games``: ``(number, seats_bots, places)`` of
    the rated games after it, in schedule order. The float operations are exactly those of
    :func:`season_elo` from the start, so the ratings are bit-identical to it. Raises ValueError as
    :func:`update` does.
    """
    elo = {bot: r for bot, (r, _) in base.items()}
    counts = {bot: n for bot, (_, n) in base.items()}
    kept_elo, kept_counts = elo, counts  # update() returns new dicts: these stay as they are
    for number, bots, places in games:
        elo = update(elo, bots, places)
        counts = dict(counts)
        for bot in bots:
            counts[bot] = counts.get(bot, 0) + 1
        if number < checkpoint_before:  # inside the new checkpoint
            kept_elo, kept_counts = elo, counts
    return ({bot: (r, counts[bot]) for bot, r in elo.items()},
            {bot: (kept_elo.get(bot, START), kept_counts.get(bot, 0)) for bot in elo})


def histories(games: Iterable[tuple[int, int, Sequence[int], Sequence[int]]]) -> dict[int, list[RatingPoint]]:
    """Every bot's Elo (rounded to 0.1) after each of its games: ``games`` are ``(game id, number,
    seats_bots, places)`` of a season's rated games in schedule order (as the season is rated)."""
    history: dict[int, list[RatingPoint]] = {}
    ratings: dict[int, float] = {}
    for game_id, number, bots, places in games:
        ratings = update(ratings, bots, places)
        for bot in dict.fromkeys(bots):
            history.setdefault(bot, []).append(RatingPoint(game_id, number, round(ratings[bot], 1)))
    return history
