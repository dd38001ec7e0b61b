"""Games needed to separate two bots, with and without duplicate deals; a measurement, not a test.

Usage: python -m bench.bench_duplicate [--groups N] [--seed S] [--games slippery-sam,svara,rummy]

For each game, two reference bots of different strength, A and B, sit A B A B at a
table of 4 (the rules engine in-process, no referee or RPC: ``referee.playout``).
A rotation group is the table twice, the second time with every bot one seat on
(B A B A). Its result is A's mean score change less B's, averaged over the two
games. Three ways to deal:

- **separate deals**: each game its own seed (a fixed-length season without ``--duplicate``);
- **duplicate, one stream**: both games of a group one seed, chance from one generator
  for the whole game (the referee's former scheme);
- **duplicate, per-deal streams**: both games one seed, each deal from its own stream
  (``referee.chance``: the n-th deal is the same cards in both games).

Printed: the mean difference (points or tokens per game) and the games needed for its
95% interval to exclude zero, ``2 x (1.96 sd / mean)^2`` for the groups' sd and mean.
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
from referee import playout
from referee.chance import PER_DEAL, SINGLE, Chance
from referee.games import make_params, spec
from referee.playout import Policy

#: per game: its parameters, and the policies of bots A and B for a seat
MATCHES: dict[str, tuple[dict[str, int], str, Callable[[int], Policy], str, Callable[[int], Policy]]] = {}


def bot_policy(name: str, game: str, seat: int) -> Policy:
    """The reference bot ``name`` in ``seat`` as a ``(view, rng) -> action`` policy."""
    bot, field = load_bot(name, seat), spec(game).proto_field
    act = getattr(bot, field)
    return lambda view, rng: act(view, Context("bench", seat, 0, 0, 0, 0, rng))


def sloppy(name: str, game: str, seat: int, share: float = 0.3) -> Policy:
    """``name`` that plays the ``random`` bot's answer at ``share`` of its decisions (drawn from the game's rng)."""
    good, bad = bot_policy(name, game, seat), bot_policy("random", game, seat)
    return lambda view, rng: bad(view, rng) if rng.random() < share else good(view, rng)


MATCHES.update({
    "slippery-sam": ({"orbits": 1}, "odds", odds_policy, "odds at half stake", lambda seat: odds_policy(seat, 0.5)),
    "svara": ({"hands": 6}, "points", lambda seat: bot_policy("points", "svara", seat),
              "points, 30% random", lambda seat: sloppy("points", "svara", seat)),
    "rummy": ({"turn_limit": 40}, "greedy", lambda seat: bot_policy("greedy", "rummy", seat),
              "greedy, 30% random", lambda seat: sloppy("greedy", "rummy", seat)),
})


def play_game(game: str, params: dict[str, int], policies: list[Policy], seed: int, scheme: str) -> list[int]:
    """One game of 4 seats; the score change per seat."""
    gs = spec(game)
    rules = gs.make_rules(make_params(game, params), 4)
    state, chance, rng = rules.new_state(), Chance(seed, scheme), random.Random(seed ^ 0x5EED)
    while playout.step(rules, gs, state, rng, policies, chance) is not None:
        pass
    sign = 1 if gs.higher_score_is_better else -1
    return [sign * c for c in rules.score_changes(state)]


def group_difference(game: str, seeds: tuple[int, int], scheme: str) -> float:
    """A's mean change less B's over a rotation group (A B A B, then B A B A)."""
    params, _, a, _, b = MATCHES[game]
    total = 0.0
    for shift, seed in enumerate(seeds):
        makers = [a, b, a, b] if shift == 0 else [b, a, b, a]
        change = play_game(game, params, [make(seat) for seat, make in enumerate(makers)], seed, scheme)
        a_seats = [s for s in range(4) if (s + shift) % 2 == 0]
        total += sum(change[s] for s in a_seats) / 2 - sum(change[s] for s in range(4) if s not in a_seats) / 2
    return total / 2


def games_needed(diffs: list[float]) -> float:
    """Games (2 per group) for the 95% interval of the mean group difference to exclude zero."""
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return 2 * 1.959963984540054 ** 2 * var / mean ** 2 if mean else math.inf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=100, help="rotation groups per row")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--games", default="slippery-sam,svara,rummy")
    args = parser.parse_args()
    print(f"{'game: A against B':<48} {'deals':<30} {'mean A - B':>10} {'games needed':>13}")
    for game in args.games.split(","):
        started = time.perf_counter()
        _, a_name, _, b_name, _ = MATCHES[game]
        rows = (("separate deals", PER_DEAL, False), ("duplicate, one stream", SINGLE, True),
                ("duplicate, per-deal streams", PER_DEAL, True))
        for label, scheme, duplicate in rows:
            rng = random.Random(args.seed)
            diffs = []
            for _ in range(args.groups):
                first = rng.getrandbits(63)
                seeds = (first, first) if duplicate else (first, rng.getrandbits(63))
                diffs.append(group_difference(game, seeds, scheme))
            print(f"{game + ': ' + a_name + ' against ' + b_name:<48} {label:<30} "
                  f"{sum(diffs) / len(diffs):+10.2f} {games_needed(diffs):13.1f}")
        print(f"  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
