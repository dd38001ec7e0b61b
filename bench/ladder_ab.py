"""Version A/B on simulated ladders: how often the sequential test answers right, and the games it uses.

Usage: python -m bench.ladder_ab [--trials N] [--seats K] [--zone ELO] [--confidence C] [--luck SD]
       [--batch G] [--max-games G] [--seed S]

Entrants of known strength: the old version at 1500 Elo, the new one ``gap``
Elo above it (0 and +-50), and 6 other entrants at 1350-1650. Elo is a measure of
results: a gap of 50 means the new version finishes ahead of the old one with the
chance a 50-Elo gap gives (57.1%). The luck of the deal dilutes a difference of
skill, so the versions' strengths (logits) are set apart by the gap that, with the
luck added, gives that chance (:func:`strength_gap`: 69 Elo of strength for 50 of
results at the default luck; a simulation without that would test versions about
36 Elo apart in results). Every table seats
both versions and ``K - 2`` other entrants drawn at random; a game's places are a
Plackett-Luce race (``bench.bench_settling.race``) of each seat's strength plus
the luck of its deal, ``N(0, SD)`` logits per seat position. Two ways to deal:

- **separate deals**: fresh luck in every game;
- **duplicate**: a table is played ``K`` times on one deal, rotated so that every
  entrant holds every seat position once: the same luck per position in the
  ``K`` games (so the luck that favoured the old version in one rotation
  favours the new one in another).

``league.ratings.abtest.ABTest`` (zone 50 Elo, confidence 0.975: its defaults) is fed
``--batch`` games at a time (whole tables of ``K`` rotations when duplicate) and
stops at its answer, or at ``--max-games`` ("open"). Printed per gap and dealing: the answers' shares and the games used (median, 90th percentile).
Targets (issue 26): 50 Elo apart decided the right way in at least 95% of trials;
equal versions "within the zone" in at least 90%.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Sequence

from bench.bench_settling import race
from league.ratings.abtest import ABTest
from league.ratings.ratings_ml import ANCHOR, SCALE, sigmoid

OLD, NEW = 0, 1
OTHERS = (1350.0, 1410.0, 1470.0, 1530.0, 1590.0, 1650.0)


def ahead(diff: float, luck: float) -> float:
    """The chance that a seat of strength ``diff`` logits above another finishes ahead of it when each
    seat's strength gets the luck ``N(0, luck^2)``: ``E[sigmoid(diff + luck sqrt(2) Z)]`` (trapezoid rule)."""
    if luck == 0:
        return sigmoid(diff)
    steps, width = 1600, 8.0
    total = 0.0
    for k in range(steps + 1):
        z = -width + 2 * width * k / steps
        w = 0.5 if k in (0, steps) else 1.0
        total += w * math.exp(-z * z / 2) * sigmoid(diff + luck * math.sqrt(2) * z)
    return total * (2 * width / steps) / math.sqrt(2 * math.pi)


def strength_gap(gap_elo: float, luck: float) -> float:
    """The strength difference (logits) whose chance of finishing ahead, luck included (:func:`ahead`),
    is that of ``gap_elo`` Elo points of results: bisection."""
    target = sigmoid(gap_elo / SCALE)
    low, high = -20.0, 20.0
    for _ in range(80):
        mid = (low + high) / 2
        low, high = (mid, high) if ahead(mid, luck) < target else (low, mid)
    return (low + high) / 2


def trial(rng: random.Random, gap: float, seats: int, duplicate: bool, args: argparse.Namespace) -> tuple[str, int]:
    """One A/B test: its answer and the games it used."""
    theta = [(e - ANCHOR) / SCALE for e in (1500.0, 1500.0, *OTHERS)]
    theta[NEW] += strength_gap(gap, args.luck)
    test = ABTest(OLD, NEW, args.zone, args.confidence, args.max_games)
    while True:
        batch = []
        for _ in range(max(1, args.batch // seats) if duplicate else args.batch):
            table = [OLD, NEW, *rng.sample(range(2, len(theta)), seats - 2)]
            rng.shuffle(table)
            if duplicate:
                luck = [rng.gauss(0.0, args.luck) for _ in range(seats)]
                for shift in range(seats):
                    rotated = table[shift:] + table[:shift]
                    batch.append((rotated, race(rng, [theta[b] + luck[p] for p, b in enumerate(rotated)])))
            else:
                batch.append((table, race(rng, [theta[b] + rng.gauss(0.0, args.luck) for b in table])))
        result = test.update(batch)
        if result.stop is not None:
            return result.verdict, result.games


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.ladder_ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=200, help="A/B tests per row")
    parser.add_argument("--seats", type=int, default=4, help="seats per table, 3-8")
    parser.add_argument("--zone", type=float, default=50.0, help="the indifference zone, Elo points")
    parser.add_argument("--confidence", type=float, default=0.975)
    parser.add_argument("--luck", type=float, default=1.0, help="sd of a seat's deal luck, logits")
    parser.add_argument("--batch", type=int, default=16,
                        help="games between looks (duplicate: that many games' worth of whole tables, at least one)")
    parser.add_argument("--max-games", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=50)
    args = parser.parse_args(argv)
    if not 3 <= args.seats <= 8 or args.trials < 1 or args.batch < 1:
        parser.error("--seats must be 3-8, --trials and --batch at least 1")
    print(f"old version 1500 Elo, new 1500 + gap, others {', '.join(f'{e:.0f}' for e in OTHERS)}; tables of "
          f"{args.seats}; deal luck sd {args.luck} logits; zone {args.zone:g} Elo at {100 * args.confidence:g}%; "
          f"a look every {args.batch} games; {args.trials} trials per row; a gap of 50 Elo of results is "
          f"{SCALE * strength_gap(50.0, args.luck):.0f} of strength")
    print(f"{'gap':>5} {'dealing':<16} {'better':>7} {'worse':>7} {'within':>7} {'open':>6} "
          f"{'right':>7} {'games median':>13} {'90th pct':>9}")
    for duplicate in (False, True):
        for gap in (50.0, 0.0, -50.0):
            rng = random.Random(args.seed + int(gap) + 1000 * duplicate)
            started = time.perf_counter()
            results = [trial(rng, gap, args.seats, duplicate, args) for _ in range(args.trials)]
            count = {k: sum(1 for v, _ in results if v == k) for k in ("better", "worse", "within_zone", "open")}
            right = {50.0: "better", 0.0: "within_zone", -50.0: "worse"}[gap]
            used = sorted(g for _, g in results)
            p90 = used[min(len(used) - 1, math.ceil(0.9 * len(used)) - 1)]
            share = lambda k: f"{100 * count[k] / args.trials:6.1f}%"  # noqa: E731
            print(f"{gap:+5.0f} {'duplicate' if duplicate else 'separate deals':<16} {share('better')} "
                  f"{share('worse')} {share('within_zone')} {100 * count['open'] / args.trials:5.1f}% "
                  f"{100 * count[right] / args.trials:6.1f}% {statistics.median(used):13.0f} {p90:9d}"
                  f"  ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
