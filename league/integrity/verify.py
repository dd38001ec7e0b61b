"""Checking a finished season from its published key (``cardarena season verify``).

Once a season is over its key is published (``store.seasons.revealed_key``); then
:func:`verify_season` checks, as anyone could from the published data, everything
the season's standings depend on:

1. the commitment published at the season's creation is ``SHA-256(key + scheme)``
   (``league.integrity.fairness.commitment``): the key and the chance scheme were fixed then;
2. every game's stored deal seed is the seed derived from the key
   (``league.integrity.fairness.deal_seed`` of the game's number, or of its rotation group
   in a duplicate season), and its stored id, the one its bots were sent, is the id derived from
   the key (``league.integrity.fairness.game_token`` of the season id and the number; a game
   stored before keyed ids has none, and its bots were sent ``<season id>/<number>``);
3. every game's status is one the store can prove, with the reason it gives (rules §4.3, §4.9):

   - *done*: a replay is stored; its attempt is the game's last, every earlier attempt was
     voided; the replay is of the season's game, parameters, seed, game id and chance scheme, and
     :func:`referee.recheck.recheck` recomputes every field of it from the seed, the attempt
     and the answers (chance, events, views, answers, faults, banks, places, scores); the
     stored result rows (place, score, change, faults, retired of each seat: what the
     standings read) and the end reason are the replay's;
   - *failed*: no replay, no result, and exactly 3 attempts, each voided, the detail naming the last;
   - *not played*: no replay, no result, no attempt completed, and the detail names a bot of
     the table that was suspended from the season; or, with the reason ``cancelled``, the season
     was cancelled and the detail gives its recorded reason (rules §4.11);
   - any other status, or a game without a replay that is not failed or not played, fails;

4. the stored Elo ratings are those of the verified results in schedule order (``league.ratings.elo``);
5. the season's chain (``store.chain``): every entry linked to the one before, every stored
   row as it was when its entry was stored, every final game in it, and every chain head
   seen before (``heads``) one of its entries: a result changed or removed after it was
   shown is caught by anyone who saw a later head.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Protocol

from league.integrity import fairness
from league.ratings import elo
from referee.games import spec
from referee.recheck import recheck
from referee.record import GameRecord
from referee.timecontrol import TimeControl

#: The statuses of a game (``store.GameStatus``).
DONE, FAILED, NOT_PLAYED = "done", "failed", "not_played"
#: The reason of a game not played because its season was cancelled (``store.CANCELLED``, rules §4.11).
CANCELLED = "cancelled"
#: Voided attempts after which a game is failed (rules §4.3; ``store.MAX_ATTEMPTS``).
MAX_ATTEMPTS = 3
#: Rating difference below which a stored Elo counts as the recomputed one.
ELO_TOLERANCE = 1e-6


class SeasonToVerify(Protocol):
    """The season's published fields the check reads (``store.SeasonInfo``)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def params(self) -> Mapping[str, Any]: ...
    @property
    def time_control(self) -> Mapping[str, Any]: ...
    @property
    def commitment(self) -> str | None: ...
    @property
    def chance_scheme(self) -> str | None: ...
    @property
    def config(self) -> Mapping[str, Any]: ...


class StoredGameRow(Protocol):
    """A game's stored fields (``store.StoredGame``)."""

    id: int
    number: int
    deal_group: int
    seed: int
    status: str
    reason: str | None
    detail: str | None
    attempts: tuple[tuple[int, str | None, str | None], ...]
    seats: tuple[tuple[int, int, int | None, int | None, int | None, int | None, bool | None], ...]
    replay: bool
    token: str | None


class Suspension(Protocol):
    """A bot's availability in the season (``store.BotAvailability``)."""

    bot_id: int
    name: str
    suspended_at: datetime | None


class ChainFindings(Protocol):
    """What the store's chain audit found (``store.chain.ChainAudit``)."""

    head: str | None
    length: int
    problems: list[str]
    heads_seen: int
    note: str | None


class DealsSource(Protocol):
    """Where a season's key, games, replays, ratings and chain are read from: the store
    (:class:`StoreSource`) or the public API (``league.integrity.verify_api.ApiSource``)."""

    def revealed_key(self, season_id: int) -> bytes | None:
        """The season's key once published, else None."""
        ...

    def season_progress(self, season_id: int) -> dict[str, int]:
        """Games per status (``"pending"``, ``"running"``, ...)."""
        ...

    def stored_games(self, season_id: int) -> Sequence[StoredGameRow]:
        """Every game's stored fields, in schedule order."""
        ...

    def get_replay(self, game_id: int) -> GameRecord | None:
        """The stored record of a game, or None."""
        ...

    def ratings(self, season_id: int) -> dict[int, float]:
        """The stored Elo ratings ``{bot id: elo}``."""
        ...

    def season_availability(self, season_id: int) -> Sequence[Suspension]:
        """The season's bots that did not answer at some game start."""
        ...

    def chain_audit(self, season_id: int, heads: Sequence[str] = ()) -> ChainFindings:
        """The season's chain checked against its rows and the ``heads`` seen before."""
        ...


@dataclass(frozen=True)
class StoreSource:
    """A :class:`DealsSource` over the store (``store.Store``), each read in the store's area that
    holds it; the league imports no store, so ``store`` is typed by what is read of it."""

    store: Any

    def revealed_key(self, season_id: int) -> bytes | None:
        return self.store.seasons.revealed_key(season_id)

    def season_progress(self, season_id: int) -> dict[str, int]:
        return self.store.seasons.season_progress(season_id)

    def stored_games(self, season_id: int) -> Sequence[StoredGameRow]:
        return self.store.seasons.stored_games(season_id)

    def get_replay(self, game_id: int) -> GameRecord | None:
        return self.store.replays.get_replay(game_id)

    def ratings(self, season_id: int) -> dict[int, float]:
        return self.store.season_reads.ratings(season_id)

    def season_availability(self, season_id: int) -> Sequence[Suspension]:
        return self.store.seasons.season_availability(season_id)

    def chain_audit(self, season_id: int, heads: Sequence[str] = ()) -> ChainFindings:
        return self.store.chain.audit(season_id, heads)


class CannotVerify(Exception):
    """The season cannot be verified (yet); the message says why, in one line."""


@dataclass
class VerifyReport:
    """What :func:`verify_season` found: ``problems`` names each game (or the commitment, the ratings,
    the chain) that does not match and what does not; empty when everything verified."""

    season: str
    key_hex: str
    commitment: str
    chance_scheme: str | None = None
    commitment_ok: bool = True
    games: int = 0
    seeds_checked: int = 0
    replays_checked: int = 0
    statuses_checked: int = 0
    chain_head: str | None = None
    chain_length: int = 0
    heads_seen: int = 0
    chain_note: str | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the commitment, every seed, status, replay, result, rating and the chain verified."""
        return not self.problems

    def lines(self) -> list[str]:
        """The report, one line each."""
        scheme = (f"chance scheme {self.chance_scheme}" if self.chance_scheme
                  else "no chance scheme (a season from before the scheme was committed)")
        out = [f"season {self.season}: key {self.key_hex}",
               f"commitment {self.commitment} (key and {scheme}): "
               + ("the SHA-256 matches" if self.commitment_ok else "does NOT match")]
        out.append(f"{self.seeds_checked} of {self.games} game seeds derive from the key; "
                   f"{self.replays_checked} replays re-run and every stored field matches; "
                   f"{self.statuses_checked} of {self.games} statuses proven")
        out.append(f"chain head {self.chain_head} after {self.chain_length} entries"
                   + (f"; extends {self.heads_seen} head(s) seen before" if self.heads_seen else "")
                   + (f" ({self.chain_note})" if self.chain_note else ""))
        out += [f"MISMATCH {p}" for p in self.problems]
        out.append("verified: every deal came from the committed key and every stored result is the replays'"
                   if self.ok else f"NOT verified: {len(self.problems)} problem(s)")
        return out


def verify_season(store: DealsSource, season: SeasonToVerify, heads: Sequence[str] = ()) -> VerifyReport:
    """Verify ``season`` from its published key (module docstring); ``heads``: chain heads seen before
    (64 hex digits each). Raises CannotVerify when the season has no key (stored before keys) or is
    not over (its key is not published yet)."""
    if season.commitment is None:
        raise CannotVerify(f"season {season.name!r} was created before seasons had keys: its seed was public "
                           "and there is no commitment to verify")
    key = store.revealed_key(season.id)
    if key is None:
        progress = store.season_progress(season.id)
        left = progress["pending"] + progress["running"]
        raise CannotVerify(f"season {season.name!r} is not over ({left} games still to play): its key is "
                           "published when every game is final; verify it then")
    report = VerifyReport(season.name, key.hex(), season.commitment, season.chance_scheme)
    expected_commitment = fairness.commitment(key, season.chance_scheme)
    if expected_commitment != season.commitment:
        report.commitment_ok = False
        report.problems.append(f"commitment: SHA-256 of the published key and the chance scheme "
                               f"{season.chance_scheme} is {expected_commitment}, not the commitment {season.commitment}")
    checker = _GameChecker(store, season, key, report)
    rated: list[tuple[int, list[int], list[int]]] = []
    for game in store.stored_games(season.id):
        report.games += 1
        if checker.check(game) and game.status == DONE:
            rated.append((game.number, [s[1] for s in game.seats], [s[2] for s in game.seats]))  # type: ignore[misc]
    _check_ratings(store, season, rated, report)
    chain = store.chain_audit(season.id, heads)
    report.chain_head, report.chain_length, report.heads_seen = chain.head, chain.length, chain.heads_seen
    report.chain_note = chain.note
    report.problems += chain.problems
    return report


class _GameChecker:
    """The checks of one season's games (steps 2 and 3 of the module docstring)."""

    def __init__(self, store: DealsSource, season: SeasonToVerify, key: bytes, report: VerifyReport) -> None:
        self.store, self.season, self.key, self.report = store, season, key, report
        self.duplicate = bool(season.config.get("duplicate", False))
        self.tc = TimeControl.from_json(dict(season.time_control))
        self.params = asdict(spec(season.game).params(dict(season.params)))  # the stored game id, resolved once
        self.suspended = {a.bot_id: a.name for a in store.season_availability(season.id) if a.suspended_at is not None}
        self.schemes: set[str] = set()

    def check(self, game: StoredGameRow) -> bool:
        """Check one game; True when its result (if any) verified and may be rated."""
        problems: list[str] = []
        expected = fairness.deal_seed(self.key, game.number, game.deal_group, self.duplicate)
        if game.seed != expected:
            problems.append(f"stored seed {game.seed} is not the seed from the key, {expected} "
                            f"({fairness.deal_label(game.number, game.deal_group, self.duplicate)})")
        else:
            self.report.seeds_checked += 1
        received = self._received_id(game, problems)
        status = str(game.status)
        if status == DONE:
            self._done(game, expected, received, problems)
        elif status == FAILED:
            self._failed(game, problems)
        elif status == NOT_PLAYED:
            self._not_played(game, problems)
        else:
            problems.append(f"{status} in a season that is over")
        name = f"game {game.number} (id {game.id})"
        self.report.problems += [f"{name}: {p}" for p in problems]
        if not problems:
            self.report.statuses_checked += 1
        return not problems

    def _received_id(self, game: StoredGameRow, problems: list[str]) -> str:
        """The id the game's bots were sent, derived from the key (the legacy ``<season id>/<number>`` for a
        game stored without one); a stored id that is not the derived one is a problem."""
        if game.token is None:
            return f"{self.season.id}/{game.number}"
        expected = fairness.game_token(self.key, self.season.id, game.number)
        if game.token != expected:
            problems.append(f"stored game id {game.token} is not the id from the key, {expected} "
                            f"({fairness.game_label(self.season.id, game.number)})")
        return expected

    def _attempts(self, game: StoredGameRow, problems: list[str]) -> None:
        numbers = [a for a, _, _ in game.attempts]
        if numbers != list(range(1, len(numbers) + 1)):
            problems.append(f"attempts numbered {numbers}, not 1 to {len(numbers)}")

    def _done(self, game: StoredGameRow, seed: int, received: str, problems: list[str]) -> None:
        self._attempts(game, problems)
        outcomes = [o for _, o, _ in game.attempts]
        if not outcomes or outcomes[-1] != "done" or any(o != "voided" for o in outcomes[:-1]):
            problems.append(f"done, but its attempts ended {outcomes}: not voided ones then one done")
        record = self.store.get_replay(game.id) if game.replay else None
        if record is None:
            problems.append("done but no replay is stored")
            return
        seen = {"game": (record.game, self.season.game), "seed": (record.seed, seed), "game id": (record.game_id, received),
                "attempt": (record.attempt, len(outcomes)), "parameters": (record.params, self.params),
                "seats": (record.num_seats, len(game.seats))}
        scheme = self.season.chance_scheme
        if scheme is not None:
            seen["chance scheme"] = (record.chance_scheme, scheme)
        else:  # a season from before the scheme was committed: one scheme for all its games at least
            self.schemes.add(record.chance_scheme)
            if len(self.schemes) > 1:
                problems.append(f"dealt under the chance scheme {record.chance_scheme}, other games under "
                                f"{sorted(self.schemes - {record.chance_scheme})}")
        wrong = [f"the replay's {what} is {got!r}, not {want!r}" for what, (got, want) in seen.items() if got != want]
        if wrong:
            problems += wrong
            return
        problems += [f"the replay: {p}" for p in recheck(record, self.tc)]
        if (game.reason, game.detail) != (record.reason.value, record.detail):
            problems.append(f"stored reason {game.reason!r} ({game.detail!r}), the replay's is "
                            f"{record.reason.value!r} ({record.detail!r})")
        results = {r.seat: (r.place, r.score, r.change, r.faults, r.retired) for r in record.results}
        for seat, _bot, *stored in game.seats:
            if tuple(stored) != results.get(seat):
                problems.append(f"seat {seat}'s stored result (place, score, change, faults, retired) "
                                f"{tuple(stored)} is not the replay's {results.get(seat)}")
        if not problems:
            self.report.replays_checked += 1

    def _no_result(self, game: StoredGameRow, problems: list[str]) -> None:
        if game.replay:
            problems.append(f"{game.status}, yet a replay is stored")
        if any(s[2:] != (None,) * 5 for s in game.seats):
            problems.append(f"{game.status}, yet seat results are stored")

    def _failed(self, game: StoredGameRow, problems: list[str]) -> None:
        self._no_result(game, problems)
        self._attempts(game, problems)
        outcomes = [o for _, o, _ in game.attempts]
        if outcomes != ["voided"] * MAX_ATTEMPTS:
            problems.append(f"failed, but its attempts ended {outcomes}: a game fails after {MAX_ATTEMPTS} voided "
                            "attempts (rules §4.3)")
        elif game.reason != FAILED or game.detail != f"voided {MAX_ATTEMPTS} times; last: {game.attempts[-1][2]}":
            problems.append(f"failed with reason {game.reason!r} ({game.detail!r}), not the last void's")

    def _not_played(self, game: StoredGameRow, problems: list[str]) -> None:
        self._no_result(game, problems)
        outcomes = [o for _, o, _ in game.attempts]
        if any(o != "voided" for o in outcomes):
            problems.append(f"not played, but its attempts ended {outcomes}")
        if game.reason == CANCELLED:
            why = ((self.season.config or {}).get("cancelled") or {}).get("reason")
            if why is None or not (game.detail or "").startswith(f"season cancelled: {why}"):
                problems.append(f"cancelled ({game.detail!r}), but the season records no cancellation with that "
                                f"reason ({why!r}; rules §4.11)")
            return
        names = [self.suspended[bot] for _, bot, *_ in game.seats if bot in self.suspended]
        if game.reason != NOT_PLAYED or not any((game.detail or "").startswith(f"{n} suspended from the season")
                                                for n in names):
            problems.append(f"not played with reason {game.reason!r} ({game.detail!r}), which names no bot of its "
                            "table suspended from the season (rules §4.9)")


def _check_ratings(store: DealsSource, season: SeasonToVerify, rated: list[tuple[int, list[int], list[int]]],
                   report: VerifyReport) -> None:
    """The stored Elo ratings against those of the verified results (step 4)."""
    if report.problems:  # recomputed from results that did not verify, they would only repeat the problems
        return
    now, _ = elo.replay({}, rated, -1)
    stored = store.ratings(season.id)
    for bot in sorted(set(now) | set(stored)):
        want, got = now.get(bot, (None, 0))[0], stored.get(bot)
        if want is None or got is None or abs(want - got) > ELO_TOLERANCE:
            report.problems.append(f"ratings: bot {bot}'s stored Elo is {got}, its verified results give {want}")
