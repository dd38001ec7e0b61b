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
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from league.competition.entrants import entrant_index, seat_entrants
from league.competition.matchmaking import Entrant, MatchState, choose_table, seat_order
from league.ratings.abtest import CONFIDENCE, ABTest
from league.ratings.bt_incremental import BTAccumulator

#: The largest share of a refill's tables given to running compares (the rest are the matchmaker's).
COMPARE_SHARE = 0.5
#: Defaults of ``ladder compare``: the indifference zone (Elo points) and the most games a compare uses.
DELTA = 50.0
MAX_GAMES = 5000
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


def resolve_entrant(store, ladder, entrants: Sequence[Any], text: str):
    """The active entrant (``store.ladders.EntrantInfo``) of ``BOT[@VERSION]`` in ``ladder``. Raises
    CompareError when the bot is unknown, retired, not registered for the ladder's game, or declares another
    version now (an endpoint serves one version at a time: the other version is another registered bot)."""
    name, version = parse_entrant(text)
    bot = store.bots.get_bot_by_name(name)
    if bot is None:
        raise CompareError(f"no bot named {name!r} (see: cardarena bot list)")
    if bot.retired_at is not None:
        raise CompareError(f"bot {name!r} is retired: it no longer plays in the ladder")
    if version is not None and version != bot.version:
        raise CompareError(f"bot {name!r} serves version {bot.version} now, not {version}: an endpoint serves one "
                           f"version at a time; register the other version as a bot of its own "
                           f"(cardarena bot register {name}-next ...) and compare the two")
    entrant = next((e for e in entrants if e.bot_id == bot.id and e.version == bot.version and e.active), None)
    if entrant is None:
        raise CompareError(f"bot {name!r} is not an entrant of ladder {ladder.name!r}: it is not registered for "
                           f"{ladder.game}")
    return entrant


def start_compare(store, ladder_id: int, base: str, candidate: str, *, delta: float = DELTA,
                  confidence: float = CONFIDENCE, max_games: int = MAX_GAMES, follow: bool = False) -> int:
    """Start a compare of ``candidate`` against ``base`` (each ``BOT`` or ``BOT@VERSION``, rules §5.5) in the
    ladder; its games are those the ladder adds from now on. ``follow``: when the candidate's bot declares a
    new version, a compare of that version against the base bot's version of that moment starts by itself.
    Returns the compare's id. Raises CompareError (one line, nothing written) for an unknown ladder or bot, a
    version not served now, one entrant named twice, or settings out of range (``league.ratings.abtest.ABTest``)."""
    ladder = store.ladders.get_ladder(ladder_id)
    if ladder is None:
        raise CompareError(f"no ladder with id {ladder_id}")
    entrants = store.ladders.sync_entrants(ladder_id)
    old = resolve_entrant(store, ladder, entrants, base)
    new = resolve_entrant(store, ladder, entrants, candidate)
    if old.id == new.id:
        raise CompareError(f"{old.label} is named twice: a compare needs two different entrants")
    try:
        ABTest(old=old.id, new=new.id, delta=delta, confidence=confidence, max_games=max_games)
    except ValueError as exc:
        raise CompareError(str(exc)) from None
    return store.compares.create_compare(ladder_id, old.id, new.id, delta=delta, confidence=confidence,
                                         max_games=max_games, follow=follow)


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


def follow(store, c, entrants: Sequence[Any]) -> None:
    """A compare that follows its candidate's bot (``--auto``, rules §5.5): when that bot's active entrant is
    no longer the compare's candidate (it declared a new version), a compare of the new version against the
    base bot's active entrant starts and follows in its place (once, whatever the runners)."""
    active = {e.bot_id: e for e in entrants if e.active}
    cand, base = active.get(c.candidate_bot_id), active.get(c.base_bot_id)
    if cand is None or base is None or cand.id == c.candidate_entrant_id or cand.id == base.id:
        return
    store.compares.create_compare(c.ladder_id, base.id, cand.id, delta=c.delta, confidence=c.confidence,
                                  max_games=c.max_games, follow=True, replaces=c.id)


def look(store, ladder_id: int, entrants: Sequence[Any], table_sizes: Sequence[int],
         duplicate: bool) -> list[Look]:
    """Look at every compare of the ladder that runs or follows its candidate (rules §5.5): stop those whose
    entrant left, start the next compare of those following a bot that declared a new version, feed the
    running ones (:func:`feed`). Returns the compares still running with their budget left."""
    compares = store.compares.list_compares(ladder_id, active=True)
    if not compares:
        return []
    status = {e.id: e for e in entrants}
    by_version, latest = entrant_index(entrants)
    min_games = table_games(min(table_sizes), duplicate)
    running = []
    for c in sorted(compares, key=lambda c: c.id):
        gone = [status[e].label for e in (c.base_entrant_id, c.candidate_entrant_id)
                if e not in status or not status[e].active]
        if c.running and gone:
            store.compares.save_look(c.id, c.games, status="stopped", games=c.games, difference=c.difference,
                                     low=c.low, high=c.high,
                                     state={**c.state, "why": f"{', '.join(gone)} left the ladder (a new version "
                                                              "or retired)"})
        if c.follow:
            follow(store, c, entrants)
        if c.running and not gone:
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


def plan(store, ladder_id: int, entrants: Sequence[Any], settings) -> ComparePlanner:
    """Look at the ladder's compares (:func:`look`) and plan this refill's compare tables: the refill's hook
    (``league.competition.ladder.LadderRunner.refill``); ``settings`` a ``league.competition.ladder.LadderSettings``."""
    return ComparePlanner(look(store, ladder_id, entrants, settings.table_sizes, settings.duplicate),
                          settings.duplicate)
