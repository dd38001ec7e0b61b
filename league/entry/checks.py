"""Entry checks: what a bot must pass before it joins any season.

In order, stopping at the first failure:

1. ``health``: the endpoint answers the standard gRPC health check
   (``grpc.health.v1.Health/Check``, overall server or ``cardarena.v1.Bot``)
   with SERVING, within :data:`HEALTH_TIMEOUT_S`.
2. ``describe``: ``Describe`` answers within 5 s and lists every game asked for.
3. ``game:<game>``: per game, short validation games (the game's
   ``GameSpec.validation_params``) against the game's reference bots (``GameSpec.opponents``), played in-process, with the candidate
   dialled over gRPC exactly as in a season, on seeds ``seed``, ``seed + 1``, ... until the candidate made
   :data:`MIN_CANDIDATE_DECISIONS` decisions (at most :data:`MAX_VALIDATION_GAMES` games); they must finish
   with no fault by the candidate (a timeout, an error status, a malformed or illegal answer).

:func:`run_entry_checks` dials a target as given; the platform gives it the
address it checked against its network policy (``league.entry.netpolicy``).
:func:`check_endpoint` adds the policy check first, for ``cardarena bot
check``. The :class:`EntryReport` holds every check, the latency of each of
the candidate's decisions (median, p99, max) and every fault with the answer
that caused it; :meth:`EntryReport.render` makes it readable. The report also says which transport
the bot speaks (:data:`TRANSPORTS`): the validation games call it as a season does, on its
``ActStream`` where it serves it, else with ``Act`` calls; either passes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field


from cardarena.v1 import bot_pb2
from league.entry.netpolicy import EndpointError, NetworkPolicy, PolicyError, ResolveError, parse_endpoint
from referee.clients import BotCallError, GrpcBotClient, InProcessBotClient
from referee.games import GameSpec, game_for_enum
from referee.record import Fault, GameRecord
from referee.referee import RefereeError, play
from referee.timecontrol import TimeControl

#: Deadline of the health check, seconds.
HEALTH_TIMEOUT_S = 5.0
#: Deadline of Describe, seconds (bot.proto).
DESCRIBE_TIMEOUT_S = 5.0
#: The validation game's time control: a season's deadlines, a smaller budget (60 s).
VALIDATION_TIME = TimeControl(deadline_s=1.0, time_bank_s=10.0, budget_s=60.0, max_faults=3)
#: Faults listed in a report (the rest are counted).
MAX_FAULTS_SHOWN = 5
#: What a report says of each transport a bot can speak (``EntryReport.transport``).
TRANSPORTS = {
    "stream": "ActStream: the decisions of each worker process's games on one stream",
    "unary": ("Act calls only: the bot does not serve ActStream, so each decision is a call of its own "
              "(serving ActStream costs the bot and the platform less per decision, docs/protocol.md)"),
}


@dataclass(frozen=True)
class CheckResult:
    """One check: ``name`` ("policy", "health", "describe", "game:<game>"), whether it passed, and why."""

    name: str
    passed: bool
    detail: str


@dataclass
class EntryReport:
    """Everything the entry checks found about one endpoint.

    ``checks`` in the order run; ``latencies_ms`` of every candidate decision
    of the validation games (milliseconds, as measured by the referee);
    ``faults`` of the candidate with the answers that caused them;
    ``describe`` the Describe answer (None if it did not answer);
    ``games`` the games checked (their GameSpecs); ``time_control`` the validation games' (for
    the over-deadline warning);
    ``transport`` the transport the validation games called the bot on (a key of TRANSPORTS), or
    None when no game was played.
    """

    endpoint: str
    games: tuple[GameSpec, ...]
    checks: list[CheckResult] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    describe: bot_pb2.DescribeResponse | None = None
    time_control: TimeControl = VALIDATION_TIME
    transport: str | None = None

    def over_deadline(self) -> tuple[int, float]:
        """``(decisions, seconds)``: how many decisions took longer than the per-decision deadline,
        and the time bank they drew on in all (seconds). A bot can pass the checks while its
        time bank lasts, then fault in longer season games; the report warns."""
        deadline_ms = self.time_control.deadline_s * 1000
        over = [ms - deadline_ms for ms in self.latencies_ms if ms > deadline_ms]
        return len(over), sum(over) / 1000

    @property
    def passed(self) -> bool:
        """True when every check ran and passed."""
        return bool(self.checks) and all(c.passed for c in self.checks) and any(
            c.name.startswith("game:") for c in self.checks)

    @property
    def failure(self) -> str:
        """One line naming the first failed check and why ("" if all passed)."""
        failed = next((c for c in self.checks if not c.passed), None)
        return "" if failed is None else f"{failed.name} check failed: {failed.detail}"

    def latency(self) -> tuple[float, float, float]:
        """``(median, p99, max)`` of the decision latencies in ms (zeros without decisions)."""
        return latency_summary(self.latencies_ms)

    def render(self) -> str:
        """The report as readable lines (no trailing newline)."""
        lines = [f"entry checks for {self.endpoint} ({', '.join(g.name for g in self.games)})"]
        width = max((len(c.name) for c in self.checks), default=0)
        for c in self.checks:
            lines.append(f"  {'ok  ' if c.passed else 'FAIL'}  {c.name:<{width}}  {c.detail}")
        for f in self.faults[:MAX_FAULTS_SHOWN]:
            answer = json.dumps(f.answer, separators=(",", ":")) if f.answer is not None else "none"
            lines.append(f"        fault at decision {f.decision}: {f.kind.value}: {f.detail}; answer: {answer}")
        if len(self.faults) > MAX_FAULTS_SHOWN:
            lines.append(f"        ... and {len(self.faults) - MAX_FAULTS_SHOWN} more faults")
        if self.latencies_ms:
            median, p99, worst = self.latency()
            lines.append(f"  latency of {len(self.latencies_ms)} decisions: median {median:.1f} ms, "
                         f"p99 {p99:.1f} ms, max {worst:.1f} ms")
            slow, drawn = self.over_deadline()
            if slow:
                tc = self.time_control
                lines.append(f"  WARNING: {slow} of {len(self.latencies_ms)} decisions took longer than the "
                             f"{tc.deadline_s:g} s deadline and drew {drawn:.2f} s of the {tc.time_bank_s:g} s time "
                             "bank; in a longer game the bank runs out and every later late answer is a timeout fault")
        if self.transport is not None:
            lines.append(f"  transport: {TRANSPORTS[self.transport]}")
        if self.describe is not None:
            lines.append(f"  {capacity_note(self.describe.capacity)}")
        lines.extend(f"  {season_time_note(g)}" for g in self.games)
        lines.append("PASSED: the bot may enter seasons" if self.passed else f"FAILED: {self.failure}")
        return "\n".join(lines)


def capacity_note(capacity: int) -> str:
    """What a declared capacity (Describe's, games at once; 0 counts as 1) means in a season, one line."""
    if capacity <= 1:
        return ("capacity 1 (Describe): the platform gives the bot one game at a time, so in a season every "
                "other table that seats it waits until it is free; a bot that can play N games at once declares "
                "capacity N (`capacity = N` on a botsdk.Bot)")
    return f"capacity {capacity} (Describe): the platform gives the bot at most {capacity} games at once"


def season_time_note(game: GameSpec) -> str:
    """The default season time control of ``game`` (rules §4.1), one line."""
    tc = TimeControl.for_game(game)
    return (f"seasons of {game.name} by default (rules §4.1): {tc.deadline_s:g} s per decision, a {tc.time_bank_s:g} s "
            f"time bank and a {tc.budget_s:g} s thinking budget per seat per game (room for "
            f"{tc.budget_s / tc.deadline_s:.0f} decisions at the full deadline); a season may set others")


def latency_summary(values: Sequence[float]) -> tuple[float, float, float]:
    """``(median, p99, max)`` of ``values`` (nearest-rank p99); zeros when empty."""
    if not values:
        return 0.0, 0.0, 0.0
    ordered = sorted(values)
    n = len(ordered)
    median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    p99 = ordered[max(0, math.ceil(0.99 * n) - 1)]
    return median, p99, ordered[-1]


def run_entry_checks(target: str, games: Sequence[GameSpec], *, shown_as: str | None = None, seed: int = 0,
                     time_control: TimeControl = VALIDATION_TIME) -> EntryReport:
    """Run the health, Describe and validation-game checks against ``target`` ("host:port").

    ``games`` are the games to check (their GameSpecs, :func:`referee.games.spec`); ``shown_as``
    the endpoint as the author wrote it, for the report. Never raises for anything the bot
    does: every failure is a failed check in the report.
    """
    games = _once(games)
    report = EntryReport(shown_as or target, games, time_control=time_control)
    # The referee's own client and its one cached channel per target, exactly as a season dials the
    # bot (message limits, answer parsing, fault mapping, the stream where the bot serves it). A
    # platform keeps one idle channel (and stream) per target it checked; registrations are
    # rate-limited, so they stay few.
    report.checks.append(_health(target))
    if not report.checks[-1].passed:
        return report
    client = GrpcBotClient(target)
    check, report.describe = _describe(client, games)
    report.checks.append(check)
    if not check.passed:
        return report
    for g in games:
        check = _validation_game(client, g, seed, time_control, report)
        report.transport = client.used or report.transport
        report.checks.append(check)
        if not check.passed:
            return report
    return report


def check_endpoint(endpoint: str, games: Sequence[GameSpec], policy: NetworkPolicy | None, *, seed: int = 0,
                   time_control: TimeControl = VALIDATION_TIME) -> EntryReport:
    """Parse ``endpoint``, resolve it under ``policy`` (None: any address), then :func:`run_entry_checks`
    on the first address it resolves to. A bad endpoint or a refused address is a failed ``policy`` check."""
    report = EntryReport(endpoint, _once(games))
    try:
        parsed = parse_endpoint(endpoint)
        addresses = (policy or NetworkPolicy.from_strings("any")).resolve(parsed)
    except (EndpointError, PolicyError, ResolveError) as exc:
        report.checks.append(CheckResult("policy", False, str(exc)))
        return report
    shown = ", ".join(str(a) for a in addresses)
    allowed = "allowed by the network policy" if policy is not None else "no network policy applied"
    result = run_entry_checks(parsed.dial(addresses[0]), games, shown_as=endpoint, seed=seed, time_control=time_control)
    result.checks.insert(0, CheckResult("policy", True, f"{parsed.host} is {shown}: {allowed}"))
    return result


def _once(games: Sequence[GameSpec]) -> tuple[GameSpec, ...]:
    """The games, each once, in order."""
    return tuple({g.name: g for g in games}.values())


def _health(target: str) -> CheckResult:
    problem = GrpcBotClient(target).health(HEALTH_TIMEOUT_S)
    return CheckResult("health", problem is None, problem or "SERVING")


def _describe(client: GrpcBotClient, games: Sequence[GameSpec]) -> tuple[CheckResult, bot_pb2.DescribeResponse | None]:
    try:
        described = client.describe(DESCRIBE_TIMEOUT_S)
    except BotCallError as exc:
        return CheckResult("describe", False, f"Describe failed: {exc.detail}"), None
    listed = [_game_of(g) for g in described.games]
    missing = [g.name for g in games if g.proto_enum not in described.games]
    about = (f"{_printable(described.name) or '(no name)'} {_printable(described.version)}"
             f"{' by ' + _printable(described.author) if described.author else ''}; "
             f"games: {', '.join(listed) or 'none'}; capacity {max(1, described.capacity)}")
    if missing:
        return CheckResult("describe", False, f"Describe does not list {', '.join(missing)} ({about})"), described
    return CheckResult("describe", True, about), described


def _game_of(number: int) -> str:
    """The game name of a Describe game number, or ``unknown game N``."""
    try:
        return game_for_enum(number)
    except ValueError:
        return f"unknown game {number}"


#: The fewest decisions the candidate makes in its validation games: a game in which it is out early
#: (or asked little) is followed by another, next seed, up to MAX_VALIDATION_GAMES games.
MIN_CANDIDATE_DECISIONS = 20
MAX_VALIDATION_GAMES = 5


def _validation_game(client: GrpcBotClient, game_spec: GameSpec, seed: int, tc: TimeControl,
                     report: EntryReport) -> CheckResult:
    """The ``game:<game>`` check: validation games (seeds ``seed``, ``seed + 1``, ...) until the candidate
    made MIN_CANDIDATE_DECISIONS decisions, a fault, or MAX_VALIDATION_GAMES games."""
    from referee.bots import load_bot

    name = f"game:{game_spec.name}"
    params = game_spec.params(game_spec.validation_params)
    mine: list = []  # the candidate's decisions
    faults: list = []  # its faults
    played: list[GameRecord] = []
    while len(played) < MAX_VALIDATION_GAMES and (not played or len(mine) < MIN_CANDIDATE_DECISIONS):
        at = seed + len(played)
        opponents = [InProcessBotClient(load_bot(ref, at + k).act) for k, ref in enumerate(game_spec.opponents, start=1)]
        try:
            record: GameRecord = play(game_spec, params, 1 + len(opponents), at, [client, *opponents], tc,
                                      game_id=f"entry-check-{game_spec.name}-{at}")
        except RefereeError as exc:
            return CheckResult(name, False, f"the validation game could not be played (platform error): {exc}")
        played.append(record)
        decided = [d for d in record.decisions if d.seat == 0 and d.called]
        mine.extend(decided)
        report.latencies_ms.extend(d.latency_ms for d in decided)
        faults = [f for f in record.faults if f.seat == 0]
        report.faults.extend(faults)
        if faults:
            break
    seats = played[-1].num_seats
    if len(played) == 1:
        size = f"a {seats}-seat game, seed {seed}, {len(mine)} decisions"
    else:
        size = f"{len(played)} {seats}-seat games, seeds {seed} to {seed + len(played) - 1}, {len(mine)} decisions"
    if faults:
        kinds = ", ".join(sorted({f.kind.value for f in faults}))
        return CheckResult(name, False, f"{len(faults)} fault(s) ({kinds}) in {size}")
    if not mine:
        return CheckResult(name, False, f"the bot was never asked anything in {size}")
    places = ", ".join(str(next(r.place for r in p.results if r.seat == 0)) for p in played)
    return CheckResult(name, True, f"no fault in {size}; placed {places} of {seats}")


def _printable(text: str, limit: int = 60) -> str:
    """A bot-supplied string made safe to show: printable characters only, at most ``limit``."""
    clean = "".join(c for c in text if c.isprintable())
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"
