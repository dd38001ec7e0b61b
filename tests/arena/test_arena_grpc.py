"""RegisterBot, UpdateBot, RetireBot, ListBots and GetStandings over real gRPC, with every error case."""

from __future__ import annotations

import grpc
import pytest

from arena.registry import token_matches
from arena.service import REPORT_METADATA_KEY
from cardarena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2
from league.competition.standings import standings_of
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.games import make_params, spec
from referee.games.conformance import conformance
from referee.referee import play
from store import Store
from tests.a_game import GAME, SPEC, STRONG, game_with, other_game
from tests.arena.conftest import CALL_TIMEOUT_S, IllegalBot, OneGameOnly, make_config, play_season

#: The protocol's number of the game the tests register bots for.
PLAYED = SPEC.proto_enum


def register(stub, name: str, endpoint: str, games=(PLAYED,), version: str = "") -> arena_pb2.RegisterBotResponse:
    return stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name, endpoint=endpoint, games=list(games),
                                                         version=version), timeout=CALL_TIMEOUT_S)


def refused(call, *args, **kwargs) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call(*args, **kwargs)
    return info.value


def test_register_update_retire_happy_path(arena, bot_server, store: Store) -> None:
    stub = arena()
    endpoint = bot_server(load_bot(STRONG))
    answer = register(stub, "alice.strong-1", endpoint)
    assert answer.bot.id > 0 and answer.bot.name == "alice.strong-1" and answer.bot.endpoint == endpoint
    assert list(answer.bot.games) == [PLAYED] and answer.bot.version == "1.0.0" and answer.bot.author == "cardarena"
    assert len(answer.token) >= 40
    assert [c.name for c in answer.report.checks] == ["health", "describe", f"game:{GAME}"]
    assert all(c.passed for c in answer.report.checks) and answer.report.decisions > 0
    assert 0 < answer.report.latency_median_ms <= answer.report.latency_p99_ms <= answer.report.latency_max_ms
    assert answer.report.transport == "stream"  # the SDK's bot, called on its ActStream
    stored = store.bots.get_bot_by_name("alice.strong-1")
    assert stored is not None and stored.token_hash and answer.token not in stored.token_hash
    assert token_matches(answer.token, stored.token_hash) and not token_matches(answer.token + "x", stored.token_hash)

    moved = bot_server(load_bot(STRONG, 5))
    updated = stub.UpdateBot(arena_pb2.UpdateBotRequest(name="alice.strong-1", token=answer.token, endpoint=moved,
                                                        version="2.0"), timeout=CALL_TIMEOUT_S)
    assert updated.bot.endpoint == moved and updated.bot.version == "2.0" and updated.report.checks[-1].passed
    assert store.bots.get_bot_by_name("alice.strong-1").endpoint == moved

    version_only = stub.UpdateBot(arena_pb2.UpdateBotRequest(name="alice.strong-1", token=answer.token, version="2.1"),
                                  timeout=CALL_TIMEOUT_S)
    assert version_only.bot.version == "2.1" and not version_only.report.checks

    listed = stub.ListBots(arena_pb2.ListBotsRequest(), timeout=10)
    # a caller on the platform's own machine (loopback) sees endpoints; anyone else does not (below)
    assert [(b.name, b.endpoint) for b in listed.bots] == [("alice.strong-1", moved)]
    assert listed.bots[0].availability == ""  # not asked: no health check

    retired = stub.RetireBot(arena_pb2.RetireBotRequest(name="alice.strong-1", token=answer.token), timeout=10)
    assert retired.bot.retired and retired.bot.retired_at.seconds > 0
    again = stub.RetireBot(arena_pb2.RetireBotRequest(name="alice.strong-1", token=answer.token), timeout=10)
    assert again.bot.retired_at == retired.bot.retired_at  # idempotent
    assert stub.ListBots(arena_pb2.ListBotsRequest(), timeout=10).bots == []
    assert len(stub.ListBots(arena_pb2.ListBotsRequest(include_retired=True), timeout=10).bots) == 1
    error = refused(stub.UpdateBot, arena_pb2.UpdateBotRequest(name="alice.strong-1", token=answer.token, version="3"),
                    timeout=10)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    # retirement is final, and every answer says so plainly
    assert error.details().startswith("bot 'alice.strong-1' is retired: it cannot be updated. Retirement is final: "
                                      "the bot and its name cannot come back"), error.details()
    error = refused(register, stub, "alice.strong-1", bot_server(load_bot("random")))
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "'alice.strong-1' was registered and is retired since " in error.details(), error.details()
    assert "retirement is final, the name cannot come back" in error.details(), error.details()


def test_a_taken_name_is_already_exists(arena, bot_server, store: Store) -> None:
    stub = arena()
    register(stub, "taken", bot_server(load_bot(STRONG)))
    error = refused(register, stub, "taken", bot_server(load_bot("random")))
    assert error.code() == grpc.StatusCode.ALREADY_EXISTS
    assert error.details() == "a bot named 'taken' is already registered"
    assert len(store.bots.list_bots()) == 1 and store.bots.get_bot_by_name("taken").author == "cardarena"


@pytest.mark.parametrize("name", ["", "has space", "a/b", "x" * 41, "émile", "semi;colon"])
def test_a_bad_name_is_invalid_argument(arena, bot_server, store: Store, name: str) -> None:
    error = refused(register, arena(), name, bot_server(load_bot(STRONG)))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "bad bot name" in error.details()
    assert store.bots.list_bots() == []


@pytest.mark.parametrize(("endpoint", "games", "message"), [
    ("", (PLAYED,), "host:port"),
    ("http://127.0.0.1:5000", (PLAYED,), "without a scheme"),
    ("unix:/tmp/socket", (PLAYED,), "without a scheme"),
    ("unix:sock", (PLAYED,), "port must be a number"),
    ("dns:host:5000", (PLAYED,), "without a scheme"),
    ("-bad-.host:5000", (PLAYED,), "is not a host name"),
    ("127.0.0.1:99999", (PLAYED,), "port must be a number"),
    ("::1:5000", (PLAYED,), "[address]:port"),
    ("127.0.0.1:5000", (), "at least one game"),
    ("127.0.0.1:5000", (bot_pb2.GAME_UNSPECIFIED,), "GAME_UNSPECIFIED"),
    ("127.0.0.1:5000", (42,), "unknown game"),
])
def test_a_malformed_request_is_invalid_argument(arena, store: Store, endpoint: str, games, message: str) -> None:
    error = refused(register, arena(), "ok-name", endpoint, games)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and message in error.details(), error.details()
    assert store.bots.list_bots() == []


def test_an_unreachable_endpoint_is_failed_precondition(arena, dead_endpoint: str, store: Store) -> None:
    error = refused(register, arena(), "ghost", dead_endpoint)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error.details().startswith(f"entry checks failed for {dead_endpoint}: health check failed: endpoint unreachable")
    report = arena_pb2.EntryReport.FromString(dict(error.trailing_metadata())[REPORT_METADATA_KEY])
    assert [(c.name, c.passed) for c in report.checks] == [("health", False)]
    assert store.bots.list_bots() == []


def test_a_host_that_does_not_resolve_is_failed_precondition(arena, store: Store) -> None:
    def resolver(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    error = refused(register, arena(make_config(resolver=resolver)), "nowhere", "no-such-host.invalid:5000")
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "does not resolve" in error.details()
    assert store.bots.list_bots() == []


def test_a_bot_failing_the_validation_game_is_failed_precondition(arena, bot_server, store: Store) -> None:
    endpoint = bot_server(IllegalBot())
    error = refused(register, arena(), "cheater", endpoint, (PLAYED,))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"game:{GAME} check failed: 3 fault(s) (illegal)" in error.details()
    report = arena_pb2.EntryReport.FromString(dict(error.trailing_metadata())[REPORT_METADATA_KEY])
    assert [(c.name, c.passed) for c in report.checks] == [("health", True), ("describe", True), (f"game:{GAME}", False)]
    assert store.bots.list_bots() == []


def test_a_bot_not_listing_the_game_is_failed_precondition(arena, bot_server, store: Store) -> None:
    other = other_game()
    error = refused(register, arena(), "wrong-game", bot_server(OneGameOnly(game=other)), (spec(other).proto_enum, PLAYED))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"describe check failed: Describe does not list {GAME}" in error.details()
    assert store.bots.list_bots() == []


def test_a_bot_without_health_service_is_failed_precondition(arena, bare_bot_server, store: Store) -> None:
    error = refused(register, arena(), "no-health", bare_bot_server(load_bot(STRONG)))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "no grpc.health.v1.Health service" in error.details()
    assert store.bots.list_bots() == []


def test_endpoints_outside_the_network_policy_are_permission_denied(arena, bot_server, store: Store) -> None:
    endpoint = bot_server(load_bot(STRONG))
    public_only = arena(make_config(allowed="any", denied="loopback,private,link-local"))
    error = refused(register, public_only, "local", endpoint)
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert error.details() == (f"endpoint {endpoint} refused by the network policy: "
                               "127.0.0.1 is in the denied network 127.0.0.0/8")
    # a name resolving to a metadata address, or to several addresses one of which is refused
    names = {"metadata.test": ["169.254.169.254"], "mixed.test": ["127.0.0.1", "8.8.8.8"],
             "mapped.test": ["::ffff:169.254.169.254"]}
    local = arena(make_config(resolver=lambda host, port: names[host]))
    for host, why in [("metadata.test", "169.254.169.254 is in the denied network 169.254.0.0/16"),
                      ("mixed.test", "8.8.8.8 is outside the allowed networks"),
                      ("mapped.test", "169.254.169.254 is in the denied network 169.254.0.0/16")]:
        error = refused(register, local, "sneaky", f"{host}:{endpoint.rpartition(':')[2]}")
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED and why in error.details(), error.details()
    error = refused(register, local, "zero", "0.0.0.0:5000")
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED and "not a host address" in error.details()
    assert store.bots.list_bots() == []


def test_registration_is_rate_limited_per_client(arena, bot_server, dead_endpoint: str, store: Store) -> None:
    stub = arena(make_config(limit=2))
    for name in ("one", "two"):  # failed attempts count too
        assert refused(register, stub, name, dead_endpoint).code() == grpc.StatusCode.FAILED_PRECONDITION
    error = refused(register, stub, "three", bot_server(load_bot(STRONG)))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.details().startswith("too many registrations from 127.0.0.1: at most 2 per 3600 s; try again in")
    assert store.bots.list_bots() == []


def test_writes_need_the_right_token(arena, bot_server, store: Store) -> None:
    stub = arena()
    token = register(stub, "guarded", bot_server(load_bot(STRONG))).token
    other = register(stub, "other", bot_server(load_bot(STRONG, 1))).token
    before = store.bots.get_bot_by_name("guarded")
    cases = [("", grpc.StatusCode.UNAUTHENTICATED, "this call needs the bot's token (given at registration)"),
             ("wrong", grpc.StatusCode.UNAUTHENTICATED, "wrong token for bot 'guarded'"),
             (other, grpc.StatusCode.UNAUTHENTICATED, "wrong token for bot 'guarded'"),
             (token[:-1], grpc.StatusCode.UNAUTHENTICATED, "wrong token for bot 'guarded'"),
             ("x" * 10_000, grpc.StatusCode.UNAUTHENTICATED, "wrong token for bot 'guarded'")]
    for bad, code, message in cases:
        for call, request in [(stub.UpdateBot, arena_pb2.UpdateBotRequest(name="guarded", token=bad, version="9")),
                              (stub.RetireBot, arena_pb2.RetireBotRequest(name="guarded", token=bad))]:
            error = refused(call, request, timeout=10)
            assert (error.code(), error.details()) == (code, message)
    assert store.bots.get_bot_by_name("guarded") == before
    error = refused(stub.UpdateBot, arena_pb2.UpdateBotRequest(name="nobody", token=token, version="9"), timeout=10)
    assert (error.code(), error.details()) == (grpc.StatusCode.NOT_FOUND, "no bot named 'nobody'")
    error = refused(stub.UpdateBot, arena_pb2.UpdateBotRequest(name="guarded", token=token), timeout=10)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "nothing to change" in error.details()


def test_an_operator_registered_bot_cannot_be_changed_over_the_api(arena, store: Store) -> None:
    store.bots.register_bot("house", "127.0.0.1:5000", "1", "ops", [GAME])
    error = refused(arena().RetireBot, arena_pb2.RetireBotRequest(name="house", token="anything"), timeout=10)
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED and "without a token" in error.details()
    assert store.bots.get_bot_by_name("house").retired_at is None


def test_a_failed_update_changes_nothing(arena, bot_server, dead_endpoint: str, store: Store) -> None:
    stub = arena()
    endpoint = bot_server(load_bot(STRONG))
    token = register(stub, "steady", endpoint).token
    before = store.bots.get_bot_by_name("steady")
    for new, code in [(dead_endpoint, grpc.StatusCode.FAILED_PRECONDITION),
                      (bot_server(OneGameOnly(game=other_game())), grpc.StatusCode.FAILED_PRECONDITION),  # not GAME
                      ("not an endpoint", grpc.StatusCode.INVALID_ARGUMENT)]:
        error = refused(stub.UpdateBot, arena_pb2.UpdateBotRequest(name="steady", token=token, endpoint=new,
                                                                   version="2"), timeout=CALL_TIMEOUT_S)
        assert error.code() == code
    assert store.bots.get_bot_by_name("steady") == before


def test_get_standings_with_intervals(arena, store: Store) -> None:
    stub = arena()
    game = game_with(lambda s: s.luck is None, "without a luck estimator")
    ids = [store.bots.register_bot(n, "127.0.0.1:5000", "1", "t", [game]) for n in ("a", "b", "c")]
    play_season(store, "s1", ids, [((0, 1, 2), (1, 2, 3)), ((1, 2, 0), (1, 2, 3)), ((2, 0, 1), (2, 1, 3)),
                                   ((0, 1, 2), (1, 3, 2))], game)
    answer = stub.GetStandings(arena_pb2.GetStandingsRequest(season="s1"), timeout=30)
    assert answer.season == "s1" and answer.game == spec(game).proto_enum and [r.rank for r in answer.rows] == [1, 2, 3]
    for row in answer.rows:
        assert row.HasField("ml_rating") and row.ml_low < row.ml_rating < row.ml_high
        assert row.HasField("openskill_mu") and row.openskill_sigma > 0
    assert all(r.HasField("p_better") and 0 <= r.p_better <= 1 for r in answer.rows[:-1])
    assert not answer.rows[-1].HasField("p_better")
    assert sum(r.ml_rating for r in answer.rows) / 3 == pytest.approx(1500)
    assert not any(r.HasField(f) for r in answer.rows for f in ("luck_change", "luck_low", "luck_high"))  # no estimator
    for season, code in [("nope", grpc.StatusCode.NOT_FOUND), ("", grpc.StatusCode.INVALID_ARGUMENT)]:
        error = refused(stub.GetStandings, arena_pb2.GetStandingsRequest(season=season), timeout=10)
        assert error.code() == code


def test_standings_of_a_game_with_a_luck_estimator_carry_the_luck_adjusted_change(arena, store: Store) -> None:
    lucky = game_with(lambda s: s.luck is not None, "with a luck estimator")
    gs, strong = spec(lucky), conformance(lucky).strong_bot
    ids = [store.bots.register_bot(n, f"127.0.0.1:{6000 + i}", "1", "t", [lucky]) for i, n in enumerate("abc")]
    sid = store.seasons.create_season("lucky", lucky, dict(gs.quick_params), {}, 7, {"table_sizes": [3]},
                              [(21, ids), (22, ids[1:] + ids[:1]), (23, ids[2:] + ids[:2])])
    for game in store.game_reads.list_games(sid):
        claim = store.games.claim_game(game.id, "test", 60)
        assert claim is not None
        clients = [InProcessBotClient(load_bot(strong if s.bot_id == ids[0] else "random", claim.seed + k).act)
                   for k, s in enumerate(claim.seats)]
        record = play(gs, make_params(lucky, gs.quick_params), 3, claim.seed, clients)
        assert store.games.finish_game(game.id, claim.attempt, record)
    want = {row.bot_id: row for row in standings_of(store, sid)}
    assert all(row.luck_change is not None for row in want.values())

    answer = arena().GetStandings(arena_pb2.GetStandingsRequest(season="lucky"), timeout=30)
    assert {row.bot_id for row in answer.rows} == set(ids)
    for row in answer.rows:
        expected = want[row.bot_id]
        assert row.HasField("luck_change") and row.luck_change == pytest.approx(expected.luck_change)
        assert (row.luck_low, row.luck_high) == (pytest.approx(expected.luck_low), pytest.approx(expected.luck_high))
        assert row.luck_low < row.luck_change < row.luck_high


def test_endpoint_changes_count_against_the_rate_limit(arena, bot_server, store: Store) -> None:
    stub = arena(make_config(limit=2))
    token = register(stub, "mover", bot_server(load_bot(STRONG))).token
    stub.UpdateBot(arena_pb2.UpdateBotRequest(name="mover", token=token, endpoint=bot_server(load_bot(STRONG, 1))),
                   timeout=CALL_TIMEOUT_S)
    error = refused(stub.UpdateBot, arena_pb2.UpdateBotRequest(name="mover", token=token,
                                                               endpoint=bot_server(load_bot(STRONG, 2))), timeout=10)
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    stub.UpdateBot(arena_pb2.UpdateBotRequest(name="mover", token=token, version="3"), timeout=10)  # no checks: free


def test_concurrent_registrations_of_one_name_register_it_once(arena, bot_server, store: Store) -> None:
    from concurrent.futures import ThreadPoolExecutor

    stub = arena()
    endpoints = [bot_server(load_bot(STRONG, k)) for k in range(4)]

    def attempt(endpoint: str) -> grpc.StatusCode:
        try:
            register(stub, "race", endpoint)
            return grpc.StatusCode.OK
        except grpc.RpcError as exc:
            return exc.code()

    with ThreadPoolExecutor(4) as pool:
        codes = list(pool.map(attempt, endpoints))
    assert sorted(c.name for c in codes) == ["ALREADY_EXISTS"] * 3 + ["OK"]
    assert [b.name for b in store.bots.list_bots()] == ["race"]
    assert store.bots.get_bot_by_name("race").endpoint == endpoints[codes.index(grpc.StatusCode.OK)]


def test_a_registration_covers_several_games_and_update_adds_one(arena, bot_server, store: Store) -> None:
    from league.competition.seasons import SeasonError, create_season

    stub = arena()
    second = other_game()
    added_game = spec(second).proto_enum
    endpoint = bot_server(load_bot("random"))  # Describe lists every game
    token = register(stub, "all-rounder", endpoint, games=(PLAYED,)).token
    for other in ("r2", "r3"):
        register(stub, other, bot_server(load_bot("random", 2)), games=(PLAYED, added_game))
    assert list(store.bots.get_bot_by_name("r2").games) == [GAME, second]
    with pytest.raises(SeasonError, match=rf"not registered for {second}: all-rounder \(a registration covers"):
        create_season(store, "second-1", spec(second), ["all-rounder", "r2", "r3"], [3], 3, 1)

    added = stub.UpdateBot(arena_pb2.UpdateBotRequest(name="all-rounder", token=token, games=[added_game]),
                           timeout=CALL_TIMEOUT_S)
    assert list(added.bot.games) == [PLAYED, added_game] and added.bot.endpoint == endpoint
    assert [c.name for c in added.report.checks] == ["health", "describe", f"game:{second}"]  # only the new game
    assert store.bots.get_bot_by_name("all-rounder").games == (GAME, second)
    create_season(store, "second-1", spec(second), ["all-rounder", "r2", "r3"], [3], 3, 1)

    error = refused(stub.UpdateBot, arena_pb2.UpdateBotRequest(name="all-rounder", token=token, games=[PLAYED]),
                    timeout=10)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"'all-rounder' is registered for {GAME}, {second} already" in error.details()


def test_a_game_the_bot_does_not_play_is_not_added(arena, bot_server, store: Store) -> None:
    stub = arena()
    other = other_game()
    token = register(stub, "one-game-fan", bot_server(OneGameOnly(game=GAME))).token  # plays GAME only
    before = store.bots.get_bot_by_name("one-game-fan")
    error = refused(stub.UpdateBot, arena_pb2.UpdateBotRequest(name="one-game-fan", token=token,
                                                               games=[spec(other).proto_enum]),
                    timeout=CALL_TIMEOUT_S)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and f"Describe does not list {other}" in error.details()
    assert store.bots.get_bot_by_name("one-game-fan") == before
    error = refused(stub.UpdateBot, arena_pb2.UpdateBotRequest(name="one-game-fan", token=token, games=[0]), timeout=10)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def _outside_address() -> str | None:
    """An address of this machine that is not loopback (the route out), or None."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: the kernel picks the source address
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_list_bots_hides_endpoints_from_a_caller_off_the_machine(store: Store, bot_server) -> None:
    import grpc

    from arena.registry import Registry
    from arena.service import is_loopback, start_arena_server
    from tests.arena.conftest import make_config

    assert is_loopback("127.0.0.1") and is_loopback("::1") and not is_loopback("10.0.0.1")
    assert not is_loopback("localhost")  # a name is not trusted
    address = _outside_address()
    if address is None:
        pytest.skip("this machine has no address but loopback: a caller off the machine cannot be made")
    store.bots.register_bot("hidden", bot_server(load_bot(STRONG)), "1", "tests", [GAME])
    server, port = start_arena_server("unused://", "0.0.0.0", 0, registry=Registry(store, make_config()))
    try:
        with grpc.insecure_channel(f"{address}:{port}") as channel:  # the peer the Arena sees is not loopback
            listed = arena_pb2_grpc.ArenaStub(channel).ListBots(arena_pb2.ListBotsRequest(check=True), timeout=10)
    finally:
        server.stop(0)
    assert [(b.name, b.endpoint, b.availability) for b in listed.bots] == [("hidden", "", "answering")]
