"""A ladder's standings as its page, JSON API and the Arena show them (rules §5.4): each entrant's
latest **stored** rating snapshot (written by :meth:`league.competition.ladder.LadderRunner.fit` every few rated
games), never a fit made on a request, so a page costs a few index lookups at any size.

The ranking has a row per bot that is not retired: its best version (``league.competition.entrants.best_entrants``:
its best rated version that has finished placing, else its latest), best rating first, ranked 1..n; its other
versions are listed under it, each with the rank its rating would take. A retired bot leaves the ranking: its
versions stay in the history, unranked. An entrant with fewer
than the ladder's placement games (``LadderSettings.placement_games``) is placing; its games are
counted live from its bot's newest seats so "placing: N games" moves with every game.

Like the rest of the league this module imports no store: it reads through the ladder read models
it is given (``store.reads.ladders.LadderReads``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from league.competition.entrants import best_entrants, entrant_index
from league.competition.ladder import LadderSettings

#: z of a two-sided 95% interval.
Z95 = 1.959963984540054


def _doc(text: str) -> dict[str, str]:
    """A field's description in the API's schema (as ``store.reads.doc``)."""
    return {"description": text}


@dataclass(frozen=True)
class LadderStanding:
    """An entrant (bot version) of a ladder with its latest stored rating (rules §5.4).

    ``rating``/``low``/``high``: the Bradley-Terry rating (Elo scale) and its 95% interval from the
    latest snapshot (None before the entrant's first rated game); ``games`` its done games;
    ``placing`` while it has fewer than the ladder's placement games."""

    entrant_id: int
    bot_id: int
    name: str
    version: str
    status: str = field(metadata=_doc("active (scheduled), superseded (the bot declared a newer version) or retired"))
    latest: bool = field(metadata=_doc("the bot's latest version (the one it plays now, unless it is retired)"))
    rank: int | None = field(metadata=_doc(
        "1-based place in the ranking (a row per bot not retired: its best version, best rating first); for its "
        "other versions the place their rating would take there; null before a rated game and for a retired "
        "bot's versions (unranked)"))
    games: int = field(metadata=_doc("done games of this version in the ladder"))
    placing: bool = field(metadata=_doc("fewer than placement_games done games: its rating is still being placed"))
    rating: float | None = field(metadata=_doc("maximum-likelihood Bradley-Terry rating over the ladder's record, Elo scale"))
    low: float | None = field(metadata=_doc("lower end of the rating's 95% interval"))
    high: float | None = field(metadata=_doc("upper end of the rating's 95% interval"))
    rated_games: int | None = field(metadata=_doc("rated games of the whole ladder when this rating was stored"))
    joined_at: datetime
    paused: str | None = field(default=None, metadata=_doc(
        "why the bot is paused in the ladder (it did not answer at game start, rules §5.3); null while it answers"))
    best: bool = field(default=False, metadata=_doc(
        "the bot's row in the ranking: its best rated version that has finished placing (its latest while none "
        "has); false for its other versions and for every version of a retired bot"))
    capacity: int = field(default=1, metadata=_doc(
        "games the bot plays at once, as it declares: the ladder seats it in no more tables at once (rules §5.3), "
        "so a bot of smaller capacity plays fewer games than the others"))


def entrant_status(e: Any) -> str:
    """``active``, ``superseded`` or ``retired`` of a ``store.ladders.EntrantInfo``."""
    return "retired" if e.retired_at else "superseded" if e.superseded_at else "active"


def placement_games(ladder: Any) -> int:
    """The games a new entrant of ``ladder`` (a ``store.ladders.LadderInfo``) places in."""
    return LadderSettings.from_config(ladder.config).placement_games


def board(reads: Any, ladder: Any) -> list[LadderStanding]:
    """Every entrant's row of ``ladder`` (a ``store.ladders.LadderInfo``) from ``reads``
    (``store.reads.ladders.LadderReads``): the ranking first (each bot's best version, best rating first,
    unrated last), then the bots' other versions by rating, then the retired bots' versions (unranked)."""
    entrants = reads.entrants(ladder.id)
    _, latest = entrant_index(entrants)
    snap = reads.latest_ratings(ladder.id, [e.id for e in entrants])
    placement = placement_games(ladder)
    paused = reads.paused_bots(ladder.id)
    games = {e.id: snap[e.id][1] if e.id in snap else 0 for e in entrants}
    for e in entrants:
        if games[e.id] < placement:
            games[e.id] = max(games[e.id], reads.placing_count(ladder.id, e.bot_id, e.version))
    best = set(best_entrants(entrants, {e: v[2] for e, v in snap.items()}, games, placement).values())
    ranked_bots = {e.bot_id for e in entrants if e.id in best}
    main_ratings = sorted((snap[e.id][2] for e in entrants if e.id in best and e.id in snap), reverse=True)
    rows = []
    for e in entrants:
        rating = sd = at = None
        if e.id in snap:
            at, _, rating, sd = snap[e.id]
        rank = None if rating is None or e.bot_id not in ranked_bots else 1 + sum(1 for x in main_ratings if x > rating)
        rows.append(LadderStanding(
            e.id, e.bot_id, e.name, e.version, entrant_status(e), latest.get(e.bot_id) == e.id, rank, games[e.id],
            games[e.id] < placement, rating,
            None if rating is None else rating - Z95 * sd, None if rating is None else rating + Z95 * sd,
            at, e.joined_at, paused.get(e.bot_id) if entrant_status(e) == "active" else None, e.id in best, e.capacity))
    rows.sort(key=lambda r: (not r.best, r.bot_id not in ranked_bots, r.rating is None, -(r.rating or 0.0), r.name,
                             r.entrant_id))
    return rows
