"""``season verify`` against an organiser who edits a finished store (SQLite and PostgreSQL).

Each test plays a fresh Slippery Sam season through the worker's own path (``workers.service.run_game``)
against reference bots served over gRPC on 127.0.0.1, checks that it verifies, tampers with one thing
the standings depend on (as the organiser, holding the store, could), and runs ``cardarena season
verify`` (the command's code, in the test's process): it must exit 1 and name the game and what does not
match. Rerun attempts: a voided attempt's rerun deals other cards and verifies.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import subprocess
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf import json_format
from sqlalchemy import text

from cardarena.v1 import bot_pb2
from cli.main import main
from league.competition.seasons import create_season
from league.integrity import chain as chain_links
from league.integrity.verify import StoreSource, verify_season
from league.policy import POLICY
from league.ratings import elo
from referee import referee as referee_module
from referee.bots import RandomBot
from referee.chance import PER_DEAL, SINGLE, Chance
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.record import GameRecord
from referee.replay import rerun
from referee.timecontrol import TimeControl
from store import GameStatus, Store, open_store
from store.chain import GENESIS, entry_text
from store.replays import decode_json, encode_record
from tests.a_game import GAME
from tests.store.conftest import db_url, pg_database  # noqa: F401  (fixtures: SQLite and PostgreSQL)
from workers.service import Outcome, run_game

BOTS, GAMES = ("alpha", "bravo", "charlie"), 6
#: What each tampering test saw ``season verify`` say: ``{test: (exit code, first MISMATCH line)}``
#: (printed at the end of a run with ``-s``: the tampering table).
SEEN: dict[str, tuple[int, str]] = {}


@dataclass
class Finished:
    """A finished season on a fresh store: its name, id and games (in schedule order)."""

    url: str
    store: Store
    name: str
    season_id: int
    games: list[Any]

    def sql(self, statement: str, **params: Any) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(text(statement), params)

    def record(self, game_id: int) -> dict[str, Any]:
        with self.store.engine.connect() as conn:
            return decode_json(conn.execute(text("SELECT record FROM replays WHERE game_id = :g"),
                                            {"g": game_id}).scalar_one())

    def put_record(self, game_id: int, record: dict[str, Any]) -> None:
        """Store a replay's JSON in place of the game's (zlib, as records stored before: read too)."""
        self.sql("UPDATE replays SET record = :r WHERE game_id = :g",
                 r=zlib.compress(json.dumps(record).encode()), g=game_id)

    def verify(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``cardarena season verify NAME --db URL ARGS``, the command's own code run in this process (its exit
        status and what it printed); tests/test_season_cancel.py runs it as a process of its own."""
        argv = ["season", "verify", self.name, "--db", self.url, *args]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        return subprocess.CompletedProcess(["cardarena", *argv], code, out.getvalue(), err.getvalue())

    def head(self) -> str:
        head = self.store.chain.chain_head(self.season_id).head
        assert head is not None
        return head


@pytest.fixture
def finished(db_url: str, bot_server: Any) -> Iterator[Finished]:  # noqa: F811
    """A fresh store with a finished 6-game Slippery Sam season of three random bots over gRPC."""
    store = open_store(db_url, policy=POLICY)
    for i, name in enumerate(BOTS):
        store.bots.register_bot(name, bot_server(RandomBot(seed=i), threads=4), "1", "tests", [GAME], capacity=4)
    sid = create_season(store, "s", spec(GAME), list(BOTS), [3], GAMES, None, False, {})
    for game in store.game_reads.list_games(sid, limit=100):
        assert run_game(store, game.id, lease_s=30).outcome is Outcome.DONE
    report = verify_season(StoreSource(store), store.seasons.get_season(sid))  # type: ignore[arg-type]
    assert report.ok and report.replays_checked == GAMES, report.problems
    yield Finished(db_url, store, "s", sid, store.game_reads.list_games(sid, limit=100))
    store.close()


def expect_caught(finished: Finished, request: pytest.FixtureRequest, game: int | None, *words: str,
                  args: tuple[str, ...] = ()) -> list[str]:
    """Run ``season verify``: it exits 1, and a MISMATCH line names ``game`` (its number) and ``words``.
    Returns the MISMATCH lines."""
    result = finished.verify(*args)
    mismatches = [line.removeprefix("MISMATCH ") for line in result.stdout.splitlines() if line.startswith("MISMATCH")]
    assert result.returncode == 1, result.stdout + result.stderr
    prefix = f"game {game}" if game is not None else ""
    hits = [m for m in mismatches if m.startswith(prefix) and all(w in m for w in words)]
    assert hits, mismatches
    SEEN[request.node.name] = (result.returncode, hits[0])
    return mismatches


def defaults(record: GameRecord) -> list[str]:
    """The default action (base64) of every decision of a record, in order."""
    out: list[str] = []
    gs = spec(record.game)

    def note(rules: Any, state: Any, logged: Any) -> None:
        out.append(base64.b64encode(gs.encode_action(rules.default_action(state, logged.seat)).SerializeToString())
                   .decode("ascii"))

    for _ in rerun(record, note):
        pass
    return out


# -- the six tamperings of the issue -------------------------------------------------------------


def test_places_of_a_replay_swapped(finished: Finished, request: pytest.FixtureRequest) -> None:
    game = finished.games[1]
    record = finished.record(game.id)
    places = [r["place"] for r in record["results"]]
    # two seats of different places swap them (reversing the list changed nothing when its places read the same
    # both ways, as [2, 1, 2] does)
    i, j = next((i, j) for i in range(len(places)) for j in range(i + 1, len(places)) if places[i] != places[j])
    swapped = list(places)
    swapped[i], swapped[j] = places[j], places[i]
    for r, place in zip(record["results"], swapped, strict=True):
        r["place"] = place
        finished.sql("UPDATE game_seats SET place = :p WHERE game_id = :g AND seat = :s", p=place, g=game.id, s=r["seat"])
    assert places != swapped
    finished.put_record(game.id, record)
    expect_caught(finished, request, 1, "place is", "the replay gives")


def test_a_view_replaced(finished: Finished, request: pytest.FixtureRequest) -> None:
    game = finished.games[2]
    record = finished.record(game.id)
    decisions = record["decisions"]
    first = decisions[0]
    later = next(d for d in decisions[1:] if d["seat"] == first["seat"] and d["view"] != first["view"])
    first["view"] = later["view"]  # a real view of the same seat, shown at another moment
    finished.put_record(game.id, record)
    expect_caught(finished, request, 2, "decision 0", "the view recorded as sent is not the rules' view")


def test_a_fault_the_bot_never_made(finished: Finished, request: pytest.FixtureRequest) -> None:
    # a decision whose legal, in-time answer was the default action: charging a fault there changes no event
    for game in finished.games:
        record = finished.record(game.id)
        default = defaults(GameRecord.from_json(record))
        index = next((i for i, d in enumerate(record["decisions"]) if d["fault"] is None and d["called"]
                      and d["action"] == default[i]), None)
        if index is not None:
            break
    else:
        pytest.fail("no game of the season has an answer that was the default action")
    d = record["decisions"][index]
    d["fault"] = "illegal"
    answer = bot_pb2.ActResponse.FromString(base64.b64decode(d["answer"]))
    order = {(x["seat"], x["decision"]): i for i, x in enumerate(record["decisions"])}
    record["faults"].append({"seat": d["seat"], "decision": d["decision"], "kind": "illegal", "detail": "not allowed",
                             "answer": json_format.MessageToDict(answer, preserving_proto_field_name=True)})
    record["faults"].sort(key=lambda f: order[(f["seat"], f["decision"])])
    seat = d["seat"]
    record["results"][seat]["faults"] += 1
    finished.put_record(game.id, record)
    finished.sql("UPDATE game_seats SET faults = faults + 1 WHERE game_id = :g AND seat = :s", g=game.id, s=seat)
    expect_caught(finished, request, game.number, f"decision {index}", "an illegal fault is charged for a legal answer")


def test_the_result_rows_changed(finished: Finished, request: pytest.FixtureRequest) -> None:
    game = finished.games[0]
    finished.sql("UPDATE game_seats SET place = 1, change = change + 50 WHERE game_id = :g AND seat = 2", g=game.id)
    mismatches = expect_caught(finished, request, 0, "seat 2's stored result", "is not the replay's")
    assert any(m.startswith("game 0: seats is now") for m in mismatches), mismatches  # and the chain


def test_a_done_game_set_to_failed_with_its_replay_removed(finished: Finished, request: pytest.FixtureRequest) -> None:
    game = finished.games[4]
    finished.sql("DELETE FROM replays WHERE game_id = :g", g=game.id)
    finished.sql("UPDATE game_seats SET place = NULL, score = NULL, change = NULL, faults = NULL, retired = NULL "
                 "WHERE game_id = :g", g=game.id)
    finished.sql("UPDATE games SET status = 'failed', reason = 'failed', detail = 'voided 3 times; last: platform "
                 "failure: worker lost' WHERE id = :g", g=game.id)
    expect_caught(finished, request, 4, "failed, but its attempts ended ['done']")
    # the same with the attempts rewritten to match: only the chain knows
    finished.sql("UPDATE game_attempts SET outcome = 'voided', detail = 'platform failure: worker lost' "
                 "WHERE game_id = :g", g=game.id)
    finished.sql("INSERT INTO game_attempts (game_id, attempt, worker, started_at, ended_at, outcome, detail) "
                 "SELECT game_id, n, worker, started_at, ended_at, outcome, detail FROM game_attempts, "
                 "(SELECT 2 AS n UNION ALL SELECT 3) AS more WHERE game_id = :g", g=game.id)
    mismatches = expect_caught(finished, request, 4, "status is now \"failed\", chained as \"done\"")
    assert not any("attempts ended" in m for m in mismatches), mismatches


def test_a_replay_dealt_again_under_the_older_chance_scheme(finished: Finished, request: pytest.FixtureRequest,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    game = finished.games[5]
    stored = GameRecord.from_json(finished.record(game.id))
    season = finished.store.seasons.get_season(finished.season_id)
    assert season is not None and season.chance_scheme == PER_DEAL

    class OlderScheme(Chance):  # the game dealt again as the referee dealt before per-deal streams
        def __init__(self, seed: int, scheme: str = PER_DEAL, attempt: int = 1) -> None:
            super().__init__(seed, SINGLE, attempt)

    monkeypatch.setattr(referee_module, "Chance", OlderScheme)
    clients = [InProcessBotClient(RandomBot(seed=i).act) for i in range(stored.num_seats)]
    other = referee_module.play(spec(GAME), make_params(GAME, season.params), stored.num_seats, stored.seed, clients,
                                TimeControl.from_json(season.time_control), game_id=stored.game_id)
    other.chance_scheme = SINGLE
    assert other.chance != stored.chance  # other cards, other results: the organiser's pick
    blob, size = encode_record(other)
    finished.sql("UPDATE replays SET record = :r, json_size = :n WHERE game_id = :g", r=blob, n=size, g=game.id)
    for r in other.results:
        finished.sql("UPDATE game_seats SET place = :p, score = :s, change = :c, faults = :f, retired = :t "
                     "WHERE game_id = :g AND seat = :seat", p=r.place, s=r.score, c=r.change, f=r.faults,
                     t=r.retired, g=game.id, seat=r.seat)
    finished.sql("UPDATE games SET detail = :d WHERE id = :g", d=other.detail, g=game.id)
    expect_caught(finished, request, 5, "the replay's chance scheme is 'single', not 'per-deal-aside'")


# -- more tamperings ---------------------------------------------------------------------------


def test_a_game_row_deleted(finished: Finished, request: pytest.FixtureRequest) -> None:
    finished.sql("DELETE FROM game_seats WHERE game_id = :g", g=finished.games[2].id)
    finished.sql("DELETE FROM game_attempts WHERE game_id = :g", g=finished.games[2].id)
    finished.sql("DELETE FROM replays WHERE game_id = :g", g=finished.games[2].id)
    finished.sql("DELETE FROM games WHERE id = :g", g=finished.games[2].id)
    expect_caught(finished, request, 2, "now missing from the store")


def test_a_rating_changed(finished: Finished, request: pytest.FixtureRequest) -> None:
    bot = finished.store.bots.get_bot_by_name("bravo")
    assert bot is not None
    finished.sql("UPDATE ratings SET elo = elo + 40 WHERE season_id = :s AND bot_id = :b", s=finished.season_id, b=bot.id)
    expect_caught(finished, request, None, f"ratings: bot {bot.id}'s stored Elo")


def test_a_status_reason_edited(finished: Finished, request: pytest.FixtureRequest) -> None:
    finished.sql("UPDATE games SET detail = 'alpha conceded' WHERE id = :g", g=finished.games[1].id)
    mismatches = expect_caught(finished, request, 1, "stored reason", "the replay's is")
    assert any(m.startswith("game 1: detail is now \"alpha conceded\"") for m in mismatches), mismatches


def test_a_replays_game_id_rewritten(finished: Finished, request: pytest.FixtureRequest) -> None:
    """The id the bots were sent is kept in the replay, which the chain covers: a replay rewritten to show
    another id (the old, telling ``<season id>/<number>``) is caught by the id the key derives and by the chain."""
    game = finished.games[1]
    record = finished.record(game.id)
    record["game_id"] = f"{finished.season_id}/{game.number}"
    finished.put_record(game.id, record)
    mismatches = expect_caught(finished, request, 1, "the replay's game id is", f"'{finished.season_id}/1'")
    assert any("chain" in m or "replay" in m for m in mismatches if not m.startswith("game 1: the replay's game id")), \
        mismatches


def test_a_stored_game_id_changed(finished: Finished, request: pytest.FixtureRequest) -> None:
    """A game row given another id than the key's (so that the dashboard would find another game by it)."""
    finished.sql("UPDATE games SET token = :t WHERE id = :g", t="g-" + "0" * 24, g=finished.games[2].id)
    expect_caught(finished, request, 2, "stored game id g-000", "is not the id from the key")


def test_a_replay_claiming_another_attempt(finished: Finished, request: pytest.FixtureRequest) -> None:
    game = finished.games[0]
    record = finished.record(game.id)
    record["attempt"] = 2  # as though it were the rerun after a voided first attempt
    finished.put_record(game.id, record)
    expect_caught(finished, request, 0, "the replay's attempt is 2, not 1")


def test_the_chain_rewritten_wholesale_is_caught_by_a_head_seen_before(finished: Finished,
                                                                       request: pytest.FixtureRequest) -> None:
    seen = finished.head()
    victim = finished.games[5]
    # the organiser removes the last game everywhere and rebuilds the whole chain to match
    for table, column in (("game_seats", "game_id"), ("game_attempts", "game_id"), ("replays", "game_id"),
                          ("games", "id")):
        finished.sql(f"DELETE FROM {table} WHERE {column} = :g", g=victim.id)  # noqa: S608
    with finished.store.engine.begin() as conn:
        rows = conn.execute(text("SELECT seq, kind, number, entry FROM chain_entries WHERE season_id = :s "
                                 "ORDER BY seq"), {"s": finished.season_id}).all()
        kept = []
        for _, kind, number, entry in rows:
            if number == victim.number:
                continue
            data = json.loads(entry)
            if kind == "season":
                data["games"] = [g for g in data["games"] if g[0] != victim.number]
            if kind == "close":  # ... and the close's counts
                data["games"] -= 1
                data["statuses"]["done"] -= 1
            kept.append((kind, number, data))
        previous = _rewrite_chain(conn, finished.season_id, kept)
        bots = conn.execute(text("SELECT bot_id FROM ratings WHERE season_id = :s"), {"s": finished.season_id}).all()
    # ... and its ratings, from the games left
    rated = [(g.number, [seat[1] for seat in g.seats], [seat[2] for seat in g.seats])
             for g in finished.store.seasons.stored_games(finished.season_id)]
    now, _ = elo.replay({}, rated, -1)
    for (bot,) in bots:
        finished.sql("UPDATE ratings SET elo = :e WHERE season_id = :s AND bot_id = :b", e=now[bot][0],
                     s=finished.season_id, b=bot)
    alone = finished.verify()
    assert alone.returncode == 0, alone.stdout  # consistent with itself: only a head seen before can tell
    expect_caught(finished, request, None, f"the head {seen} seen before is not in the season's chain",
                  args=("--head", seen))


def test_a_head_seen_mid_season_is_extended(finished: Finished) -> None:
    with finished.store.engine.connect() as conn:
        heads = [h for (h,) in conn.execute(text("SELECT hash FROM chain_entries WHERE season_id = :s ORDER BY seq"),
                                             {"s": finished.season_id})]
    assert len(heads) == GAMES + 2  # the season and its schedule, each game as it was stored, the close
    result = finished.verify("--head", heads[2], "--head", heads[-1])
    assert result.returncode == 0, result.stdout
    assert f"chain head {heads[-1]} after {GAMES + 2} entries; extends 2 head(s) seen before" in result.stdout
    bad = finished.verify("--head", "nothex")
    assert bad.returncode == 1 and "a chain head is 64 hex digits, got 'nothex'" in bad.stderr


# -- reruns ------------------------------------------------------------------------------------


def test_a_voided_attempts_rerun_deals_other_cards_and_verifies(db_url: str, bot_server: Any,  # noqa: F811
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    store = open_store(db_url, policy=POLICY)
    try:
        for i, name in enumerate(BOTS):
            store.bots.register_bot(name, bot_server(RandomBot(seed=i), threads=4), "1", "tests", [GAME], capacity=4)
        sid = create_season(store, "r", spec(GAME), list(BOTS), [3], 3, None, False, {})
        rerun_game, failed_game, plain = store.game_reads.list_games(sid, limit=10)
        shown: list[GameRecord] = []
        real_play = referee_module.play

        def voided_after_playing(*args: Any, **kwargs: Any) -> GameRecord:
            shown.append(real_play(*args, **kwargs))  # the attempt was played (and shown live), then the platform failed
            raise RuntimeError("the store went away")

        import workers.service as service
        monkeypatch.setattr(service, "play", voided_after_playing)
        assert run_game(store, rerun_game.id, lease_s=30).outcome is Outcome.VOIDED
        for _ in range(3):
            assert run_game(store, failed_game.id, lease_s=30).outcome is Outcome.VOIDED
        monkeypatch.setattr(service, "play", real_play)
        for game in (rerun_game, plain):
            assert run_game(store, game.id, lease_s=30).outcome is Outcome.DONE
        record = store.replays.get_replay(rerun_game.id)
        assert record is not None and record.attempt == 2 and shown[0].attempt == 1
        assert record.seed == shown[0].seed == rerun_game.seed
        assert record.chance[0] != shown[0].chance[0]  # the rerun's pack is not the one shown
        assert [a.outcome for a in store.game_reads.attempts(rerun_game.id)] == ["voided", "done"]
        assert store.game_reads.get_game(failed_game.id).status is GameStatus.FAILED  # type: ignore[union-attr]
        report = verify_season(StoreSource(store), store.seasons.get_season(sid))  # type: ignore[arg-type]
        assert report.ok and report.replays_checked == 2 and report.statuses_checked == 3, report.problems
    finally:
        store.close()


@pytest.fixture(scope="module", autouse=True)
def print_table() -> Iterator[None]:
    """With ``-s``: the tampering table of this run (test, exit code, first MISMATCH line naming the game)."""
    yield
    if SEEN:
        print("\n| tampering (test) | exit | verify says |\n|---|---|---|")
        for name, (code, line) in SEEN.items():
            print(f"| {name} | {code} | {line} |")



def test_the_chain_head_is_shown_live_on_the_season_page_and_in_the_api(db_url: str, bot_server: Any) -> None:  # noqa: F811
    from fastapi.testclient import TestClient

    from config import Settings
    from dashboard.main import create_app

    store = open_store(db_url, policy=POLICY)
    try:
        for i, name in enumerate(BOTS):
            store.bots.register_bot(name, bot_server(RandomBot(seed=i), threads=4), "1", "tests", [GAME], capacity=4)
        sid = create_season(store, "live", spec(GAME), list(BOTS), [3], 2, None, False, {})
        with TestClient(create_app(Settings(db_url=db_url))) as client:
            seen = []
            games = store.game_reads.list_games(sid, limit=10)
            for game in [None, *games]:
                if game is not None:
                    assert run_game(store, game.id, lease_s=30).outcome is Outcome.DONE
                api = client.get(f"/api/v1/seasons/{sid}").json()
                head = store.chain.chain_head(sid)
                assert (api["chain_head"], api["chain_length"]) == (head.head, head.length)
                assert api["chance_scheme"] == PER_DEAL
                assert f'<code id="chain-head">{head.head}</code> after {head.length} stored records' in \
                    client.get(f"/seasons/{sid}").text
                fair = client.get(f"/api/v1/seasons/{sid}/fairness").json()
                assert fair["chain_head"] == head.head and fair["chance_scheme"] == PER_DEAL
                seen.append(head.head)
        # the season's entries, then one per game; the last game's transaction closes the chain too
        assert len(set(seen)) == len(games) + 1 == store.chain.chain_head(sid).length - 1
        report = verify_season(StoreSource(store), store.seasons.get_season(sid), seen)  # type: ignore[arg-type]
        assert report.ok and report.heads_seen == len(games) + 1, report.problems
    finally:
        store.close()


def test_a_season_from_before_the_chain_verifies_with_a_note(finished: Finished) -> None:
    # as migration 0007 leaves a season created before it: no scheme, a commitment of the key alone, no chain
    key = finished.store.seasons.revealed_key(finished.season_id)
    assert key is not None
    from league.integrity.fairness import commitment
    finished.sql("UPDATE seasons SET chance_scheme = NULL, commitment = :c, chain_head = NULL, chain_length = 0 "
                 "WHERE id = :s", c=commitment(key), s=finished.season_id)
    finished.sql("DELETE FROM chain_entries WHERE season_id = :s", s=finished.season_id)
    result = finished.verify()
    assert result.returncode == 0, result.stdout
    assert "chain head None after 0 entries (a season from before the chain" in result.stdout
    assert "no chance scheme (a season from before the scheme was committed)" in result.stdout


# -- a game appended to a finished season; identities (chain format 2) ---------------------------------


def _append_a_game(finished: Finished) -> int:
    """As the organiser holding the store: add game 6 to the finished season with its seed from the published key,
    chain its schedule entry, and play it through the worker's own path (its game entry is chained and the ratings
    rewritten as for any game). Returns its id."""
    key = finished.store.seasons.revealed_key(finished.season_id)
    assert key is not None
    from league.integrity.fairness import deal_seed
    from store.chain import append, schedule_entry
    bots = [b.id for b in finished.store.bots.list_bots()]
    with finished.store.engine.begin() as conn:
        conn.execute(text("INSERT INTO games (season_id, number, seed, deal_group, status, attempts, deferrals, "
                          "created_at) VALUES (:s, :n, :seed, :n, 'pending', 0, 0, CURRENT_TIMESTAMP)"),
                     {"s": finished.season_id, "n": GAMES, "seed": deal_seed(key, GAMES, GAMES, False)})
        gid = conn.execute(text("SELECT id FROM games WHERE season_id = :s AND number = :n"),
                           {"s": finished.season_id, "n": GAMES}).scalar_one()
        for seat, bot in enumerate(bots):
            conn.execute(text("INSERT INTO game_seats (game_id, seat, bot_id) VALUES (:g, :seat, :b)"),
                         {"g": gid, "seat": seat, "b": bot})
        row = conn.execute(text("SELECT id, chain_head, chain_length FROM seasons WHERE id = :s"),
                           {"s": finished.season_id}).one()
        holder = type("Holder", (), {"id": row.id, "chain_head": row.chain_head, "chain_length": row.chain_length})()
        append(conn, holder, POLICY, schedule_entry([(GAMES, GAMES, bots)]))
    assert run_game(finished.store, gid, lease_s=30).outcome is Outcome.DONE
    return gid


def test_the_store_adds_no_game_to_a_finished_season(finished: Finished) -> None:
    with pytest.raises(ValueError, match="season 's' is finished .* no game is added to it"):
        finished.store.seasons.extend_season(finished.season_id, {}, [(7, [1, 2, 3])], expected_games=GAMES)
    assert finished.store.seasons.season_progress(finished.season_id)["total"] == GAMES


def test_a_game_appended_to_a_finished_season_with_its_chain_entries(finished: Finished,
                                                                      request: pytest.FixtureRequest) -> None:
    _append_a_game(finished)
    mismatches = expect_caught(finished, request, None, "chain: 2 entries after the season's close in entry",
                               "a finished season takes no new game")
    assert any("counts 6 games" in m and "the store has 7" in m for m in mismatches), mismatches


def test_a_game_appended_before_a_rewritten_close_is_caught_by_the_close_head(finished: Finished,
                                                                               request: pytest.FixtureRequest) -> None:
    seen = finished.head()  # the close's hash: the head shown once the season finished
    finished.sql("DELETE FROM chain_entries WHERE season_id = :s AND kind = 'close'", s=finished.season_id)
    finished.sql("UPDATE seasons SET chain_head = (SELECT hash FROM chain_entries WHERE season_id = :s AND seq = "
                 ":q), chain_length = :n WHERE id = :s", s=finished.season_id, q=GAMES, n=GAMES + 1)
    _append_a_game(finished)
    with finished.store.engine.begin() as conn:  # the organiser closes the chain again, counting the new game
        from store.chain import append, close_entry
        row = conn.execute(text("SELECT id, chain_head, chain_length FROM seasons WHERE id = :s"),
                           {"s": finished.season_id}).one()
        holder = type("Holder", (), {"id": row.id, "chain_head": row.chain_head, "chain_length": row.chain_length})()
        append(conn, holder, POLICY, close_entry(conn, finished.season_id))
    alone = finished.verify()
    assert alone.returncode == 0, alone.stdout  # consistent with itself: only the head seen at the close tells
    expect_caught(finished, request, None, f"the head {seen} seen before is not in the season's chain",
                  args=("--head", seen))


def test_two_bots_names_swapped(finished: Finished, request: pytest.FixtureRequest) -> None:
    alpha, bravo = (finished.store.bots.get_bot_by_name(n) for n in ("alpha", "bravo"))
    assert alpha is not None and bravo is not None
    finished.sql("UPDATE bots SET name = 'swap' WHERE id = :a", a=alpha.id)
    finished.sql("UPDATE bots SET name = 'alpha' WHERE id = :b", b=bravo.id)
    finished.sql("UPDATE bots SET name = 'bravo' WHERE id = :a", a=alpha.id)
    mismatches = expect_caught(finished, request, 0, "bots is now", "chained as")
    assert len([m for m in mismatches if "bots is now" in m]) == GAMES, mismatches  # every game they played
    expect_caught(finished, request, 0, "bots is now", args=("--head", finished.head()))


def test_a_seat_version_changed(finished: Finished, request: pytest.FixtureRequest) -> None:
    finished.sql("UPDATE game_seats SET version = '9' WHERE game_id = :g AND seat = 0", g=finished.games[3].id)
    expect_caught(finished, request, 3, "bots is now", '"9"')


def test_a_store_written_before_chain_format_2_verifies_under_its_own_rules(finished: Finished) -> None:
    """A chain of format 1 (no ``chain`` in its season entry, no identities, no close) still verifies."""
    with finished.store.engine.begin() as conn:
        rows = conn.execute(text("SELECT seq, kind, number, entry FROM chain_entries WHERE season_id = :s "
                                 "ORDER BY seq"), {"s": finished.season_id}).all()
        previous = _rewrite_chain(conn, finished.season_id, [
            (kind, number, {k: v for k, v in json.loads(entry).items() if k not in ("chain", "bots", "served")})
            for _, kind, number, entry in rows if kind != "close"])
    result = finished.verify("--head", previous)
    assert result.returncode == 0, result.stdout
    assert f"chain head {previous} after {GAMES + 1} entries" in result.stdout


def _rewrite_chain(conn: Any, season_id: int, entries: list[tuple[str, int | None, dict[str, Any]]]) -> str:
    """Replace the season's chain by ``entries`` (kind, game number, fields), each linked to the one before, as an
    organiser who rebuilds it would; the season's head and length follow. Returns the new head."""
    conn.execute(text("DELETE FROM chain_entries WHERE season_id = :s"), {"s": season_id})
    previous = GENESIS
    for seq, (kind, number, data) in enumerate(entries):
        body = entry_text(data)
        previous = chain_links.link(previous, body)
        conn.execute(text("INSERT INTO chain_entries (season_id, seq, kind, number, entry, hash) "
                          "VALUES (:s, :q, :k, :n, :e, :h)"),
                     {"s": season_id, "q": seq, "k": kind, "n": number, "e": body, "h": previous})
    conn.execute(text("UPDATE seasons SET chain_head = :h, chain_length = :n WHERE id = :s"),
                 {"h": previous, "n": len(entries), "s": season_id})
    return previous
