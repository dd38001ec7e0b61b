"""The fair-play benchmark (``bench.bench_fair_play``, a Slippery Sam cheater) can see a leak, and can fail.

Its cheater predicts with the platform's own chance code; handed the season key (the
positive control) it must name the stack cards and win, and without it it must name them
at chance level. A short run of the bench checks both controls on real bot processes, a
real dashboard and store; the cheater's reading of a deal is checked on games played by
the referee itself; the tail probability and the verdict are checked on known values.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from itertools import product
from pathlib import Path

import pytest

from bench import bench_fair_play as fp
from referee.bots import RandomBot
from referee.chance import SCHEMES
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.games.slippery_sam.bots import OddsBot
from referee.referee import play

ROOT = Path(__file__).parents[4]  # the repository


class Reader(OddsBot):
    """The odds bot that, at each bet, reads the deal with the bench's own code, knowing the game's seed."""

    def __init__(self, seed: int, deal_seed: int) -> None:
        super().__init__(seed)
        self.deal_seed = deal_seed
        self.named: list[tuple[tuple[str, ...], tuple[str, ...], str | None]] = []
        self.exact = 0  # bets whose deal number was found without the window either side

    def slippery_sam(self, view, ctx):  # type: ignore[no-untyped-def]
        if view.decision == fp.pb.SLIPPERY_SAM_DECISION_BET:
            cards = [fp.next_card(self.deal_seed, scheme, view, ctx.seat) for scheme in SCHEMES]
            named = next((c for c in cards if c is not None), None)
            orders = [fp.shuffles(self.deal_seed, scheme, fp.deal_number(view) + 1)[-1] for scheme in SCHEMES]
            self.exact += any(fp.stack_of(order, view, ctx.seat) is not None for order in orders)
            self.named.append((tuple(sorted(view.hand)), tuple(view.turned), named))
        return super().slippery_sam(view, ctx)


@pytest.mark.parametrize("seats", [3, 5, 8])
def test_the_cheater_reads_every_deal_of_a_game_whose_seed_it_knows(seats: int) -> None:
    """With the true seed, the cheater's code names the card turned at every bet, in games where seats go out
    (random play) and the bank passes with skipped dealers; the deal number is found exactly."""
    bets = exact = 0
    for game in range(6):
        seed = random.Random(seats * 100 + game).getrandbits(63)
        readers = [Reader(s, seed) if s % 2 == 0 else None for s in range(seats)]
        clients = [InProcessBotClient((r or RandomBot(seed=s)).act) for s, r in enumerate(readers)]
        record = play(spec("slippery-sam"), make_params("slippery-sam", {}), seats, seed, clients)
        truth = fp.turned_at_bets(record.events)
        for reader in filter(None, readers):
            assert all(named == truth[(hand, turned)] for hand, turned, named in reader.named), reader.named
            bets += len(reader.named)
            exact += reader.exact
    assert bets > 50 and exact == bets


def test_without_the_seed_it_reads_nothing() -> None:
    """A wrong seed fits no bet (the check of what the seat saw is strict)."""
    seed = 12345
    reader = Reader(0, seed + 1)
    clients = [InProcessBotClient(reader.act), InProcessBotClient(RandomBot(seed=1).act),
               InProcessBotClient(RandomBot(seed=2).act)]
    play(spec("slippery-sam"), make_params("slippery-sam", {}), 3, seed, clients)
    assert reader.named and all(named is None for _, _, named in reader.named)


def test_upper_tail_is_the_exact_poisson_binomial_tail() -> None:
    ps = [0.1, 0.5, 0.25, 0.02, 0.3]
    for hits in range(len(ps) + 2):
        brute = sum(math.prod(p if x else 1 - p for p, x in zip(ps, xs, strict=True))
                    for xs in product((0, 1), repeat=len(ps)) if sum(xs) >= hits)
        assert fp.upper_tail(ps, hits) == pytest.approx(brute, abs=1e-12)
    # the binomial case: 200 bets at 1/40, 15 or more hits
    binomial = sum(math.comb(200, k) * (1 / 40) ** k * (39 / 40) ** (200 - k) for k in range(15, 201))
    assert fp.upper_tail([1 / 40] * 200, 15) == pytest.approx(binomial, rel=1e-9)


def _figures(name: str, bets: int, right: int, margin: float) -> fp.SeasonFigures:
    p = 1 / 40
    return fp.SeasonFigures(name, bets, right, right, bets * p, fp.upper_tail([p] * bets, right),
                            [int(margin)] * 3, [0] * 3)


def test_the_verdict_fails_a_blind_positive_control_and_a_leak() -> None:
    good_blind, good_keyed = _figures("blind", 400, 10, 0), _figures("keyed", 400, 400, 300)
    assert fp.verdict(good_blind, good_keyed) == []
    blind_control = fp.verdict(good_blind, _figures("keyed", 400, 10, 300))
    assert len(blind_control) == 1 and "named 10 of 400" in blind_control[0]
    no_win = fp.verdict(good_blind, _figures("keyed", 400, 400, 20))
    assert len(no_win) == 1 and "won +20.0 tokens" in no_win[0]
    leak = fp.verdict(_figures("blind", 400, 25, 0), good_keyed)  # 25 right, 10 expected
    assert len(leak) == 1 and "leak" in leak[0]
    assert fp.verdict(_figures("blind", 0, 0, 0), good_keyed)


@pytest.mark.slow  # left out of `make check`; `make test` runs it
def test_the_bench_sees_the_cards_with_the_key_and_none_without(tmp_path: Path) -> None:
    """A short run of the bench: both controls hold, and the figures say so."""
    out = tmp_path / "figures.json"
    run = subprocess.run([sys.executable, "-m", "bench.bench_fair_play", "--games", "8", "--json", str(out)],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    figures = json.loads(out.read_text())
    blind, keyed = figures["blind"], figures["keyed"]
    assert figures["failed"] == []
    assert keyed["bets"] > 30 and keyed["knew"] == keyed["bets"] and keyed["right"] >= 0.99 * keyed["bets"]
    assert keyed["margin"] >= fp.MARGIN
    assert blind["bets"] > 30 and blind["knew"] == 0 and blind["p_value"] >= fp.ALPHA and blind["tried"] > 1000
    assert keyed["p_value"] < fp.ALPHA  # the chance-level test flags a season whose cards the cheater knows
    assert "passed:" in run.stdout


def test_bets_no_stored_game_holds_are_left_out_of_the_figures() -> None:
    """A bet of an attempt that was played again has no card turned on record: it is counted apart, not as a miss."""
    entry = {"game": "g", "hand": ["2c", "3c", "4c"], "turned": [], "named": "Ah", "knew": True, "unseen": 49}
    turned = {("g", ("2c", "3c", "4c"), ()): "Ah", ("g", ("5d", "6d", "7d"), ("Ah",)): "Kd"}
    right = dict(entry)
    wrong = {**entry, "hand": ["5d", "6d", "7d"], "turned": ["Ah"], "named": "Qd"}
    unstored = {**entry, "hand": ["8h", "9h", "Th"]}
    f = fp.figures("keyed", [right, wrong, unstored], turned, [1], [0])
    assert (f.bets, f.knew, f.right, f.unstored) == (2, 2, 1, 1)
    assert f.misses == ("g 5d 6d 7d [Ah]: Qd / Kd",)
    assert f.expected == pytest.approx(2 / 49)
