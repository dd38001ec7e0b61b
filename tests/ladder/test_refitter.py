"""The ladder's fit made in a process of its own (``workers.refit.ProcessRefitter``), on both databases: a runner
with one makes only its first fit in a refill, takes the later ones from the process, and they are the fits the
store's record gives; a process that fails leaves the runner its last fit (rules §5.4)."""

from __future__ import annotations

import pytest

import league.competition.ladder as ladder_module
from league.competition.ladder import LadderRunner, create_ladder
from referee.games import spec
from store import Store
from tests.a_game import game_without_luck
from tests.ladder.test_runner import play_all
from workers.refit import ProcessRefitter


def test_the_refill_takes_its_fits_from_the_process(store: Store, bots: list[int], db_url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    lid = create_ladder(store, "lad", spec(game_without_luck()), [3], window=4)
    made_here: list[int] = []
    fit_here = ladder_module.ladder_fit_and_counts

    def counted(store_, ladder_id):  # fits made in this process (the refitter's process has its own module)
        made_here.append(ladder_id)
        return fit_here(store_, ladder_id)

    monkeypatch.setattr(ladder_module, "ladder_fit_and_counts", counted)
    runner = LadderRunner(store, lid, refit_every=1)
    runner.refitter = ProcessRefitter(db_url, lid, 1, runner.settings.history_every, min_interval_s=0.0)
    try:
        taken = 0
        for _ in range(8):
            assert runner.refill().added > 0
            play_all(store, lid)  # the look asked for at that refill may see some of these games
            runner.refitter.wait()
            runner.refitter.request(runner._mark)  # a look at every game played: its fit is taken at the next refill
            runner.refitter.wait()
            before = runner._fit
            runner.refill()
            if runner._fit is not before:
                taken += 1
                ratings, counts = fit_here(store, lid)
                assert runner._fit.rating == pytest.approx(ratings.rating) and runner._counts == counts
            play_all(store, lid)
        assert made_here == [lid]  # the first fit only, at the runner's first look
        assert taken >= 4 and runner._fit.games > 0
        assert store.ladders.rating_history(lid)  # the process stored the snapshots, as a refill would have
    finally:
        runner.close()


def test_a_failing_process_leaves_the_last_fit(store: Store, bots: list[int]) -> None:
    lid = create_ladder(store, "lad", spec(game_without_luck()), [3], window=4)
    runner = LadderRunner(store, lid)
    runner.refitter = ProcessRefitter("postgresql+psycopg://nobody@127.0.0.1:9/none", lid, 1, 20, min_interval_s=0.0)
    try:
        assert runner.refill().added > 0
        first = runner._fit
        play_all(store, lid)
        runner.refill()
        runner.refitter.wait()
        runner.refill()  # the process failed to open its store: no fit taken, no error raised
        assert runner._fit is first and runner.refitter.poll() is None
    finally:
        runner.close()
