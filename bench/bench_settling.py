"""Settled standings on simulated seasons: games used and how often the top of the table is in the wrong order.

Usage: python -m bench.bench_settling [--seasons N] [--seed S] [--top K] [--luck SD] [--known F] [--sam N]
       [--copies N] [--copies-max G] [--only-copies]

The seasons are those of ``bench.bench_rating_coverage`` (bots of known ratings
``TRUE_ELO``, each game a Plackett-Luce race, rated by ``league.ratings.ratings_ml``),
scheduled by the league's own scheduler (``league.competition.schedule.build_schedule``,
tables of 3 and 4 in rotation groups) and with the luck of the deal added: in
every game the seat in position p gets ``luck_p ~ N(0, SD)`` logits on top of
its bot's rating, a share ``F`` of whose variance is the luck the referee can
see (Slippery Sam: the turned cards, ``league.ratings.luck``). Four kinds of season:

- **fixed**: a fixed number of games, fresh luck in every game;
- **duplicate**: every rotation of a table has the same deal, so the same luck
  per seat position, and every bot of the table gets every position's luck once;
- **luck-adjusted**: the luck the referee sees is taken out of every result;
- **sequential**: fixed-style games in batches of rotation groups, stopped by
  ``league.ratings.settling`` (the three-hypothesis test per adjacent pair, with an
  indifference zone: higher, lower or within the zone) when the top K rows are
  settled, or at their budget (``SEQUENTIAL``: 240 or 480 games; zones of 30, 50
  and 80 Elo points).

Then **seasons with two copies of one bot** (``--copies`` seasons of each, real
games of the rules engine in-process, seats from the league's scheduler, looks
every 4 rotation groups, zone 50 Elo, 95%, budget ``--copies-max``): Svara (tables
of 3; ``points``, a copy of it, ``points`` with thresholds 3 higher, ``random``;
top 3) and Slippery Sam (tables of 4, 1 orbit; ``odds``, a copy, ``random`` twice;
top 2). Printed per season: the games used and the verdicts with the
three-hypothesis test, and where the two-hypothesis test of ``+delta`` against
``-delta`` (the rule before it) would have stopped and in which order it put the copies.

Then, on real Slippery Sam games (the rules engine, no referee or RPC; ``--sam``
games per match, 4 seats, 1 orbit, bots A B A B): the games needed to separate two bots
(the 95% interval of A's mean token change less B's excludes zero:
``(1.96 sd / mean)^2`` games), from the actual changes and from the luck-adjusted ones.

Printed per kind and length: the mean games used, how often the top K rows are not
in their true order ("top K wrong": some adjacent pair of them the wrong way round), and, of the adjacent pairs of
the top K shown as settled (P(better) at least the confidence; for sequential
seasons, the pairs at a settled stop), how many are in the wrong order. For each sequential
season, the games of the fixed season whose top K are wrong as often (linear between the
fixed lengths measured) and the share of them the sequential season used.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass

from botsdk.bot import Context
from league.competition.schedule import build_schedule
from league.integrity.fairness import key_from_seed
from league.ratings.ratings_ml import ANCHOR, SCALE, fit_bradley_terry, p_better_chain
from league.ratings.settling import SettlingRule, StopReason, look, verdicts
from referee.engine import places as places_of
from referee.games import make_params, spec
from referee.games.slippery_sam.bots import odds_policy, random_action
from referee.games.slippery_sam.luck import events_luck
from referee.games.svara.bots import PointsBot
from referee.games.svara.bots import random_action as svara_random
from referee.playout import Playout, Policy
from tests.test_ratings_ml import TRUE_ELO

LENGTHS = (60, 120, 180, 240, 300, 360, 480)
SIZES = (3, 4)
#: sequential seasons tried: (max games, rotation groups per batch, indifference zone in Elo points)
SEQUENTIAL = ((480, 4, 50.0), (480, 16, 50.0), (480, 4, 80.0), (480, 4, 30.0), (240, 4, 50.0))

Game = tuple[list[int], list[int]]


@dataclass
class Tally:
    """Totals over the simulated seasons of one kind."""

    seasons: int = 0
    games: int = 0
    top_wrong: int = 0
    settled_pairs: int = 0
    settled_wrong: int = 0
    budget_stops: int = 0

    def row(self, name: str) -> str:
        pairs = f"{self.settled_wrong}/{self.settled_pairs} ({100 * self.settled_wrong / self.settled_pairs:.1f}%)" \
            if self.settled_pairs else "0/0"
        extra = f"  stopped at the budget: {self.budget_stops}/{self.seasons}" if self.budget_stops else ""
        return (f"{name:<28} {self.games / self.seasons:8.1f} {100 * self.top_wrong / self.seasons:11.1f}%  "
                f"{pairs:>18}{extra}")


def race(rng: random.Random, strengths: list[float]) -> list[int]:
    """Places (1 = first) of a Plackett-Luce race of the given strengths (logits)."""
    times = [rng.expovariate(math.exp(s)) for s in strengths]
    order = sorted(range(len(strengths)), key=lambda i: times[i])
    places = [0] * len(strengths)
    for place, i in enumerate(order, start=1):
        places[i] = place
    return places


def play_season(rng: random.Random, elo: list[float], games: int, kind: str, luck_sd: float, known: float,
                schedule_seed: int) -> list[list[Game]]:
    """The season's games grouped by rotation group; ``kind`` is fixed, duplicate or adjusted."""
    theta = [(e - ANCHOR) / SCALE for e in elo]
    schedule = build_schedule(list(range(len(elo))), list(SIZES), games, key_from_seed(schedule_seed),
                              duplicate=kind == "duplicate")
    groups: list[list[Game]] = []
    seen_luck: list[float] = []
    hidden_luck: list[float] = []
    for g in schedule:
        seats = list(g.seats)
        new_group = not groups or len(groups[-1]) == len(groups[-1][0][0])
        if new_group:
            groups.append([])
        if kind != "duplicate" or new_group:
            seen_luck = [rng.gauss(0, luck_sd * math.sqrt(known)) for _ in seats]
            hidden_luck = [rng.gauss(0, luck_sd * math.sqrt(1 - known)) for _ in seats]
        strengths = [theta[b] + hidden_luck[p] + (0.0 if kind == "adjusted" else seen_luck[p]) for p, b in enumerate(seats)]
        groups[-1].append((seats, race(rng, strengths)))
    return groups


def judge(games: list[Game], truth: list[int], top: int) -> tuple[bool, list[tuple[float, bool]]]:
    """Whether the fitted top ``top`` rows are wrong, and for each adjacent top pair (P(better), truly in order)."""
    fit = fit_bradley_terry(games)
    order = sorted(fit.bots, key=lambda b: -fit.rating[b])
    chain = p_better_chain(order, fit)
    pairs = [(chain[order[i]] or 0.5, truth.index(order[i]) < truth.index(order[i + 1])) for i in range(top - 1)]
    return not all(ok for _, ok in pairs), pairs


def sequential(rng: random.Random, elo: list[float], rule: SettlingRule, truth: list[int], luck_sd: float,
               known: float, schedule_seed: int, batch: int) -> tuple[int, bool, list[tuple[float, bool]], StopReason]:
    """One sequential season: games used, top wrong, the top pairs settled in an order at the stop
    (higher or lower; a pair settled within the zone claims no order), why it stopped."""
    groups = play_season(rng, elo, rule.max_games, "fixed", luck_sd, known, schedule_seed)
    played: list[Game] = []
    for start in range(0, len(groups), batch):
        for group in groups[start:start + batch]:
            played.extend(group)
        fit = fit_bradley_terry(played)
        order = sorted(fit.bots, key=lambda b: -fit.rating[b])
        verdict = look(rule, verdicts(rule, played, fit, order), len(played))
        if verdict.stop is not None:
            wrong, pairs = judge(played, truth, rule.top)
            ordered = [pair for pair, v in zip(pairs, verdict.pairs) if v is not None and v.verdict != "within_zone"]
            return len(played), wrong, ordered, verdict.stop
    wrong, pairs = judge(played, truth, rule.top)
    return len(played), wrong, pairs, StopReason.BUDGET


class TightPoints(PointsBot):
    """``points`` with every threshold 3 points higher: folds more, raises and sees less."""

    PLAY = PointsBot.PLAY + 3
    RAISE = PointsBot.RAISE + 3
    SEE_AT = PointsBot.SEE_AT + 3


def _svara(cls: type[PointsBot]):
    def make(seat: int) -> Policy:
        bot = cls()
        return lambda view, rng: bot.svara(view, Context("bench", seat, 0, 0, 0, 0, rng))
    return make


#: the seasons with two copies of one bot: name, game, params, table sizes, top K, bots (name, policy maker)
COPIES = (
    ("Svara, points twice in the top 3", "svara", {}, (3,), 3,
     (("points", _svara(PointsBot)), ("points copy", _svara(PointsBot)), ("tight points", _svara(TightPoints)),
      ("random", lambda seat: svara_random))),
    ("Slippery Sam, odds twice as the top 2", "slippery-sam", {"orbits": 1}, (4,), 2,
     (("odds", odds_policy), ("odds copy", odds_policy), ("random", lambda seat: random_action),
      ("random copy", lambda seat: random_action))),
)


def copies_season(game: str, params: dict, sizes: tuple[int, ...], bots: tuple, rule: SettlingRule, batch: int,
                  seed: int) -> dict:
    """A sequential season of real games (the rules engine in-process, seats and deal seeds from
    ``league.competition.schedule``) looked at every ``batch`` rotation groups. Returns the games used, the stop,
    the verdicts at the stop (``[(upper, lower, verdict)]`` by bot name) and, for the two-hypothesis
    rule of ``+delta`` against ``-delta``, the games at which it would have stopped ("settled" or at the
    budget) and the order of the top rows there."""
    gs = spec(game)
    rules = {n: gs.make_rules(make_params(game, params), n) for n in sizes}
    schedule = build_schedule(list(range(len(bots))), list(sizes), rule.max_games, key_from_seed(seed))
    played: list[Game] = []
    old: tuple[int, list[str]] | None = None
    names = [name for name, _ in bots]
    group_end, groups = 0, 0
    out: dict = {}

    def play_to(end: int) -> None:
        """Play the schedule's games up to ``end`` not played yet, in process, and keep their places."""
        for g in schedule[len(played):end]:
            seats = list(g.seats)
            r = rules[len(seats)]
            state = r.new_state()
            Playout(r, gs, random.Random(g.seed), [bots[b][1](k) for k, b in enumerate(seats)]).play(state)
            played.append((seats, list(places_of([r.rank_key(state, k) for k in range(len(seats))],
                                                 [False] * len(seats)))))
    while group_end < len(schedule):
        for _ in range(batch):
            if group_end >= len(schedule):
                break
            group_end += sizes[groups % len(sizes)]
            groups += 1
        play_to(group_end)
        fit = fit_bradley_terry(played)
        order = sorted(fit.bots, key=lambda b: -fit.rating[b])
        pairs = verdicts(rule, played, fit, order)
        if old is None and all(v is not None and v.llr_two_sided >= rule.bound for v in pairs):
            old = (len(played), [names[b] for b in order[:rule.top]])
        verdict = look(rule, pairs, len(played))
        if verdict.stop is not None or group_end >= len(schedule):
            out = {"games": len(played), "stop": (verdict.stop or StopReason.BUDGET).value,
                   "pairs": [(names[v.a], names[v.b], v.verdict) for v in pairs if v is not None],
                   "order": [names[b] for b in order[:rule.top]]}
            break
    if old is None:  # the old rule never stopped within what was played: go on to the budget
        while group_end < len(schedule):
            group_end = min(len(schedule), group_end + sum(sizes[(groups + i) % len(sizes)] for i in range(batch)))
            groups += batch
            play_to(group_end)
            fit = fit_bradley_terry(played)
            order = sorted(fit.bots, key=lambda b: -fit.rating[b])
            pairs = verdicts(rule, played, fit, order)
            if all(v is not None and v.llr_two_sided >= rule.bound for v in pairs):
                old = (len(played), [names[b] for b in order[:rule.top]])
                break
    out["old"] = old
    return out


def sam_match(games: int, seed: int, policies: list[Policy]) -> tuple[list[float], list[float]]:
    """Per game, A's mean token change less B's (seats 0, 2 against 1, 3): actual, luck-adjusted."""
    gs = spec("slippery-sam")
    rules = gs.make_rules(make_params("slippery-sam", {"orbits": 1}), 4)
    rng = random.Random(seed)
    actual, adjusted = [], []
    playout = Playout(rules, gs, rng, policies)
    for _ in range(games):
        state = rules.new_state()
        playout.play(state)
        change = rules.score_changes(state)
        luck = events_luck(({"kind": e.kind, "data": e.data} for e in state.events), 4)
        diff = lambda x: (x[0] + x[2] - x[1] - x[3]) / 2  # noqa: E731
        actual.append(diff(change))
        adjusted.append(diff([c - lk for c, lk in zip(change, luck)]))
    return actual, adjusted


def games_to_separate(diffs: list[float]) -> float:
    """Games for the 95% interval of the mean difference to exclude zero, ``(1.96 sd / mean)^2``."""
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return (1.959963984540054 ** 2) * var / mean ** 2 if mean else math.inf


def copies(args: argparse.Namespace) -> None:
    """The seasons with two copies of one bot (module docstring)."""
    for title, game, params, sizes, top, bots in COPIES:
        rule = SettlingRule(top, args.confidence, args.copies_max, 50.0)
        print(f"{title}: tables of {'/'.join(map(str, sizes))}, budget {args.copies_max} games, zone 50 Elo, "
              f"{100 * args.confidence:g}%, a look every 4 rotation groups")
        for i in range(args.copies):
            started = time.perf_counter()
            out = copies_season(game, params, sizes, bots, rule, 4, args.seed * 1000 + i)
            pairs = ", ".join(f"{a} {v} {b}" if v != "higher" else f"{a} above {b}" for a, b, v in out["pairs"])
            old = (f"the two-hypothesis rule: settled at {out['old'][0]} games, order {' > '.join(out['old'][1])}"
                   if out["old"] else f"the two-hypothesis rule: budget ({args.copies_max} games)")
            print(f"  season {i}: {out['stop']} after {out['games']} games: {pairs}; {old} "
                  f"({time.perf_counter() - started:.0f} s)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=100, help="simulated seasons per row")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--top", type=int, default=3, help="rows whose order must be right")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--luck", type=float, default=1.0, help="sd of a seat's deal luck, logits")
    parser.add_argument("--known", type=float, default=0.5, help="share of the luck's variance the referee sees")
    parser.add_argument("--sam", type=int, default=400, help="real Slippery Sam games per match (0: none)")
    parser.add_argument("--copies", type=int, default=3, help="seasons of each kind with two copies of one bot (0: none)")
    parser.add_argument("--copies-max", type=int, default=400, help="budget of those seasons, games")
    parser.add_argument("--only-copies", action="store_true", help="only the seasons with two copies of one bot")
    args = parser.parse_args(argv)
    if args.only_copies:
        copies(args)
        return
    elo = list(TRUE_ELO)
    truth = sorted(range(len(elo)), key=lambda b: -elo[b])
    started = time.perf_counter()
    print(f"{len(elo)} bots (true Elo {', '.join(f'{e:.0f}' for e in elo)}), tables of {SIZES}, top {args.top}, "
          f"deal luck sd {args.luck} logits ({100 * args.known:.0f}% seen by the referee), {args.seasons} seasons per row")
    print(f"{'season':<28} {'games':>8} {'top K wrong':>12}  {'settled pairs wrong':>18}")
    fixed_curve: list[tuple[float, float]] = []  # (games, top K wrong rate) of the fixed seasons
    for kind in ("fixed", "duplicate", "adjusted"):
        for games in LENGTHS:
            rng, tally = random.Random(args.seed), Tally()
            for i in range(args.seasons):
                groups = play_season(rng, elo, games, kind, args.luck, args.known, args.seed * 1000 + i)
                played = [g for group in groups for g in group]
                wrong, pairs = judge(played, truth, args.top)
                _count(tally, len(played), wrong, [(p, ok) for p, ok in pairs if p >= args.confidence])
            print(tally.row(f"{'luck-adjusted' if kind == 'adjusted' else kind} {games}"))
            if kind == "fixed":
                fixed_curve.append((tally.games / tally.seasons, tally.top_wrong / tally.seasons))
    for max_games, batch, zone in SEQUENTIAL:
        rule = SettlingRule(args.top, args.confidence, max_games, zone)
        rng, tally = random.Random(args.seed), Tally()
        for i in range(args.seasons):
            used, wrong, pairs, why = sequential(rng, elo, rule, truth, args.luck, args.known, args.seed * 1000 + i, batch)
            _count(tally, used, wrong, pairs if why is StopReason.SETTLED else [])
            tally.budget_stops += why is StopReason.BUDGET
        same = fixed_games_for(fixed_curve, tally.top_wrong / tally.seasons)
        share = f"  {100 * tally.games / tally.seasons / same:.0f}% of the {same:.0f} fixed games as accurate" \
            if same else "  (more accurate than every fixed season)"
        print(tally.row(f"sequential {max_games}, {batch} gr, {zone:g} Elo") + share)
    if args.copies:
        copies(args)
    if args.sam:
        print(f"Slippery Sam, {args.sam} games per match: games needed to separate A from B")
        print(f"{'A against B':<34} {'mean A - B':>10} {'actual':>9} {'luck-adjusted':>14} {'ratio':>6}")
        matches = (("odds against random", [odds_policy(0), random_action, odds_policy(2), random_action]),
                   ("odds against odds at half stake", [odds_policy(0), odds_policy(1, 0.5), odds_policy(2), odds_policy(3, 0.5)]))
        for name, policies in matches:
            actual, adjusted = sam_match(args.sam, args.seed, policies)
            raw, adj = games_to_separate(actual), games_to_separate(adjusted)
            print(f"{name:<34} {sum(actual) / len(actual):+10.1f} {raw:9.1f} {adj:14.1f} {raw / adj:6.1f}")
    print(f"({time.perf_counter() - started:.0f} s)")


def fixed_games_for(curve: list[tuple[float, float]], wrong: float) -> float | None:
    """The games of a fixed season whose top K are wrong at rate ``wrong``: linear between the measured
    lengths ``curve`` ((games, rate), increasing games), the first length at or below it; None below every rate."""
    for (g0, w0), (g1, w1) in zip(curve, curve[1:]):
        if w1 <= wrong <= w0:
            return g1 if w0 == w1 else g0 + (g1 - g0) * (w0 - wrong) / (w0 - w1)
    return curve[0][0] if curve and wrong >= curve[0][1] else None


def _count(tally: Tally, games: int, wrong: bool, settled: list[tuple[float, bool]]) -> None:
    tally.seasons += 1
    tally.games += games
    tally.top_wrong += wrong
    tally.settled_pairs += len(settled)
    tally.settled_wrong += sum(1 for _, ok in settled if not ok)


if __name__ == "__main__":
    main()
