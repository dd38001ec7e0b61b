"""Bot submission: register, update and retire bots, the one place both front doors call.

The Arena gRPC service (``arena.service``) and the HTTP API
(``arena.http``) only translate requests and errors; every
rule lives here:

- **Names** follow ``league.names.bot_name_problem`` (1-40 characters of ``[A-Za-z0-9_.-]``
  matched whole, starting with a letter or digit, not all digits, not a reserved path word),
  unique whatever their case; **endpoints** are
  ``host:port`` and must pass the network policy (``league.entry.netpolicy``);
  **games** must be games of the platform.
- **Entry checks** (``league.entry.checks``) run against the address the policy
  accepted, before anything is written: *nothing is half-registered*. The
  bot row is written only after every check passed, and a name taken while
  the checks ran is still refused (the store's unique name).
- **Tokens**: ``secrets.token_urlsafe(32)`` (256 random bits), returned once;
  the store keeps only ``scrypt`` of it with a random 16-byte salt
  (``scrypt$N$r$p$salt$hash``, base64), compared in constant time. Every
  write (update, retire) needs the token. A bot registered without a token
  (by the operator, e.g. the demo) cannot be changed over the API.
- **Rate limit**: at most ``register_limit`` registration attempts per client
  address per ``register_window_s`` seconds (a sliding window, in this
  process), counted before any work so a flood of bad requests costs nothing.
  Token guessing needs no limit: 256-bit tokens, and each guess costs an
  scrypt.

Errors are :class:`RegistryError` with a :class:`ErrorKind` named after the
gRPC status it maps to; ``HTTP_STATUS`` gives the HTTP status.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena import submissions
from arena.errors import HTTP_STATUS, ErrorKind, RegistryError
from arena.errors import store_errors as _store_errors
from arena.submissions import BuildLog, Submitted
from config import Settings, get_settings
from hosting.launch import HostingConfig
from league.competition.ladder_board import LadderStanding, board, placement_games
from league.competition.standings import StandingRow, standings_of
from league.entry.checks import EntryReport, run_entry_checks
from league.entry.identity import MAX_VERSION_CHARS, capacity_of
from league.entry.netpolicy import EndpointError, NetworkPolicy, PolicyError, ResolveError, parse_endpoint
from league.names import bot_name_problem, did_you_mean
from referee.games import games as registered_games, names_text, spec
from store import BotInfo, NameTaken, NotFound, SeasonInfo, Store, StoreError, StoreUnavailable
from store.artifacts import OutputInfo, hosted_sha
from store.bots import taken_message
from store.ladders import LadderInfo
from store.reads.games import GameRow
from store.reads.ladders import LadderReads

#: Longest author string kept from Describe, characters.
MAX_AUTHOR_CHARS = 80
#: Longest token accepted, characters (ours are 43).
MAX_TOKEN_CHARS = 128
#: scrypt cost parameters: about 16 MiB and tens of milliseconds per hash.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1


@dataclass(frozen=True)
class LadderStandingView:
    """Where a bot stands in a ladder: its latest version's row, every version's (newest first), the
    main table's size, the ladder's placement games and the rated games its ratings cover."""

    ladder: LadderInfo
    current: LadderStanding
    versions: list[LadderStanding]
    table_size: int
    placement_games: int
    rated_games: int


@dataclass(frozen=True)
class RegistryConfig:
    """The registry's policy: network policy, rate limit (``register_limit`` entry-check requests per
    client address per ``register_window_s`` seconds), validation-game seed (None: a fresh random
    seed per check, so a bot cannot be tuned to pass one known deal). The platform's values come
    from the settings (:meth:`from_settings`), where their defaults are written."""

    policy: NetworkPolicy
    register_limit: int
    register_window_s: float
    seed: int | None = None

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> RegistryConfig:
        """From ``config.Settings`` (default: the environment's); raises ValueError for bad networks."""
        settings = settings or get_settings()
        return cls(
            policy=NetworkPolicy.from_strings(settings.allowed_networks, settings.denied_networks),
            register_limit=settings.register_limit,
            register_window_s=settings.register_window_s,
        )


class RateLimiter:
    """At most ``limit`` events per ``window_s`` seconds per key (sliding window; thread-safe)."""

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def acquire(self, key: str) -> float | None:
        """Count one event for ``key``; None if allowed, else the seconds until one is allowed again."""
        now = self.clock()
        with self._lock:
            events = self._events.setdefault(key, deque())
            while events and events[0] <= now - self.window_s:
                events.popleft()
            if len(events) >= self.limit:
                return max(events[0] + self.window_s - now, 0.001)
            events.append(now)
            if len(self._events) > 10_000:  # forget idle keys
                for k in [k for k, v in self._events.items() if not v or v[-1] <= now - self.window_s]:
                    del self._events[k]
            return None


@dataclass(frozen=True)
class Registered:
    """A new registration: the bot, its token (shown once) and the entry report it passed."""

    bot: BotInfo
    token: str
    report: EntryReport


@dataclass(frozen=True)
class Updated:
    """An update: the bot as changed and the entry report of a new endpoint (None if unchanged)."""

    bot: BotInfo
    report: EntryReport | None = None


def hash_token(token: str) -> str:
    """``scrypt$N$r$p$salt$hash`` of ``token`` with a fresh random salt."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(token.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    b64 = lambda b: base64.b64encode(b).decode("ascii")  # noqa: E731
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt)}${b64(digest)}"


def token_matches(token: str, stored: str) -> bool:
    """True if ``token`` hashes to ``stored`` (constant-time compare); False for any malformed hash."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = hashlib.scrypt(token.encode(), salt=base64.b64decode(salt), n=int(n), r=int(r), p=int(p),
                             dklen=len(expected))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


#: Seconds ``bot list`` waits for each bot's health check.
HEALTH_TIMEOUT_S = 1.0


@dataclass(frozen=True)
class ListedBot:
    """A bot as ``bot list`` shows it: the bot, its games stored as done (all seasons), and its
    ``availability`` (``answering``, ``not answering: WHY``, ``retired``; empty when not checked)."""

    bot: BotInfo
    games_played: int
    availability: str


def check_name(name: str) -> str:
    """``name`` if it can be a bot's name (``league.names.bot_name_problem``), else
    RegistryError(INVALID_ARGUMENT) saying why."""
    problem = bot_name_problem(name)
    if problem is not None:
        raise RegistryError(ErrorKind.INVALID_ARGUMENT, f"bad bot name {name!r}: {problem}")
    return name


def check_games(games: Sequence[str]) -> tuple[str, ...]:
    """The games, deduplicated in order; RegistryError(INVALID_ARGUMENT) if none or one is unknown."""
    ready = registered_games()
    if not games:
        raise RegistryError(ErrorKind.INVALID_ARGUMENT, f"name at least one game: {names_text()}")
    unknown = [g for g in games if g not in ready]
    if unknown:
        raise RegistryError(ErrorKind.INVALID_ARGUMENT,
                            f"unknown game(s) {', '.join(map(repr, unknown))}: choose from {names_text()}")
    return tuple(dict.fromkeys(games))


def check_version(version: str) -> str:
    """``version`` if 0-40 printable characters, else RegistryError(INVALID_ARGUMENT)."""
    if len(version) > MAX_VERSION_CHARS or not version.isprintable():
        raise RegistryError(ErrorKind.INVALID_ARGUMENT, f"a version is at most {MAX_VERSION_CHARS} printable characters")
    return version


def retired_final(name: str, refused: str) -> str:
    """The answer to a change asked of a retired bot (``refused``: what cannot be done, e.g. "it cannot be
    updated"): retirement is final, so the bot and its name never come back; its games stay in history."""
    return (f"bot {name!r} is retired: {refused}. Retirement is final: the bot and its name cannot come back "
            "(its games and ratings stay in history); register your bot under another name")


def retired_message(bot: BotInfo) -> str:
    """The answer to a registration under the name of the retired ``bot`` (rules §5.3: retirement is final)."""
    return (f"a bot named {bot.name!r} was registered and is retired since {bot.retired_at:%Y-%m-%d}: retirement "
            "is final, the name cannot come back (its games and ratings stay in history); choose another name")


def _clean(text: str, limit: int) -> str:
    return "".join(c for c in text if c.isprintable())[:limit]


@dataclass
class Registry:
    """Register, update, retire and list bots in ``store`` under ``config``.

    ``checker(target, game specs, shown_as=..., seed=...)`` runs the entry checks
    (default :func:`league.entry.checks.run_entry_checks`; tests may pass another).
    Thread-safe: a gRPC server and an HTTP server may share one.
    """

    store: Store
    config: RegistryConfig
    checker: Callable[..., EntryReport] = run_entry_checks
    hosting: HostingConfig | None = None
    limiter: RateLimiter = field(init=False)

    def __post_init__(self) -> None:
        self.limiter = RateLimiter(self.config.register_limit, self.config.register_window_s)

    def hosting_config(self) -> HostingConfig:
        """Where and how submitted code is built and checked (default: the settings', ``hosting.launch``)."""
        if self.hosting is None:
            self.hosting = HostingConfig.from_settings()
        return self.hosting

    # ------------------------------------------------------------ writes

    def _taken_answer(self, name: str) -> str | None:
        """Why ``name`` cannot be registered because a bot holds it (in any case: names are unique whatever their
        case), saying so plainly when that bot is retired; None when it is free."""
        taken = self.store.bots.name_taken(name)
        if taken is None:
            return None
        holder = self.store.bots.get_bot_by_name(taken)
        if holder is not None and holder.retired_at is not None:
            return retired_message(holder)
        return taken_message(name, taken)

    def register(self, name: str, endpoint: str, games: Sequence[str], version: str = "",
                 client: str = "") -> Registered:
        """Register a bot after every check passed; returns it with its token (shown once).

        ``client`` is the caller's address, the rate limit's key. Raises
        RegistryError: RESOURCE_EXHAUSTED, INVALID_ARGUMENT, ALREADY_EXISTS,
        PERMISSION_DENIED (network policy), FAILED_PRECONDITION (entry checks,
        with ``report``), UNAVAILABLE (store).
        """
        self._limit(client)
        check_name(name)
        games = check_games(games)
        check_version(version)
        target = self._target(endpoint)
        with _store_errors():
            answer = self._taken_answer(name)
        if answer is not None:
            raise RegistryError(ErrorKind.ALREADY_EXISTS, answer)
        report = self._entry_checks(target, endpoint, games)
        described = report.describe
        token = secrets.token_urlsafe(32)
        with _store_errors():
            try:
                declared = _clean(described.version, MAX_VERSION_CHARS) if described else ""
                bot_id = self.store.bots.register_bot(
                    name, endpoint, version or declared,
                    _clean(described.author if described else "", MAX_AUTHOR_CHARS), list(games),
                    capacity=capacity_of(described.capacity if described else 1),
                    token_hash=hash_token(token),
                    # the identity checked before every claim (workers.identity, rules §4.9)
                    described_name=_clean(described.name, 64) if described else None,
                    described_version=declared or None,
                    described_capacity=capacity_of(described.capacity) if described else None)
            except NameTaken as exc:  # registered meanwhile
                raise RegistryError(ErrorKind.ALREADY_EXISTS, self._taken_answer(name) or str(exc)) from None
            bot = self.store.bots.get_bot(bot_id)
        if bot is None:  # deleted under us: only an operator could
            raise RegistryError(ErrorKind.UNAVAILABLE, f"bot {name!r} vanished right after registration")
        return Registered(bot, token, report)

    def update(self, name: str, token: str, endpoint: str = "", version: str = "", client: str = "",
               games: Sequence[str] = ()) -> Updated:
        """Point a bot at a new endpoint (after the policy and entry checks for all its games),
        set its version, and/or add ``games`` to its registration (after the entry checks for
        the games added, on the endpoint it will have). A new endpoint or a game added counts
        against ``client``'s rate limit like a registration (it costs the same checks). Raises
        RegistryError: INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND,
        FAILED_PRECONDITION, RESOURCE_EXHAUSTED, UNAVAILABLE."""
        if endpoint or games:
            self._limit(client)
        bot = self._authorised(name, token)
        if hosted_sha(bot.endpoint) is not None and not endpoint and (games or version):
            raise RegistryError(ErrorKind.INVALID_ARGUMENT,
                                f"{name!r} is a hosted bot: its version is its code's hash, and it enters more games "
                                f"with its code (cardarena bot submit {name} --game GAME PATH)")
        added = [g for g in check_games(games) if g not in bot.games] if games else []
        if not endpoint and not version and not added:
            registered = f"; {name!r} is registered for {', '.join(bot.games)} already" if games else ""
            raise RegistryError(ErrorKind.INVALID_ARGUMENT,
                                f"nothing to change: give a new endpoint, version or game{registered}")
        check_version(version)
        if bot.retired_at is not None:
            raise RegistryError(ErrorKind.FAILED_PRECONDITION, retired_final(name, "it cannot be updated"))
        report = None
        capacity = None
        described_name = described_version = None
        if endpoint or added:
            target = self._target(endpoint or bot.endpoint)
            report = self._entry_checks(target, endpoint or bot.endpoint, [*bot.games, *added] if endpoint else added)
            if report.describe is not None:
                declared = _clean(report.describe.version, MAX_VERSION_CHARS)
                version = version or declared
                described_version = declared or None
                capacity = capacity_of(report.describe.capacity)
                if endpoint:  # a new endpoint: the bot there, checked now, is the bot's identity
                    described_name = _clean(report.describe.name, 64)
        with _store_errors():
            updated = self.store.bots.update_bot(bot.id, endpoint=endpoint or None, version=version or None,
                                            capacity=capacity, games=[*bot.games, *added] if added else None,
                                            described_name=described_name, described_version=described_version,
                                            described_capacity=capacity)
        return Updated(updated, report)

    def submit(self, name: str, games: Sequence[str], source: bytes | Path, token: str = "",
               client: str = "") -> Submitted:
        """Submit code (an archive's bytes, or a directory) for the bot ``name``: a new hosted bot (``games``: at
        least one), or a new version of a registered one (its ``token``; ``games`` are added to its own). It
        counts against ``client``'s rate limit like a registration; see ``arena.submissions`` for the rest.
        Raises RegistryError: RESOURCE_EXHAUSTED, INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED,
        NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION (with ``log``), UNAVAILABLE."""
        self._limit(client)
        check_name(name)
        wanted = check_games(games) if games else ()
        with _store_errors():
            existing = self.store.bots.get_bot_by_name(name)
            taken = self.store.bots.name_taken(name) if existing is None else None
        if taken is not None:
            raise RegistryError(ErrorKind.ALREADY_EXISTS, taken_message(name, taken))
        new_token = ""
        if existing is not None:
            existing = self._authorised(name, token)
            if existing.retired_at is not None:
                raise RegistryError(ErrorKind.FAILED_PRECONDITION, retired_final(name, "it takes no new code"))
            wanted = tuple(dict.fromkeys([*existing.games, *wanted]))
        elif not wanted:
            raise RegistryError(ErrorKind.INVALID_ARGUMENT, "name the games a new bot plays (at least one game)")
        else:
            new_token = secrets.token_urlsafe(32)
        return submissions.submit(self.store, self.hosting_config(), name, wanted, source, existing,
                                  lambda target, shown, games_: self._entry_checks(target, shown, games_),
                                  new_token, hash_token(new_token) if new_token else None)

    def build_log(self, name: str, token: str) -> BuildLog:
        """A hosted bot's build log and submissions, for its author (its token). Raises RegistryError:
        INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, UNAVAILABLE."""
        return submissions.build_log(self.store, self._authorised(name, token))

    def game_output(self, name: str, token: str, game_id: int) -> list[OutputInfo]:
        """What a hosted bot wrote in a game, for its author (its token), once the game is published. Raises
        RegistryError: INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, UNAVAILABLE."""
        return submissions.game_output(self.store, self._authorised(name, token), game_id)

    def retire(self, name: str, token: str) -> BotInfo:
        """Retire a bot (idempotent). Raises RegistryError: INVALID_ARGUMENT, UNAUTHENTICATED,
        PERMISSION_DENIED, NOT_FOUND, UNAVAILABLE."""
        bot = self._authorised(name, token)
        with _store_errors():
            if bot.retired_at is None:
                self.store.games.retire_bot(bot.id)
            retired = self.store.bots.get_bot(bot.id)
        if retired is None:
            raise RegistryError(ErrorKind.NOT_FOUND, f"no bot named {name!r}")
        return retired

    # ------------------------------------------------------------- reads

    def list_bots(self, include_retired: bool = False) -> list[BotInfo]:
        """Registered bots by id. Raises RegistryError(UNAVAILABLE)."""
        with _store_errors():
            return self.store.bots.list_bots(include_retired=include_retired)

    def listing(self, include_retired: bool = False, check: bool = False,
                timeout_s: float = HEALTH_TIMEOUT_S) -> list[ListedBot]:
        """Registered bots by id with the games each played and, with ``check``, whether each active
        bot answers its gRPC health check now (all asked at once, through the network policy, at most
        ``timeout_s`` seconds each; rules §4.9). Raises RegistryError(UNAVAILABLE)."""
        bots = self.list_bots(include_retired)
        with _store_errors():
            played = self.store.bot_reads.games_played()
        availability: dict[int, str] = {}
        if check:
            active = [b for b in bots if b.retired_at is None]
            with ThreadPoolExecutor(max_workers=max(1, min(16, len(active)))) as pool:
                answers = pool.map(lambda b: self._availability(b.endpoint, timeout_s), active)
                availability = {b.id: a for b, a in zip(active, answers, strict=True)}
            availability |= {b.id: "retired" for b in bots if b.retired_at is not None}
        return [ListedBot(b, played.get(b.id, 0), availability.get(b.id, "")) for b in bots]

    def _close_bots(self, name: str) -> str:
        """"; did you mean 'x'?" for the bots whose names are close to ``name`` (a typo), else ""."""
        with _store_errors():
            return did_you_mean(name, [b.name for b in self.store.bots.list_bots(include_retired=True)])

    def _availability(self, endpoint: str, timeout_s: float) -> str:
        """``answering``, or ``not answering: WHY`` for the bot at ``endpoint`` now."""
        import grpc

        from referee.clients import health_problem

        if hosted_sha(endpoint) is not None:
            return "hosted: started by a worker when a game needs it"
        try:
            target = self._target(endpoint)
        except RegistryError as exc:
            return f"not answering: {exc}"
        with grpc.insecure_channel(target) as channel:
            problem = health_problem(channel, timeout_s)
        return "answering" if problem is None else f"not answering: {problem}"

    def standings(self, season: str) -> tuple[SeasonInfo, list[StandingRow]]:
        """A season (by name) and its standings. Raises RegistryError: INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE."""
        if not season:
            raise RegistryError(ErrorKind.INVALID_ARGUMENT, "name the season")
        with _store_errors():
            info = self.store.seasons.get_season_by_name(season)
            if info is None:
                raise RegistryError(ErrorKind.NOT_FOUND, f"no season named {season!r}" + did_you_mean(
                    season, [s.name for s in self.store.seasons.list_seasons()]))
            return info, standings_of(self.store, info.id)

    def ladder_standing(self, ladder: str, bot: str) -> LadderStandingView:
        """Where ``bot`` stands in ``ladder``, from the ladder's stored ratings (``store.reads.ladders``,
        rules §5.4). Raises RegistryError: INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE."""
        if not ladder or not bot:
            raise RegistryError(ErrorKind.INVALID_ARGUMENT, "name the ladder and the bot")
        with _store_errors():
            reads = LadderReads(self.store.db, self.store.ladders)
            info = reads.ladder(ladder)
            rows = board(reads, info)
        mine = sorted((r for r in rows if r.name == bot), key=lambda r: -r.entrant_id)
        if not mine:
            raise RegistryError(ErrorKind.NOT_FOUND, f"bot {bot!r} has no entrant in ladder {ladder!r} (an active bot "
                                                     f"registered for {info.game} enters at the ladder's next refill)")
        current = next((r for r in mine if r.latest), mine[0])
        return LadderStandingView(info, current, mine, sum(r.best for r in rows), placement_games(info),
                                  max((r.rated_games or 0 for r in rows), default=0))

    def ladder_games(self, ladder: str, bot: str = "", page_size: int = 0,
                     page_token: str = "") -> tuple[list[GameRow], str]:
        """A page of ``ladder``'s games newest first (only ``bot``'s if named) and the next page's token
        ("" at the end). Raises RegistryError: INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE."""
        if not ladder:
            raise RegistryError(ErrorKind.INVALID_ARGUMENT, "name the ladder")
        size = page_size or 50
        if not 1 <= size <= 500:
            raise RegistryError(ErrorKind.INVALID_ARGUMENT, f"page_size must be 1 to 500, not {page_size}")
        before = None
        if page_token:
            if not page_token.isdigit() or not 1 <= int(page_token) < 2**63:
                raise RegistryError(ErrorKind.INVALID_ARGUMENT, f"bad page token {page_token[:40]!r}: pass "
                                                                "next_page_token of the previous page")
            before = int(page_token)
        with _store_errors():
            reads = LadderReads(self.store.db, self.store.ladders)
            info = reads.ladder(ladder)
            bot_id = None
            if bot:
                found = self.store.bots.get_bot_by_name(bot)
                if found is None:
                    raise RegistryError(ErrorKind.NOT_FOUND, f"no bot named {bot!r}")
                bot_id = found.id
            rows = reads.games(info.id, limit=size + 1, before=before, bot_id=bot_id)
        more = len(rows) > size
        rows = rows[:size]
        return rows, str(rows[-1].id) if more and rows else ""

    # ----------------------------------------------------------- helpers

    def _limit(self, client: str) -> None:
        """Count one entry-check request for ``client``; RegistryError(RESOURCE_EXHAUSTED) past the limit."""
        wait = self.limiter.acquire(client or "unknown")
        if wait is not None:
            raise RegistryError(ErrorKind.RESOURCE_EXHAUSTED,
                                f"too many registrations from {client or 'this address'}: at most "
                                f"{self.config.register_limit} per {self.config.register_window_s:g} s; "
                                f"try again in {wait:.0f} s (the platform sets the limit: "
                                f"CARDARENA_REGISTER_LIMIT, CARDARENA_REGISTER_WINDOW_S)", retry_after_s=wait)

    def _target(self, endpoint: str) -> str:
        """The address to dial for ``endpoint`` after the network policy (see ``league.entry.netpolicy``)."""
        try:
            parsed = parse_endpoint(endpoint)
        except EndpointError as exc:
            raise RegistryError(ErrorKind.INVALID_ARGUMENT, str(exc)) from None
        try:
            addresses = self.config.policy.resolve(parsed)
        except PolicyError as exc:
            raise RegistryError(ErrorKind.PERMISSION_DENIED, str(exc)) from None
        except ResolveError as exc:
            raise RegistryError(ErrorKind.FAILED_PRECONDITION, f"endpoint unreachable: {exc}") from None
        return parsed.dial(addresses[0])

    def _entry_checks(self, target: str, endpoint: str, games: Sequence[str]) -> EntryReport:
        """The entry checks of ``games`` (names checked by :func:`check_games` or registered already),
        each resolved to its GameSpec here; raises RegistryError(FAILED_PRECONDITION) when one fails."""
        seed = self.config.seed if self.config.seed is not None else secrets.randbelow(2**31)
        report = self.checker(target, [spec(g) for g in games], shown_as=endpoint, seed=seed)
        if not report.passed:
            raise RegistryError(ErrorKind.FAILED_PRECONDITION, f"entry checks failed for {endpoint}: {report.failure}",
                                report=report)
        return report

    def _authorised(self, name: str, token: str) -> BotInfo:
        check_name(name)
        if not token:
            raise RegistryError(ErrorKind.UNAUTHENTICATED, "this call needs the bot's token (given at registration)")
        if len(token) > MAX_TOKEN_CHARS:
            raise RegistryError(ErrorKind.UNAUTHENTICATED, f"wrong token for bot {name!r}")
        with _store_errors():
            bot = self.store.bots.get_bot_by_name(name)
        if bot is None:
            raise RegistryError(ErrorKind.NOT_FOUND, f"no bot named {name!r}" + self._close_bots(name))
        if bot.token_hash is None:
            raise RegistryError(ErrorKind.PERMISSION_DENIED,
                                f"bot {name!r} was registered by the operator without a token: it cannot be changed here")
        if not token_matches(token, bot.token_hash):
            raise RegistryError(ErrorKind.UNAUTHENTICATED, f"wrong token for bot {name!r}")
        return bot
