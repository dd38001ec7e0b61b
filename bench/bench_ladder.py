"""Ladder matchmaking on simulated entrants: how fast a new entrant is placed, and the stated bounds.

Usage: python -m bench.bench_ladder placement [--sizes 20,100] [--trials N] [--full] [--seed S]
       python -m bench.bench_ladder coverage [--sizes 20,100] [--games N] [--full] [--seed S]
           [--matchmaker ladder|uniform]
       python -m bench.bench_ladder ab|scale [OPTIONS]   (bench.ladder_ab, bench.ladder_scale)

Entrants have known true ratings (Elo points) and every table of 4 ends in a
Plackett-Luce race: seats finish in the order of draws weighted by
``exp(rating / SCALE)``, so ``P(a ahead of b) = 1 / (1 + 10^((r_b - r_a) / 400))``
at any table (``league.ratings.ratings_ml``). Two matchmakers: ``ladder``, the league's
(``league.competition.matchmaking.choose_table``), and ``uniform``, a table of entrants drawn
uniformly at random among those with room (seated by ``seat_order``).

**placement**: a ladder of ``N - 1`` established entrants, true ratings evenly
spaced over 1000-2000 Elo points and known to the matchmaker with an sd of half
their spacing (a mature ladder), its matchmaking state warmed up by ``4 T``
tables of the ladder's own matchmaker (``T``: ``pair_deadline``); a new entrant
joins with a true rating drawn uniformly from the same range and the ratings
prior (1500, sd 1000). After each of its games its rating is fitted by maximum
likelihood against the others' ratings (the Bradley-Terry likelihood and prior of
``league.ratings.ratings_ml``, the established ratings held at their values; its sd the
larger of the model's and the sandwich's, as there; refitted every game up to 20,
then every 5% of its games). *Placed*: its 95% interval holds at most two of the
others' ratings, i.e. the 95% interval of its rank spans at most three ranks: its
rank is known within +-1. Printed per matchmaker and size: the mean ladder tables
and the new entrant's own games until placed, with 95% bootstrap intervals of the
ladder's mean over uniform's, and how often the true rank was in the rank interval
at placement. The ladder seats the least certain entrant at nearly every table
(the ratio of ladder tables); the ratio of own games is what choosing its
opponents alone gains.

**coverage**: ``--games`` tables of 4 (default 20,000; ``--full`` 100,000) for
ladders of each size; a tenth of the entrants leave and as many new ones join at
a third and at two thirds of the run. Ratings are kept online as the matchmaker
would see them (Elo updates of each pairwise result, K = 16; sd from the
information of the games played). Printed: the worst pair gap (tables between a
pair's meetings, or from when both were active to their first meeting, or to the
end or a departure when they did not meet again) against ``pair_gap_bound`` and
``pair_deadline``; the worst seat gap of an entrant against ``seat_gap_bound``;
the lowest share of tables seated (of an entrant active for at least two seat
bounds) against ``1 / seat_gap_bound`` and the fair ``4 / N``; the widest seat
spread (most minus least held seat of an entrant); and the time per
``choose_table`` call (wall and the process's CPU time, which a busy machine
inflates less). With ``--matchmaker uniform`` the same for uniform tables.
Exit status 1 when the ladder's matchmaker breaks a bound.
"""

from __future__ import annotations

import argparse
import importlib
import copy
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from league.competition.matchmaking import (
    Entrant,
    MatchState,
    choose_table,
    pair,
    pair_deadline,
    pair_gap_bound,
    seat_deadline,
    seat_gap_bound,
    seat_order,
)
from league.ratings.ratings_ml import ANCHOR, PRIOR_SD_ELO, SCALE, Z95

TABLE = 4
LOW, HIGH = 1000.0, 2000.0

Chooser = Callable[[Sequence[Entrant], int, MatchState, random.Random], "list[int] | None"]


def uniform_table(entrants: Sequence[Entrant], size: int, state: MatchState,
                  rng: random.Random) -> list[int] | None:
    """A table of ``size`` entrants with room drawn uniformly at random, seated by ``seat_order``."""
    ready = sorted(e.id for e in entrants if e.room > 0)
    if len(ready) < size:
        return None
    return seat_order(rng.sample(ready, size), state, rng)


MATCHMAKERS: dict[str, Chooser] = {"ladder": choose_table, "uniform": uniform_table}


def race(true: Sequence[float], rng: random.Random) -> list[int]:
    """Places (1 = first) of a Plackett-Luce race between seats of true ratings ``true``."""
    weights = [math.exp((r - ANCHOR) / SCALE) for r in true]
    left = list(range(len(true)))
    places = [0] * len(true)
    for place in range(1, len(true) + 1):
        x = rng.random() * sum(weights[i] for i in left)
        for i in left:
            x -= weights[i]
            if x <= 0:
                break
        places[i] = place
        left.remove(i)
    return places


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


@dataclass
class Newcomer:
    """A new entrant's results against entrants of fixed ratings, and its fit (Elo points)."""

    games: list[list[tuple[float, float]]] = field(default_factory=list)  # per game: (opponent rating, score)
    rating: float = ANCHOR
    sd: float = PRIOR_SD_ELO

    def fit(self) -> None:
        """Maximum likelihood with the ratings prior (Newton); sd the larger of model and sandwich."""
        lam = 1.0 / PRIOR_SD_ELO ** 2
        theta = self.rating
        info = lam
        for _ in range(50):
            grad, info = -(theta - ANCHOR) * lam, lam
            for game in self.games:
                for r, s in game:
                    p = sigmoid((theta - r) / SCALE)
                    grad += (s - p) / SCALE
                    info += p * (1.0 - p) / (SCALE * SCALE)
            step = grad / info
            theta += max(-400.0, min(400.0, step))
            if abs(step) < 1e-6:
                break
        meat = 0.0
        for game in self.games:
            u = sum(s - sigmoid((theta - r) / SCALE) for r, s in game) / SCALE
            meat += u * u
        g = len(self.games)
        meat = meat * (g / (g - 1) if g > 1 else 1.0) + lam
        self.rating = theta
        self.sd = math.sqrt(max(1.0 / info, meat / (info * info)))


def rank_interval(rating: float, sd: float, others: Sequence[float]) -> tuple[int, int]:
    """Ranks (1 = best) the 95% interval ``rating +- 1.96 sd`` spans among ``others``' ratings."""
    lo, hi = rating - Z95 * sd, rating + Z95 * sd
    return 1 + sum(r > hi for r in others), 1 + sum(r > lo for r in others)


@dataclass
class Placement:
    tables: int
    games: int
    placed: bool
    covered: bool


def warm_state(n: int, rng: random.Random) -> tuple[list[Entrant], MatchState]:
    """The established entrants and the ladder's state after ``4 T`` tables among them."""
    spacing = (HIGH - LOW) / (n - 2)
    others = [Entrant(i, LOW + i * spacing, spacing / 2) for i in range(n - 1)]
    state = MatchState()
    for _ in range(4 * pair_deadline(n, TABLE)):
        table = choose_table(others, TABLE, state, rng)
        assert table is not None
        state.record(table)
    return others, state


def place(name: str, others: Sequence[Entrant], state: MatchState, true: float, rng: random.Random,
          max_tables: int) -> Placement:
    """Tables of the ladder until a new entrant of true rating ``true`` is placed (or ``max_tables``)."""
    new_id = max(e.id for e in others) + 1
    ratings = {e.id: e.rating for e in others} | {new_id: true}
    known = [e.rating for e in others]
    newcomer = Newcomer()
    state = copy.deepcopy(state)
    choose = MATCHMAKERS[name]
    tables = 0
    refit_at = 1
    fitted = 0  # the new entrant's games in its current fit
    while tables < max_tables:
        if name == "uniform":  # the new entrant's tables only: a table seats it with chance 4 / N
            p = TABLE / (len(others) + 1)
            tables += 1 + int(math.log(1.0 - rng.random()) / math.log(1.0 - p))
            seats = [new_id, *rng.sample([e.id for e in others], TABLE - 1)]
        else:
            me = Entrant(new_id, newcomer.rating, newcomer.sd, rated_games=fitted)
            seats = choose([*others, me], TABLE, state, rng) or []
            state.record(seats)
            tables += 1
            if new_id not in seats:
                continue
        places = race([ratings[e] for e in seats], rng)
        mine = places[seats.index(new_id)]
        newcomer.games.append([(ratings[e], 1.0 if mine < q else 0.5 if mine == q else 0.0)
                               for e, q in zip(seats, places, strict=True) if e != new_id])
        if len(newcomer.games) >= refit_at:
            newcomer.fit()
            g = fitted = len(newcomer.games)
            refit_at = g + (1 if g < 20 else max(1, g // 20))
            lo, hi = rank_interval(newcomer.rating, newcomer.sd, known)
            if hi - lo <= 2:
                true_rank = 1 + sum(r > true for r in known)
                return Placement(tables, len(newcomer.games), True, lo <= true_rank <= hi)
    return Placement(tables, len(newcomer.games), False, False)


def ratio_interval(a: Sequence[float], b: Sequence[float], rng: random.Random,
                   rounds: int = 2000) -> tuple[float, float, float]:
    """``mean(a) / mean(b)`` and its 95% bootstrap interval (each sample resampled on its own)."""
    est = statistics.fmean(a) / statistics.fmean(b)
    boot = sorted(statistics.fmean(rng.choices(a, k=len(a))) / statistics.fmean(rng.choices(b, k=len(b)))
                  for _ in range(rounds))
    return est, boot[int(0.025 * rounds)], boot[int(0.975 * rounds) - 1]


def run_placement(args: argparse.Namespace) -> int:
    trials = args.trials or (40 if args.full else 8)
    print(f"placement: tables of {TABLE}, {trials} trials per size and matchmaker; placed = rank known within +-1 "
          "(the 95% rating interval holds at most 2 others' ratings)")
    for n in args.sizes:
        rng = random.Random(f"{args.seed}/placement/{n}")
        others, state = warm_state(n, rng)
        truths = [rng.uniform(LOW, HIGH) for _ in range(trials)]
        results: dict[str, list[Placement]] = {}
        for name in ("ladder", "uniform"):
            started = time.perf_counter()
            results[name] = [place(name, others, state, true, random.Random(f"{args.seed}/{n}/{name}/{t}"),
                                   max_tables=200 * n * n)
                             for t, true in enumerate(truths)]
            got = results[name]
            placed = [r for r in got if r.placed]
            print(f"  N={n:<4} {name:<8} placed {len(placed)}/{len(got)}; ladder tables mean "
                  f"{statistics.fmean(r.tables for r in got):.0f}, its own games mean "
                  f"{statistics.fmean(r.games for r in got):.0f}; true rank in the rank interval "
                  f"{sum(r.covered for r in placed)}/{len(placed)} ({time.perf_counter() - started:.1f} s)")
        boot = random.Random(f"{args.seed}/boot/{n}")
        for what in ("tables", "games"):
            est, lo, hi = ratio_interval([getattr(r, what) for r in results["ladder"]],
                                         [getattr(r, what) for r in results["uniform"]], boot)
            label = "ladder tables" if what == "tables" else "own games"
            print(f"  N={n:<4} ratio ladder/uniform, {label}: {est:.3f} [{lo:.3f}, {hi:.3f}] (target <= 0.40)")
    return 0


@dataclass
class Coverage:
    worst_pair_gap: int = 0
    worst_seat_gap: int = 0
    lowest_share: float = 1.0
    widest_seat_spread: int = 0
    call_ms: list[float] = field(default_factory=list)  # wall time per choose_table call
    call_cpu_ms: list[float] = field(default_factory=list)  # the process's CPU time per call


def run_coverage_one(name: str, n: int, games: int, seed: str) -> Coverage:
    """One ladder of ``n`` entrants over ``games`` tables of 4 with churn (see the module docstring)."""
    rng = random.Random(f"{seed}/world")
    choose = MATCHMAKERS[name]
    mm_rng = random.Random(f"{seed}/matchmaker")
    true: dict[int, float] = {}
    elo: dict[int, float] = {}
    joined: dict[int, int] = {}
    active: list[int] = []
    state = MatchState()
    since: dict[tuple[int, int], int] = {}  # the pair's last meeting, or when both became active
    last_seat: dict[int, int] = {}
    seats_of: dict[int, int] = {}
    out = Coverage()
    next_id = 0

    def join(t: int) -> None:
        nonlocal next_id
        e = next_id
        next_id += 1
        true[e] = rng.uniform(LOW, HIGH)
        elo[e] = ANCHOR
        joined[e] = t
        last_seat[e] = t
        seats_of[e] = 0
        for o in active:
            since[pair(e, o)] = t
        active.append(e)

    def leave(e: int, t: int) -> None:
        active.remove(e)
        out.worst_seat_gap = max(out.worst_seat_gap, t - last_seat[e])
        for o in active:
            out.worst_pair_gap = max(out.worst_pair_gap, t - since.pop(pair(e, o)))
        close_share(e, t)

    def close_share(e: int, t: int) -> None:
        if t - joined[e] >= 2 * seat_gap_bound(n, TABLE):
            out.lowest_share = min(out.lowest_share, seats_of[e] / (t - joined[e]))
        spread = state.seat_counts.get(e)
        if spread:
            counts = [spread[s] for s in range(TABLE)]
            out.widest_seat_spread = max(out.widest_seat_spread, max(counts) - min(counts))

    for _ in range(n):
        join(0)
    churn = {games // 3, 2 * games // 3}
    for t in range(games):
        if t in churn:
            for e in rng.sample(active, max(1, n // 10)):
                leave(e, t)
            for _ in range(max(1, n // 10)):
                join(t)
        entrants = []
        for e in active:
            info = state.played[e] * (TABLE - 1) * 0.25 / (SCALE * SCALE) * 0.5
            entrants.append(Entrant(e, elo[e], 1.0 / math.sqrt(1.0 / PRIOR_SD_ELO ** 2 + info)))
        started, cpu = time.perf_counter(), time.process_time()
        seats = choose(entrants, TABLE, state, mm_rng)
        out.call_cpu_ms.append((time.process_time() - cpu) * 1000.0)
        out.call_ms.append((time.perf_counter() - started) * 1000.0)
        assert seats is not None and len(set(seats)) == TABLE and set(seats) <= set(active)
        assert state.games == t
        state.record(seats)
        for e in seats:
            out.worst_seat_gap = max(out.worst_seat_gap, t - last_seat[e])
            last_seat[e] = t
            seats_of[e] += 1
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                k = pair(a, b)
                out.worst_pair_gap = max(out.worst_pair_gap, t - since[k])
                since[k] = t
        places = race([true[e] for e in seats], rng)
        delta = dict.fromkeys(seats, 0.0)
        for i, a in enumerate(seats):
            for j, b in enumerate(seats):
                if i < j:
                    s = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                    d = 16.0 * (s - sigmoid((elo[a] - elo[b]) / SCALE))
                    delta[a] += d
                    delta[b] -= d
        for e, d in delta.items():
            elo[e] += d
    for e in active:
        out.worst_seat_gap = max(out.worst_seat_gap, games - last_seat[e])
        close_share(e, games)
    for t in since.values():
        out.worst_pair_gap = max(out.worst_pair_gap, games - t)
    return out


def run_coverage(args: argparse.Namespace) -> int:
    games = args.games or (100_000 if args.full else 20_000)
    print(f"coverage: {games} tables of {TABLE}, matchmaker {args.matchmaker}; a tenth of the entrants leave "
          "and as many join at 1/3 and 2/3 of the run")
    broken = False
    for n in args.sizes:
        started = time.perf_counter()
        got = run_coverage_one(args.matchmaker, n, games, f"{args.seed}/coverage/{n}")
        churned = n + max(1, n // 10)  # entrants given over an interval that spans one churn
        pb, sb = pair_gap_bound(churned, TABLE), seat_gap_bound(churned, TABLE)
        share_bound = 1.0 / sb
        ms, cpu = sorted(got.call_ms), sorted(got.call_cpu_ms)
        print(f"  N={n:<4} worst pair gap {got.worst_pair_gap} tables (bound {pb}; T = {pair_deadline(n, TABLE)}, "
              f"ratio {got.worst_pair_gap / pb:.2f}); worst seat gap {got.worst_seat_gap} (bound {sb}; "
              f"W = {seat_deadline(n, TABLE)})")
        print(f"  N={n:<4} lowest share {got.lowest_share:.4f} of tables (bound {share_bound:.4f}, fair "
              f"{TABLE / n:.4f}: {got.lowest_share * n / TABLE:.2f} of fair); widest seat spread "
              f"{got.widest_seat_spread}; choose_table median {ms[len(ms) // 2]:.2f} ms, mean "
              f"{statistics.fmean(ms):.2f} ms, p99 {ms[int(0.99 * len(ms))]:.2f} ms; CPU time median "
              f"{cpu[len(cpu) // 2]:.2f} ms, mean {statistics.fmean(cpu):.2f} ms, p99 {cpu[int(0.99 * len(cpu))]:.2f} ms "
              f"({time.perf_counter() - started:.0f} s)")
        if args.matchmaker == "ladder":
            broken |= got.worst_pair_gap > pb or got.worst_seat_gap > sb or got.lowest_share < share_bound
    if broken:
        print("a bound was broken")
    return 1 if broken else 0


def sizes(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes are whole numbers separated by commas, got {text!r}") from None
    if not out or min(out) < TABLE + 1:
        raise argparse.ArgumentTypeError(f"each size must be at least {TABLE + 1}, got {text!r}")
    return out


#: The ladder's other benchmarks, run as subcommands of this one: (subcommand, module of ``bench``, what it measures).
PARTS = (
    ("ab", "ladder_ab", "version A/B on simulated versions: right answers and games used"),
    ("scale", "ladder_scale", "the incremental Bradley-Terry refit at a million games, in memory"),
)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the command line) and run the subcommand; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for name, module, _ in PARTS:
        if argv[:1] == [name]:  # its own options, --help included, go to it whole
            return int(importlib.import_module(f"bench.{module}").main(argv[1:]))
    parser = argparse.ArgumentParser(prog="python -m bench.bench_ladder", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("placement", help="games until a new entrant's rank is known within +-1")
    p.add_argument("--sizes", type=sizes, default=[20, 100], help="ladder sizes (entrants, the new one included)")
    p.add_argument("--trials", type=int, default=0, help="new entrants per size and matchmaker (default 8; 40 --full)")
    p.add_argument("--full", action="store_true", help="the longer run")
    p.add_argument("--seed", default="1")
    p.set_defaults(run=run_placement)
    c = commands.add_parser("coverage", help="pair gaps, seat gaps and shares against the stated bounds")
    c.add_argument("--sizes", type=sizes, default=[20, 100], help="ladder sizes (entrants)")
    c.add_argument("--games", type=int, default=0, help="tables per ladder (default 20,000; 100,000 --full)")
    c.add_argument("--full", action="store_true", help="the longer run")
    c.add_argument("--matchmaker", choices=sorted(MATCHMAKERS), default="ladder")
    c.add_argument("--seed", default="1")
    c.set_defaults(run=run_coverage)
    for name, module, what in PARTS:
        commands.add_parser(name, help=f"{what} (options: python -m bench.bench_ladder {name} --help)")
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
