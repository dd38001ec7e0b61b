"""An answer the referee has read before in the game is judged afresh at every decision.

The referee keeps what each well-formed answer's bytes decode to (answers repeat:
bet 1 token), so the rules' check is the only per-decision work for them; these
tests hold that a repeated answer is still checked against each decision's
state, and that its record is the one a first reading gives.
"""

from __future__ import annotations

import base64

from cardarena.v1 import bot_pb2
from cardarena.v1 import slippery_sam_pb2 as ss
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee import referee
from referee.record import Fault, FaultKind, GameRecord
from referee.referee import play
from referee.replay import verify
from referee.timecontrol import TimeControl

SAM = spec("slippery-sam")
#: never retired: every decision of the seat is called and judged
PATIENT = TimeControl(max_faults=1000)


def always(amount: int) -> InProcessBotClient:
    """A bot answering ``amount`` tokens at every decision, whatever it is asked."""
    answer = bot_pb2.ActResponse(slippery_sam=ss.SlipperySamAction(amount=amount))
    return InProcessBotClient(lambda _request: answer)


def test_a_repeated_answer_is_legal_or_illegal_by_each_decisions_state() -> None:
    clients = [always(3)] + [InProcessBotClient(load_bot("random", s).act) for s in (1, 2)]
    record = play(SAM, make_params("slippery-sam"), 3, 11, clients, PATIENT, game_id="t")
    verify(record)
    answer = base64.b64encode(bot_pb2.ActResponse(slippery_sam=ss.SlipperySamAction(amount=3))
                              .SerializeToString()).decode()
    mine = [d for d in record.decisions if d.seat == 0]
    assert mine and all(d.called and d.answer == answer for d in mine)
    faulted = {f.decision for f in record.faults if f.seat == 0}
    assert {f.kind for f in record.faults} == {FaultKind.ILLEGAL}
    # the same bytes were legal at some decisions and illegal at others: each judged on its own
    assert faulted and len(faulted) < len(mine)
    for d in mine:
        assert (d.fault is FaultKind.ILLEGAL) == (d.decision in faulted)
        if d.fault is None:  # applied as answered
            assert d.action == base64.b64encode(ss.SlipperySamAction(amount=3).SerializeToString()).decode()
        else:  # replaced by the default action, whose record differs
            assert d.action != base64.b64encode(ss.SlipperySamAction(amount=3).SerializeToString()).decode()



def _played(record: GameRecord) -> tuple[list[tuple[object, ...]], list[Fault], list[dict[str, object]]]:
    """What a record says of the play, without the clock's readings (sent, latency, bank)."""
    decisions = [(d.seat, d.decision, d.event_index, d.view, d.answer, d.action, d.fault, d.called)
                 for d in record.decisions]
    return decisions, record.faults, record.events


def test_a_games_record_does_not_depend_on_the_games_played_before_it() -> None:
    """Readings are kept across the games of a process: a game played after others, whose
    answers it repeats (legal there, illegal here), has the record it has when played first."""
    params = make_params("slippery-sam")

    def game(seed: int) -> GameRecord:
        clients = [always(3)] + [InProcessBotClient(load_bot("random", s).act) for s in (seed, seed + 1)]
        return play(SAM, params, 3, seed, clients, PATIENT, game_id=f"g{seed}")

    referee._READ.clear()
    referee._ACTION_B64.clear()
    first = game(7)
    for seed in range(4):
        game(seed)
    assert referee._READ[SAM.name]  # the answers of the games before were kept
    again = game(7)
    verify(again)
    assert any(f.kind is FaultKind.ILLEGAL for f in again.faults)
    assert _played(again) == _played(first)
