"""A ladder's epochs in `season list`, a duplicate ladder's tables, and a paused bot coming back (rules §5.1,
§5.3), over a real store (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from cli.main import main
from league.competition.ladder import LadderRunner, create_ladder
from league.policy import POLICY
from referee.games import spec
from store import GameStatus, Store, open_store
from tests.a_game import game_without_luck
from tests.store.conftest import finish


def test_season_list_marks_a_ladders_epochs_and_lists_them_on_request(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    store = open_store(url, policy=POLICY)
    for n in "abc":
        store.bots.register_bot(n, f"127.0.0.1:{5000 + ord(n)}", "1.0", "t", [game_without_luck()], capacity=2)
    create_ladder(store, "lad", spec(game_without_luck()), [3])
    store.close()
    assert main(["season", "list", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "lad:epoch-1" not in out and "1 ladder epoch(s) not listed: --epochs lists them" in out
    assert main(["season", "list", "--epochs", "--db", url]) == 0
    out = capsys.readouterr().out
    assert "lad:epoch-1" in out and "ladder epoch 1" in out and "not listed" not in out


def test_a_duplicate_ladder_seats_every_rotation_of_a_table_as_one_sealed_deal_group(store: Store,
                                                                                     bots: list[int]) -> None:
    lid = create_ladder(store, "dup", spec(game_without_luck()), [3], duplicate=True, window=3)
    runner = LadderRunner(store, lid)
    assert runner.refill().added == 3
    epoch = store.ladders.current_epoch(lid)
    deals = store.seasons.season_deals(epoch.id)  # (game id, number, deal group, seed, status)
    assert len({d[2] for d in deals}) == 1 and len({d[3] for d in deals}) == 1
    games = [store.game_reads.get_game(d[0]) for d in deals]
    seatings = [tuple(s.bot_id for s in g.seats) for g in games]
    assert len(set(seatings)) == 3 and all(len(set(col)) == 3 for col in zip(*seatings, strict=True))
    finish(store, games[0].id, [1, 2, 3])
    assert store.game_reads.game_row(games[0].id).sealed  # its rotations are still to be played with the same deal
    for g in games[1:]:
        finish(store, g.id, [1, 2, 3])
    assert not store.game_reads.game_row(games[0].id).sealed
    assert runner.refill().added == 3  # the next table: its three rotations again
    groups = Counter(d[2] for d in store.seasons.season_deals(epoch.id))
    assert sorted(groups.values()) == [3, 3]


def test_a_paused_bot_is_not_seated_and_comes_back_when_it_answers(store: Store, bots: list[int]) -> None:
    a = bots[0]
    store.bots.register_bot("e", "127.0.0.1:5100", "1.0", "t", [game_without_luck()], capacity=2)
    lid = create_ladder(store, "pause", spec(game_without_luck()), [3], window=4)
    runner = LadderRunner(store, lid)
    runner.refill()

    def play() -> None:
        for g in store.ladders.ladder_games(lid, status=[GameStatus.PENDING]):
            finish(store, g.id, [1, 2, 3])

    play()
    epoch = store.ladders.current_epoch(lid)
    store.marks.mark_down(epoch.id, {a: "did not answer"})
    assert a in runner.marked()
    start = max(g.id for g in store.ladders.ladder_games(lid))
    for _ in range(3):
        runner.refill()  # None: every bot the epoch marks is paused
        play()
    later = [g for g in store.ladders.ladder_games(lid) if g.id > start]
    assert later and not any(a == s[0] for g in later for s in g.seats)
    assert a in runner.marked()
    # the probe finds it answering (the caller passes the bots still down: none): it is seated again,
    # and its game's claim clears the mark
    back = max(g.id for g in store.ladders.ladder_games(lid))
    runner.refill(paused=set())
    mine = [g for g in store.ladders.ladder_games(lid) if g.id > back and a in [s[0] for s in g.seats]]
    assert mine
    finish(store, mine[0].id, [1, 2, 3])
    assert a not in runner.marked()


def test_a_bot_marked_in_an_epoch_that_closed_since_the_last_look_is_still_seen(store: Store, bots: list[int]) -> None:
    """A bot marked down in an epoch that then closes: the open epoch's marks no longer name it, the marks since
    the epoch a caller last looked at do (rules §5.3: a bot paused when an epoch closes stays paused)."""
    a = bots[0]
    lid = create_ladder(store, "closing", spec(game_without_luck()), [3], window=2, epoch_games=2)
    runner = LadderRunner(store, lid)
    runner.refill()
    first = store.ladders.current_epoch(lid)
    store.marks.mark_down(first.id, {a: "did not answer"})
    assert a in runner.marked() and a in runner.marked(since_epoch=first.epoch)
    for _ in range(4):  # play on until later epochs open (the marked bot paused: the others are seated)
        for g in store.ladders.ladder_games(lid, status=[GameStatus.PENDING]):
            if a not in {s[0] for s in g.seats}:
                finish(store, g.id, [1, 2, 3])
        runner.refill(paused={a})
    assert store.ladders.current_epoch(lid).epoch > first.epoch + 1
    assert a not in runner.marked()
    assert runner.marked(since_epoch=first.epoch)[a] == store.ladders.marked_bots(first.id)[a]
    assert a not in runner.marked(since_epoch=first.epoch + 1)


def test_the_store_scale_bench_runs_small(pg_database, capsys: pytest.CaptureFixture[str]) -> None:
    """``bench.ladder_store_scale`` end to end on a few thousand games (its figures are the bench's, not asserted)."""
    if pg_database.url is None:
        pytest.skip(pg_database.reason)
    from bench.ladder_store_scale import main as bench_main

    assert bench_main(["--entrants", "12", "--games", "2500", "--new", "300", "--refills", "12",
                       "--epoch-games", "1000"]) == 0
    out = capsys.readouterr().out
    for words in ("2,500 done games in 3 epochs", "cold refit", "2,500 games rated", "refit from the checkpoint + 300",
                  "2,800 games rated", "runner start", "choosing the next table"):
        assert words in out, (words, out)
