"""Sequential seasons: played in batches of rotation groups until the top of the table is settled.

A season created with ``--until-settled`` stores only its first batch of games and,
in its config under ``"until_settled"``, the stopping rule (``league.ratings.settling``) and
the looks taken so far. Whoever runs the season (the local pool, or the Celery
follower) calls :func:`advance` each time no game of it is pending or running: it
refits the standings, takes a look, and either records why the season stopped
(``settled``: every adjacent pair of the top K rows settled by its three-hypothesis
sequential test, ``league.ratings.settling``: higher, lower or within the zone; ``budget``:
``max_games`` scheduled) or appends the next batch. Each look is kept with the
verdict of every top pair.
The batches are slices of the schedule the season would have with ``max_games``
games (the same seed and bots), so a sequential season's games are a prefix of that
fixed-length season's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from league.competition.schedule import ScheduledGame, build_schedule
from league.competition.seasons import MAX_GAMES, SeasonError, create_season
from league.competition.standings import standings_of
from league.ratings.pair_test import PairVerdict
from league.ratings.ratings_ml import fit_bradley_terry
from league.ratings.settling import INDIFFERENCE, SEQUENTIAL_KEY, SettlingRule, StopReason, look, verdicts
from referee.games import GameSpec

#: The season config key of a sequential season.
KEY = SEQUENTIAL_KEY
#: Rotation groups per batch unless the season says otherwise.
BATCH_GROUPS = 4


@dataclass(frozen=True)
class SettlingStatus:
    """Where a sequential season stands: ``stop`` is None while it goes on, else why it stopped;
    ``games`` the games scheduled so far; ``looks`` every look as ``{"games", "threshold", "weakest", "pairs"}``
    (``league.ratings.settling.Look.as_json``; ``weakest``: the smallest strength among the top pairs, None if a
    row is unrated; ``threshold`` the log likelihood ratio each verdict needs; seasons created before the
    three-hypothesis test have no ``pairs`` and kept the two-sided ratio, or P(better), in ``weakest``)."""

    rule: SettlingRule
    batch_groups: int
    stop: StopReason | None
    games: int
    looks: tuple[dict[str, Any], ...]


def batch_games(table_sizes: Sequence[int], start_group: int, groups: int) -> int:
    """Games in ``groups`` rotation groups from group number ``start_group`` (a table of n seats is n games)."""
    return sum(table_sizes[(start_group + i) % len(table_sizes)] for i in range(groups))


def new_config(rule: SettlingRule, batch_groups: int = BATCH_GROUPS) -> dict[str, Any]:
    """The ``"until_settled"`` config of a new sequential season. Raises ValueError for ``batch_groups`` < 1."""
    if type(batch_groups) is not int or batch_groups < 1:
        raise ValueError(f"--batch must be a whole number of at least 1 rotation group, got {batch_groups!r}")
    return {"top": rule.top, "confidence": rule.confidence, "max_games": rule.max_games,
            "indifference": rule.indifference, "batch_groups": batch_groups, "looked_at": 0, "looks": [], "stop": None}


def create_sequential_season(store, name: str, game_spec: GameSpec, bot_names: Sequence[str], table_sizes: Sequence[int],
                             rule: SettlingRule, batch_groups: int = BATCH_GROUPS, seed: int | None = None,
                             **kwargs: Any) -> int:
    """Validate and store a sequential season with its first batch of ``batch_groups`` rotation groups;
    returns its id. ``kwargs`` go to ``league.competition.seasons.create_season`` (duplicate, params,
    time_control, suspend_after_s). Raises SeasonError (nothing written)."""
    if rule.max_games > MAX_GAMES:
        raise SeasonError(f"--max-games must be at most {MAX_GAMES:,}, got {rule.max_games}")
    try:
        config = new_config(rule, batch_groups)
    except ValueError as exc:
        raise SeasonError(str(exc)) from None
    first = min(rule.max_games, batch_games(list(table_sizes), 0, batch_groups)) if table_sizes else 1
    return create_season(store, name, game_spec, bot_names, table_sizes, first, seed, extra_config={KEY: config}, **kwargs)


def status(config: dict[str, Any], games: int) -> SettlingStatus | None:
    """The sequential state in a season's config (None for a fixed-length season); ``games`` scheduled so far."""
    seq = config.get(KEY)
    if not seq:
        return None
    rule = SettlingRule(seq["top"], seq["confidence"], seq["max_games"], seq.get("indifference", INDIFFERENCE))
    return SettlingStatus(rule, seq["batch_groups"],
                          StopReason(seq["stop"]) if seq["stop"] else None, games, tuple(seq["looks"]))


def advance(store, season_id: int) -> SettlingStatus | None:
    """Take a look at a sequential season whose games are all final, and stop it or add its next batch.

    Returns None for a fixed-length season or a cancelled one (rules §4.11: nothing is added to it); the unchanged status while games are pending or
    running or once it has stopped; otherwise the status after the look (``stop`` None: the next
    batch was added). Safe to call from several processes: the store appends a batch only once.
    Raises store.NotFound for an unknown season.
    """
    info = store.seasons.get_season(season_id)
    if info is not None and (info.config or {}).get("cancelled"):
        return None
    progress = store.seasons.season_progress(season_id)
    current = status(info.config, progress["total"]) if info is not None else None
    if info is None or current is None or current.stop is not None or progress["pending"] + progress["running"]:
        return current
    seq = info.config[KEY]
    total = progress["total"]
    if total <= seq["looked_at"]:
        return current
    rows = standings_of(store, season_id, with_luck=False)  # the look needs the ratings only, not the replays
    verdict = look(current.rule, _verdicts(store, season_id, current.rule, [r.bot_id for r in rows]), total)
    names = {r.bot_id: r.name for r in rows}
    record = verdict.as_json()
    for pair in record["pairs"]:
        if "upper" in pair:
            pair["upper_name"], pair["lower_name"] = names.get(pair["upper"]), names.get(pair["lower"])
    batch = [] if verdict.stop else _next_batch(store, info, total, current.batch_groups)
    games = [(g.seed, list(g.seats)) for g in batch]
    stop = verdict.stop or (None if games else StopReason.BUDGET)
    new = {**seq, "looked_at": total, "stop": stop.value if stop else None,
           "looks": [*seq["looks"], record]}
    if not store.seasons.extend_season(season_id, {**info.config, KEY: new}, games, total,
                               deal_groups=[g.deal_group for g in batch]):
        return status(store.seasons.get_season(season_id).config, store.seasons.season_progress(season_id)["total"])
    return status({KEY: new}, total + len(games))


def _verdicts(store, season_id: int, rule: SettlingRule, order: list[int]) -> list[PairVerdict | None]:
    """The top pairs' verdicts (``league.ratings.settling.verdicts``) over the season's done games, rows in
    standings ``order`` (bot ids)."""
    games = [([seat.bot_id for seat in g.seats], [seat.place for seat in g.seats])
             for g in store.game_reads.list_games(season_id, status="done", limit=10**9)]
    return verdicts(rule, games, fit_bradley_terry(games), order)


def _next_batch(store, info, total: int, batch_groups: int) -> list[ScheduledGame]:
    """The next ``batch_groups`` rotation groups after the first ``total`` games of the season's
    ``max_games`` schedule (empty once that schedule is used up)."""
    sizes = list(info.config["table_sizes"])
    full = _schedule(store, info)
    group, start = 0, 0
    while start < total:
        start += sizes[group % len(sizes)]
        group += 1
    end = min(len(full), start + batch_games(sizes, group, batch_groups))
    return full[start:end]


def _schedule(store, info) -> list:
    """The season's whole schedule at ``max_games`` games, as ``league.competition.seasons.create_season`` builds it."""
    bots = [store.bots.get_bot_by_name(name).id for name in info.config["bots"]]
    return build_schedule(bots, list(info.config["table_sizes"]), info.config[KEY]["max_games"],
                          store.seasons.schedule_key(info.id), bool(info.config.get("duplicate")),
                          info.config.get("authors"))


def settling_json(config: dict[str, Any], progress: dict[str, int]) -> dict[str, Any] | None:
    """A sequential season's state for people and JSON (None for a fixed-length season):
    ``top``, ``confidence``, ``max_games``, ``indifference`` (Elo points; None for a season created before
    the zone), ``batch_groups``, ``stop`` ("settled", "budget" or None while
    it goes on), ``games_used`` (done games), ``games_scheduled``, ``looks`` (``{"games", "threshold",
    "weakest", "pairs"}`` each) and ``pairs``: each adjacent pair of the top rows at the last look,
    ``{"upper", "lower", "upper_name", "lower_name", "verdict", "llr_higher", "llr_lower", "llr_zone"}``,
    ``verdict`` one of ``higher``, ``lower``, ``within_zone`` or ``open`` (empty before the first look, and
    for seasons stopped before the three-hypothesis test). ``progress`` is the store's ``season_progress``."""
    seq = config.get(KEY)
    if not seq:
        return None
    return {"top": seq["top"], "confidence": seq["confidence"], "max_games": seq["max_games"],
            "indifference": seq.get("indifference"), "batch_groups": seq["batch_groups"], "stop": seq["stop"],
            "games_used": progress.get("done", 0),
            "games_scheduled": progress.get("total", 0), "looks": list(seq["looks"]),
            "pairs": list(seq["looks"][-1].get("pairs", [])) if seq["looks"] else []}
