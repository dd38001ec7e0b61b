"""``referee.recheck``: every field of a record recomputed; no false alarm on faults, timeouts and retirement."""

from __future__ import annotations

import copy
import time

import pytest

from cardarena.v1 import bot_pb2
from referee.bots import RandomBot
from referee.chance import attempt_seed
from referee.clients import InProcessBotClient
from referee.games import games, make_params, spec
from referee.record import FaultKind, GameRecord
from referee.recheck import recheck
from referee.referee import play
from referee.timecontrol import TimeControl
from tests.a_game import GAME


class Faulty(RandomBot):
    """A random bot that sends an empty answer every 4th call (malformed) and answers late every 7th."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.calls = 0

    def act(self, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        self.calls += 1
        if self.calls % 4 == 0:
            return bot_pb2.ActResponse()
        if self.calls % 7 == 0:
            time.sleep(0.06)
        return super().act(request)


def faulty_game(game: str, seats: int, attempt: int = 1) -> tuple[GameRecord, TimeControl]:
    tc = TimeControl.for_game(spec(game), deadline_s=0.05, time_bank_s=0.02, max_faults=4)
    clients = [InProcessBotClient(Faulty(seed=s).act) for s in range(seats)]
    return play(spec(game), make_params(game, {}), seats, 777, clients, tc, attempt=attempt), tc


def test_attempt_seeds() -> None:
    assert attempt_seed(123, 1) == 123
    seeds = {attempt_seed(123, k) for k in range(2, 50)}
    assert len(seeds) == 48 and 123 not in seeds and all(0 <= s < 2**63 for s in seeds)
    with pytest.raises(ValueError, match="attempts are numbered from 1"):
        attempt_seed(123, 0)


@pytest.mark.parametrize(("game", "seats"), sorted({(g, n) for g in games() for n in (spec(g).min_seats, 4)
                                                      if spec(g).min_seats <= n <= spec(g).max_seats}))
def test_faults_timeouts_and_retirement_recheck_clean(game: str, seats: int) -> None:
    record, tc = faulty_game(game, seats)
    kinds = {f.kind for f in record.faults}
    assert FaultKind.MALFORMED in kinds
    assert recheck(record, tc) == []
    rerun, _ = faulty_game(game, seats, attempt=2)
    assert rerun.attempt == 2 and rerun.chance != record.chance and recheck(rerun, tc) == []


def test_a_timeout_forged_on_a_quick_answer_and_a_bank_rewritten_are_caught() -> None:
    record, tc = faulty_game(GAME, 4)
    forged = copy.deepcopy(record)
    i, d = next((i, d) for i, d in enumerate(forged.decisions) if d.fault is FaultKind.MALFORMED)
    d.fault = FaultKind.TIMEOUT
    forged.faults = [f if (f.seat, f.decision) != (d.seat, d.decision) else
                     type(f)(f.seat, f.decision, FaultKind.TIMEOUT, "late", f.answer) for f in forged.faults]
    problems = recheck(forged, tc)
    assert any(p.startswith(f"decision {i} (seat {d.seat}'s decision {d.decision}): a timeout is charged for a call "
                            f"of {d.latency_ms:.3f} ms") for p in problems), problems
    banked = copy.deepcopy(record)
    j, b = next((j, b) for j, b in enumerate(banked.decisions) if b.called)
    b.time_bank_ms += 5.0
    assert any(p.startswith(f"decision {j} ") and "the bank left is recorded as" in p
               for p in recheck(banked, tc)), recheck(banked, tc)
