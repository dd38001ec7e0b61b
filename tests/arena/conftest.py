"""Fixtures for bot submission: a real SQLite store, the Arena on a real gRPC port, test bots."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import grpc
import pytest

from arena.registry import Registry, RegistryConfig
from arena.service import start_arena_server
from botsdk import Bot
from cardarena.v1 import arena_pb2_grpc
from league.entry.netpolicy import NetworkPolicy
from league.policy import POLICY
from referee.games import GameName, spec
from referee.record import EndReason, GameRecord, SeatResult
from store import Store, open_store
from tests.a_game import GAME, GameBot, IllegalBot

__all__ = ["IllegalBot", "OneGameOnly"]

#: Per-call deadline of the tests' Arena calls, seconds (registration runs a validation game).
CALL_TIMEOUT_S = 60.0


class OneGameOnly(GameBot):
    """Says it plays only its ``game`` (built with ``game=other_game()``: not the tests' GAME); answers at random."""

    name = "one-game-only"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A fresh SQLite store (migrated), closed at teardown."""
    s = open_store(f"sqlite:///{tmp_path / 'arena.db'}", policy=POLICY)
    yield s
    s.close()


def make_config(allowed: str = "loopback,private", denied: str = "link-local", limit: int = 50,
                resolver: Callable[[str, int], list[str]] | None = None) -> RegistryConfig:
    """A registry config with this policy and rate limit (per hour)."""
    policy = NetworkPolicy.from_strings(allowed, denied)
    if resolver is not None:
        policy = NetworkPolicy(policy.allowed, policy.denied, resolver)
    return RegistryConfig(policy=policy, register_limit=limit, register_window_s=3600.0, seed=0)


@pytest.fixture
def arena(store: Store) -> Iterator[Callable[..., arena_pb2_grpc.ArenaStub]]:
    """Start the Arena on 127.0.0.1, port 0: ``arena(config=None) -> stub``; servers stop at teardown."""
    servers: list[grpc.Server] = []
    channels: list[grpc.Channel] = []

    def start(config: RegistryConfig | None = None) -> arena_pb2_grpc.ArenaStub:
        registry = Registry(store, config or make_config())
        server, port = start_arena_server("unused://", "127.0.0.1", 0, registry=registry)
        servers.append(server)
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        channels.append(channel)
        return arena_pb2_grpc.ArenaStub(channel)

    yield start
    for channel in channels:
        channel.close()
    for server in servers:
        server.stop(0)


@pytest.fixture
def bare_bot_server() -> Iterator[Callable[[Bot], str]]:
    """A bot served WITHOUT the health service: ``start(bot) -> "127.0.0.1:PORT"``."""
    from concurrent import futures

    from botsdk.server import _Servicer, add_bot_servicer

    servers: list[grpc.Server] = []

    def start(bot: Bot) -> str:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        add_bot_servicer(_Servicer(bot, 2), server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(0)


def play_season(store: Store, name: str, bot_ids: Sequence[int], tables: Sequence[tuple[Sequence[int], Sequence[int]]],
                game: GameName = GAME) -> int:
    """A season of ``game`` (its short parameters) whose games (``(seat indexes into bot_ids, places)``) are all
    done, their records without events; returns its id."""
    sid = store.seasons.create_season(name, game, dict(spec(game).quick_params), {}, 7, {},
                              [(100 + i, [bot_ids[k] for k in seats]) for i, (seats, _) in enumerate(tables)])
    for game_id, (_, places) in zip(store.seasons.next_pending(sid, limit=len(tables)), tables, strict=True):
        claim = store.games.claim_game(game_id, "test", 60)
        assert claim is not None
        n = len(places)
        record = GameRecord(game=claim.game, params=claim.params, num_seats=n, seed=claim.seed,
                            game_id=f"g{game_id}", reason=EndReason.COMPLETED, detail="",
                            results=[SeatResult(seat=s, place=places[s], score=100, change=0, faults=0, retired=False)
                                     for s in range(n)])
        assert store.games.finish_game(game_id, claim.attempt, record)
    return sid
