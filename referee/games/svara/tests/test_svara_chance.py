"""Svara's per-deal chance streams (referee.chance): a svara's aside deal keeps the later hands' cards
(moved here from the platform's chance tests, which cover every game through its conformance declaration)."""

from __future__ import annotations

import copy
import random

import pytest

from referee.bots import load_bot
from referee.chance import PER_DEAL, PER_DEAL_1, stream_seed
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.games.svara.rules import PACK as SVARA_PACK
from referee.referee import play
from referee.replay import ReplayMismatch, verify


def test_a_svara_replay_keeps_the_later_hands_cards_and_the_record_verifies() -> None:
    gs = spec("svara")
    params = make_params("svara", {"hands": 8})
    for seed in range(40):
        record = play(gs, params, 4, seed, [InProcessBotClient(load_bot("random", s).act) for s in range(4)],
                      game_id="svara")
        if any(e["kind"] == "svara_dealer" for e in record.events):
            break
    else:
        pytest.fail("no svara in 40 games of random bots")
    assert record.chance_scheme == PER_DEAL
    verify(record)
    # the hands' deals are the deal stream's first ones, the svara's deals come from the aside stream
    shuffles = [c for c in record.chance if isinstance(c, list)]
    deal = lambda stream, n: random.Random(stream_seed(seed, stream, n)).sample(SVARA_PACK, 36)  # noqa: E731
    hands = [c for c in shuffles if c in [deal("deal", n) for n in range(len(shuffles))]]
    asides = [c for c in shuffles if c not in hands]
    assert hands == [deal("deal", n) for n in range(len(hands))] and asides
    assert asides == [deal("deal-aside", n) for n in range(len(asides))]
    wrong = copy.deepcopy(record)
    wrong.chance_scheme = PER_DEAL_1  # the same game under the first per-deal numbering deals other cards
    with pytest.raises(ReplayMismatch):
        verify(wrong)
