"""The duplicate audit against bots that remember: detection and false-alarm rates; a measurement, not a test.

Usage: python -m bench.bench_audit [--seasons N] [--games-per-season 96] [--seed S]
                                   [--games slippery-sam,svara,rummy] [--evade] [--thin RATE] [--big Q]
                                   [--frame]

Each season is a duplicate season of 4 bots on tables of 4 (``league.competition.schedule``: 24 deal
groups of 4 rotations for 96 games, each table's rotations in the key's random order), played
in-process (the rules engine and the referee's chance streams, ``referee.playout``; no RPC).
Bot 0 is the bot under test; the other three are honest: the game's reference bot, a weaker
one and one that plays a share of its decisions at random (``bench.bench_duplicate``'s
``odds`` at half stake and ``sloppy``, Svara's ``tight``):

- **remembering**: the reference bot plus a memory of everything it was shown in the earlier
  rotations of the same deal, used to bet, fold or draw (:class:`RememberingSam`,
  :class:`RememberingSvara`, :class:`KnowingRummy`);
- with ``--evade``, ``--thin`` or ``--big``, the remembering bot holds back as a white-box attacker of the audit
  would: memory only in its 2nd and 3rd rotation of a deal, in a share of the decisions it could use it in, or
  only on stakes at least a quantile of those it has met (:class:`Restraint`);
- **twin**: the same bot with its memory switched off (it plays as the reference bot), in the
  same seasons (same keys, so the same deals, seats and orders): its seasons are honest ones.
- with ``--frame`` (Svara), a framer against an honest target instead (:class:`HeldFramer`): a sacrificial bot
  that, where it holds cards the target held in an earlier rotation and knows the target's hand, stakes the most
  when it beats it and sees when it does not, so that the target's honest folds and stakes fit the hands it held;
  printed: how often the target is flagged beside its twin's seasons, and the framer.

Printed per game: the remembering bot's gain (its mean change per game less its twin's, with a
95% interval over seasons) and rank; the share of honest seasons with any audit flag (the
family-wise false-alarm rate, target <= 1%); the share of seasons in which the remembering bot
is flagged (target >= 95%), by which test; and the share in which an honest bot of a
remembering bot's season is flagged.

How each remembering bot finds the deal again: Slippery Sam by the first-dealer cards, public
from the game's start (rules §1.2); Svara by the szacha and the bottom card (rules §2); rummy is
told the deal group (an attacker finds it from the up-card and the first stock cards it draws;
handing it over makes the attacker no weaker), and, once it has played the deal, the whole deal:
every seat's hands and the stock's order as drawn (more than its views show it: an upper bound).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from cardarena.v1 import rummy_pb2, slippery_sam_pb2, svara_pb2

from bench.bench_duplicate import bot_policy, sloppy, tight_policy
from botsdk.bot import Context
from league.competition.schedule import ScheduledGame, build_schedule
from league.integrity.audit import HELD_HANDS, INFORMED_PLAY, LATER, LUCK, AuditGame, audit_season
from league.integrity.fairness import key_from_seed
from referee.chance import PER_DEAL, Chance
from referee.games import make_params, spec
from referee.games.rummy.bots import GreedyBot, deficiency, points
from referee.games.rummy.rules import HAND_SIZES
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


def bench_context(seat: int, rng: random.Random) -> Context:
    """A bot's context in a simulated season: seat ``seat``, dice from ``rng``, game id ``bench``, no deadline."""
    return Context("bench", seat, 0, 0, 0, 0, rng)


@dataclass
class Restraint:
    """When a remembering bot uses what it knows (the white-box attackers of the audit): ``rate``, the share of the
    decisions it could use it in where it does (a bot that spreads its gain thinly; drawn from its own stream, so
    its twin's play is unchanged), and ``big``, a quantile: it uses it only when the decision's size (Slippery Sam:
    the most it may bet; Svara: the bank) is at least that quantile of the sizes it has met so far (a bot that
    uses its memory only on large stakes; 0: always), and ``shown_only`` (Svara): it uses only the hands it saw shown
    in earlier rotations, never those it held itself (the white-box evader of the held-hands test, which reads the
    moves against the held hands alone)."""

    rate: float = 1.0
    big: float = 0.0
    shown_only: bool = False
    sizes: list[float] = field(default_factory=list)
    draws: int = 0

    def uses(self, number: Any, size: float) -> bool:
        """Whether to use what it knows at this decision of game ``number`` with this ``size``."""
        self.sizes.append(size)
        if self.big > 0.0:
            ordered = sorted(self.sizes)
            if size < ordered[min(len(ordered) - 1, int(self.big * len(ordered)))]:
                return False
        if self.rate < 1.0:
            self.draws += 1
            return random.Random(f"restraint/{number}/{self.draws}").random() < self.rate
        return True


@dataclass
class RememberingSam(Player):
    """``odds`` that remembers every stack card it saw turned, by deal, and finds the deal again
    by the first-dealer cards (public from the start, rules §1.2) and the cards turned so far in
    the deal: when it knows the next stack card it bets the most it may if its hand beats that
    card (rules §1.5), else 1 token. ``remember=False``: plain ``odds`` (its twin). ``only``: the
    rotations (0 the first it plays of a deal) it uses its memory in, None all: the evader of a trend
    test uses it only in its 2nd and 3rd, ``frozenset({1, 2})``."""

    remember: bool = True
    #: first-dealer cards -> game number -> the turned cards of each deal of that game, in order
    memory: dict[tuple[str, ...], dict[int, list[list[str]]]] = field(default_factory=dict)
    known: int = 0  # bets placed knowing the card
    only: frozenset[int] | None = None
    restraint: Restraint = field(default_factory=Restraint)

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        bot = OddsBot()

        def decide(view: Any, rng: random.Random) -> Any:
            honest = bot.slippery_sam(view, bench_context(seat, rng))
            if not self.remember:
                return honest
            deals = _sam_deals(view)
            mine = self.memory.setdefault(tuple(view.first_dealer_cards), {})
            mine[game.number] = deals
            if view.decision != slippery_sam_pb2.SLIPPERY_SAM_DECISION_BET:
                return honest
            if self.only is not None and len(mine) - 1 not in self.only:
                return honest
            turned = list(view.turned)
            index = len(deals) - 1 if turned else len(deals)
            card = _predict(mine, game.number, index, turned, set(view.hand))
            if card is None or not self.restraint.uses(game.number, view.max_amount):
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
class SvaraDeal:
    """What :class:`RememberingSvara` remembers of one deal: each seat's cards as it saw them, with the game it saw
    them in, and ``last``, the count of games it had seen when it last played the deal."""

    hands: dict[int, tuple[Any, tuple[str, ...]]] = field(default_factory=dict)
    last: int = 0
    #: the seats it held itself in the deal's rotations
    held: set[int] = field(default_factory=set)

    def fits(self, seat: int, hand: Sequence[str], bottom: str) -> bool:
        """Whether this can be the deal in which ``seat`` holds ``hand`` and ``bottom`` is the bottom card: the
        seat's own remembered cards are ``hand``, and no other remembered hand holds one of its cards or the
        bottom card."""
        mine = set(hand)
        for other, (_, cards) in self.hands.items():
            if other == seat and set(cards) != mine:
                return False
            if other != seat and (mine & set(cards) or bottom in cards):
                return False
        return True


@dataclass
class RememberingSvara(Player):
    """``points`` that remembers every hand it saw (its own, and those shown) by deal and seat, and finds the deal
    again by its szacha and bottom card (rules §2) among the deals it played in its last :data:`WINDOW` games (a
    deal's rotations are played within a block of tables, rules §0.6) whose remembered hands fit its own: when the
    hands of all the seats still in are known it raises to the maximum or sees with the best hand and folds
    otherwise; when a known hand beats its own it folds. ``remember=False``: plain ``points``."""

    #: games back in which a deal is looked for again
    WINDOW = 48
    remember: bool = True
    #: (szacha, bottom card, hand number, svara) -> the deals it played with them
    memory: dict[tuple[str, str, int, int], list[SvaraDeal]] = field(default_factory=dict)
    known: int = 0
    #: as :class:`RememberingSam`'s: the rotations of a deal it uses its memory in (None: all)
    only: frozenset[int] | None = None
    #: (game, deal key) -> the deal that game was found to be; game -> its count among the games seen
    bound: dict[tuple[Any, tuple[str, str, int, int]], SvaraDeal] = field(default_factory=dict)
    seen: dict[Any, int] = field(default_factory=dict)
    restraint: Restraint = field(default_factory=Restraint)

    def _deal(self, number: Any, seat: int, view: Any) -> SvaraDeal:
        key = (view.szacha, view.bottom_card, view.hand_number, view.svara)
        deal = self.bound.get((number, key))
        if deal is None:
            now = self.seen.setdefault(number, len(self.seen) + 1)
            deals = self.memory.setdefault(key, [])
            fitting = [d for d in deals if now - d.last <= self.WINDOW and d.fits(seat, view.hand, view.bottom_card)
                       and all(g != number for g, _ in d.hands.values())]
            deal = max(fitting, key=lambda d: d.last) if fitting else None
            if deal is None:
                deal = SvaraDeal()
                deals.append(deal)
            deal.last = now
            self.bound[(number, key)] = deal
        return deal

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        bot = PointsBot()

        def decide(view: Any, rng: random.Random) -> Any:
            honest = bot.svara(view, bench_context(seat, rng))
            if not self.remember or not view.bottom_card or not view.hand:
                return honest
            deal = self._deal(game.number, seat, view)
            hands = deal.hands
            hands.setdefault(seat, (game.number, tuple(view.hand)))
            deal.held.add(seat)
            for shown in view.shown:
                hands.setdefault(shown.seat, (game.number, tuple(shown.cards)))
            moves = set(view.legal.moves)
            if FOLD not in moves or view.decision != svara_pb2.SVARA_DECISION_TURN:
                return honest
            others = [s for s, playing in enumerate(view.in_play) if playing and s != seat]
            known = {s: hands[s][1] for s in others if s in hands and hands[s][0] != game.number
                     and not (self.restraint.shown_only and s in deal.held)}
            if self.only is not None and len({n for n, _ in hands.values() if n != game.number}) not in self.only:
                return honest
            if not known or not self.restraint.uses(game.number, view.bank):
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
class HeldFramer(Player):
    """A sacrificial Svara bot that tries to have an honest ``target`` flagged by the held-hands test: it plays
    ``points`` except in a rotation where it holds a seat the target held in an earlier rotation of the deal (the
    seats of a started game are public) and knows the target's hand now (it held the target's seat earlier, or saw
    the hand shown). There, when its hand beats the target's, it stakes the most it may at every turn, so that the
    honest target folds to a hand it held itself; when it does not, it sees, so that the target's stakes meet a held
    hand they beat. The deal is told by its deal group (an upper bound: :class:`RememberingSvara` finds it by its
    szacha and bottom card). Its twin (``frame=False``) plays ``points``."""

    target: int = 1
    frame: bool = True
    #: (deal group, hand number, svara) -> seat -> cards it saw there (its own, and those shown)
    hands: dict[tuple[int, int, int], dict[int, tuple[str, ...]]] = field(default_factory=dict)
    #: deal group -> the seats the target held in the rotations played so far
    target_seats: dict[int, set[int]] = field(default_factory=dict)
    framed: int = 0  # decisions played to frame

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        bot = PointsBot()
        seats = self.target_seats.setdefault(game.deal_group, set())
        target = game.seats.index(self.target) if self.target in game.seats else None
        sat_there = seat in seats  # the target held this seat's cards in an earlier rotation
        if target is not None:
            seats.add(target)

        def decide(view: Any, rng: random.Random) -> Any:
            honest = bot.svara(view, bench_context(seat, rng))
            if not self.frame or not view.hand:
                return honest
            seen = self.hands.setdefault((game.deal_group, view.hand_number, view.svara), {})
            seen.setdefault(seat, tuple(view.hand))
            for shown in view.shown:
                seen.setdefault(shown.seat, tuple(shown.cards))
            moves = set(view.legal.moves)
            if (not sat_there or target is None or not view.in_play[target] or target not in seen
                    or FOLD not in moves or view.decision != svara_pb2.SVARA_DECISION_TURN):
                return honest
            self.framed += 1
            if hand_points(list(view.hand), view.szacha) > hand_points(list(seen[target]), view.szacha):
                if STAKE in moves:
                    return svara_pb2.SvaraAction(move=STAKE, amount=view.legal.stake_max)
            if SEE in moves:
                return svara_pb2.SvaraAction(move=SEE)
            return honest

        return decide


#: The games with a framer of the held-hands test, by game name: the framer's class (target: a bot id).
FRAMERS: dict[str, type[HeldFramer]] = {"svara": HeldFramer}


@dataclass
class KnowingRummy(Player):
    """``greedy`` told, once it has played a deal, the whole deal as its rotations played it: every
    seat's starting hand of each round and the stock's cards in the order they were drawn (before any
    rebuild, rules §3.9, §3.12), the longest such order over its earlier rotations of the deal group.
    An upper bound on what a remembering bot pieces together over the rotations (it sees one seat's hand
    per rotation and the cards it draws). In a later rotation of the deal it knows the stock's next
    cards while no rebuild has come (the stock size tells how many were drawn) and uses them:

    - ``draw`` (rules §3.6): the discard or the stock's next card (the one after it when a seat
      called "take it", whose penalty card is the next one, rules §3.5), whichever leaves the hand
      closer to its contract (by :func:`deficiency`, after the best discard);
    - ``discard`` (rules §3.7), while not down: among the discards greedy finds equally good for the
      hand, the one that leaves it best once it has drawn the stock card it will draw next (the
      stock's card after one draw per other seat), then greedy's choice;
    - ``call`` (take it, rules §3.5): called also when the card and its known penalty card bring the
      hand 2 closer; ``block``: among equal discards, one that no other seat's starting hand wants.

    ``uses`` chooses among them; by default ``draw`` and ``discard`` (with ``call`` and ``block`` too
    it gained no more in a few seasons). ``remember=False``: plain ``greedy`` (its twin)."""

    remember: bool = True
    #: which uses of the knowledge are on (for studies): "draw", "call", "discard", "block"
    uses: frozenset[str] = frozenset({"draw", "discard"})
    #: (deal group, round) -> (seat -> starting hand, the stock's cards in draw order)
    memory: dict[tuple[int, int], tuple[dict[int, list[str]], list[str]]] = field(default_factory=dict)
    #: deal group -> game numbers learnt from (only after they were played)
    learnt: dict[int, set[int]] = field(default_factory=dict)
    known: int = 0

    def learn(self, game: ScheduledGame, events: Sequence[Mapping[str, Any]]) -> None:
        """Remember the deal of a game it played (called when the game is over)."""
        if not self.remember:
            return
        self.learnt.setdefault(game.deal_group, set()).add(game.number)
        rnd, hands, stock, rebuilt = 0, {}, [], False

        def keep() -> None:
            if rnd:
                old = self.memory.get((game.deal_group, rnd))
                best = stock if old is None or len(stock) > len(old[1]) else old[1]
                self.memory[(game.deal_group, rnd)] = (hands, best)

        for e in events:
            kind, data = e["kind"], e["data"]
            if kind == "round":
                keep()
                rnd, hands, stock, rebuilt = data["round"], {}, [], False
            elif kind == "hand":
                hands[data["seat"]] = list(data["cards"])
            elif kind == "rebuild":
                rebuilt = True
            elif kind == "drawn_card" and not rebuilt:
                stock.append(data["card"])
        keep()

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        bot = GreedyBot()
        last_size: dict[int, int] = {}  # round -> the stock size last seen
        rebuilt: set[int] = set()
        played = bool(self.learnt.get(game.deal_group))  # an earlier rotation of this deal, finished

        def deal(view: Any) -> tuple[dict[int, list[str]], list[str], int] | None:
            """The remembered hands, the stock's draw order and the cards drawn so far this round."""
            if not self.remember or not played:
                return None
            info = self.memory.get((game.deal_group, view.round))
            if info is None:
                return None
            size = view.stock_size
            if view.round in rebuilt or size > last_size.get(view.round, size):
                rebuilt.add(view.round)  # rules §3.12: a rebuilt stock's order is new
                return None
            last_size[view.round] = size
            hands, stock = info
            initial = 104 + view.jokers - len(view.hand_sizes) * HAND_SIZES[view.round] - 1  # rules §3.3
            return hands, stock, initial - size

        def card_at(info: tuple[dict[int, list[str]], list[str], int], k: int) -> str | None:
            stock, drawn = info[1], info[2]
            return stock[drawn + k] if 0 <= drawn + k < len(stock) else None

        def best_after(hand: list[str], sets: int, runs: int) -> int:
            """The hand's deficiency after its best discard."""
            return min(deficiency(hand[:i] + hand[i + 1:], sets, runs) for i in range(len(hand)))

        def wanted(hands: dict[int, list[str]], card: str, view: Any) -> bool:
            sets, runs = view.contract.sets, view.contract.runs
            for s, h in hands.items():
                if s != seat and not (view.down and view.down[s]):
                    if deficiency(h + [card], sets, runs) < deficiency(h, sets, runs):
                        return True
            return False

        def decide(view: Any, rng: random.Random) -> Any:
            honest = bot.rummy(view, bench_context(seat, rng))
            info = deal(view) if self.remember else None
            if info is None:
                return honest
            sets, runs, hand = view.contract.sets, view.contract.runs, list(view.hand)
            down = bool(view.down) and view.down[view.in_turn]
            if view.decision == rummy_pb2.RUMMY_DECISION_CALL:
                mine_down = bool(view.down) and view.down[seat]
                if "call" not in self.uses or honest.call or view.round == 7 or mine_down or not view.discard_top:
                    return honest
                penalty = card_at(info, 0)
                if penalty is None:
                    return honest
                self.known += 1
                call = deficiency(hand + [view.discard_top, penalty], sets, runs) < deficiency(hand, sets, runs) - 1
                return rummy_pb2.RummyAction(call=call)
            if view.decision == rummy_pb2.RUMMY_DECISION_DRAW:
                if "draw" not in self.uses or down or not (view.discard_live and view.discard_top):
                    return honest
                nxt = card_at(info, 1 if view.callers else 0)
                if nxt is None:
                    return honest
                self.known += 1
                pile = best_after(hand + [view.discard_top], sets, runs)
                stock = best_after(hand + [nxt], sets, runs)
                if pile == stock:
                    return honest
                return rummy_pb2.RummyAction(draw=rummy_pb2.RUMMY_DRAW_SOURCE_DISCARD_PILE if pile < stock
                                             else rummy_pb2.RUMMY_DRAW_SOURCE_STOCK)
            if view.decision != rummy_pb2.RUMMY_DECISION_PLAY or honest.go_down or honest.lay_offs:
                return honest
            if "discard" not in self.uses:
                return honest
            allowed = sorted(set(c for c in hand if c != view.forbidden_discard) or set(hand))
            hands = info[0]
            if down:
                if "block" not in self.uses:
                    return honest
                best = max(points(c) for c in allowed)
                safe = [c for c in allowed if points(c) == best and not wanted(hands, c, view)]
                if safe and honest.discard not in safe:
                    self.known += 1
                    return rummy_pb2.RummyAction(discard=safe[0])
                return honest
            ahead = card_at(info, len(view.hand_sizes) - 1)
            self.known += 1

            def cost(c: str) -> tuple[int, int, bool, int, str]:
                rest = list(hand)
                rest.remove(c)
                later = best_after(rest + [ahead], sets, runs) if ahead is not None else 0
                block = "block" in self.uses and wanted(hands, c, view)
                return (deficiency(rest, sets, runs), later, block, -points(c), c)

            return rummy_pb2.RummyAction(discard=min(allowed, key=cost))

        return decide


@dataclass
class BySeat(Player):
    """A policy made per seat (``bench.bench_duplicate``'s makers), in every game afresh."""

    make: Callable[[int], Policy]

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        return self.make(seat)


@dataclass
class Learner(Player):
    """An honest bot that learns over the season from its own results: the game's reference bot that plays the
    ``random`` bot's answer at ``share`` of its decisions, a share that falls after every game, by 2% after a
    game it lost and by 0.5% after one it did not (``result``): from 0.5 to about 0.1 over a 96-game season. It
    never uses a deal it has seen: it gets better from one rotation of a deal to the next only as it does over the
    whole season (the drift ``league.integrity.audit.detrend`` takes out)."""

    game: str
    share: float = 0.5

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        reference = {"slippery-sam": "odds", "svara": "points"}.get(self.game, "greedy")
        return sloppy(reference, self.game, seat, self.share)

    def result(self, change: float) -> None:
        """Its score change in the game just played (more is better)."""
        self.share *= 0.98 if change < 0 else 0.995


def honest_opponents(game: str, learner: bool = False) -> list[Player]:
    """The three honest bots beside the bot under test: the reference bot, a weaker one and one that
    rolls dice (so that honest seasons are not four copies of one deterministic bot, whose rotations
    would all play alike); ``learner``: a :class:`Learner` instead of the weaker one."""
    if learner:
        reference, _, dice = honest_opponents(game)
        return [reference, Learner(game), dice]
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
    "rummy": ({"turn_limit": 60}, lambda remember: KnowingRummy(remember)),
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
        informed = gs.informed(events, len(g.seats), asdict(game_params)) if gs.informed is not None else None
        held = gs.held_fit(events, len(g.seats), asdict(game_params)) if gs.held_fit is not None else None
        out.append(AuditGame(g.number, g.deal_group, g.seats, changes, luck, informed, None, held))
        for bot in set(g.seats):
            learn = getattr(players[bot], "learn", None)
            if learn is not None:
                learn(g, events)
        for seat, bot in enumerate(g.seats):
            change = changes[seat] * (1 if gs.higher_score_is_better else -1)
            totals[bot] += change
            counts[bot] += 1
            told = getattr(players[bot], "result", None)
            if told is not None:
                told(change)
    return Season(out, [t / c if c else 0.0 for t, c in zip(totals, counts)])


def season_pair(game: str, seed: int, games: int = 96, only: frozenset[int] | None = None,
                restraint: Restraint | None = None) -> tuple[Season, Season, Player]:
    """The same season (``seed``) played with the remembering bot in seat list position 0, then
    with its twin; returns ``(remembering season, twin season, the remembering player)``. ``only``:
    the rotations of a deal it uses its memory in (Slippery Sam's and Svara's bots; None: all)."""
    params, make = MATCHES[game]
    cheat = make(True)
    if only is not None:
        cheat.only = only  # type: ignore[attr-defined]
    if restraint is not None and hasattr(cheat, "restraint"):
        cheat.restraint = restraint  # type: ignore[attr-defined]
    with_memory = simulate_season(game, params, [cheat, *honest_opponents(game)], seed, games)
    return with_memory, twin_season(game, seed, games), cheat


def twin_season(game: str, seed: int, games: int = 96) -> Season:
    """The twin season of :func:`season_pair` alone: the same season (``seed``) with the remembering bot's memory
    off, every bot honest."""
    params, make = MATCHES[game]
    return simulate_season(game, params, [make(False), *honest_opponents(game)], seed, games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=200, help="seasons per game (each played twice)")
    parser.add_argument("--games-per-season", type=int, default=96)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", default="slippery-sam,svara,rummy")
    parser.add_argument("--evade", action="store_true",
                        help="the remembering bot uses its memory only in the 2nd and 3rd rotation it plays of a "
                             "deal (Slippery Sam, Svara): the evader of a trend test")
    parser.add_argument("--thin", type=float, default=1.0,
                        help="the remembering bot uses its memory in only this share of the decisions it could "
                             "(Slippery Sam, Svara): a bot that spreads its gain thinly")
    parser.add_argument("--big", type=float, default=0.0,
                        help="the remembering bot uses its memory only when the stake is at least this quantile of "
                             "the stakes it has met (e.g. 0.75; Slippery Sam, Svara): large stakes only")
    parser.add_argument("--shown-only", action="store_true",
                        help="Svara: the remembering bot uses only the hands it saw shown in earlier rotations, never "
                             "those it held (the evader of the held-hands test)")
    parser.add_argument("--frame", action="store_true",
                        help="Svara: a framer (HeldFramer) against an honest target, the reference bot (bot 1), "
                             "beside its twin's seasons: how often the held-hands test flags the target")
    parser.add_argument("--honest-only", action="store_true",
                        help="only honest seasons (the twins): the false-alarm rate, at half the cost")
    parser.add_argument("--learner", action="store_true",
                        help="with --honest-only: a bot that learns over the season from its own results (Learner) "
                             "in place of the weaker honest bot")
    args = parser.parse_args()
    if args.frame:
        print_framing(args.seasons, args.seed, args.games_per_season)
        return
    for game in args.games.split(","):
        if args.honest_only:
            print_false_alarms(game, args.seasons, args.seed, args.games_per_season, args.learner)
            continue
        started = time.perf_counter()
        higher = spec(game).higher_score_is_better
        gains, first = [], 0
        honest_alarm = cheat_flag = other_flag = 0
        by_test = {LATER: 0, INFORMED_PLAY: 0, LUCK: 0, HELD_HANDS: 0}
        for i in range(args.seasons):
            seed = args.seed * 1_000_003 + i
            cheat, twin, _ = season_pair(game, seed, args.games_per_season,
                                         frozenset({1, 2}) if args.evade else None,
                                         Restraint(args.thin, args.big, args.shown_only))
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



def print_framing(seasons: int, seed: int, games: int) -> None:
    """Svara seasons of a :class:`HeldFramer` against bot 1 (the reference bot), each beside the same season with
    the framer's twin: how often the target is flagged (and by which test), and the framer."""
    started = time.perf_counter()
    params, _ = MATCHES["svara"]
    higher = spec("svara").higher_score_is_better
    target_flags = twin_target_flags = framer_flags = framed = 0
    by_test = {LATER: 0, INFORMED_PLAY: 0, LUCK: 0, HELD_HANDS: 0}
    cost: list[float] = []
    for i in range(seasons):
        seed_i = seed * 1_000_003 + i
        framer = HeldFramer(target=1)
        season = simulate_season("svara", params, [framer, *honest_opponents("svara")], seed_i, games)
        twin = simulate_season("svara", params, [HeldFramer(target=1, frame=False), *honest_opponents("svara")], seed_i,
                               games)
        audited, plain = audit_season(season.games, higher), audit_season(twin.games, higher)
        target_flags += bool(audited[1].flags)
        for t in audited[1].flags:
            by_test[t.name] += 1
        twin_target_flags += bool(plain[1].flags)
        framer_flags += bool(audited[0].flags)
        framed += framer.framed
        cost.append(season.mean_change[0] - twin.mean_change[0])
    n = seasons
    mean = sum(cost) / n
    print(f"svara framing: {n} seasons of {games} games, 4 bots ({time.perf_counter() - started:.0f} s); the framer "
          f"played {framed / n:.0f} decisions a season to frame, its gain over its twin {mean:+.1f} tokens/game")
    print(f"  target flagged {target_flags}/{n} (" + ", ".join(f"{k} {v}" for k, v in by_test.items())
          + f"); in its twin's seasons {twin_target_flags}/{n}; the framer flagged {framer_flags}/{n}")


def print_false_alarms(game: str, seasons: int, seed: int, games: int, learner: bool = False) -> None:
    """Honest seasons only (the twin and the three honest bots, ``learner``: one of them a :class:`Learner`): how
    many raise any flag, and each test's flags."""
    started = time.perf_counter()
    params, make = MATCHES[game]
    higher = spec(game).higher_score_is_better
    alarms, by_test, tests = 0, {LATER: 0, INFORMED_PLAY: 0, LUCK: 0, HELD_HANDS: 0}, 0
    shares: list[float] = []
    for i in range(seasons):
        opponents = honest_opponents(game, learner)
        season = simulate_season(game, params, [make(False), *opponents], seed * 1_000_003 + i, games)
        shares += [opponents[1].share] if isinstance(opponents[1], Learner) else []
        audited = audit_season(season.games, higher)
        alarms += any(a.flags for a in audited.values())
        for a in audited.values():
            tests += len(a.tests)
            for t in a.flags:
                by_test[t.name] += 1
    print(f"{game}: {seasons} honest seasons of {games} games, 4 bots ({time.perf_counter() - started:.0f} s): "
          f"{alarms} with any flag ({100 * alarms / seasons:.2f}%; target <= 1%); flags by test: "
          + ", ".join(f"{k} {v}" for k, v in by_test.items()) + f" of {tests} tests"
          + (f"; the learner's random share fell from 0.5 to {sum(shares) / len(shares):.3f} on average"
             if shares else ""))


if __name__ == "__main__":
    main()
