"""Fixtures: a small store of real games (played by the referee with in-process bots) and the app on it.

Each test gets its own store: a season of :data:`WORLD_GAME` (its short parameters) of three
bots where three games are done (in the first, bravo faults once by answering with an error,
and charlie once by answering an illegal move, the game's ``Conformance.illegal_answer``),
one game is running, its progress stored as a worker's heartbeat stores it from a
game holding private events (``referee.live``), and one is pending.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient

from cardarena.v1 import bot_pb2
from config import Settings
from dashboard.main import create_app
from league.policy import POLICY
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.engine import Event
from referee.games import GameName, games, make_params, spec
from referee.games.conformance import conformance
from referee.live import LiveView
from referee.record import GameRecord
from referee.referee import play
from store import Store, open_store

#: The game of the world's season: the registry's first game without a luck estimator, so that the pages show
#: no luck column (a season of a game with one is ``tests/dashboard/test_luck_column.py``'s); None when every
#: game has one (the fixture then skips).
WORLD_GAME: GameName | None = next((g for g in games() if spec(g).luck is None), None)

BOTS = ("alpha", "bravo", "charlie")


@dataclass(frozen=True)
class World:
    """What a test's store holds."""

    url: str
    store: Store
    season_id: int
    season_name: str
    bot_ids: dict[str, int]
    done_ids: list[int]
    running_id: int
    pending_id: int
    running_record: GameRecord
    faulty_bot: str
    game: GameName


def faulty(act: Callable[[bot_pb2.ActRequest], bot_pb2.ActResponse]) -> Callable[[bot_pb2.ActRequest], bot_pb2.ActResponse]:
    """A handler that raises on its second call (an ERROR fault) and otherwise plays ``act``."""
    calls = [0]

    def handler(request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        calls[0] += 1
        if calls[0] == 2:
            raise RuntimeError("boom")
        return act(request)

    return handler


def illegal_once(act: Callable[[bot_pb2.ActRequest], bot_pb2.ActResponse],
                 game: GameName) -> Callable[[bot_pb2.ActRequest], bot_pb2.ActResponse]:
    """A handler whose first answer, where the view leaves one, is a well-formed answer of ``game`` the view does
    not allow (its ``Conformance.illegal_answer``: an ILLEGAL fault)."""
    done = [False]
    field_, declared = spec(game).proto_field, conformance(game).illegal_answer
    assert declared is not None, f"{game} declares no illegal_answer"

    def handler(request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
        if not done[0] and request.HasField(field_):
            illegal = declared(getattr(request, field_))
            if illegal is not None:
                done[0] = True
                return bot_pb2.ActResponse(**{field_: illegal})
        return act(request)

    return handler


def play_game(claim_seats: list[int], seed: int, bot_names: dict[int, str], faulty_bot: str | None,
              illegal_bot: str | None = None, game: GameName | None = None) -> GameRecord:
    """Play one game of ``game`` (default WORLD_GAME; its short parameters) between the reference random bots;
    ``faulty_bot`` errs once, ``illegal_bot`` answers one illegal move."""
    game = game or _world_game()
    clients = []
    for seat, bot_id in enumerate(claim_seats):
        act = load_bot("random", seed + seat).act
        name = bot_names[bot_id]
        clients.append(InProcessBotClient(faulty(act) if name == faulty_bot else illegal_once(act, game) if name == illegal_bot
                                          else act))
    return play(spec(game), make_params(game, spec(game).quick_params), len(claim_seats), seed, clients)


def _world_game() -> GameName:
    """WORLD_GAME; skips the calling test when there is none."""
    if WORLD_GAME is None:
        pytest.skip("every registered game has a luck estimator")
    return WORLD_GAME


def build_world(url: str, game: GameName | None = None) -> World:
    """Create the store described in the module docstring (a season of ``game``, default WORLD_GAME)."""
    played = game or _world_game()
    store = open_store(url, policy=POLICY)
    ids = {name: store.bots.register_bot(name, f"127.0.0.1:{5000 + i}", "1.0", "tests", [played])
           for i, name in enumerate(BOTS)}
    names = {v: k for k, v in ids.items()}
    a, b, c = ids["alpha"], ids["bravo"], ids["charlie"]
    schedule = [(11, [a, b, c]), (12, [b, c, a]), (13, [c, a, b]), (14, [a, c, b]), (15, [b, a, c])]
    season_name = "test-season"
    season_id = store.seasons.create_season(season_name, played, dict(spec(played).quick_params), {}, 7, {"table_sizes": [3]}, schedule)
    games = store.game_reads.list_games(season_id)
    done = []
    for game in games[:3]:
        claim = store.games.claim_game(game.id, "test", 60)
        assert claim is not None
        first = not done
        record = play_game([s.bot_id for s in claim.seats], claim.seed, names, "bravo" if first else None,
                           "charlie" if first else None, played)
        assert store.games.finish_game(game.id, claim.attempt, record)
        done.append(game.id)
    running = games[3]
    claim = store.games.claim_game(running.id, "test", 600)
    assert claim is not None
    partial = play_game([s.bot_id for s in claim.seats], claim.seed, names, None, game=played)
    # The running game's progress as its worker's heartbeat stores it: through a LiveView over
    # the game's events, private ones included (a dealt hand), and faults.
    live = LiveView()
    events = [Event(e["kind"], e["data"], None if e["visible_to"] is None else tuple(e["visible_to"]))
              for e in partial.events]
    live.attach({"game": partial.game, "params": partial.params, "num_seats": partial.num_seats,
                 "game_id": partial.game_id}, events, partial.faults)
    assert store.games.renew_lease(running.id, claim.attempt, 600, live=live.snapshot())
    return World(url, store, season_id, season_name, ids, done, running.id, games[4].id, partial, "bravo", played)


@pytest.fixture
def world(tmp_path) -> Iterator[World]:
    """A fresh store of real games for one test."""
    w = build_world(f"sqlite:///{tmp_path / 'dash.db'}")
    yield w
    w.store.close()


@pytest.fixture
def client(world: World) -> Iterator[TestClient]:
    """A TestClient on the dashboard over ``world``'s store (settings passed in, not from the environment)."""
    app = create_app(Settings(db_url=world.url, latency_games=50))
    with TestClient(app) as c:
        yield c


def private_cards(record: GameRecord) -> set[str]:
    """Every card that appears in a private event of ``record`` and in no public event."""
    def cards(value: object) -> set[str]:
        if isinstance(value, str) and len(value) == 2:
            return {value}
        if isinstance(value, list):
            return set().union(*(cards(v) for v in value)) if value else set()
        if isinstance(value, dict):
            return set().union(*(cards(v) for v in value.values())) if value else set()
        return set()

    private = set().union(*(cards(e["data"]) for e in record.events if e["visible_to"] is not None))
    public = set().union(*(cards(e["data"]) for e in record.events if e["visible_to"] is None))
    return private - public
