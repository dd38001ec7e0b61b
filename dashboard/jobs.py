"""Heavy, CPU-bound computations the dashboard runs in a separate process for large seasons.

Fitting a season's maximum-likelihood ratings over 100,000 games takes seconds of
pure Python; in the web process it would hold the GIL and slow every request, so
:class:`dashboard.deps.Refresher` sends these functions to a one-process pool.
They take the store's URL (picklable) and open the store themselves.
"""

from __future__ import annotations

from typing import Any

from league.competition.standings import CORE_STANDING_FIELDS, standings_json, standings_of
from league.policy import POLICY
from league.ratings.elo import RatingPoint, histories
from store import Store, open_store


def season_ratings_of(store: Store, season_id: int) -> dict[int, dict[str, Any]]:
    """``{bot_id: {ml_rating, ml_low, ml_high, p_better, ...}}``: the fields of the store's
    standings rows beyond the SQL columns (see ``league.competition.standings.core_standings``)."""
    return {row["bot_id"]: {k: v for k, v in row.items() if k not in CORE_STANDING_FIELDS and k != "rank"}
            for row in standings_json(standings_of(store, season_id))}


def season_ratings(url: str, season_id: int) -> dict[int, dict[str, Any]]:
    """:func:`season_ratings_of` the store at ``url`` (in a worker process)."""
    store = open_store(url, run_migrations=False, policy=POLICY)
    try:
        return season_ratings_of(store, season_id)
    finally:
        store.close()


def rating_histories_of(store: Store, season_id: int) -> dict[int, list[RatingPoint]]:
    """Every bot's Elo after each of its published games of the season (``league.ratings.elo.histories``).
    Raises ``store.NotFound``."""
    return histories(store.season_reads.rated_games(season_id))


def rating_histories(url: str, season_id: int) -> dict[int, list[RatingPoint]]:
    """:func:`rating_histories_of` the store at ``url`` (in a worker process)."""
    store = open_store(url, run_migrations=False, policy=POLICY)
    try:
        return rating_histories_of(store, season_id)
    finally:
        store.close()


def ladder_luck_of(store: Store, ladder_id: int) -> dict[int, dict[str, Any]]:
    """``{entrant_id: {name, version, luck_wealth, luck_bar, audit, collusion}}``: the integrity audits of a ladder
    (``league.competition.ladder.ladder_standings``, over its whole record): the luck audit's wealth, bar and flag
    (``audit`` less ``collusion``) for a game with luck terms, the collusion screen's flag lines (``collusion``) for a
    game with a team-play scorer; an entrant is listed when it has a luck audit or a flag; ``{}`` for another game."""
    from league.competition.ladder import ladder_standings

    return {r.entrant_id: {"name": r.name, "version": r.version, "luck_wealth": r.luck_wealth,
                           "luck_bar": r.luck_bar, "audit": [x for x in r.audit if x not in r.collusion],
                           "collusion": list(r.collusion)}
            for r in ladder_standings(store, ladder_id) if r.luck_wealth is not None or r.collusion}


def ladder_luck(url: str, ladder_id: int) -> dict[int, dict[str, Any]]:
    """:func:`ladder_luck_of` the store at ``url`` (in a worker process)."""
    store = open_store(url, run_migrations=False, policy=POLICY)
    try:
        return ladder_luck_of(store, ladder_id)
    finally:
        store.close()
