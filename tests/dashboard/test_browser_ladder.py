"""A real browser on a ladder's page (headless Chromium, as ``test_browser``): from the home page to the
ladder, its standings with intervals and a placing entrant, the rating chart drawn, a recent game's
replay, and a bot's ladder entrants. A screenshot of the ladder page goes under ``artifacts/screenshots/``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.dashboard.test_browser import page, serve, shot  # noqa: F401 -- the page fixture
from tests.ladder_world import NAME, LadderWorld, build_ladder_world


@pytest.fixture
def lw(tmp_path) -> Iterator[LadderWorld]:
    w = build_ladder_world(f"sqlite:///{tmp_path / 'store.db'}", games=36)
    yield w
    w.store.close()


def test_a_person_opens_a_ladder_and_follows_a_bot(page, lw: LadderWorld) -> None:  # noqa: F811
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(30_000)
    with serve(lw.url) as base:
        page.goto(base + "/")
        page.locator(f'#ladders a[href="/ladders/{NAME}"]').click()
        page.wait_for_selector("#ladder-standings")
        rows = page.locator("#ladder-standings tbody tr.bot-row")
        assert rows.count() == 4
        assert "placing: " in page.locator("#ladder-standings").inner_text()
        assert page.locator("#rating-history svg polyline").count() >= 3
        assert page.locator("#ab-results").inner_text().startswith("No A/B comparison yet")
        shot(page, "ladder")
        page.click("#ladder-games tbody tr:first-child td:first-child a")
        page.wait_for_url("**/games/*")
        page.go_back()
        page.locator("#ladder-standings a.bot-link", has_text="d").click()
        page.wait_for_selector("#bot-ladders")
        assert page.locator("#bot-ladders tbody tr").count() == 2  # d@2.0 and d@1.0
    assert not errors


def test_the_ladder_page_says_that_capacity_is_why_a_bot_plays_fewer_games(page, lw: LadderWorld) -> None:  # noqa: F811
    lw.store.bots.update_bot(lw.bots["b"], capacity=1)  # b now declares one game at a time
    page.set_default_timeout(30_000)
    with serve(lw.url) as base:
        page.goto(f"{base}/ladders/{NAME}")
        page.wait_for_selector("#ladder-standings")
        header = [c.strip() for c in page.locator("#ladder-standings thead th").all_inner_texts()]
        assert "Capacity" in header
        column = header.index("Capacity")
        capacity = {}
        for row in page.locator("#ladder-standings tbody tr").all():
            cells = row.locator("td").all_inner_texts()
            capacity[cells[1].split()[0]] = cells[column].strip()
        assert capacity["b"] == "1" and capacity["a"] == "2", capacity
        note = page.locator("#capacity-note").inner_text()
        assert "capacity it declares" in note and "fewer games" in note


def test_a_ladder_game_shows_each_seat_version_and_links_to_its_ladder(page, lw: LadderWorld) -> None:  # noqa: F811
    done = [g for g in lw.store.ladders.ladder_games(lw.ladder_id) if str(g.status) == "done"]
    game = lw.store.game_reads.get_game(done[-1].id)
    played = {s.bot_id: s.version for s in game.seats}
    page.set_default_timeout(30_000)
    with serve(lw.url) as base:
        page.goto(f"{base}/games/{game.id}")
        page.wait_for_selector("#results")
        header = [c.strip() for c in page.locator("#results thead th").all_inner_texts()]
        assert header[:3] == ["Seat", "Bot", "Version"], header
        shown = {}
        for row in page.locator("#results tbody tr").all():
            bot, version = row.locator("td").nth(1).inner_text().split()[0], row.locator("td").nth(2).inner_text()
            shown[bot] = version.strip()
        names = {bot_id: name for name, bot_id in lw.bots.items()}
        assert shown == {names[b]: v for b, v in played.items()}, shown
        # the game belongs to its ladder: the heading links there, not to the epoch's season
        link = page.locator("#game-ladder")
        assert link.inner_text() == f"ladder {NAME}"
        link.click()
        page.wait_for_url(f"**/ladders/{NAME}")
        page.wait_for_selector("#ladder-standings")
        # and the games list says the same
        page.goto(f"{base}/games")
        assert page.locator(f'a[href="/ladders/{NAME}"]').count() >= 1


def test_a_bot_page_says_what_is_true_now(page, lw: LadderWorld) -> None:  # noqa: F811
    """Outages: the open epoch's in the "Games put off" box, a finished epoch's in the history with its duration.
    Ratings: the ladder's rating history (each version a line); each epoch's Elo only as the epoch's own."""
    from datetime import timedelta

    from store import SeasonStatus

    d = lw.bots["d"]
    epochs = lw.store.ladders.epochs(lw.ladder_id)
    over = next(e for e in epochs if e.status == SeasonStatus.DONE and e.finished_at is not None)
    lw.store.marks.mark_down(over.id, {d: "refused"}, now=over.finished_at - timedelta(seconds=90))
    current = lw.store.ladders.current_epoch(lw.ladder_id)
    lw.store.marks.mark_down(current.id, {d: "did not answer"})
    page.set_default_timeout(30_000)
    with serve(lw.url) as base:
        page.goto(f"{base}/bots/{d}")
        page.wait_for_selector("#bot-problems")
        now = page.locator("#bot-problems").inner_text()
        assert current.name in now and over.name not in now, now
        past = page.locator("#bot-past-problems")
        past.locator("summary").click()
        text = past.inner_text()
        assert over.name in text and "1 min 30 s" in text and "refused" in text, text
        # the ladder's rating history, a line per version; no epoch's Elo as "the" rating
        history = page.locator("#rating-history").inner_text()
        assert f"in ladder {NAME}" in history and "d@1.0" in history and "d@2.0" in history, history
        assert page.locator("#rating-history svg polyline").count() >= 1
        head = [c.strip() for c in page.locator("#bot-epochs thead th").all_inner_texts()]
        assert head == ["Ladder", "Epoch", "Games", "Epoch's Elo"], head
        assert page.locator("#bot-epochs tbody tr").count() == len([e for e in epochs if e.id in {
            s.id for s in lw.store.bot_reads.bot_seasons(d)}])
        assert page.locator("#bot-seasons").inner_text().count(f"{NAME}:") == 0  # epochs are not listed as seasons


def test_a_bot_is_ranked_by_its_best_version_and_a_retired_bot_leaves_the_ranking(page, lw: LadderWorld) -> None:  # noqa: F811
    """d plays 2.0 now (placing): it is ranked by 1.0, its best placed version, with 2.0 listed under it. c retires:
    it leaves the ranking (its record kept apart, unranked), the others close up, and the header counts the rows."""
    lw.store.games.retire_bot(lw.bots["c"])
    lw.store.ladders.sync_entrants(lw.ladder_id)
    page.set_default_timeout(30_000)
    with serve(lw.url) as base:
        page.goto(f"{base}/ladders/{NAME}")
        page.wait_for_selector("#ladder-standings")
        ranked = page.locator("#ladder-standings tbody tr.bot-row")
        cells = [row.locator("td").all_inner_texts() for row in ranked.all()]
        names = [c[1].split()[0] for c in cells]
        assert sorted(names) == ["a", "b", "d"], cells  # c retired: out of the ranking
        assert [c[0] for c in cells] == ["1", "2", "3"], cells
        d = next(c for c in cells if c[1].split()[0] == "d")
        assert d[2].startswith("1.0") and "best version" in d[2], d
        under = page.locator("#ladder-standings tbody tr.other-version")
        assert under.count() == 1
        other = under.first.locator("td").all_inner_texts()
        assert "d" in other[1] and other[2].startswith("2.0") and "plays now" in other[2], other
        counts = page.locator("#ladder-counts").inner_text()
        assert counts == "3 bots ranked, with 1 other version under them · 1 retired, unranked", counts
        retired = page.locator("#ladder-retired")
        retired.locator("summary").click()
        assert "c" in [t.split()[0] for t in retired.locator("tbody td:first-child").all_inner_texts()]
        assert "d@1.0" in page.locator("#rating-history").inner_text()  # the bot's best version is charted
        # the bot's own page keeps its record, unranked
        page.goto(f"{base}/bots/{lw.bots['c']}")
        page.wait_for_selector("#bot-ladders")
        row = page.locator("#bot-ladders tbody tr").first.locator("td").all_inner_texts()
        assert row[2].startswith("retired") and row[3] == "–", row


def test_a_bot_page_shows_how_its_ladder_rating_moved_and_why(page, lw: LadderWorld) -> None:  # noqa: F811
    """Under the ladder's rating chart, the rating's last moves and the games of its own behind each: a move with no
    game of its own is others' games (rules §5.4: the scale is anchored, no one joining or leaving moves it)."""
    store, lid = lw.store, lw.ladder_id
    a = max(e.id for e in store.ladders.entrants(lid) if e.bot_id == lw.bots["a"])
    last = store.ladders.rating_history(lid, a)[-1]
    store.ladders.add_rating_points(lid, last.games + 6, {a: (last.played, last.rating - 2.5, last.sd)})
    page.set_default_timeout(30_000)
    with serve(lw.url) as base:
        page.goto(f"{base}/bots/{lw.bots['a']}")
        moves = page.locator(f'#rating-history table.rating-moves[data-ladder="{NAME}"]')
        moves.wait_for()
        assert "others' games" in moves.locator("caption").inner_text()
        first = [c.strip() for c in moves.locator("tbody tr").first.locator("td").all_inner_texts()]
        assert first == ["a@1.0", str(last.games + 6), "-2.5", "0"], first
