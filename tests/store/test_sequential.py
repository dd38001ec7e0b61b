"""Sequential seasons in the store (both databases): batches appended once, the stop recorded, the
games a prefix of the fixed-length schedule; results scripted (bot "a" always first)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from league.competition.schedule import build_schedule
from league.competition.sequential import KEY, advance, create_sequential_season, settling_json
from league.integrity import fairness
from league.ratings.settling import SettlingRule, StopReason
from referee.games import spec
from store import NotFound, SeasonStatus, Store
from tests.a_game import game_without_luck
from tests.store.conftest import finish, quick_params


def _play_all(store: Store, season_id: int, first: int) -> None:
    """Finish every pending game with bot ``first`` placed first and the others after it, by seat."""
    for game in store.game_reads.list_games(season_id, status="pending", limit=10**6):
        order = sorted(range(len(game.seats)), key=lambda i: (game.seats[i].bot_id != first, i))
        places = [0] * len(order)
        for place, seat in enumerate(order, start=1):
            places[seat] = place
        finish(store, game.id, places)


def test_a_sequential_season_adds_batches_until_the_top_pair_is_settled(store: Store, bots: list[int]) -> None:
    rule = SettlingRule(top=2, confidence=0.95, max_games=300)
    game = game_without_luck()
    sid = create_sequential_season(store, "seq", spec(game), ["a", "b", "c", "d"], [3], rule, batch_groups=2, seed=5,
                                   params=quick_params(game))
    assert store.seasons.season_progress(sid)["total"] == 6  # the first batch: 2 rotation groups of 3
    assert advance(store, sid).games == 6  # games still pending: no look
    looks = 0
    while True:
        _play_all(store, sid, first=bots[0])
        settling = advance(store, sid)
        looks += 1
        assert settling is not None
        if settling.stop is not None:
            break
        # the next batch is pending and the season running again
        assert store.seasons.season_progress(sid)["pending"] == 6 and store.seasons.get_season(sid).status is SeasonStatus.RUNNING
    assert settling.stop is StopReason.SETTLED and looks >= 2
    total = store.seasons.season_progress(sid)["total"]
    assert total < 300 and len(settling.looks) == looks
    # the games are the first games of the 300-game schedule
    full = build_schedule(bots, [3], 300, fairness.key_from_seed(5))
    assert [(g.seed, [s.bot_id for s in g.seats]) for g in store.game_reads.list_games(sid, limit=10**6)] == \
        [(g.seed, list(g.seats)) for g in full[:total]]
    info = settling_json(store.seasons.get_season(sid).config, store.seasons.season_progress(sid))
    assert info["stop"] == "settled" and info["games_used"] == total
    assert info["looks"][-1]["weakest"] >= info["looks"][-1]["threshold"]
    # the top pair with its verdict ("a" first in every game: higher), as `season standings --json` shows it
    assert [(p["upper_name"], p["verdict"]) for p in info["pairs"]] == [("a", "higher")]
    assert info["pairs"][0]["llr_higher"] >= info["looks"][-1]["threshold"]
    assert advance(store, sid).stop is StopReason.SETTLED  # stopped: nothing more is added
    assert store.seasons.season_progress(sid)["total"] == total and store.seasons.get_season(sid).status is SeasonStatus.DONE


def test_a_season_that_does_not_settle_stops_at_the_budget(store: Store, bots: list[int]) -> None:
    rule = SettlingRule(top=2, confidence=0.95, max_games=6)
    game = game_without_luck()
    sid = create_sequential_season(store, "seq-budget", spec(game), ["a", "b", "c", "d"], [3], rule, batch_groups=1,
                                   seed=5, params=quick_params(game))
    for _ in range(10):
        _play_all(store, sid, first=bots[0])
        settling = advance(store, sid)
        if settling.stop is not None:
            break
    # 6 games are too few: even 6 wins of "a" over the next row give 6 x log(p1 / p0) = 1.7 < log(20)
    assert settling.stop is StopReason.BUDGET
    assert store.seasons.season_progress(sid)["total"] == 6


#: The config of a sequential season between two batches: done, its key not public yet.
BETWEEN_BATCHES = {KEY: {"stop": None}}


def test_extend_season_appends_once_and_reopens(store: Store, bots: list[int], make_season) -> None:
    a, b, c, _ = bots
    sid = make_season([[a, b, c]], config=BETWEEN_BATCHES)
    _play_all(store, sid, first=a)
    assert store.seasons.get_season(sid).status is SeasonStatus.DONE
    config = {**store.seasons.get_season(sid).config, "note": 1}
    assert store.seasons.extend_season(sid, config, [(77, [b, c, a]), (78, [c, a, b])], expected_games=1)
    assert not store.seasons.extend_season(sid, config, [(79, [a, b, c])], expected_games=1)  # someone extended first
    games = store.game_reads.list_games(sid, limit=100)
    assert [(g.number, g.seed, g.status) for g in games] == [(0, 1000, "done"), (1, 77, "pending"), (2, 78, "pending")]
    assert store.seasons.get_season(sid).status is SeasonStatus.RUNNING and store.seasons.get_season(sid).config["note"] == 1
    with pytest.raises(NotFound):
        store.seasons.extend_season(10**6, {}, [], expected_games=0)
    with pytest.raises(ValueError):
        store.seasons.extend_season(sid, config, [(80, [a])], expected_games=3)
    assert store.seasons.get_season(sid).config[KEY] == {"stop": None}


def test_a_finished_season_takes_no_game(store: Store, bots: list[int], make_season) -> None:
    """Done with its key public (a fixed season, or a sequential one that stopped): its chain is closed and the
    store refuses a game, which would be dealt from a published key."""
    a, b, c, _ = bots
    fixed, sequential = make_season([[a, b, c]]), make_season([[a, b, c]], config=BETWEEN_BATCHES)
    _play_all(store, fixed, first=a)
    _play_all(store, sequential, first=a)
    assert store.seasons.revealed_key(fixed) is not None and store.seasons.revealed_key(sequential) is None
    stopped = {**store.seasons.get_season(sequential).config, KEY: {"stop": "budget"}}
    assert store.seasons.extend_season(sequential, stopped, [], expected_games=1)  # stops it: finished now
    for sid in (fixed, sequential):
        with pytest.raises(ValueError, match=r"is finished \(every game final and its key published\): no game"):
            store.seasons.extend_season(sid, {}, [(80, [b, c, a])], expected_games=1)
        assert store.seasons.season_progress(sid)["total"] == 1
        assert store.chain.audit(sid).problems == []
        with store.engine.connect() as conn:
            kinds = [k for (k,) in conn.execute(text("SELECT kind FROM chain_entries WHERE season_id = :s ORDER BY seq"),
                                                {"s": sid})]
        assert kinds == ["season", "game", "close"]


def test_added_games_cannot_join_a_deal_group_the_season_has(store: Store, bots: list[int], make_season) -> None:
    """A group is played as a whole, so the ratings checkpoint never has a game of a group still
    to be played behind it (store.ratings): a batch that would join an old group writes nothing."""
    a, b, c, _ = bots
    sid = make_season([[a, b, c], [b, c, a]], config=BETWEEN_BATCHES)  # deal groups 0 and 1, the games' own numbers
    _play_all(store, sid, first=a)
    config = store.seasons.get_season(sid).config
    with pytest.raises(ValueError, match="deal group 1 already has games"):
        store.seasons.extend_season(sid, {**config, "note": 1}, [(81, [c, a, b]), (82, [a, b, c])], expected_games=2,
                            deal_groups=[2, 1])
    assert store.seasons.season_progress(sid)["total"] == 2 and "note" not in store.seasons.get_season(sid).config
    assert store.seasons.get_season(sid).status is SeasonStatus.DONE
    assert store.seasons.extend_season(sid, config, [(81, [c, a, b]), (82, [a, b, c])], expected_games=2, deal_groups=[2, 2])


def test_the_season_page_and_api_say_why_it_stopped(tmp_path, db_url: str, store: Store, bots: list[int]) -> None:
    from fastapi.testclient import TestClient

    from config import Settings
    from dashboard.main import create_app

    rule = SettlingRule(top=2, confidence=0.95, max_games=300)
    game = game_without_luck()
    sid = create_sequential_season(store, "seq-page", spec(game), ["a", "b", "c", "d"], [3], rule, batch_groups=2,
                                   seed=5, params=quick_params(game))
    with TestClient(create_app(Settings(db_url=db_url, latency_games=50))) as client:
        running = client.get(f"/api/v1/seasons/{sid}").json()["settling"]
        assert running["stop"] is None and running["games_scheduled"] == 6 and running["games_used"] == 0
        assert "played in batches of 2 rotation groups" in client.get(f"/seasons/{sid}").text
        while advance(store, sid).stop is None:
            _play_all(store, sid, first=bots[0])
        settling = client.get(f"/api/v1/seasons/{sid}").json()["settling"]
        assert settling["stop"] == "settled" and settling["games_used"] == store.seasons.season_progress(sid)["done"]
        page = client.get(f"/seasons/{sid}").text
        assert "<b>settled</b>" in page and f"{settling['games_used']} games used" in page
        assert "Top pairs: a <b>above</b>" in page
