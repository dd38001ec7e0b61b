"""Games needed to separate two bots, with and without duplicate deals; a measurement, not a test.

Usage: python -m bench.bench_duplicate [--groups N] [--seed S] [--games slippery-sam,svara,rummy] [--floor]

For each game, two bots of different strength, A and B, sit A B A B at a
table of 4 (the rules engine in-process, no referee or RPC: ``referee.playout``).
A rotation group is the table twice, the second time with every bot one seat on
(B A B A). Its result is A's mean score change less B's, averaged over the two
games. Four ways to deal:

- **separate deals**: each game its own seed (a fixed-length season without ``--duplicate``);
- **duplicate, one stream**: both games of a group one seed, chance from one generator
  for the whole game (the referee's first scheme);
- **duplicate, per-deal streams**: both games one seed, each deal from its own stream
  (``referee.chance``'s ``per-deal``: the n-th deal is the same cards in both games);
- **duplicate, svaras aside**: as the last, with a Svara svara's replay deals in a
  stream of their own (``per-deal-aside``, what the referee plays with), so that a
  svara in one game of the group and not in the other leaves the later hands' cards alike.

Svara is measured with two pairs: ``points`` against ``points`` playing 30% of its
decisions at random (B's own dice are noise no deal can cancel), and ``points``
against ``tight``, a ``points`` that plays on, raises and sees only with 3 points more
(two deterministic bots, like Slippery Sam's pair).

Printed: the mean difference (points or tokens per game) and the games needed for its
95% interval to exclude zero, ``2 x (1.96 sd / mean)^2`` for the groups' sd and the mean
of all four rows (every way of dealing has the same expected difference, and a row's own
mean is noisy enough to move the figure by a fifth), and how many times fewer games than
with separate deals. With ``--floor``: how much of the variance is the bots' own dice
(each duplicate group played again with other dice), which bounds what any dealing can cut.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable

from botsdk.bot import Context
from referee.bots import load_bot
from referee.games.slippery_sam.bots import odds_policy
from referee.games.svara.bots import PointsBot
from referee.chance import PER_DEAL, PER_DEAL_1, SINGLE, Chance
from referee.games import make_params, spec
from referee.playout import Playout, Policy

Maker = Callable[[int], Policy]
#: the matches: game, its parameters, and the names and policies (per seat) of bots A and B
MATCHES: list[tuple[str, dict[str, int], str, Maker, str, Maker]] = []


class TightPoints(PointsBot):
    """``points`` with every threshold 3 points higher: folds more, raises and sees less."""

    PLAY = PointsBot.PLAY + 3
    RAISE = PointsBot.RAISE + 3
    SEE_AT = PointsBot.SEE_AT + 3


def tight_policy(seat: int) -> Policy:
    """:class:`TightPoints` in ``seat`` as a policy."""
    bot = TightPoints()
    return lambda view, rng: bot.svara(view, Context("bench", seat, 0, 0, 0, 0, rng))


def bot_policy(name: str, game: str, seat: int) -> Policy:
    """The reference bot ``name`` in ``seat`` as a ``(view, rng) -> action`` policy."""
    bot, field = load_bot(name, seat), spec(game).proto_field
    return lambda view, rng: bot.decide(field, view, Context("bench", seat, 0, 0, 0, 0, rng))


def sloppy(name: str, game: str, seat: int, share: float = 0.3) -> Policy:
    """``name`` that plays the ``random`` bot's answer at ``share`` of its decisions (drawn from the game's rng)."""
    good, bad = bot_policy(name, game, seat), bot_policy("random", game, seat)
    return lambda view, rng: bad(view, rng) if rng.random() < share else good(view, rng)


MATCHES.extend([
    ("slippery-sam", {"orbits": 1}, "odds", odds_policy, "odds at half stake", lambda seat: odds_policy(seat, 0.5)),
    ("svara", {"hands": 6}, "points", lambda seat: bot_policy("points", "svara", seat),
     "points, 30% random", lambda seat: sloppy("points", "svara", seat)),
    ("svara", {"hands": 6}, "points", lambda seat: bot_policy("points", "svara", seat), "tight", tight_policy),
    ("rummy", {"turn_limit": 40}, "greedy", lambda seat: bot_policy("greedy", "rummy", seat),
     "greedy, 30% random", lambda seat: sloppy("greedy", "rummy", seat)),
])


def play_game(game: str, params: dict[str, int], policies: list[Policy], seed: int, scheme: str,
              dice: int = 0) -> list[int]:
    """One game of 4 seats; the score change per seat. ``dice`` varies the bots' own random draws, not the deal."""
    gs = spec(game)
    rules = gs.make_rules(make_params(game, params), 4)
    state, chance, rng = rules.new_state(), Chance(seed, scheme), random.Random(seed ^ 0x5EED ^ dice)
    Playout(rules, gs, rng, policies, chance).play(state)
    sign = 1 if gs.higher_score_is_better else -1
    return [sign * c for c in rules.score_changes(state)]


def group_difference(match: tuple[str, dict[str, int], str, Maker, str, Maker], seeds: tuple[int, int],
                     scheme: str, dice: int = 0) -> float:
    """A's mean change less B's over a rotation group (A B A B, then B A B A); ``dice`` as for :func:`play_game`."""
    game, params, _, a, _, b = match
    total = 0.0
    for shift, seed in enumerate(seeds):
        makers = [a, b, a, b] if shift == 0 else [b, a, b, a]
        change = play_game(game, params, [make(seat) for seat, make in enumerate(makers)], seed, scheme, dice)
        a_seats = [s for s in range(4) if (s + shift) % 2 == 0]
        total += sum(change[s] for s in a_seats) / 2 - sum(change[s] for s in range(4) if s not in a_seats) / 2
    return total / 2


def games_needed(diffs: list[float], mean: float) -> float:
    """Games (2 per group) for the 95% interval of the mean group difference to exclude zero,
    for the groups' variance and the difference ``mean``."""
    own = sum(diffs) / len(diffs)
    var = sum((d - own) ** 2 for d in diffs) / (len(diffs) - 1)
    return 2 * 1.959963984540054 ** 2 * var / mean ** 2 if mean else math.inf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=100, help="rotation groups per row")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--games", default="slippery-sam,svara,rummy")
    parser.add_argument("--floor", action="store_true",
                        help="only the variance the bots' own dice leave with the deals duplicated")
    args = parser.parse_args()
    if args.floor:
        for match in [m for m in MATCHES if m[0] in args.games.split(",")]:
            print_floor(match, args.groups, args.seed)
        return
    print(f"{'game: A against B':<48} {'deals':<30} {'mean A - B':>10} {'games needed':>13} {'fewer':>6}")
    for match in [m for m in MATCHES if m[0] in args.games.split(",")]:
        started = time.perf_counter()
        game, _, a_name, _, b_name, _ = match
        rows = (("separate deals", PER_DEAL, False), ("duplicate, one stream", SINGLE, True),
                ("duplicate, per-deal streams", PER_DEAL_1, True), ("duplicate, svaras aside", PER_DEAL, True))
        results = []
        for label, scheme, duplicate in rows:
            rng = random.Random(args.seed)
            diffs = []
            for _ in range(args.groups):
                first = rng.getrandbits(63)
                seeds = (first, first) if duplicate else (first, rng.getrandbits(63))
                diffs.append(group_difference(match, seeds, scheme))
            results.append((label, diffs))
        # every way of dealing deals each card alike, so A's true advantage is the same in every row:
        # its best estimate is the mean over all rows, and the rows differ only in their variance
        pooled = sum(sum(d) for _, d in results) / sum(len(d) for _, d in results)
        separate = games_needed(results[0][1], pooled)
        for label, diffs in results:
            needed = games_needed(diffs, pooled)
            print(f"{game + ': ' + a_name + ' against ' + b_name:<48} {label:<30} "
                  f"{sum(diffs) / len(diffs):+10.2f} {needed:13.1f} {separate / needed:6.2f}")
        print(f"  (pooled mean A - B {pooled:+.2f}; {time.perf_counter() - started:.0f} s)")


def print_floor(match: tuple[str, dict[str, int], str, Maker, str, Maker], groups: int, seed: int) -> None:
    """Each duplicate group (svaras aside) played twice with other dice: half the variance of the
    difference of the two is what the bots' own random draws add, which no dealing cancels; beside it
    the variance with separate deals and the most any dealing could cut the games by."""
    rng, within, separate = random.Random(seed), [], []
    for _ in range(groups):
        first, second = rng.getrandbits(63), rng.getrandbits(63)
        twice = [group_difference(match, (first, first), PER_DEAL, dice) for dice in (0, 1 + rng.getrandbits(62))]
        within.append(twice[0] - twice[1])
        separate.append(group_difference(match, (first, second), PER_DEAL))
    dice_var = sum(d * d for d in within) / (2 * len(within))
    mean = sum(separate) / len(separate)
    sep_var = sum((d - mean) ** 2 for d in separate) / (len(separate) - 1)
    game, _, a_name, _, b_name, _ = match
    print(f"{game}: {a_name} against {b_name}: variance of A - B from the dice {dice_var:,.0f}, with separate deals "
          f"{sep_var:,.0f}: duplicate deals cut the games at most {sep_var / dice_var:.2f}x" if dice_var else
          f"{game}: {a_name} against {b_name}: the bots roll no dice of their own")


if __name__ == "__main__":
    main()
