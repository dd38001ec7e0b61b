"""The id a bot is sent with every Act tells it nothing of the schedule (rules §0.6; ``league.integrity.fairness.game_token``).

It was ``<season id>/<number>``: in a duplicate season of tables of 4, the number gave the deal group and the
rotation's place, so a bot knew when a game was a rotation of a deal it had played. Now it is keyed from the
season's key: the ids of one deal's rotations share nothing systematic and are not ordered like the numbers;
once the key is published anyone derives them again (``season verify`` checks them); a bot playing a duplicate
season over gRPC through the worker's own path receives only such ids, the same for every decision of a game.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest

from cardarena.v1 import bot_pb2
from league.competition.schedule import build_schedule
from league.competition.seasons import create_season
from league.integrity import fairness
from league.integrity.verify import StoreSource, verify_season
from league.policy import POLICY
from referee.bots import RandomBot
from referee.games import spec
from store import Store, open_store
from tests.a_game import GAME, SHORT, game_with
from workers.service import Outcome, run_game

#: A game with tables of 4 (the duplicate season's tables).
FOUR = game_with(lambda gs: gs.min_seats <= 4 <= gs.max_seats, "tables of 4")
#: Bits of a game id after its prefix.
BITS = 4 * fairness.GAME_ID_HEX


def _bits(token: str) -> int:
    return int(token.removeprefix(fairness.GAME_ID_PREFIX), 16)


def _spearman(xs: list[int], ys: list[int]) -> float:
    """Spearman's rank correlation of two lists without ties."""
    rx = {x: i for i, x in enumerate(sorted(xs))}
    ry = {y: i for i, y in enumerate(sorted(ys))}
    n = len(xs)
    d2 = sum((rx[x] - ry[y]) ** 2 for x, y in zip(xs, ys, strict=True))
    return 1 - 6 * d2 / (n * (n * n - 1))


def test_a_game_id_is_keyed_and_derived_again_from_the_key() -> None:
    key = bytes(range(32))
    token = fairness.game_token(key, 3, 7)
    assert fairness.is_game_token(token) and re.fullmatch(r"g-[0-9a-f]{24}", token)
    assert token == fairness.game_token(key, 3, 7)  # derived again by anyone who has the key
    others = {fairness.game_token(key, 3, 8), fairness.game_token(key, 4, 7), fairness.game_token(bytes(32), 3, 7)}
    assert token not in others and len(others) == 3  # another number, another season (same key), another key
    seed = fairness.deal_seed(key, 7, 1, True)
    assert f"{seed:x}"[:8] not in token  # the id is not the deal seed's (another label of the key)
    assert not fairness.is_game_token("3/7") and not fairness.is_game_token("g-" + "A" * 24)


def test_the_rotations_of_one_deal_have_ids_that_share_nothing_and_follow_no_order() -> None:
    """A simulated duplicate season of 1,024 games on tables of 4 (256 deals): the ids of a deal's rotations
    differ in half their bits on average, as the ids of any two games do; the ids' order has no rank
    correlation with the numbers, nor with the place in a deal group, nor with the group; no hex digit
    says the rotation's place (number mod 4, what the old id told a bot)."""
    key = secrets.token_bytes(32)
    schedule = build_schedule(list(range(8)), [4], 1024, key, duplicate=True)
    ids = {g.number: fairness.game_token(key, 5, g.number) for g in schedule}
    assert len(set(ids.values())) == len(ids)
    groups: dict[int, list[int]] = {}
    for g in schedule:
        groups.setdefault(g.deal_group, []).append(g.number)
    assert len(groups) == 256 and all(len(numbers) == 4 for numbers in groups.values())

    def hamming(a: int, b: int) -> int:
        return (_bits(ids[a]) ^ _bits(ids[b])).bit_count()

    within = [hamming(a, b) for numbers in groups.values() for i, a in enumerate(numbers) for b in numbers[i + 1:]]
    numbers = sorted(ids)
    across = [hamming(a, b) for a, b in zip(numbers, numbers[::-1]) if a != b and not _same_group(groups, a, b)]
    sd = math.sqrt(BITS / 4)  # one pair's distance: Binomial(96, 1/2)
    for distances in (within, across):  # each mean within 5 standard errors of 48 bits
        assert abs(sum(distances) / len(distances) - BITS / 2) < 5 * sd / math.sqrt(len(distances)), distances[:10]
    order = [_bits(ids[n]) for n in numbers]
    place = {n: sorted(numbers_).index(n) for numbers_ in groups.values() for n in numbers_}
    group_of = {n: g for g, numbers_ in groups.items() for n in numbers_}
    limit = 5 / math.sqrt(len(numbers))  # 5 standard errors of a rank correlation under independence
    assert abs(_spearman(numbers, order)) < limit
    assert abs(_spearman([group_of[n] * 4096 + n for n in numbers], order)) < limit
    # per hex digit, the rotation's place is no more often one value than chance allows
    for position in range(fairness.GAME_ID_HEX):
        for wanted in range(4):
            hits = sum(1 for n in numbers if int(ids[n][2 + position], 16) % 4 == wanted and place[n] == wanted)
            expected = len(numbers) / 16  # P(digit % 4 == w) * P(place == w)
            assert abs(hits - expected) < 6 * math.sqrt(expected), (position, wanted, hits)


def _same_group(groups: dict[int, list[int]], a: int, b: int) -> bool:
    return any(a in numbers and b in numbers for numbers in groups.values())


class IdRecordingBot(RandomBot):
    """The random reference bot, keeping the ``game_id`` of every request it was sent, in order."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.ids: list[str] = []

    def act(self, request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        self.ids.append(request.game_id)
        return super().act(request)


@pytest.fixture
def store(tmp_path: Any) -> Iterator[Store]:
    s = open_store(f"sqlite:///{tmp_path / 'ids.db'}", policy=POLICY)
    yield s
    s.close()


def test_a_bot_in_a_duplicate_season_receives_ids_that_say_nothing_of_the_schedule(store: Store,
                                                                                  bot_server: Any) -> None:
    """Four bots play a duplicate season of 16 games on tables of 4 (4 deals of 4 rotations) through the worker's
    own path over gRPC. Each bot received one id per game, the same for each of its decisions there: keyed ids,
    none of them ``<season id>/<number>`` or holding the number, not in the order of the numbers; each record
    keeps the id its bots received; ``season verify`` derives every id from the published key and passes."""
    bots = [IdRecordingBot(seed=i) for i in range(4)]
    names = [f"b{i}" for i in range(4)]
    for name, bot in zip(names, bots, strict=True):
        store.bots.register_bot(name, bot_server(bot, threads=4), "1", "tests", [FOUR], capacity=4)
    params = SHORT if FOUR == GAME else spec(FOUR).quick_params
    sid = create_season(store, "dup", spec(FOUR), names, [4], 16, None, True, dict(params))
    games = store.game_reads.list_games(sid, limit=100)
    played: list[int] = []
    for game in games:
        seen = [len(b.ids) for b in bots]
        assert run_game(store, game.id, lease_s=30).outcome is Outcome.DONE
        new = {i for b, k in zip(bots, seen, strict=True) for i in b.ids[k:]}
        assert len(new) == 1, new  # one id per game, for every decision and seat
        record = store.replays.get_replay(game.id)
        assert record is not None and new == {record.game_id}
        played.append(game.number)
    key = store.seasons.revealed_key(sid)
    assert key is not None  # the season is over: its key is published
    expected = {g.number: fairness.game_token(key, sid, g.number) for g in games}
    received = [i for b in bots for i in dict.fromkeys(b.ids)]
    assert set(received) == set(expected.values())
    for token in received:
        assert fairness.is_game_token(token) and "/" not in token
    by_id = sorted(expected, key=lambda n: expected[n])
    assert by_id != sorted(expected)  # the ids' order is not the numbers' (1 chance in 16! that it is)
    report = verify_season(StoreSource(store), store.seasons.get_season(sid))  # type: ignore[arg-type]
    assert report.ok and report.replays_checked == 16, report.lines()


def test_a_game_stored_before_keyed_ids_keeps_the_id_its_bots_were_sent(store: Store) -> None:
    """A game row without an id (stored before migration 0013) is played under ``<season id>/<number>``, the id
    its bots were sent before, which its replay then keeps (``season verify`` expects it); it is not found by id."""
    from sqlalchemy import text

    from tests.store.conftest import finish

    bots = [store.bots.register_bot(n, f"127.0.0.1:{7200 + i}", "1", "t", [GAME]) for i, n in enumerate("xyz")]
    sid = store.seasons.create_season("old", GAME, {}, {}, 3, {}, [(s, bots) for s in (21, 22)])
    first, second = store.seasons.next_pending(sid, 2)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE games SET token = NULL WHERE id = :g"), {"g": first})
    old = finish(store, first, [1, 2, 3])
    assert old.token == f"{sid}/0" and store.replays.get_replay(first).game_id == f"{sid}/0"  # type: ignore[union-attr]
    assert store.game_reads.final_game_by_token(f"{sid}/0") is None
    new = finish(store, second, [3, 2, 1])
    assert new.token == fairness.game_token(POLICY.season_key(3), sid, 1)
    assert store.game_reads.final_game_by_token(new.token) == second
