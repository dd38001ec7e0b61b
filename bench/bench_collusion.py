"""The collusion screen against teams of bots: detection, gain, false alarms and framing; a measurement, not a test.

Usage: python -m bench.bench_collusion [--seasons N] [--games 150] [--seed S]
                                       [--runs honest,soft,rare,one-way,dump,framer]

Each season is 5 bots on tables of 5 (so all five at every table), ``--games`` games of Svara with the default
parameters (30 hands), played in-process (the rules engine and the referee's per-deal chance streams,
``referee.playout``; no RPC), and screened by ``league.integrity.collusion.screen_season`` over each game's
``GameSpec.team_play``. Runs:

- **honest**: five honest bots drawn per season from a pool of styles and strengths: ``points``, ``tight``
  (thresholds 3 higher), ``loose`` (3 lower), ``sloppy`` (``points`` playing 30% of its decisions at random),
  ``random``, ``maniac`` (raises to the maximum with any hand it keeps), and ``adaptive`` (``points`` that
  moves its thresholds after every game by its own result: a bot that learns over the season). Printed: the share
  of seasons with any flag (target <= 1%).
- **soft**: bots 0 and 1 share their hands (the issue's pair: the weaker folds when only the two are left, stakes
  the maximum beside a strong partner, never raises against a stronger partner), beside three ``points``; the same
  season again with the two not sharing (the same deals, seats and dice) gives their gain: the pair's mean change
  per game (the two summed) less the twins'. Printed: gain, and the share of seasons both are flagged (target:
  gain <= +30 tokens a game or both flagged in >= 90%).
- **rare**: the same pair colluding only on large banks (at least :data:`RARE_BANK` tokens): the white-box evader
  that gives up most of its gain to stay under the test.
- **one-way**: only bot 0 uses bot 1's cards (bot 1 plays ``points``): one direction of the intersection-union test.
- **dump**: bot 0 dumps chips to bot 1 (raises to the maximum when only the two are left and bot 1's hand is
  better, so that bot 1 sees and wins): the dumper should be flagged, for moves against bot 1's hidden cards.
- **framer**: bot 0 sets out to frame bot 1, an honest ``points``: it folds to bot 1 whenever only the two are left
  (unless its hand has 28 points or more), raises to the maximum only with a strong hand when bot 1 is in (so that
  its public moves tell bot 1 its strength) and, when only the two are left and its hand is weak, raises before
  folding (chips to bot 1). Printed: how often bot 1 is flagged (target <= 1%) and bot 0.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from cardarena.v1 import svara_pb2

from bench.bench_audit import bench_context
from bench.bench_duplicate import TightPoints, bot_policy, sloppy
from league.competition.schedule import ScheduledGame, build_schedule
from league.integrity.collusion import AGAINST, TEAM, CollusionGame, screen_season
from league.integrity.fairness import key_from_seed
from referee.chance import PER_DEAL, Chance
from referee.games import make_params, spec
from referee.games.svara.bots import FOLD, LOOK, SEE, STAKE, PointsBot
from referee.games.svara.points import hand_points
from referee.playout import Playout, Policy

GAME = "svara"
SEATS = 5
#: Bank (tokens) from which the ``rare`` pair colludes.
RARE_BANK = 300


class Player:
    """A bot of a simulated season: ``policy(seat, game)`` gives its policy for one game; ``result(change)`` is told
    its score change after each game."""

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        raise NotImplementedError

    def result(self, change: float) -> None:
        """Its score change in the game just played (tokens)."""


@dataclass
class Named(Player):
    """A reference-style bot by name (see :func:`honest_policy`)."""

    name: str

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        return honest_policy(self.name, seat)


class LoosePoints(PointsBot):
    """``points`` with every threshold 3 points lower: plays on, raises and sees more."""

    PLAY = PointsBot.PLAY - 3
    RAISE = PointsBot.RAISE - 3
    SEE_AT = PointsBot.SEE_AT - 3


class ManiacPoints(PointsBot):
    """``points`` that raises to the maximum with any hand it plays on."""

    RAISE = PointsBot.PLAY


def _bot_as_policy(bot: PointsBot, seat: int) -> Policy:
    return lambda view, rng: bot.svara(view, bench_context(seat, rng))


def honest_policy(name: str, seat: int) -> Policy:
    """An honest bot's policy: ``points``, ``tight``, ``loose``, ``maniac``, ``sloppy`` or ``random``."""
    if name == "tight":
        return _bot_as_policy(TightPoints(), seat)
    if name == "loose":
        return _bot_as_policy(LoosePoints(), seat)
    if name == "maniac":
        return _bot_as_policy(ManiacPoints(), seat)
    if name == "sloppy":
        return sloppy("points", GAME, seat)
    return bot_policy(name, GAME, seat)


@dataclass
class Adaptive(Player):
    """``points`` that learns from its own results: after every game it keeps its thresholds if it won tokens, else
    moves them all by one point, on in the same direction as its last move while that paid, the other way otherwise
    (a hill climber over the season)."""

    shift: int = 0
    step: int = 1
    last: float = 0.0

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        bot = PointsBot()
        bot.PLAY, bot.RAISE, bot.SEE_AT = (PointsBot.PLAY + self.shift, PointsBot.RAISE + self.shift,
                                           PointsBot.SEE_AT + self.shift)
        return _bot_as_policy(bot, seat)

    def result(self, change: float) -> None:
        if change < self.last:
            self.step = -self.step
        if change < 0:
            self.shift = max(-6, min(6, self.shift + self.step))
        self.last = change


#: The honest styles a season draws its five bots from.
HONEST = ("points", "tight", "loose", "sloppy", "random", "maniac", "adaptive")


def honest_player(name: str) -> Player:
    """An honest player of style ``name`` (:data:`HONEST`)."""
    return Adaptive() if name == "adaptive" else Named(name)


@dataclass
class Team:
    """What two bots served from one process share: each one's hand in the current deal, once it has looked."""

    #: (game number, seat) -> ((hand number, svara, bottom card), cards)
    hands: dict[tuple[int, int], tuple[tuple[int, int, str], tuple[str, ...]]] = field(default_factory=dict)


@dataclass
class Colluder(Player):
    """``points`` that knows its partner's hand (the :class:`Team`'s) and plays as the partner's teammate.

    ``mode``: ``soft`` (the weaker folds when only the two are left; the maximum stake beside a partner with 25
    points or more and a better hand; no raise against a better partner), ``dump`` (when only the two are left and
    the partner's hand is better, raise to the maximum: the partner sees and wins), ``framer`` (see the module).
    ``share``: whether it tells the team its own hand; ``use``: whether it reads the partner's;
    ``min_bank``: it uses the partner's hand only when the bank holds at least this many tokens."""

    team: Team
    partner: int  # the partner's bot id
    mode: str = "soft"
    share: bool = True
    use: bool = True
    min_bank: int = 0
    seats_of: dict[int, dict[int, int]] = field(default_factory=dict)  # game number -> bot -> seat

    def policy(self, seat: int, game: ScheduledGame) -> Policy:
        bot = PointsBot()
        partner_seat = game.seats.index(self.partner) if self.partner in game.seats else -1

        def decide(view: Any, rng: random.Random) -> Any:
            honest = bot.svara(view, bench_context(seat, rng))
            deal = (view.hand_number, view.svara, view.bottom_card)
            if self.share and view.hand:
                self.team.hands[(game.number, seat)] = (deal, tuple(view.hand))
            if view.decision != svara_pb2.SVARA_DECISION_TURN or partner_seat < 0:
                return honest
            moves = set(view.legal.moves)
            if self.mode == "framer":
                return self._frame(view, honest, moves, partner_seat)
            if not self.use or not view.hand or not view.in_play[partner_seat] or view.bank < self.min_bank:
                return honest
            known = self.team.hands.get((game.number, partner_seat))
            if known is None or known[0] != deal:
                return honest
            mine, theirs = hand_points(list(view.hand), view.szacha), hand_points(list(known[1]), view.szacha)
            two = sum(view.in_play) == 2
            if self.mode == "dump":
                if two and theirs > mine and STAKE in moves:
                    return svara_pb2.SvaraAction(move=STAKE, amount=view.legal.stake_max)
                return honest
            if two:
                if theirs > mine:
                    return svara_pb2.SvaraAction(move=FOLD)
                if STAKE in moves and honest.move != FOLD:
                    return svara_pb2.SvaraAction(move=STAKE, amount=view.legal.stake_min)
                return honest
            if theirs > mine and theirs >= PointsBot.RAISE and STAKE in moves:
                return svara_pb2.SvaraAction(move=STAKE, amount=view.legal.stake_max)
            if theirs > mine and honest.move == STAKE and honest.amount > view.legal.stake_min:
                return svara_pb2.SvaraAction(move=STAKE, amount=view.legal.stake_min)
            return honest

        return decide

    @staticmethod
    def _frame(view: Any, honest: Any, moves: set[int], target: int) -> Any:
        """The framer's move against ``target`` (the target's seat), see the module."""
        if not view.in_play[target] or LOOK in moves or not view.hand:
            return honest
        mine = hand_points(list(view.hand), view.szacha)
        two = sum(view.in_play) == 2
        if two:
            if mine >= 28:
                return svara_pb2.SvaraAction(move=SEE) if SEE in moves else honest
            if STAKE in moves and view.current_stake < view.legal.stake_max and mine < PointsBot.PLAY:
                return svara_pb2.SvaraAction(move=STAKE, amount=view.legal.stake_max)
            return svara_pb2.SvaraAction(move=FOLD)
        if STAKE in moves and honest.move == STAKE:
            amount = view.legal.stake_max if mine >= PointsBot.RAISE else view.legal.stake_min
            return svara_pb2.SvaraAction(move=STAKE, amount=amount)
        return honest


@dataclass(frozen=True)
class Season:
    """A simulated season: its games for the screen and each bot's mean change per game (tokens)."""

    games: list[CollusionGame]
    mean_change: list[float]


def simulate_season(players: Sequence[Player], seed: int, games: int = 150) -> Season:
    """A season of ``players`` (bot ids 0..4) at tables of 5, from the key of ``seed``, played in schedule order;
    each game's bots roll their own dice (seeded by the game), so a season played again with other players at the
    same ids deals the same cards to the same seats."""
    gs = spec(GAME)
    params = make_params(GAME, {})
    schedule = build_schedule(list(range(len(players))), [SEATS], games, key_from_seed(seed))
    out: list[CollusionGame] = []
    totals = [0.0] * len(players)
    counts = [0] * len(players)
    for g in schedule:
        rules = gs.make_rules(params, len(g.seats))
        state = rules.new_state()
        policies = [players[bot].policy(seat, g) for seat, bot in enumerate(g.seats)]
        Playout(rules, gs, random.Random(f"{seed}/{g.number}"), policies, Chance(g.seed, PER_DEAL)).play(state)
        changes = rules.score_changes(state)
        events = [{"kind": e.kind, "data": e.data, "visible_to": None} for e in state.events]
        assert gs.team_play is not None
        out.append(CollusionGame(g.number, g.seats, gs.team_play(events, len(g.seats), asdict(params))))
        for seat, bot in enumerate(g.seats):
            totals[bot] += changes[seat]
            counts[bot] += 1
            players[bot].result(changes[seat])
    return Season(out, [t / c if c else 0.0 for t, c in zip(totals, counts)])


def attack(mode: str, team: Team, colluding: bool) -> list[Player]:
    """The five players of an attack run (bots 0 and 1 the pair, or the framer and its target; 2..4 ``points``)."""
    if mode == "framer":
        return [Colluder(team, 1, mode="framer"), Named("points"), *[Named("points") for _ in range(3)]]
    share = colluding
    if mode == "one-way":
        pair: list[Player] = [Colluder(team, 1, use=colluding), Colluder(team, 0, share=colluding, use=False)]
    else:
        kind = "dump" if mode == "dump" else "soft"
        bank = RARE_BANK if mode == "rare" else 0
        pair = [Colluder(team, 1, mode=kind, share=share, use=colluding, min_bank=bank),
                Colluder(team, 0, mode=kind, share=share, use=colluding and kind != "dump", min_bank=bank)]
    return [*pair, *[Named("points") for _ in range(3)]]


def run_honest(seasons: int, seed: int, games: int, first: int = 0) -> None:
    """Honest seasons of bots drawn from :data:`HONEST` (seasons ``first`` to ``first + seasons - 1`` of ``seed``):
    the share with any flag; a line every 10 seasons."""
    started = time.perf_counter()
    alarms = 0
    by_test = {TEAM: 0, AGAINST: 0}
    tests = 0
    for i in range(first, first + seasons):
        if (i - first) % 10 == 0:
            print(f"  {i - first} seasons, {alarms} with a flag ({time.perf_counter() - started:.0f} s)", flush=True)
        rng = random.Random(f"lineup/{seed}/{i}")
        names = [rng.choice(HONEST) for _ in range(SEATS)]
        season = simulate_season([honest_player(n) for n in names], seed * 1_000_003 + i, games)
        screen = screen_season(season.games, seed=i)
        tests += len(screen.tests)
        alarms += bool(screen.flags)
        for f in screen.flags:
            by_test[f.name] += 1
            print(f"  false alarm in season {i} ({', '.join(names)}): bot {f.bots[0]} ({names[f.bots[0]]}): "
                  f"{f.message(f.bots[0], dict(enumerate(names)))}", flush=True)
    print(f"honest: {seasons} seasons of {games} games, 5 bots from {', '.join(HONEST)} "
          f"({time.perf_counter() - started:.0f} s): {alarms} with any flag ({100 * alarms / seasons:.2f}%; target "
          f"<= 1%); flags: team {by_test[TEAM]}, against hidden cards {by_test[AGAINST]} of {tests} tests")


def run_attack(mode: str, seasons: int, seed: int, games: int) -> None:
    """Seasons of one attack, each played again without the collusion: gain and flag rates."""
    started = time.perf_counter()
    gains, target_gain = [], []
    both = first = second = 0
    for i in range(seasons):
        s = seed * 1_000_003 + 500_000 + i
        cheat = simulate_season(attack(mode, Team(), True), s, games)
        twin = cheat if mode == "framer" else simulate_season(attack(mode, Team(), False), s, games)
        gains.append(cheat.mean_change[0] + cheat.mean_change[1] - twin.mean_change[0] - twin.mean_change[1])
        target_gain.append(cheat.mean_change[1] - twin.mean_change[1])
        screen = screen_season(cheat.games, seed=i)
        f0, f1 = bool(screen.flags_of(0)), bool(screen.flags_of(1))
        first += f0
        second += f1
        both += f0 and f1
    n = len(gains)
    print(f"{mode}: {n} seasons of {games} games ({time.perf_counter() - started:.0f} s)")
    print(f"  pair's gain over the same bots not colluding (bots 0 + 1): {_ci(gains)} tokens/game; "
          f"bot 1's alone: {_ci(target_gain)}")
    print(f"  flagged: bot 0 {first}/{n} ({100 * first / n:.1f}%), bot 1 {second}/{n} ({100 * second / n:.1f}%), "
          f"both {both}/{n} ({100 * both / n:.1f}%)")


def _ci(xs: Sequence[float]) -> str:
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return f"{mean:+.1f} [{mean - 1.96 * sd / math.sqrt(n):+.1f}, {mean + 1.96 * sd / math.sqrt(n):+.1f}]"


#: ``--first``: the first honest season's index.
FIRST = [0]

RUNS: dict[str, Callable[[int, int, int], None]] = {
    "honest": lambda n, s, g: run_honest(n, s, g, FIRST[0]),
    **{m: (lambda mode: lambda n, s, g: run_attack(mode, n, s, g))(m)
       for m in ("soft", "rare", "one-way", "dump", "framer")},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seasons", type=int, default=200, help="seasons per run (attack runs play each twice)")
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", default=",".join(RUNS))
    parser.add_argument("--first", type=int, default=0, help="honest: the first season's index (to split a run)")
    args = parser.parse_args()
    FIRST[0] = args.first
    for run in args.runs.split(","):
        RUNS[run](args.seasons, args.seed, args.games)


if __name__ == "__main__":
    main()
