"""Luck-adjusted scores: a game's actual score change less the luck its rules put in.

A game whose ``GameSpec.luck`` is set (:data:`referee.games.LuckEstimator`) gives,
from a record's events, each seat's luck: terms with mean zero whatever the bots do,
computed from what the referee knows (every hand dealt) and never from the bots. The
luck-adjusted change of a seat is its actual change minus its luck, so it estimates
the same strength as the actual change with less noise. Each game's module proves its
estimator unbiased. Amounts are in the game's score unit, as floats.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from league.ratings.ratings_ml import Z95
from referee.games import GameSpec
from referee.record import GameRecord


class NoLuckEstimator(ValueError):
    """Luck terms of a game without a luck estimator (``GameSpec.luck`` is None)."""


@dataclass(frozen=True)
class LuckSummary:
    """A bot's luck-adjusted score change per game over a season.

    ``mean`` is in the game's score unit per game; ``low``/``high`` its 95% interval (normal
    approximation, ``mean +- 1.96 sd / sqrt(games)``; ``None`` below 2 games);
    ``games`` the rated seats counted.
    """

    mean: float
    low: float | None
    high: float | None
    games: int


def seat_luck(game: GameSpec, record: GameRecord) -> tuple[float, ...]:
    """Per seat, the sum of its luck terms over the game (a record of ``game``), in the game's score unit.

    Read from the record's events by the game's ``GameSpec.luck``. Raises NoLuckEstimator
    for a game without one, ValueError for events that do not fit together.
    """
    luck = game.luck
    if luck is None:
        raise NoLuckEstimator(f"{record.game} has no luck estimator")
    return luck(record.events, record.num_seats)


def adjusted_changes(game: GameSpec, record: GameRecord) -> tuple[float, ...]:
    """Per seat, the luck-adjusted score change of a record of ``game``: the actual change minus the
    seat's luck terms.

    Raises NoLuckEstimator for a game without a luck estimator."""
    luck = seat_luck(game, record)
    by_seat = {r.seat: r.change for r in record.results}
    return tuple(by_seat[s] - luck[s] for s in range(record.num_seats))


def mean_interval(values: Sequence[float]) -> LuckSummary:
    """The mean of ``values`` with its 95% interval (``None`` ends below 2 values).

    Raises ValueError for no values."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = math.fsum(values) / n
    if n < 2:
        return LuckSummary(mean, None, None, n)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return LuckSummary(mean, mean - half, mean + half, n)


def luck_adjusted_by_bot(game: GameSpec, games: Iterable[tuple[Sequence[int], GameRecord]]) -> dict[int, LuckSummary]:
    """``{bot_id: LuckSummary}`` over ``(bot of each seat, record)`` of a season's done games of ``game``.

    Raises NoLuckEstimator for a game without a luck estimator."""
    per_bot: dict[int, list[float]] = {}
    for seats_bots, record in games:
        for bot, change in zip(seats_bots, adjusted_changes(game, record)):
            per_bot.setdefault(bot, []).append(change)
    return {bot: mean_interval(values) for bot, values in per_bot.items()}
