"""Settled standings on simulated seasons: games used and how often the top of the table is in the wrong order.

Usage: python -m bench.bench_settling [--seasons N] [--seed S] [--top K] [--luck SD] [--known F]

The seasons are those of ``bench.bench_rating_coverage`` (bots of known ratings
``TRUE_ELO``, each game a Plackett-Luce race, rated by ``league.ratings_ml``),
scheduled by the league's own scheduler (``league.schedule.build_schedule``,
tables of 3 and 4 in rotation groups) and with the luck of the deal added: in
every game the seat in position p gets ``luck_p ~ N(0, SD)`` logits on top of
its bot's rating, a share ``F`` of whose variance is the luck the referee can
see (Slippery Sam: the turned cards, ``league.luck``). Four kinds of season:

- **fixed**: a fixed number of games, fresh luck in every game;
- **duplicate**: every rotation of a table has the same deal, so the same luck
  per seat position, and every bot of the table gets every position's luck once;
- **luck-adjusted**: the luck the referee sees is taken out of every result;
- **sequential**: fixed-style games in batches of rotation groups, stopped by
  ``league.settling`` (alpha spending) when the top K rows are settled, or at their
  budget (``SEQUENTIAL``: 240 or 480 games).

Then, on real Slippery Sam games (the rules engine, no referee or RPC; ``--sam``
games per match, 4 seats, 1 orbit, bots A B A B): the games needed to separate two bots
(the 95% interval of A's mean token change less B's excludes zero:
``(1.96 sd / mean)^2`` games), from the actual changes and from the luck-adjusted ones.

Printed per kind and length: the mean games used, how often the top K rows are not
in their true order ("top K wrong": some adjacent pair of them the wrong way round), and, of the adjacent pairs of
the top K shown as settled (P(better) at least the confidence; for sequential
seasons, the pairs at a settled stop), how many are in the wrong order.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass

from referee.games.slippery_sam.bots import odds_policy, random_action
from referee.games.slippery_sam.luck import events_luck
from league.ratings_ml import ANCHOR, SCALE, fit_bradley_terry, p_better_chain
from league.schedule import build_schedule
from league.settling import SettlingRule, StopReason, look
from referee import playout
from referee.games import make_params, spec
from referee.playout import Policy
from tests.test_ratings_ml import TRUE_ELO

LENGTHS = (60, 120, 240, 480)
SIZES = (3, 4)
#: sequential seasons tried: (max games, rotation groups per batch)
SEQUENTIAL = ((480, 4), (480, 16), (240, 16))

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
    schedule = build_schedule(list(range(len(elo))), list(SIZES), games, schedule_seed, duplicate=kind == "duplicate")
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
    """One sequential season: games used, top wrong, the top pairs at the stop, why it stopped."""
    groups = play_season(rng, elo, rule.max_games, "fixed", luck_sd, known, schedule_seed)
    played: list[Game] = []
    before = 0
    for start in range(0, len(groups), batch):
        for group in groups[start:start + batch]:
            played.extend(group)
        fit = fit_bradley_terry(played)
        order = sorted(fit.bots, key=lambda b: -fit.rating[b])
        chain = p_better_chain(order, fit)
        now = min(len(played), rule.max_games)
        verdict = look(rule, [chain[b] for b in order], before, now) if now > before else None
        before = now
        if verdict is not None and verdict.stop is not None:
            wrong, pairs = judge(played, truth, rule.top)
            return len(played), wrong, pairs, verdict.stop
    wrong, pairs = judge(played, truth, rule.top)
    return len(played), wrong, pairs, StopReason.BUDGET


def sam_match(games: int, seed: int, policies: list[Policy]) -> tuple[list[float], list[float]]:
    """Per game, A's mean token change less B's (seats 0, 2 against 1, 3): actual, luck-adjusted."""
    gs = spec("slippery-sam")
    rules = gs.make_rules(make_params("slippery-sam", {"orbits": 1}), 4)
    rng = random.Random(seed)
    actual, adjusted = [], []
    for _ in range(games):
        state = rules.new_state()
        while playout.step(rules, gs, state, rng, policies) is not None:
            pass
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=100, help="simulated seasons per row")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--top", type=int, default=3, help="rows whose order must be right")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--luck", type=float, default=1.0, help="sd of a seat's deal luck, logits")
    parser.add_argument("--known", type=float, default=0.5, help="share of the luck's variance the referee sees")
    parser.add_argument("--sam", type=int, default=400, help="real Slippery Sam games per match (0: none)")
    args = parser.parse_args()
    elo = list(TRUE_ELO)
    truth = sorted(range(len(elo)), key=lambda b: -elo[b])
    started = time.perf_counter()
    print(f"{len(elo)} bots (true Elo {', '.join(f'{e:.0f}' for e in elo)}), tables of {SIZES}, top {args.top}, "
          f"deal luck sd {args.luck} logits ({100 * args.known:.0f}% seen by the referee), {args.seasons} seasons per row")
    print(f"{'season':<28} {'games':>8} {'top K wrong':>12}  {'settled pairs wrong':>18}")
    for kind in ("fixed", "duplicate", "adjusted"):
        for games in LENGTHS:
            rng, tally = random.Random(args.seed), Tally()
            for i in range(args.seasons):
                groups = play_season(rng, elo, games, kind, args.luck, args.known, args.seed * 1000 + i)
                played = [g for group in groups for g in group]
                wrong, pairs = judge(played, truth, args.top)
                _count(tally, len(played), wrong, [(p, ok) for p, ok in pairs if p >= args.confidence])
            print(tally.row(f"{'luck-adjusted' if kind == 'adjusted' else kind} {games}"))
    for max_games, batch in SEQUENTIAL:
        rule = SettlingRule(args.top, args.confidence, max_games)
        rng, tally = random.Random(args.seed), Tally()
        for i in range(args.seasons):
            used, wrong, pairs, why = sequential(rng, elo, rule, truth, args.luck, args.known, args.seed * 1000 + i, batch)
            _count(tally, used, wrong, pairs if why is StopReason.SETTLED else [])
            tally.budget_stops += why is StopReason.BUDGET
        print(tally.row(f"sequential {max_games}, {batch} groups"))
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


def _count(tally: Tally, games: int, wrong: bool, settled: list[tuple[float, bool]]) -> None:
    tally.seasons += 1
    tally.games += games
    tally.top_wrong += wrong
    tally.settled_pairs += len(settled)
    tally.settled_wrong += sum(1 for _, ok in settled if not ok)


if __name__ == "__main__":
    main()
