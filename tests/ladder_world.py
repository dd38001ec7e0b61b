"""A small ladder of real store rows for the dashboard's and the Arena's ladder tests (rules §5).

Four bots of known strength (``a`` best) play a ladder of :func:`~tests.a_game.game_without_luck` through its runner
(``league.competition.ladder.LadderRunner``): tables of 3, epochs of 12 games, so several epochs close and
publish their keys, until every bot has played its placement games (the matchmaker's tables are drawn from the
ladder's own secret, so a bot's count varies from world to world); then ``d`` declares version 2.0 (a new entrant, placing) and a last refill
leaves games pending in the open epoch (their seeds and its key must stay hidden).
"""

from __future__ import annotations

from dataclasses import dataclass

from league.competition.ladder import PLACEMENT_GAMES, LadderRunner, create_ladder, ladder_fit, played_counts
from league.policy import POLICY
from referee.games import spec
from store import GameStatus, Store, open_store
from tests.a_game import game_without_luck
from tests.store.conftest import finish

NAME = "lad"


@dataclass(frozen=True)
class LadderWorld:
    url: str
    store: Store
    ladder_id: int
    bots: dict[str, int]
    pending_ids: list[int]
    game: str


def play_pending(store: Store, lid: int, order: dict[int, int]) -> int:
    """Finish every pending game of the ladder, each table placed by ``order`` (bot id -> strength rank)."""
    n = 0
    for epoch in store.ladders.epochs(lid):
        for gid in store.seasons.next_pending(epoch.id, limit=1000):
            seats = [s.bot_id for s in store.game_reads.get_game(gid).seats]
            ranked = sorted(seats, key=lambda b: order[b])
            finish(store, gid, [ranked.index(b) + 1 for b in seats])
            n += 1
    return n


def build_ladder_world(url: str, games: int = 72) -> LadderWorld:
    game = game_without_luck()
    store = open_store(url, policy=POLICY)
    bots = {n: store.bots.register_bot(n, f"127.0.0.1:{5100 + i}", "1.0", "tests", [game], capacity=2)
            for i, n in enumerate("abcd")}
    order = {bots[n]: i for i, n in enumerate("abcd")}
    lid = create_ladder(store, NAME, spec(game), [3], window=4, epoch_games=12)
    runner = LadderRunner(store, lid)
    played = 0
    while played < games or min(played_counts(store, lid).values(), default=0) < PLACEMENT_GAMES:
        runner.refill()
        played += play_pending(store, lid, order)
    store.bots.update_bot(bots["d"], version="2.0")
    runner.refill()
    play_pending(store, lid, order)
    runner.refill()
    # a snapshot at the current record, as the runner stores one every few rated games
    fit, counts = ladder_fit(store, lid), played_counts(store, lid)
    store.ladders.add_rating_points(lid, store.ladders.ladder_progress(lid)["done"],
                                    {e: (counts.get(e, 0), fit.rating[e], fit.sd(e)) for e in fit.bots})
    pending = [g.id for g in store.ladders.ladder_games(lid, status=(GameStatus.PENDING,))]
    return LadderWorld(url, store, lid, bots, pending, game)
