"""The ladder's rating scale (league.ratings.anchor, rules §5.4): a newcomer does not move the established entrants.

Six bots of equal strength play a ladder through its runner until its founders are fixed; then bot ``a`` is
retired (it stays in the ratings, and plays no game more) and a bot that always finishes last joins. Nothing
of ``a``'s own explains a move of its rating. On the fit's own scale (mean 1500 over every rated entrant)
the newcomer's arrival lifts ``a`` by tens of points; anchored, it moves ``a`` by at most 10."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from league.competition.ladder import FOUNDER_GAMES, LadderRunner, create_ladder, ladder_fit
from league.integrity import fairness
from league.policy import POLICY
from league.ratings.anchor import anchor_offset, anchored
from league.ratings.ratings_ml import MLRatings, fit_bradley_terry
from referee.games import spec
from store import GameStatus, open_store
from tests.a_game import game_without_luck
from tests.store.conftest import finish


def _entrant_of(store, lid: int, bot: int) -> int:  # type: ignore[no-untyped-def]
    return max(e.id for e in store.ladders.entrants(lid) if e.bot_id == bot)


def _play(store, lid: int, rng: random.Random, last: int | None) -> int:  # type: ignore[no-untyped-def]
    """Finish the pending games (places drawn at random, ``last`` always last)."""
    n = 0
    for g in store.ladders.ladder_games(lid, status=[GameStatus.PENDING]):
        seats = [bot for bot, _, _ in g.seats]
        order = sorted(seats, key=lambda b: (b == last, rng.random()))
        finish(store, g.id, [order.index(b) + 1 for b in seats])
        n += 1
    return n


def test_a_weak_newcomer_moves_no_established_entrant_without_games_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the epochs' keys (and so the tables the runner draws) from a seed, not the system's randomness: one instance
    # of the ladder, the same at every run (with fresh keys a run now and then moved ``a`` by 22 points)
    keys = random.Random(11)
    monkeypatch.setattr(fairness, "new_key", lambda: keys.randbytes(32))
    store = open_store(f"sqlite:///{tmp_path / 'anchor.db'}", policy=POLICY)
    game = game_without_luck()
    bots = {n: store.bots.register_bot(n, f"127.0.0.1:{5200 + i}", "1.0", "tests", [game], capacity=4)
            for i, n in enumerate("abcdef")}
    lid = create_ladder(store, "anchored", spec(game), [3], window=8, epoch_games=50)
    runner, rng = LadderRunner(store, lid), random.Random(3)
    played = 0
    while played < FOUNDER_GAMES + 140:
        runner.refill()
        played += _play(store, lid, rng, None)
    a = _entrant_of(store, lid, bots["a"])
    store.games.retire_bot(bots["a"])
    before = ladder_fit(store, lid)
    weak = store.bots.register_bot("weak", "127.0.0.1:5299", "1.0", "tests", [game], capacity=4)
    joined = 0
    for _ in range(40):
        runner.refill()
        joined += _play(store, lid, rng, weak)
    after = ladder_fit(store, lid)
    w = _entrant_of(store, lid, weak)
    assert joined >= 40 and w in after.rating and after.rating[w] < min(after.rating[e] for e in after.bots if e != w) - 100
    assert abs(after.rating[a] - before.rating[a]) <= 10, (before.rating[a], after.rating[a])
    # on the fit's own scale (every rated entrant's mean at 1500) the same games lift a by far more
    own_scale = anchor_offset(after, dict.fromkeys(after.bots, 1500.0))  # what moves every rating to that scale
    assert after.rating[a] + own_scale - before.rating[a] > 20


def test_a_shift_keeps_every_difference_and_interval_width() -> None:
    fit = fit_bradley_terry([([1, 2, 3], [1, 2, 3]), ([2, 3, 1], [1, 3, 2]), ([3, 1, 2], [2, 1, 3])] * 5)
    moved = anchored(fit, {1: 1600.0, 2: 1600.0})
    assert isinstance(moved, MLRatings)
    assert (moved.rating[1] + moved.rating[2]) / 2 == 1600.0
    assert moved.rating[1] - moved.rating[3] == fit.rating[1] - fit.rating[3]
    assert moved.sd(3) == fit.sd(3) and moved.p_better(1, 3) == fit.p_better(1, 3)
    assert anchored(fit, {}) is fit and anchored(fit, {99: 1700.0}) is fit  # no founder rated: the fit's own scale
