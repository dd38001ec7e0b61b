"""Fixtures for bot submission: a real SQLite store, the Arena on a real gRPC port, test bots."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import grpc
import pytest

from arena.registry import Registry, RegistryConfig
from arena.service import start_arena_server
from botsdk import Bot
from cardarena.v1 import arena_pb2_grpc, bot_pb2_grpc, slippery_sam_pb2, svara_pb2
from league.netpolicy import NetworkPolicy
from league.policy import POLICY
from referee.record import EndReason, GameRecord, SeatResult
from store import Store, open_store

#: Per-call deadline of the tests' Arena calls, seconds (registration runs a validation game).
CALL_TIMEOUT_S = 60.0


class IllegalSamBot(Bot):
    """Plays Slippery Sam, always betting one token more than allowed: faults in the validation game."""

    name = "illegal"
    games = ("slippery-sam",)

    def slippery_sam(self, view, ctx):
        return slippery_sam_pb2.SlipperySamAction(amount=view.max_amount + 1)


class SvaraOnlyBot(Bot):
    """Says it plays only Svara (folds every time it may)."""

    name = "svara-only"
    games = ("svara",)

    def svara(self, view, ctx):
        return svara_pb2.SvaraAction(move=svara_pb2.SVARA_MOVE_FOLD)


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

    from botsdk.server import _Servicer

    servers: list[grpc.Server] = []

    def start(bot: Bot) -> str:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        bot_pb2_grpc.add_BotServicer_to_server(_Servicer(bot), server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(0)


def play_season(store: Store, name: str, bot_ids: Sequence[int], tables: Sequence[tuple[Sequence[int], Sequence[int]]]) -> int:
    """A svara season whose games (``(seat indexes into bot_ids, places)``) are all done; returns its id."""
    sid = store.create_season(name, "svara", {"hands": 5}, {}, 7, {},
                              [(100 + i, [bot_ids[k] for k in seats]) for i, (seats, _) in enumerate(tables)])
    for game_id, (_, places) in zip(store.next_pending(sid, limit=len(tables)), tables, strict=True):
        claim = store.claim_game(game_id, "test", 60)
        assert claim is not None
        n = len(places)
        record = GameRecord(game=claim.game, params=claim.params, num_seats=n, seed=claim.seed,
                            game_id=f"g{game_id}", reason=EndReason.COMPLETED, detail="",
                            results=[SeatResult(seat=s, place=places[s], score=100, change=0, faults=0, retired=False)
                                     for s in range(n)])
        assert store.finish_game(game_id, claim.attempt, record)
    return sid
