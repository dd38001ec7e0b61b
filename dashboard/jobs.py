"""Heavy, CPU-bound computations the dashboard runs in a separate process for large seasons.

Fitting a season's maximum-likelihood ratings over 100,000 games takes seconds of
pure Python; in the web process it would hold the GIL and slow every request, so
:class:`dashboard.deps.Refresher` sends these functions to a one-process pool.
They take the store's URL (picklable) and open the store themselves.
"""

from __future__ import annotations

from typing import Any

from store import Store, open_store
from store import queries as q


def season_ratings_of(store: Store, season_id: int) -> dict[int, dict[str, Any]]:
    """``{bot_id: {ml_rating, ml_low, ml_high, p_better, ...}}``: the fields of the store's
    standings rows beyond the SQL columns (see ``store.queries.standings_core``)."""
    return {row["bot_id"]: {k: v for k, v in row.items() if k not in q.CORE_STANDING_FIELDS and k != "rank"}
            for row in store.standings_json(season_id)}


def season_ratings(url: str, season_id: int) -> dict[int, dict[str, Any]]:
    """:func:`season_ratings_of` the store at ``url`` (in a worker process)."""
    store = open_store(url, run_migrations=False)
    try:
        return season_ratings_of(store, season_id)
    finally:
        store.close()


def rating_histories(url: str, season_id: int) -> dict[int, list[q.RatingPoint]]:
    """Every bot's Elo history in the season (``store.queries.rating_histories``)."""
    store = open_store(url, run_migrations=False)
    try:
        return q.rating_histories(store, season_id)
    finally:
        store.close()
