"""Per-deal chance streams (referee.chance): the n-th deal is the same cards whatever came before it,
the former single stream is reproduced for old replays, and real games still re-run and verify."""

from __future__ import annotations

import random

import pytest

from referee.bots import load_bot
from referee.chance import PER_DEAL, SINGLE, Chance, stream_seed
from referee.clients import InProcessBotClient
from referee.engine import DrawLot, Shuffle
from referee.games import make_params, spec
from referee.referee import play
from referee.replay import ReplayMismatch, verify

PACK = tuple(f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs")
DEAL, LOT, STOCK = Shuffle(PACK), DrawLot((0, 1, 2)), Shuffle(PACK[:20], stream="stock")


def _answers(scheme: str, steps) -> list:
    chance = Chance(99, scheme)
    return [chance.answer(s) for s in steps]


def test_the_nth_deal_does_not_depend_on_what_came_before() -> None:
    # a game with a draw by lot (a svara) or a rebuilt stock between its deals, and one without
    plain = _answers(PER_DEAL, [DEAL, DEAL, DEAL])
    mixed = _answers(PER_DEAL, [DEAL, LOT, DEAL, STOCK, STOCK, DEAL])
    assert [mixed[0], mixed[2], mixed[5]] == plain
    assert sorted(plain[0]) == sorted(PACK) and plain[0] != plain[1] != plain[2]
    # the single stream of the former scheme shifts every deal after the lot
    single = _answers(SINGLE, [DEAL, LOT, DEAL])
    assert single[0] == _answers(SINGLE, [DEAL, DEAL])[0] and single[2] != _answers(SINGLE, [DEAL, DEAL])[1]


def test_the_single_scheme_is_the_former_generator() -> None:
    rng = random.Random(99)
    former = [rng.sample(PACK, 52), rng.choice((0, 1, 2)), rng.sample(PACK[:20], 20)]
    assert _answers(SINGLE, [DEAL, LOT, STOCK]) == former
    assert stream_seed(99, "deal", 0) == stream_seed(99, "deal", 0) != stream_seed(99, "deal", 1)
    with pytest.raises(ValueError):
        Chance(1, "other")


@pytest.mark.parametrize("game", ["svara", "rummy"])
def test_same_seed_other_bots_same_deals_and_both_replays_verify(game: str) -> None:
    gs = spec(game)
    params = make_params(game, {"hands": 6} if game == "svara" else {"turn_limit": 40})
    strong = {"svara": "points", "rummy": "greedy"}[game]
    records = [play(gs, params, 4, 5, [InProcessBotClient(load_bot(name, s).act) for s in range(4)], game_id=name)
               for name in (strong, "random")]
    for record in records:
        assert record.chance_scheme == PER_DEAL
        verify(record)
    full = max(len(c) for r in records for c in r.chance if isinstance(c, list))  # a deal shuffles the whole pack
    deals = [[c for c in r.chance if isinstance(c, list) and len(c) == full] for r in records]
    n = min(len(d) for d in deals)
    assert n >= 2 and deals[0][:n] == deals[1][:n]
    wrong = records[0]
    wrong.chance_scheme = SINGLE
    with pytest.raises(ReplayMismatch):
        verify(wrong)
