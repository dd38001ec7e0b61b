"""What a season on the cluster left in the store: games per status, attempts, results per game,
stored Elo against Elo recomputed from the results, faults charged to bots.

Read from the operator's side of the bridge after the run (``Audit.of``); ``problems`` lists, one
line each, every game lost, counted twice or stuck, and every bot whose stored Elo is not the one its
results give.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import func, select

from league.ratings.elo import season_elo
from store import Store
from store.models import GameAttempt, Replay


@dataclass
class Audit:
    """One season's audit (see the module docstring)."""

    statuses: dict[str, int]
    attempts: dict[int, int]  # game id -> attempts
    results: dict[int, int]  # game id -> stored replays
    done_attempts: dict[int, int]  # game id -> attempts whose outcome is done
    elo_stored: dict[str, float]
    elo_recomputed: dict[str, float]
    faults: dict[str, int]  # bot name -> faults stored against it
    voided: Counter[str] = field(default_factory=Counter)  # why attempts were voided

    @classmethod
    def of(cls, store: Store, season_id: int) -> Audit:
        games = store.game_reads.list_games(season_id, limit=10**6)
        ids = [g.id for g in games]
        with store.engine.connect() as conn:
            results = dict(conn.execute(select(Replay.game_id, func.count()).where(Replay.game_id.in_(ids))
                                        .group_by(Replay.game_id)).all())
            rows = conn.execute(select(GameAttempt.game_id, GameAttempt.outcome, GameAttempt.detail)
                                .where(GameAttempt.game_id.in_(ids))).all()
        attempts: Counter[int] = Counter(r[0] for r in rows)
        done: Counter[int] = Counter(r[0] for r in rows if r[1] == "done")
        voided: Counter[str] = Counter((r[2] or r[1] or "?").split(":")[0] for r in rows if r[1] != "done")
        r = store.season_reads.season_results(season_id)
        by_game: dict[int, tuple[list[int], list[int]]] = {}
        for number, bot, place in r.placings:
            seats = by_game.setdefault(number, ([], []))
            seats[0].append(bot)
            seats[1].append(place)
        recomputed = season_elo(by_game[n] for n in sorted(by_game))
        faults: Counter[str] = Counter()
        for bot, _place, _change, bot_faults, _retired in r.outcomes:
            faults[r.names[bot]] += bot_faults
        return cls(dict(Counter(str(g.status) for g in games)), dict(attempts), results, dict(done),
                   {r.names[b]: e for b, e in r.elo.items()}, {r.names[b]: e for b, e in recomputed.items()},
                   dict(faults), voided)

    @classmethod
    def combined(cls, audits: list[Audit]) -> Audit:
        """Several seasons' audits (a ladder's epochs) as one, for the fault table's row: statuses, attempts,
        results, faults and voided attempts added up; Elo left out (each season's ``problems`` checks its own)."""
        statuses: Counter[str] = Counter()
        faults: Counter[str] = Counter()
        voided: Counter[str] = Counter()
        attempts: dict[int, int] = {}
        results: dict[int, int] = {}
        done: dict[int, int] = {}
        for a in audits:
            statuses.update(a.statuses)
            faults.update(a.faults)
            voided.update(a.voided)
            attempts |= a.attempts
            results |= a.results
            done |= a.done_attempts
        return cls(dict(statuses), attempts, results, done, {}, {}, dict(faults), voided)

    @property
    def lost(self) -> int:
        """Games lost: failed (a platform failure three times, rules §4.3), or done without a stored result."""
        return self.statuses.get("failed", 0) + sum(1 for g, n in self.done_attempts.items()
                                                     if n >= 1 and self.results.get(g, 0) == 0)

    @property
    def double(self) -> int:
        """Games with more than one stored result or more than one done attempt."""
        return sum(1 for n in self.results.values() if n > 1) + sum(1 for n in self.done_attempts.values() if n > 1)

    @property
    def stuck(self) -> int:
        """Games still pending or running."""
        return self.statuses.get("pending", 0) + self.statuses.get("running", 0)

    def problems(self) -> list[str]:
        """One line per thing wrong: lost, double or stuck games, a done game without exactly one result,
        a bot whose stored Elo differs from the recomputed one by more than 1e-6."""
        out = []
        if self.lost:
            out.append(f"{self.lost} game(s) lost: {self.statuses}")
        if self.stuck:
            out.append(f"{self.stuck} game(s) still pending or running: {self.statuses}")
        if self.double:
            out.append(f"{self.double} game(s) with more than one result or done attempt")
        missing = [g for g, n in self.done_attempts.items() if n == 1 and self.results.get(g, 0) != 1]
        if missing:
            out.append(f"done games without exactly one result: {missing[:10]}")
        for name in sorted(set(self.elo_stored) | set(self.elo_recomputed)):
            stored, again = self.elo_stored.get(name, 1500.0), self.elo_recomputed.get(name, 1500.0)
            if abs(stored - again) > 1e-6:
                out.append(f"{name}: stored Elo {stored:.6f}, recomputed {again:.6f}")
        return out

    def row(self) -> dict[str, object]:
        """The fault table's columns from this audit."""
        return {"statuses": self.statuses, "attempts": sum(self.attempts.values()), "lost": self.lost,
                "double": self.double, "stuck": self.stuck, "bot faults": sum(self.faults.values()),
                "voided": dict(self.voided)}
