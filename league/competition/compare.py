"""Version A/B on a ladder: start a compare, seat both versions at its tables, feed its games, store its verdict.

A compare asks whether a ladder entrant *candidate* (a bot version, ``BOT@VERSION``)
is better than entrant *base* by the indifference zone ``delta`` (Elo points), worse
by it, or within it (rules §5.5). An endpoint serves one version at a time, so the
two sides are two registered bots (``mybot`` serving 1.0, ``mybot-next`` serving 1.1);
:func:`start_compare` checks that each named version is the one its bot declares now.

The ladder's runner (``league.competition.ladder.LadderRunner.refill``) does the rest:

- each refill first *looks* (:func:`look`): every running compare is fed the ladder
  games that seat both its entrants and are final, whole deal groups only (a
  duplicate table's rotations together), in the sequential test of
  ``league.ratings.abtest.ABTest`` kept in the compare's state; the verdict is stored
  (compare-and-set, so several runners are safe) and a decided compare is no longer
  scheduled. A compare whose entrant left (a new version, retirement) is stopped.
  A compare that *follows* its candidate's bot (``--auto``) starts the next compare
  when that bot declares a new version (:func:`follow`);
- then it plans: up to :data:`COMPARE_SHARE` of the tables it adds are compare tables
  (:class:`ComparePlanner`), seating both versions and other entrants chosen by the
  matchmaker (``league.competition.matchmaking``), in seats from ``seat_order``; in a duplicate
  ladder every rotation of the table is played with one deal, as for any table.

Compare games are ordinary rated ladder games (rules §5.5): every seat's result
counts in the ladder's ratings as any other game's.

*Against a record* (rules §5.5): the base may be a version that is no longer played
(``BOT@1.0`` after ``BOT`` declared 1.1) with at least :data:`RECORD_GAMES` rated
games. No table is scheduled for it: the candidate plays ordinary ladder tables, and
each look answers from the ladder's fit (``league.ratings.abtest.record_result``: the
difference of the two ratings and its standard error), with the same zone and error
rates as the live test but weaker evidence (through common opponents, over different
periods). The fit is the runner's to give (``fit``: ``league.competition.ladder``'s
``ladder_fit_and_counts``), as this module is below the ladder's.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from league.competition.entrants import entrant_index, seat_entrants
from league.competition.matchmaking import Entrant, MatchState, choose_table, seat_order
from league.ratings.abtest import CONFIDENCE, ABTest, record_result
from league.ratings.bt_incremental import BTAccumulator
from league.ratings.ratings_ml import MLRatings

#: The largest share of a refill's tables given to running compares (the rest are the matchmaker's).
COMPARE_SHARE = 0.5
#: Defaults of ``ladder compare``: the indifference zone (Elo points) and the most games a compare uses.
DELTA = 50.0
MAX_GAMES = 5000
#: The fewest rated games a version no longer played needs to be a compare's base (its record, rules §5.5).
RECORD_GAMES = 30
#: The ladder's fit and ``{entrant id: rated games}`` (``league.competition.ladder.ladder_fit_and_counts``).
Fit = Callable[[], tuple[MLRatings, Mapping[int, int]]]
_ENTRANT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,79})(?:@(\S{1,64}))?$")
_FINAL = ("done", "failed", "not_played")


class CompareError(ValueError):
    """A compare that cannot start; the message says why (one line)."""


def parse_entrant(text: str) -> tuple[str, str | None]:
    """``BOT@VERSION`` or ``BOT`` -> ``(bot name, version or None)``. Raises CompareError for another shape."""
    m = _ENTRANT.fullmatch(text.strip())
    if m is None:
        raise CompareError(f"bad entrant {text!r}: write BOT or BOT@VERSION (a registered bot's name, and optionally "
                           "the version it serves)")
    return m[1], m[2]


def resolve_entrant(store, ladder, entrants: Sequence[Any], text: str, *, record: bool = False):
    """The active entrant (``store.ladders.EntrantInfo``) of ``BOT[@VERSION]`` in ``ladder``; with ``record``
    (a compare's base) also an entrant of ``BOT@VERSION`` no longer played (superseded or retired: its
    record). Raises CompareError when the bot is unknown, retired, not registered for the ladder's game, or
    declares another version now that has no record here (an endpoint serves one version at a time)."""
    name, version = parse_entrant(text)
    bot = store.bots.get_bot_by_name(name)
    if bot is None:
        raise CompareError(f"no bot named {name!r} (see: cardarena bot list)")
    if record and version is not None:
        old = next((e for e in entrants if e.bot_id == bot.id and e.version == version and not e.active), None)
        if old is not None:
            return old
    if bot.retired_at is not None:
        raise CompareError(f"bot {name!r} is retired: it no longer plays in the ladder")
    if version is not None and version != bot.version:
        raise CompareError(f"bot {name!r} serves version {bot.version} now, not {version}, and {version} has no "
                           f"record on ladder {ladder.name!r}: an endpoint serves one version at a time; register "
                           f"the other version as a bot of its own (cardarena bot register {name}-next ...) and "
                           "compare the two")
    entrant = next((e for e in entrants if e.bot_id == bot.id and e.version == bot.version and e.active), None)
    if entrant is None:
        raise CompareError(f"bot {name!r} is not an entrant of ladder {ladder.name!r}: it is not registered for "
                           f"{ladder.game}")
    return entrant


def start_compare(store, ladder_id: int, base: str, candidate: str, *, delta: float = DELTA,
                  confidence: float = CONFIDENCE, max_games: int = MAX_GAMES, follow: bool = False,
                  fit: Fit | None = None) -> int:
    """Start a compare of ``candidate`` against ``base`` (each ``BOT`` or ``BOT@VERSION``, rules §5.5) in the
    ladder; its games are those the ladder adds from now on. A ``base`` no longer played (``BOT@VERSION``
    after the bot declared another) is a compare against its record: it needs ``fit`` (the ladder's fit and
    rated games, module docstring) and at least :data:`RECORD_GAMES` rated games. ``follow``: when the
    candidate's bot declares a new version, a compare of that version against the base bot's version of that
    moment (against a record: the same record) starts by itself. Returns the compare's id. Raises
    CompareError (one line, nothing written) for an unknown ladder or bot, a version neither served now nor
    on record, a record with too few games, one entrant named twice, or settings out of range
    (``league.ratings.abtest.ABTest``)."""
    ladder = store.ladders.get_ladder(ladder_id)
    if ladder is None:
        raise CompareError(f"no ladder with id {ladder_id}")
    entrants = store.ladders.sync_entrants(ladder_id)
    old = resolve_entrant(store, ladder, entrants, base, record=True)
    new = resolve_entrant(store, ladder, entrants, candidate)
    if old.id == new.id:
        raise CompareError(f"{old.label} is named twice: a compare needs two different entrants")
    try:
        ABTest(old=old.id, new=new.id, delta=delta, confidence=confidence, max_games=max_games)
    except ValueError as exc:
        raise CompareError(str(exc)) from None
    state: dict[str, Any] = {}
    if not old.active:
        if fit is None:
            raise CompareError(f"{old.label} is no longer played: a compare against its record needs the "
                               "ladder's ratings")
        played = fit()[1].get(old.id, 0)
        if played < RECORD_GAMES:
            raise CompareError(f"{old.label} is no longer played and has {played} rated game(s) on ladder "
                               f"{ladder.name!r}: a compare against a record needs at least {RECORD_GAMES}")
        state = {"against": "record", "record_games": played}
    return store.compares.create_compare(ladder_id, old.id, new.id, delta=delta, confidence=confidence,
                                         max_games=max_games, follow=follow, state=state)


# ------------------------------------------------------------------ the look


def _test(c) -> ABTest:
    state = c.state
    stats = BTAccumulator.from_json(state["acc"]) if state.get("acc") else BTAccumulator()
    return ABTest(old=c.base_entrant_id, new=c.candidate_entrant_id, delta=c.delta, confidence=c.confidence,
                  max_games=c.max_games, stats=stats)


def table_games(size: int, duplicate: bool) -> int:
    """Games one compare table adds: every rotation in a duplicate ladder, else one."""
    return size if duplicate else 1


@dataclass(frozen=True)
class Look:
    """One compare after a look: its row (``store.compares.CompareInfo``, as stored now) and the games it may
    still schedule (its budget less the games fed and those seating both entrants not final yet)."""

    compare: Any
    left: int


def feed(store, c, by_version: Mapping[tuple[int, str], int], latest: Mapping[int, int],
         min_table_games: int) -> Look:
    """Feed a running compare its new final games and store the result (rules §5.5).

    Its games are the ladder's games above ``after_game`` seating both bots as these entrants; a deal group
    is fed once every game of it is final (done games with a result are fed; failed or not played ones are
    left out), in game-id order, and only whole groups that fit the budget. The state keeps the test's
    sufficient statistics (``acc``), ``through`` (every game of the compare up to this id is fed or left
    out) and ``fed`` (groups fed above it). Status: the verdict when decided; ``budget`` at ``max_games``,
    or when no game is open and less than ``min_table_games`` of the budget is left."""
    state = dict(c.state)
    through = max(c.after_game, int(state.get("through", 0)))
    fed = {tuple(k) for k in state.get("fed", [])}
    want = {c.base_entrant_id, c.candidate_entrant_id}
    groups: dict[tuple[int, int], list] = {}
    for g in store.compares.compare_games(c.ladder_id, (c.base_bot_id, c.candidate_bot_id), through):
        groups.setdefault((g.season_id, g.deal_group), []).append(g)
    test = _test(c)
    new: list[tuple[list[int], list[int]]] = []
    open_games, unfed, cut = 0, [], False
    for key, games in sorted(groups.items(), key=lambda kv: kv[1][0].id):
        if key in fed:
            continue
        seated = [(g, seat_entrants(g.seats, by_version, latest)) for g in games]
        seated = [(g, ids) for g, ids in seated if ids is not None and want <= set(ids)]
        if any(g.status.value not in _FINAL for g in games):
            open_games += sum(g.status.value not in _FINAL for g, _ in seated)
            unfed.append(games[0].id)
            continue
        rated = [(ids, [p for _, _, p in g.seats]) for g, ids in seated
                 if g.status.value == "done" and all(p is not None for _, _, p in g.seats)]
        if cut or test.stats.games + len(new) + len(rated) > c.max_games:
            cut = True
            unfed.append(games[0].id)
            continue
        new.extend(rated)
        fed.add(key)
    top = max((g.id for games in groups.values() for g in games), default=through)
    through = min(unfed) - 1 if unfed else top
    fed = {k for k in fed if any(g.id > through for g in groups.get(k, ()))}
    if not new and c.state.get("acc") and through == state.get("through"):
        return Look(c, c.max_games - c.games - open_games)
    result = test.update(new)
    status = "running"
    if result.stop == "decided":
        status = result.verdict
    elif result.stop == "budget" or cut or (open_games == 0 and c.max_games - result.games < min_table_games):
        status = "budget"
    state.update({"acc": test.stats.to_json(), "through": through, "fed": sorted(fed),
                  "llr_better": result.llr_better, "llr_worse": result.llr_worse, "threshold": result.threshold,
                  "open": open_games})
    low, high = result.interval if result.interval else (None, None)
    store.compares.save_look(c.id, c.games, status=status, games=result.games, difference=result.difference,
                             low=low, high=high, state=state)
    now = store.compares.get_compare(c.id)
    return Look(now, now.max_games - now.games - open_games if now.running else 0)


def feed_record(store, c, fit: MLRatings, played: Mapping[int, int]) -> None:
    """Look at a running compare against a record (rules §5.5): the answer from the ladder's ``fit``
    (``league.ratings.abtest.record_result``), stored when the candidate has played since the last look
    (``games``: its rated games). Status: the verdict when decided; ``budget`` at ``max_games`` undecided."""
    games = played.get(c.candidate_entrant_id, 0)
    if "llr_better" in c.state and games == c.games:
        return
    result = record_result(fit, c.base_entrant_id, c.candidate_entrant_id, c.delta, c.confidence, games,
                           c.max_games)
    status = {"decided": result.verdict, "budget": "budget"}.get(result.stop or "", "running")
    p_better = (fit.p_better(c.candidate_entrant_id, c.base_entrant_id) if result.difference is not None else None)
    state = {**c.state, "llr_better": result.llr_better, "llr_worse": result.llr_worse,
             "threshold": result.threshold, "p_better": p_better,
             "record_games": played.get(c.base_entrant_id, c.state.get("record_games", 0))}
    low, high = result.interval if result.interval else (None, None)
    store.compares.save_look(c.id, c.games, status=status, games=games, difference=result.difference, low=low,
                             high=high, state=state)


def follow(store, c, entrants: Sequence[Any]) -> bool:
    """A compare that follows its candidate's bot (``--auto``, rules §5.5): when that bot's active entrant is
    no longer the compare's candidate (it declared a new version), a compare of the new version against the
    base bot's active entrant (against a record: the same record) starts and follows in its place, and the
    compare it replaces, if still running, ends ``replaced`` (once, whatever the runners). Returns whether the
    candidate was replaced (here or by another runner)."""
    active = {e.bot_id: e for e in entrants if e.active}
    cand = active.get(c.candidate_bot_id)
    base_id = c.base_entrant_id if c.against_record else getattr(active.get(c.base_bot_id), "id", None)
    if cand is None or base_id is None or cand.id == c.candidate_entrant_id or cand.id == base_id:
        return False
    store.compares.create_compare(c.ladder_id, base_id, cand.id, delta=c.delta, confidence=c.confidence,
                                  max_games=c.max_games, follow=True, replaces=c.id,
                                  state={k: c.state[k] for k in ("against", "record_games") if k in c.state})
    return True


def look(store, ladder_id: int, entrants: Sequence[Any], table_sizes: Sequence[int],
         duplicate: bool, fit: Fit | None = None) -> list[Look]:
    """Look at every compare of the ladder that runs or follows its candidate (rules §5.5): start the next
    compare of those following a bot that declared a new version (the one replaced ends ``replaced``), stop
    those whose entrant left (the base of a compare against a record has left already), feed the running
    live ones (:func:`feed`) and answer the running ones against a record from ``fit`` (:func:`feed_record`;
    none is looked at without it). Returns the live compares still running with their budget left."""
    compares = store.compares.list_compares(ladder_id, active=True)
    if not compares:
        return []
    status = {e.id: e for e in entrants}
    by_version, latest = entrant_index(entrants)
    min_games = table_games(min(table_sizes), duplicate)
    running = []
    fitted: tuple[MLRatings, Mapping[int, int]] | None = None
    for c in sorted(compares, key=lambda c: c.id):
        if c.follow and follow(store, c, entrants):
            continue
        sides = (c.candidate_entrant_id,) if c.against_record else (c.base_entrant_id, c.candidate_entrant_id)
        gone = [status[e].label if e in status else f"entrant {e}" for e in sides
                if e not in status or not status[e].active]
        if c.running and gone:
            store.compares.save_look(c.id, c.games, status="stopped", games=c.games, difference=c.difference,
                                     low=c.low, high=c.high,
                                     state={**c.state, "why": f"{', '.join(gone)} left the ladder (retired, or a "
                                                              "new version)"})
        elif c.running and c.against_record:
            if fit is not None:
                fitted = fitted or fit()
                feed_record(store, c, *fitted)
        elif c.running:
            seen = feed(store, c, by_version, latest, min_games)
            if seen.compare.running:
                running.append(seen)
    return running


# ------------------------------------------------------------------ the tables


def compare_table(base: int, candidate: int, candidates: Sequence[Entrant], sizes: Sequence[int],
                  state: MatchState, rng: random.Random, left: int, duplicate: bool) -> list[int] | None:
    """A table seating both ``base`` and ``candidate`` (entrant ids) and other entrants of ``candidates`` (those
    with room now), in seat order (rules §5.5), or None when either version has no room or the budget ``left``
    (games) cannot take a table. Its size is drawn from ``sizes``; the other seats are the matchmaker's choice of
    a table of the remaining size (``league.competition.matchmaking.choose_table``: its rules for who plays next), or for a
    single seat the entrant with the fewest seats so far (ties by the seeded draw); the seats are assigned by
    ``league.competition.matchmaking.seat_order``."""
    ids = {e.id for e in candidates}
    if base not in ids or candidate not in ids:
        return None
    fits = [s for s in sizes if 2 <= s <= len(ids) and table_games(s, duplicate) <= left]
    if not fits:
        return None
    size = rng.choice(fits)
    others = [e for e in candidates if e.id not in (base, candidate)]
    if size - 2 >= 2:
        extra = choose_table(others, size - 2, state, rng)
        if extra is None:
            return None
    elif size - 2 == 1:
        draw = {e.id: rng.random() for e in others}
        extra = [min(others, key=lambda e: (state.played[e.id], draw[e.id])).id]
    else:
        extra = []
    return seat_order([base, candidate, *extra], state, rng)


@dataclass
class ComparePlanner:
    """The compare tables of one refill (rules §5.5): asked for every table the refill adds, it gives one to
    the running compares in turn while they hold fewer than :data:`COMPARE_SHARE` of the tables asked for
    (None: the matchmaker chooses that table)."""

    running: list[Look] = field(default_factory=list)
    duplicate: bool = False
    share: float = COMPARE_SHARE
    asked: int = 0
    made: int = 0
    _turn: int = 0
    _left: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._left = {look.compare.id: look.left for look in self.running}

    def table(self, candidates: Sequence[Entrant], sizes: Sequence[int], state: MatchState,
              rng: random.Random) -> list[int] | None:
        """The next compare table (entrant ids in seat order), or None."""
        self.asked += 1
        if not self.running or self.made >= math.ceil(self.share * self.asked):
            return None
        for k in range(len(self.running)):
            i = (self._turn + k) % len(self.running)
            c = self.running[i].compare
            table = compare_table(c.base_entrant_id, c.candidate_entrant_id, candidates, sizes, state, rng,
                                  self._left[c.id], self.duplicate)
            if table is not None:
                self._turn, self.made = i + 1, self.made + 1
                self._left[c.id] -= table_games(len(table), self.duplicate)
                return table
        return None


def plan(store, ladder_id: int, entrants: Sequence[Any], settings, fit: Fit | None = None) -> ComparePlanner:
    """Look at the ladder's compares (:func:`look`; ``fit`` for those against a record) and plan this refill's
    compare tables: the refill's hook (``league.competition.ladder.LadderRunner.refill``); ``settings`` a
    ``league.competition.ladder.LadderSettings``."""
    return ComparePlanner(look(store, ladder_id, entrants, settings.table_sizes, settings.duplicate, fit),
                          settings.duplicate)
