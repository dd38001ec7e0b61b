"""The luck audit (a test martingale per bot, ``league.integrity.eprocess``): false-alarm and detection rates and
its cost; a measurement, not a test.

Usage: python -m bench.bench_luck_audit [--seasons 200] [--games-per-season 96] [--seed S]
                                        [--games slippery-sam,rummy] [--honest-only | --cheats-only]

Each season is played in-process (the rules engine and the referee's per-deal chance streams,
``referee.playout``; no RPC) by 4 bots on tables of 4 (``league.competition.schedule``), and audited as
the standings do: each game's standardised luck terms (``GameSpec.luck_terms``), units in the order the
games became final (here the schedule order), each bot at ``alpha = 1% / 4``. Printed per game:

- **honest**: seasons of 4 honest bots of different strength and style (the ``random`` bot and
  ``bench.bench_audit``'s three honest ones: the reference bot, a weaker one and one that plays a share
  of its decisions at random); the share of seasons with any flag (target <= 1%), and the largest wealth;
- **seed predictor**: the reference bot that knows every chance card of its games (it re-derives the
  referee's per-deal shuffles from the game's seed, ``referee.chance``: what a leaked key or a predicted
  seed gives), in a season with the three honest ones; the share of seasons it is flagged in, and after
  how many games;
- **remembering** (duplicate seasons): ``bench.bench_audit``'s bot that remembers the cards of earlier
  rotations of a deal; the share of seasons it is flagged in by the luck audit alone.

Also printed: the luck audit's CPU per game (terms from the record's events plus the e-process) against the
CPU of playing the game (the rules engine and the bots, in-process), on the honest seasons' games.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cardarena.v1 import rummy_pb2, slippery_sam_pb2

from bench.bench_audit import MATCHES, BySeat, Player, bench_context, honest_opponents
from bench.bench_duplicate import bot_policy
from league.competition.schedule import ScheduledGame, build_schedule
from league.integrity.eprocess import luck_audit, season_alpha, units_of
from league.integrity.fairness import key_from_seed
from referee.chance import PER_DEAL, Chance, sample_all, stream_seed
from referee.games import make_params, spec
from referee.games.rummy.bots import GreedyBot, deficiency
from referee.games.rummy.rules import HAND_SIZES
from referee.games.rummy.rules import deck as rummy_deck
from referee.games.slippery_sam.bots import OddsBot
from referee.games.slippery_sam.rules import PACK, beats
from referee.playout import Playout

BOTS = 4


@dataclass
class SeedPredictorSam(Player):
    """``odds`` that knows the game's seed, so every deal's shuffle (``referee.chance``: deal n of a game
    of seed s is ``sample_all(Random(stream_seed(s, "deal", n)), PACK)``): it finds its deal by its hand and
    the cards turned so far, and bets the most it may when its hand beats the next stack card, else 1
    token (rules §1.5). ``known``: bets placed knowing the card."""

    known: int = 0
    deals: int = 64

    def policy(self, seat: int, game: ScheduledGame) -> Any:
        bot = OddsBot()
        orders: list[list[str]] = []

        def decide(view: Any, rng: random.Random) -> Any:
            honest = bot.slippery_sam(view, bench_context(seat, rng))
            if view.decision != slippery_sam_pb2.SLIPPERY_SAM_DECISION_BET:
                return honest
            if not orders:
                orders.extend(sample_all(random.Random(stream_seed(game.seed, "deal", n)), PACK)
                              for n in range(self.deals))
            card = next_stack_card(orders, set(view.hand), list(view.turned))
            if card is None:
                return honest
            self.known += 1
            amount = view.max_amount if beats(list(view.hand), card) else view.min_amount
            return slippery_sam_pb2.SlipperySamAction(amount=amount)

        return decide


def next_stack_card(orders: Sequence[Sequence[str]], hand: set[str], turned: Sequence[str]) -> str | None:
    """The next stack card of the deal among ``orders`` (shuffles, top first) that dealt ``hand`` to one of
    ``k`` players (cards ``i, i+k, i+2k``; rules §1.4) with ``turned`` on top of its stack; None if none fits."""
    for order in orders:
        for k in range(1, 8):
            for i in range(k):
                if {order[i], order[i + k], order[i + 2 * k]} == hand:
                    stack = order[3 * k:]
                    if list(stack[:len(turned)]) == list(turned) and len(turned) < len(stack):
                        return stack[len(turned)]
    return None


@dataclass
class SeedPredictorRummy(Player):
    """``greedy`` that knows the game's seed, so every round's deal (``referee.chance``: round r is shuffle
    r - 1 of the ``deal`` stream; rules §3.3: the hands, the upcard, then the stock): at a draw with a live
    discard it knows the stock card it would draw (the one after the penalty card when a seat called take
    it, rules §3.5) until the first rebuild (rules §3.12), and takes it when it brings the hand closer to
    the contract (``deficiency``), else the discard. ``known``: draws made knowing the card."""

    known: int = 0

    def policy(self, seat: int, game: ScheduledGame) -> Any:
        bot = GreedyBot()
        stocks: dict[int, list[str]] = {}
        last: dict[int, int] = {}  # round -> stock size last seen (a rebuild makes it grow)
        rebuilt: set[int] = set()

        def decide(view: Any, rng: random.Random) -> Any:
            rnd = view.round
            if view.stock_size > last.get(rnd, 10 ** 6):
                rebuilt.add(rnd)
            last[rnd] = view.stock_size
            if (view.decision != rummy_pb2.RUMMY_DECISION_DRAW or not view.discard_live or rnd in rebuilt
                    or view.stock_size == 0):
                return bot.rummy(view, bench_context(seat, rng))
            if rnd not in stocks:
                seats = len(view.hand_sizes)
                order = sample_all(random.Random(stream_seed(game.seed, "deal", rnd - 1)),
                                   rummy_deck(4 if seats <= 4 else 6))
                stocks[rnd] = order[seats * HAND_SIZES[rnd] + 1:]
            stock = stocks[rnd]
            drawn = len(stock) - view.stock_size + (1 if view.callers else 0)
            if not 0 <= drawn < len(stock):
                return bot.rummy(view, bench_context(seat, rng))
            self.known += 1
            hand, sets, runs = list(view.hand), view.contract.sets, view.contract.runs
            good = deficiency([*hand, stock[drawn]], sets, runs) < deficiency(hand, sets, runs)
            return rummy_pb2.RummyAction(draw=rummy_pb2.RUMMY_DRAW_SOURCE_STOCK if good
                                         else rummy_pb2.RUMMY_DRAW_SOURCE_DISCARD_PILE)

        return decide


#: game -> its seed predictor (knows every chance card of its games)
PREDICTORS: dict[str, Callable[[], Player]] = {"slippery-sam": SeedPredictorSam, "rummy": SeedPredictorRummy}


def honest_bots(game: str) -> list[Player]:
    """Four honest bots: ``random`` and ``bench.bench_audit``'s three (reference, weaker, partly random)."""
    return [BySeat(lambda seat: bot_policy("random", game, seat)), *honest_opponents(game)]


@dataclass
class Audited:
    """A simulated season's luck audit: ``flagged`` bots, each bot's largest wealth, the games counted
    when each flagged bot crossed, and the CPU seconds spent playing and auditing."""

    flagged: set[int]
    wealth: list[float]
    crossed: dict[int, int]
    play_s: float
    audit_s: float


def audited_season(game: str, players: Sequence[Player], seed: int, games: int, duplicate: bool) -> Audited:
    """Play a season of ``players`` (bot ids 0..3) and audit it as the standings do."""
    gs = spec(game)
    terms_of = gs.luck_terms
    assert terms_of is not None, f"{game} has no luck terms"
    params, _ = MATCHES[game]
    game_params = make_params(game, params)
    plain = dict(vars(game_params))
    schedule = build_schedule(list(range(len(players))), [BOTS], games, key_from_seed(seed), duplicate=duplicate)
    rows = []
    play_s = audit_s = 0.0
    for g in schedule:
        t0 = time.process_time()
        rules = gs.make_rules(game_params, len(g.seats))
        state = rules.new_state()
        policies = [players[bot].policy(seat, g) for seat, bot in enumerate(g.seats)]
        Playout(rules, gs, random.Random(f"{seed}/{g.number}"), policies, Chance(g.seed, PER_DEAL)).play(state)
        events = [{"kind": e.kind, "data": e.data, "visible_to": None} for e in state.events]
        for bot in set(g.seats):
            learn = getattr(players[bot], "learn", None)
            if learn is not None:
                learn(g, events)
        t1 = time.process_time()
        rows.append((g.number, g.deal_group, float(g.number), g.seats, terms_of(events, len(g.seats), plain)))
        audit_s += time.process_time() - t1
        play_s += t1 - t0
    t1 = time.process_time()
    audits = luck_audit(units_of(rows), {b: season_alpha(len(players)) for b in range(len(players))})
    audit_s += time.process_time() - t1
    return Audited({b for b, a in audits.items() if a.flagged}, [audits[b].max_wealth for b in range(len(players))],
                   {b: a.crossed[1] for b, a in audits.items() if a.crossed}, play_s, audit_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=200)
    parser.add_argument("--games-per-season", type=int, default=96)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", default="slippery-sam")
    parser.add_argument("--honest-only", action="store_true", help="only the honest seasons (false alarms, cost)")
    parser.add_argument("--progress", type=int, default=0, help="print the counts so far every N seasons")
    parser.add_argument("--cheats-only", action="store_true", help="only the seed predictor's and the remembering "
                                                                    "bot's seasons (detection)")
    args = parser.parse_args()
    for game in args.games.split(","):
        started = time.perf_counter()
        alarms, top, play_s, audit_s = 0, 0.0, 0.0, 0.0
        caught = remembered = 0
        crossed: list[int] = []
        n = args.seasons
        for i in range(n):
            if args.progress and i and i % args.progress == 0:
                print(f"  after {i} seasons: honest flagged {alarms}, largest wealth {top:.3g}; seed predictor "
                      f"flagged {caught}; remembering flagged {remembered}; audit CPU {100 * audit_s / max(play_s, 1e-9):.2f}%"
                      " of play", flush=True)
            seed = args.seed * 1_000_003 + i
            if not args.cheats_only:
                honest = audited_season(game, honest_bots(game), seed, args.games_per_season, duplicate=False)
                alarms += bool(honest.flagged)
                top = max(top, *honest.wealth)
                play_s += honest.play_s
                audit_s += honest.audit_s
            if args.honest_only:
                continue
            if game in PREDICTORS:
                cheat = audited_season(game, [PREDICTORS[game](), *honest_opponents(game)], seed, args.games_per_season,
                                       duplicate=False)
                caught += 0 in cheat.flagged
                crossed += [cheat.crossed[0]] if 0 in cheat.crossed else []
            memo = audited_season(game, [MATCHES[game][1](True), *honest_opponents(game)], seed, args.games_per_season,
                                  duplicate=True)
            remembered += 0 in memo.flagged
        print(f"{game}: {n} seasons of {args.games_per_season} games, 4 bots ({time.perf_counter() - started:.0f} s)")
        if not args.cheats_only:
            print(f"  honest seasons with a luck flag: {alarms}/{n} ({100 * alarms / n:.1f}%); largest wealth {top:.3g} "
                  f"(bar {1 / season_alpha(BOTS):.0f})")
            print(f"  luck audit CPU: {1000 * audit_s / (n * args.games_per_season):.3f} ms a game, "
                  f"{100 * audit_s / play_s:.2f}% of playing it ({1000 * play_s / (n * args.games_per_season):.1f} ms)")
        if not args.honest_only:
            if game in PREDICTORS:
                crossed.sort()
                median = crossed[len(crossed) // 2] if crossed else None
                print(f"  seed predictor flagged: {caught}/{n} ({100 * caught / n:.1f}%), median games to the flag "
                      f"{median}")
            print(f"  remembering bot (duplicate seasons) flagged by the luck audit: {remembered}/{n} "
                  f"({100 * remembered / n:.1f}%)")


if __name__ == "__main__":
    main()
