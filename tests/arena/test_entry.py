"""Entry checks against a good bot and against bots failing each check, and the report they give."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from botsdk.bot import Context
from google.protobuf.message import Message
from referee.bots import load_bot
from league.entry.checks import (MAX_VALIDATION_GAMES, MIN_CANDIDATE_DECISIONS, TRANSPORTS, check_endpoint, latency_summary,
                          run_entry_checks)
from league.entry.netpolicy import NetworkPolicy
from referee.games import games, spec, specs
from referee.games.conformance import conformance
from referee.record import FaultKind
from referee.timecontrol import TimeControl
from tests.a_game import GAME, SPEC, STRONG, GameBot, other_game
from tests.arena.conftest import IllegalBot, OneGameOnly

LOCAL = NetworkPolicy.from_strings("loopback,private", "link-local")


class SlowBot(GameBot):
    """Answers legally, each answer after ~110 ms: over a 50 ms deadline every time."""

    name = "slowpoke"

    def answer(self, view: Message, ctx: Context) -> Message:
        time.sleep(0.11)
        return super().answer(view, ctx)


class RaisingBot(GameBot):
    """Raises on its third decision: one ERROR fault."""

    name = "raiser"

    def answer(self, view: Message, ctx: Context) -> Message:
        if ctx.decision == 2:
            raise RuntimeError("boom")
        return super().answer(view, ctx)


@pytest.mark.parametrize("game", games())
def test_the_reference_bots_pass(bot_server, game: str) -> None:
    endpoint = bot_server(load_bot(conformance(game).strong_bot))
    report = check_endpoint(endpoint, [spec(game)], LOCAL)
    assert report.passed, report.render()
    assert [c.name for c in report.checks] == ["policy", "health", "describe", f"game:{game}"]
    assert report.faults == [] and len(report.latencies_ms) > 5
    text = report.render()
    assert text.endswith("PASSED: the bot may enter seasons")
    assert f"latency of {len(report.latencies_ms)} decisions: median" in text and "p99" in text
    assert report.transport == "stream" and f"transport: {TRANSPORTS['stream']}" in text  # the SDK serves ActStream


def test_a_bot_without_the_stream_passes_on_act_and_the_report_says_so(raw_game_bot: str) -> None:
    """A bot that serves Act alone enters as before: the validation games call it on Act, the report says so."""
    report = check_endpoint(raw_game_bot, [spec(GAME)], LOCAL)
    assert report.passed, report.render()
    assert report.transport == "unary" and f"transport: {TRANSPORTS['unary']}" in report.render()


@pytest.fixture
def raw_game_bot() -> Iterator[str]:
    """A bot serving Act alone (no ActStream) that answers every decision of GAME legally, with health and Describe."""
    from concurrent import futures

    import grpc
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    from cardarena.v1 import bot_pb2

    bot = GameBot()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("cardarena.v1.Bot", {
        "Describe": grpc.unary_unary_rpc_method_handler(
            lambda request, context: bot.describe(), request_deserializer=bot_pb2.DescribeRequest.FromString,
            response_serializer=bot_pb2.DescribeResponse.SerializeToString),
        "Act": grpc.unary_unary_rpc_method_handler(
            lambda request, context: bot.act(request), request_deserializer=bot_pb2.ActRequest.FromString,
            response_serializer=bot_pb2.ActResponse.SerializeToString),
    }),))
    checks = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    checks.set("", health_pb2.HealthCheckResponse.SERVING)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(0)


def test_one_bot_checked_for_every_game(bot_server) -> None:
    report = run_entry_checks(bot_server(load_bot("random")), specs())
    assert report.passed and [c.name for c in report.checks][-len(games()):] == [f"game:{g}" for g in games()]


def test_nothing_listening(dead_endpoint: str) -> None:
    report = check_endpoint(dead_endpoint, [spec(GAME)], LOCAL)
    assert not report.passed and [(c.name, c.passed) for c in report.checks] == [("policy", True), ("health", False)]
    assert report.failure.startswith("health check failed: endpoint unreachable")


def test_no_health_service(bare_bot_server) -> None:
    report = run_entry_checks(bare_bot_server(load_bot(STRONG)), [spec(GAME)])
    assert [(c.name, c.passed) for c in report.checks] == [("health", False)]
    assert "no grpc.health.v1.Health service" in report.failure


def test_describe_without_the_game(bot_server) -> None:
    other = other_game()
    report = run_entry_checks(bot_server(OneGameOnly(game=other)), [spec(GAME)])
    assert [(c.name, c.passed) for c in report.checks] == [("health", True), ("describe", False)]
    assert report.failure == (f"describe check failed: Describe does not list {GAME} "
                              f"(one-game-only 0.1.0; games: {other}; capacity 1)")


def test_a_bot_with_illegal_answers_fails_with_the_answers_shown(bot_server) -> None:
    report = run_entry_checks(bot_server(IllegalBot()), [spec(GAME)])
    assert not report.passed and report.checks[-1].name == f"game:{GAME}"
    assert [f.kind for f in report.faults] == [FaultKind.ILLEGAL] * 3
    assert all(f.answer and SPEC.proto_field in f.answer for f in report.faults)
    text = report.render()
    first = report.faults[0].decision
    assert f'fault at decision {first}: illegal:' in text and f'answer: {{"{SPEC.proto_field}":{{' in text
    assert text.splitlines()[-1].startswith(f"FAILED: game:{GAME} check failed: 3 fault(s) (illegal)")


def test_a_bot_that_raises_once_fails(bot_server) -> None:
    report = run_entry_checks(bot_server(RaisingBot()), [spec(GAME)])
    assert not report.passed and [f.kind for f in report.faults] == [FaultKind.ERROR]
    assert "boom" in report.faults[0].detail and report.faults[0].answer is None
    assert "answer: none" in report.render()


def test_policy_refusals_are_reported() -> None:
    report = check_endpoint("127.0.0.1:5000", [spec(GAME)], NetworkPolicy.from_strings("private"))
    assert [(c.name, c.passed) for c in report.checks] == [("policy", False)]
    assert "outside the allowed networks" in report.failure
    report = check_endpoint("https://example.com", [spec(GAME)], LOCAL)
    assert "without a scheme" in report.failure


def test_latency_summary() -> None:
    assert latency_summary([]) == (0.0, 0.0, 0.0)
    assert latency_summary([3.0, 1.0, 2.0]) == (2.0, 3.0, 3.0)
    values = [float(v) for v in range(1, 201)]
    assert latency_summary(values) == (100.5, 198.0, 200.0)


def test_a_bot_over_the_deadline_passes_while_its_time_bank_lasts_but_is_warned(bot_server) -> None:
    tc = TimeControl(deadline_s=0.05, time_bank_s=30.0, budget_s=120.0, max_faults=3)
    report = run_entry_checks(bot_server(SlowBot()), [spec(GAME)], time_control=tc)
    assert report.passed, report.render()
    slow, drawn = report.over_deadline()
    assert slow == len(report.latencies_ms) > 0 and drawn >= slow * 0.05
    warning = next(line for line in report.render().splitlines() if "WARNING" in line)
    assert f"{slow} of {slow} decisions took longer than the 0.05 s deadline" in warning and "30 s time bank" in warning


def test_a_fast_bot_gets_no_deadline_warning(bot_server) -> None:
    report = run_entry_checks(bot_server(load_bot(STRONG)), [spec(GAME)])
    assert report.over_deadline() == (0, 0.0) and "WARNING" not in report.render()


@pytest.mark.parametrize("game", games())
def test_the_candidate_makes_enough_decisions_in_its_validation_games(bot_server, game: str) -> None:
    """A validation game in which the candidate is out early is followed by another, so the checks see
    at least MIN_CANDIDATE_DECISIONS of its decisions (or MAX_VALIDATION_GAMES games)."""
    endpoint = bot_server(load_bot("random"))
    for seed in range(6):
        report = run_entry_checks(endpoint, [spec(game)], seed=seed)
        assert report.passed, report.render()
        detail = report.checks[-1].detail
        assert len(report.latencies_ms) >= MIN_CANDIDATE_DECISIONS or f"{MAX_VALIDATION_GAMES} " in detail, detail
        assert f"{len(report.latencies_ms)} decisions" in detail
