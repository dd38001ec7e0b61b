"""The duplicate audit against bots that remember: detection and false-alarm rates; a measurement, not a test.

Usage: python -m bench.bench_audit [--seasons N] [--games-per-season 96] [--seed S]
                                   [--games slippery-sam,svara,rummy]

Each season is a duplicate season of 4 bots on tables of 4 (``league.schedule``: 24 deal
groups of 4 rotations for 96 games, each table's rotations in the key's random order), played
in-process (the rules engine and the referee's chance streams, ``referee.playout``; no RPC).
Bot 0 is the bot under test; the other three are honest: the game's reference bot, a weaker
one and one that plays a share of its decisions at random (``bench.bench_duplicate``'s
``odds`` at half stake and ``sloppy``, Svara's ``tight``):

- **remembering**: the reference bot plus a memory of everything it was shown in the earlier
  rotations of the same deal, used to bet, fold or draw (:class:`RememberingSam`,
  :class:`RememberingSvara`, :class:`RememberingRummy`);
- **twin**: the same bot with its memory switched off (it plays as the reference bot), in the
  same seasons (same keys, so the same deals, seats and orders): its seasons are honest ones.

Printed per game: the remembering bot's gain (its mean change per game less its twin's, with a
95% interval over seasons) and rank; the share of honest seasons with any audit flag (the
family-wise false-alarm rate, target <= 1%); the share of seasons in which the remembering bot
is flagged (target >= 95%), by which test; and the share in which an honest bot of a
remembering bot's season is flagged.

How each remembering bot finds the deal again: Slippery Sam by the first-dealer cards, public
from the game's start (rules §1.2); Svara by the szacha and the bottom card (rules §2); rummy is
told the deal group (an attacker finds it from the up-card and the first stock cards it draws;
handing it over makes the attacker no weaker).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from cardarena.v1 import rummy_pb2, slippery_sam_pb2, svara_pb2

from botsdk.bot import Context
from league.audit import INFORMED, INFORMED_PLAY, LATER, LUCK, AuditGame, audit_season
from league.fairness import key_from_seed
from league.schedule import ScheduledGame, build_schedule
from bench.bench_duplicate import bot_policy, sloppy, tight_policy
from referee.chance import PER_DEAL, Chance
from referee.games import make_params, spec
from referee.games.rummy.bots import GreedyBot, deficiency
from referee.games.slippery_sam.bots import OddsBot, odds_policy
from referee.games.slippery_sam.rules import beats
from referee.games.svara.bots import FOLD, SEE, STAKE, PointsBot
from referee.games.svara.points import hand_points
from referee.playout import Playout, Policy

#: Bots seated per season and seats per table.
BOTS = 4


class Player:
    """A bot of a simulated season: ``policy(seat, game)`` gives its policy for one game."""

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        raise NotImplementedError


def _ctx(seat: int, rng: random.Random) -> Context:
    return Context("bench", seat, 0, 0, 0, 0, rng)


@dataclass
class RememberingSam(Player):
    """``odds`` that remembers every stack card it saw turned, by deal, and finds the deal again
    by the first-dealer cards (public from the start, rules §1.2) and the cards turned so far in
    the deal: when it knows the next stack card it bets the most it may if its hand beats that
    card (rules §1.5), else 1 token. ``remember=False``: plain ``odds`` (its twin)."""

    remember: bool = True
    #: first-dealer cards -> game number -> the turned cards of each deal of that game, in order
    memory: dict[tuple[str, ...], dict[int, list[list[str]]]] = field(default_factory=dict)
    known: int = 0  # bets placed knowing the card

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        bot = OddsBot()

        def decide(view: Any, rng: random.Random) -> Any:
            honest = bot.slippery_sam(view, _ctx(seat, rng))
            if not self.remember:
                return honest
            deals = _sam_deals(view)
            mine = self.memory.setdefault(tuple(view.first_dealer_cards), {})
            mine[game.number] = deals
            if view.decision != slippery_sam_pb2.SLIPPERY_SAM_DECISION_BET:
                return honest
            turned = list(view.turned)
            index = len(deals) - 1 if turned else len(deals)
            card = _predict(mine, game.number, index, turned, set(view.hand))
            if card is None:
                return honest
            self.known += 1
            amount = view.max_amount if beats(list(view.hand), card) else view.min_amount
            return slippery_sam_pb2.SlipperySamAction(amount=amount)

        return decide


def _sam_deals(view: Any) -> list[list[str]]:
    """The turned cards of each deal of the game so far, from the settled bets (a deal starts
    when the dealer changes or a seat bets again; rules §1.4-1.5)."""
    n = len(view.tokens)
    deals: list[list[str]] = []
    last: tuple[int, int] | None = None
    for bet in view.bets:
        position = (bet.seat - bet.dealer - 1) % n
        if last is None or bet.dealer != last[0] or position <= last[1]:
            deals.append([])
        deals[-1].append(bet.turned)
        last = (bet.dealer, position)
    return deals


def _predict(memory: dict[int, list[list[str]]], number: int, index: int, turned: list[str],
             hand: set[str]) -> str | None:
    """The next stack card if the remembered deals of other games agree on it: a deal whose
    turned cards start with ``turned`` and hold no card of ``hand``, at the same deal index
    (required when nothing is turned yet)."""
    same, other = set(), set()
    for game, deals in memory.items():
        if game == number:
            continue
        for i, seq in enumerate(deals):
            if len(seq) > len(turned) and seq[:len(turned)] == turned and not hand.intersection(seq):
                (same if i == index else other).add(seq[len(turned)])
    if len(same) == 1:
        return next(iter(same))
    if not same and turned and len(other) == 1:
        return next(iter(other))
    return None


@dataclass
class RememberingSvara(Player):
    """``points`` that remembers every hand it saw (its own, and those shown) by deal and seat,
    and finds the deal again by its szacha and bottom card (rules §2): when the hands of all the
    seats still in are known it raises to the maximum or sees with the best hand and folds
    otherwise; when a known hand beats its own it folds. ``remember=False``: plain ``points``."""

    remember: bool = True
    #: (szacha, bottom card, hand number, svara) -> seat -> (game number, cards)
    memory: dict[tuple[str, str, int, int], dict[int, tuple[int, tuple[str, ...]]]] = field(default_factory=dict)
    known: int = 0

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        bot = PointsBot()

        def decide(view: Any, rng: random.Random) -> Any:
            honest = bot.svara(view, _ctx(seat, rng))
            if not self.remember or not view.bottom_card:
                return honest
            hands = self.memory.setdefault((view.szacha, view.bottom_card, view.hand_number, view.svara), {})
            if view.hand:
                hands.setdefault(seat, (game.number, tuple(view.hand)))
            for shown in view.shown:
                hands.setdefault(shown.seat, (game.number, tuple(shown.cards)))
            moves = set(view.legal.moves)
            if not view.hand or FOLD not in moves or view.decision != svara_pb2.SVARA_DECISION_TURN:
                return honest
            others = [s for s, playing in enumerate(view.in_play) if playing and s != seat]
            known = {s: hands[s][1] for s in others if s in hands and hands[s][0] != game.number}
            if not known:
                return honest
            self.known += 1
            mine = hand_points(list(view.hand), view.szacha)
            best = max(hand_points(list(cards), view.szacha) for cards in known.values())
            if best > mine:
                return svara_pb2.SvaraAction(move=FOLD)
            if len(known) == len(others) and mine > best:
                if SEE in moves and len(others) == 1:
                    return svara_pb2.SvaraAction(move=SEE)
                if STAKE in moves:
                    return svara_pb2.SvaraAction(move=STAKE, amount=view.legal.stake_max)
            return honest

        return decide


@dataclass
class RememberingRummy(Player):
    """``greedy`` that remembers every card it drew from the stock, by deal group, round and stock
    size: at a draw, when it knows the stock's next card, it takes whichever of that card and the
    discard brings it closer to its contract (rules §3.5). ``remember=False``: plain ``greedy``."""

    remember: bool = True
    #: (deal group, round, stock size before the draw) -> (game number, card drawn)
    memory: dict[tuple[int, int, int], tuple[int, str]] = field(default_factory=dict)
    known: int = 0

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        bot = GreedyBot()
        pending: list[tuple[int, int, list[str]]] = []  # (round, stock size, hand) of a stock draw

        def decide(view: Any, rng: random.Random) -> Any:
            honest = bot.rummy(view, _ctx(seat, rng))
            if not self.remember:
                return honest
            if pending and view.decision == rummy_pb2.RUMMY_DECISION_PLAY:
                rnd, size, before = pending.pop()
                drawn = list(view.hand)
                for c in before:
                    if c in drawn:
                        drawn.remove(c)
                if rnd == view.round and len(drawn) == 1:
                    self.memory.setdefault((game.deal_group, rnd, size), (game.number, drawn[0]))
            pending.clear()
            if view.decision != rummy_pb2.RUMMY_DECISION_DRAW:
                return honest
            action = honest
            known = self.memory.get((game.deal_group, view.round, view.stock_size))
            down = bool(view.down) and view.down[view.in_turn]
            if known is not None and known[0] != game.number and not down and view.discard_live and view.discard_top:
                self.known += 1
                sets, runs, hand = view.contract.sets, view.contract.runs, list(view.hand)
                take = deficiency(hand + [view.discard_top], sets, runs) < deficiency(hand + [known[1]], sets, runs)
                action = rummy_pb2.RummyAction(draw=rummy_pb2.RUMMY_DRAW_SOURCE_DISCARD_PILE if take
                                               else rummy_pb2.RUMMY_DRAW_SOURCE_STOCK)
            if action.draw == rummy_pb2.RUMMY_DRAW_SOURCE_STOCK:
                pending.append((view.round, view.stock_size, list(view.hand)))
            return action

        return decide


@dataclass
class BySeat(Player):
    """A policy made per seat (``bench.bench_duplicate``'s makers), in every game afresh."""

    make: Callable[[int], Policy]

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        return self.make(seat)


def _opponents(game: str) -> list[Player]:
    """The three honest bots beside the bot under test: the reference bot, a weaker one and one that
    rolls dice (so that honest seasons are not four copies of one deterministic bot, whose rotations
    would all play alike)."""
    if game == "slippery-sam":
        return [BySeat(odds_policy), BySeat(lambda seat: odds_policy(seat, 0.5)),
                BySeat(lambda seat: sloppy("odds", game, seat))]
    if game == "svara":
        return [BySeat(lambda seat: bot_policy("points", game, seat)), BySeat(tight_policy),
                BySeat(lambda seat: sloppy("points", game, seat))]
    return [BySeat(lambda seat: bot_policy("greedy", game, seat)), BySeat(lambda seat: sloppy("greedy", game, seat, 0.1)),
            BySeat(lambda seat: sloppy("greedy", game, seat))]


#: game -> (parameters, the remembering bot (``True``) or its twin (``False``))
MATCHES: dict[str, tuple[dict[str, int], Callable[[bool], Player]]] = {
    "slippery-sam": ({}, lambda remember: RememberingSam(remember)),
    "svara": ({}, lambda remember: RememberingSvara(remember)),
    "rummy": ({"turn_limit": 60}, lambda remember: RememberingRummy(remember)),
}


@dataclass(frozen=True)
class Season:
    """A simulated season: its done games for the audit and each bot's mean change per game."""

    games: list[AuditGame]
    mean_change: list[float]


def simulate_season(game: str, params: dict[str, int], players: Sequence[Player], seed: int,
                    games: int = 96) -> Season:
    """A duplicate season of ``players`` (bot ids 0..n-1) on tables of 4, from the key of ``seed``,
    played in-process in schedule order; each game's bots roll their own dice (seeded by the game)."""
    gs = spec(game)
    schedule = build_schedule(list(range(len(players))), [BOTS], games, key_from_seed(seed), duplicate=True)
    out: list[AuditGame] = []
    totals = [0.0] * len(players)
    counts = [0] * len(players)
    game_params = make_params(game, params)
    for g in schedule:
        rules = gs.make_rules(game_params, len(g.seats))
        state = rules.new_state()
        policies = [players[bot].policy(seat, g) for seat, bot in enumerate(g.seats)]
        Playout(rules, gs, random.Random(f"{seed}/{g.number}"), policies, Chance(g.seed, PER_DEAL)).play(state)
        changes = tuple(float(c) for c in rules.score_changes(state))
        events = [{"kind": e.kind, "data": e.data, "visible_to": None} for e in state.events]
        luck = gs.luck(events, len(g.seats)) if gs.luck is not None else None
        informed = None
        if game in INFORMED:
            informed = INFORMED[game](events, len(g.seats), asdict(game_params))
        out.append(AuditGame(g.number, g.deal_group, g.seats, changes, luck, informed))
        for seat, bot in enumerate(g.seats):
            totals[bot] += changes[seat] * (1 if gs.higher_score_is_better else -1)
            counts[bot] += 1
    return Season(out, [t / c if c else 0.0 for t, c in zip(totals, counts)])


def season_pair(game: str, seed: int, games: int = 96) -> tuple[Season, Season, Player]:
    """The same season (``seed``) played with the remembering bot in seat list position 0, then
    with its twin; returns ``(remembering season, twin season, the remembering player)``."""
    params, make = MATCHES[game]
    cheat = make(True)
    with_memory = simulate_season(game, params, [cheat, *_opponents(game)], seed, games)
    twin = simulate_season(game, params, [make(False), *_opponents(game)], seed, games)
    return with_memory, twin, cheat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=200, help="seasons per game (each played twice)")
    parser.add_argument("--games-per-season", type=int, default=96)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", default="slippery-sam,svara,rummy")
    parser.add_argument("--honest-only", action="store_true",
                        help="only honest seasons (the twins): the false-alarm rate, at half the cost")
    args = parser.parse_args()
    for game in args.games.split(","):
        if args.honest_only:
            print_false_alarms(game, args.seasons, args.seed, args.games_per_season)
            continue
        started = time.perf_counter()
        higher = spec(game).higher_score_is_better
        gains, first = [], 0
        honest_alarm = cheat_flag = other_flag = 0
        by_test = {LATER: 0, INFORMED_PLAY: 0, LUCK: 0}
        for i in range(args.seasons):
            seed = args.seed * 1_000_003 + i
            cheat, twin, _ = season_pair(game, seed, args.games_per_season)
            gains.append(cheat.mean_change[0] - twin.mean_change[0])
            first += cheat.mean_change[0] == max(cheat.mean_change)
            honest = audit_season(twin.games, higher)
            honest_alarm += any(a.flags for a in honest.values())
            audited = audit_season(cheat.games, higher)
            flags = audited[0].flags
            cheat_flag += bool(flags)
            for t in flags:
                by_test[t.name] += 1
            other_flag += any(audited[b].flags for b in range(1, BOTS))
        n = len(gains)
        mean = sum(gains) / n
        sd = math.sqrt(sum((g - mean) ** 2 for g in gains) / (n - 1)) if n > 1 else 0.0
        unit = spec(game).score_unit if hasattr(spec(game), "score_unit") else "points"
        print(f"{game}: {n} seasons of {args.games_per_season} games, 4 bots ({time.perf_counter() - started:.0f} s)")
        print(f"  remembering bot's gain over its twin: {mean:+.2f} {unit}/game "
              f"[{mean - 1.96 * sd / math.sqrt(n):+.2f}, {mean + 1.96 * sd / math.sqrt(n):+.2f}]; ranked first by "
              f"mean change in {first}/{n} seasons")
        print(f"  flagged: remembering bot {cheat_flag}/{n} ({100 * cheat_flag / n:.1f}%; "
              + ", ".join(f"{k} {v}" for k, v in by_test.items()) + f"); an honest bot of its seasons "
              f"{other_flag}/{n}; honest seasons with any flag {honest_alarm}/{n} ({100 * honest_alarm / n:.1f}%)")



def print_false_alarms(game: str, seasons: int, seed: int, games: int) -> None:
    """Honest seasons only (the twin and the three honest bots): how many raise any flag, and each test's flags."""
    started = time.perf_counter()
    params, make = MATCHES[game]
    higher = spec(game).higher_score_is_better
    alarms, by_test, tests = 0, {LATER: 0, INFORMED_PLAY: 0, LUCK: 0}, 0
    for i in range(seasons):
        season = simulate_season(game, params, [make(False), *_opponents(game)], seed * 1_000_003 + i, games)
        audited = audit_season(season.games, higher)
        alarms += any(a.flags for a in audited.values())
        for a in audited.values():
            tests += len(a.tests)
            for t in a.flags:
                by_test[t.name] += 1
    print(f"{game}: {seasons} honest seasons of {games} games, 4 bots ({time.perf_counter() - started:.0f} s): "
          f"{alarms} with any flag ({100 * alarms / seasons:.2f}%; target <= 1%); flags by test: "
          + ", ".join(f"{k} {v}" for k, v in by_test.items()) + f" of {tests} tests")


if __name__ == "__main__":
    main()
