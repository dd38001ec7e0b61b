"""The Arena gRPC service (``cardarena.v1.Arena``): bot submission, season standings and ladder standings.

A thin translation layer over :class:`arena.registry.Registry`, which holds
every rule; errors become the gRPC status codes of ``arena.proto``. When the
entry checks fail, the full :class:`~cardarena.v1.arena_pb2.EntryReport` also
travels in the trailing metadata key :data:`REPORT_METADATA_KEY` (binary).

``cardarena server`` starts it beside the dashboard (over the registry the HTTP routes use) with
:func:`start_arena_server`.
"""

from __future__ import annotations

from datetime import datetime
from typing import NoReturn

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from arena.registry import ErrorKind, Registry, RegistryConfig, RegistryError
from botsdk.server import start_grpc_server
from cardarena.v1 import arena_pb2, arena_pb2_grpc
from league.competition.ladder_board import LadderStanding
from league.competition.standings import StandingRow
from league.entry.checks import EntryReport
from league.policy import POLICY
from referee.games import game_for_enum, specs
from store import BotInfo, open_store
from store.artifacts import hosted_sha
from store.reads.games import GameRow

#: Trailing metadata key carrying a failed registration's EntryReport (serialised protobuf).
REPORT_METADATA_KEY = "cardarena-entry-report-bin"
#: Trailing metadata key carrying a failed submission's build log and what the bot wrote (UTF-8).
LOG_METADATA_KEY = "cardarena-build-log-bin"
#: Largest request accepted besides a submission's archive, bytes (requests are a few hundred bytes).
MAX_REQUEST_BYTES = 64 * 1024
#: Server threads: registrations run entry checks (seconds each) in these.
THREADS = 8
#: Bytes of a failed submission's log sent in trailing metadata (gRPC's metadata limit is 8 KiB by default).
MAX_LOG_METADATA_BYTES = 6 * 1024

GAME_TO_ENUM = {gs.name: gs.proto_enum for gs in specs()}  # the registry's games -> their protocol numbers

GRPC_STATUS: dict[ErrorKind, grpc.StatusCode] = {kind: getattr(grpc.StatusCode, kind.value) for kind in ErrorKind}


def client_address(peer: str) -> str:
    """The host part of a gRPC peer string ("ipv4:1.2.3.4:5" -> "1.2.3.4", "ipv6:[::1]:5" -> "::1")."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:].partition("]")[0]
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    return peer


def is_loopback(address: str) -> bool:
    """True for a loopback address (127.0.0.0/8, ::1); False for anything else, names included."""
    import ipaddress

    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _timestamp(value: datetime | None) -> Timestamp | None:
    if value is None:
        return None
    ts = Timestamp()
    ts.FromDatetime(value)
    return ts


def bot_message(bot: BotInfo, *, owner: bool) -> arena_pb2.ArenaBot:
    """The protocol view of a bot; the endpoint only for its ``owner``."""
    return arena_pb2.ArenaBot(
        id=bot.id, name=bot.name, endpoint=bot.endpoint if owner else "", version=bot.version, author=bot.author,
        games=[GAME_TO_ENUM[g] for g in bot.games if g in GAME_TO_ENUM], capacity=bot.capacity,
        created_at=_timestamp(bot.created_at), retired=bot.retired_at is not None,
        retired_at=_timestamp(bot.retired_at), hosted=hosted_sha(bot.endpoint) is not None,
    )


def report_message(report: EntryReport | None) -> arena_pb2.EntryReport:
    """The protocol form of an entry report (empty for None)."""
    if report is None:
        return arena_pb2.EntryReport()
    median, p99, worst = report.latency()
    return arena_pb2.EntryReport(
        checks=[arena_pb2.EntryCheck(name=c.name, passed=c.passed, detail=c.detail) for c in report.checks],
        latency_median_ms=median, latency_p99_ms=p99, latency_max_ms=worst, decisions=len(report.latencies_ms),
        transport=report.transport or "",
    )


def standing_message(rank: int, row: StandingRow) -> arena_pb2.StandingRow:
    """One standings row; ``None`` values stay unset (the luck-adjusted change: only games with a luck estimator)."""
    optional = {k: getattr(row, k) for k in ("avg_place", "avg_change", "ml_rating", "ml_low", "ml_high",
                                             "p_better", "openskill_mu", "openskill_sigma",
                                             "luck_change", "luck_low", "luck_high")}
    return arena_pb2.StandingRow(rank=rank, bot_id=row.bot_id, name=row.name, games=row.games, faults=row.faults,
                                 retired=row.retired, elo=row.elo, **{k: v for k, v in optional.items() if v is not None})


class ArenaServicer(arena_pb2_grpc.ArenaServicer):
    """The Arena RPCs over a :class:`Registry`."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def RegisterBot(self, request: arena_pb2.RegisterBotRequest, context: grpc.ServicerContext) -> arena_pb2.RegisterBotResponse:
        try:
            games = _games(request.games)
            done = self.registry.register(request.name, request.endpoint, games, request.version,
                                          client=client_address(context.peer()))
        except RegistryError as exc:
            _abort(context, exc)
        return arena_pb2.RegisterBotResponse(bot=bot_message(done.bot, owner=True), token=done.token,
                                             report=report_message(done.report))

    def UpdateBot(self, request: arena_pb2.UpdateBotRequest, context: grpc.ServicerContext) -> arena_pb2.UpdateBotResponse:
        try:
            done = self.registry.update(request.name, request.token, request.endpoint, request.version,
                                        client=client_address(context.peer()), games=_games(request.games))
        except RegistryError as exc:
            _abort(context, exc)
        return arena_pb2.UpdateBotResponse(bot=bot_message(done.bot, owner=True), report=report_message(done.report))

    def RetireBot(self, request: arena_pb2.RetireBotRequest, context: grpc.ServicerContext) -> arena_pb2.RetireBotResponse:
        try:
            bot = self.registry.retire(request.name, request.token)
        except RegistryError as exc:
            _abort(context, exc)
        return arena_pb2.RetireBotResponse(bot=bot_message(bot, owner=True))

    def ListBots(self, request: arena_pb2.ListBotsRequest, context: grpc.ServicerContext) -> arena_pb2.ListBotsResponse:
        """The bots, their games played and (``check``) availability; endpoints only to a loopback caller
        (the platform's own machine: bots are adversaries, and a public list of endpoints invites attacks)."""
        try:
            listed = self.registry.listing(request.include_retired, request.check)
        except RegistryError as exc:
            _abort(context, exc)
        local = is_loopback(client_address(context.peer()))
        out = []
        for item in listed:
            message = bot_message(item.bot, owner=local)
            message.games_played, message.availability = item.games_played, item.availability
            out.append(message)
        return arena_pb2.ListBotsResponse(bots=out)

    def GetStandings(self, request: arena_pb2.GetStandingsRequest, context: grpc.ServicerContext) -> arena_pb2.GetStandingsResponse:
        try:
            season, rows = self.registry.standings(request.season)
        except RegistryError as exc:
            _abort(context, exc)
        return arena_pb2.GetStandingsResponse(season=season.name, game=GAME_TO_ENUM.get(season.game, 0),
                                              rows=[standing_message(i, r) for i, r in enumerate(rows, 1)],
                                              reproducible=season.reproducible, commitment=season.commitment or "")

    def GetLadderStanding(self, request: arena_pb2.GetLadderStandingRequest,
                          context: grpc.ServicerContext) -> arena_pb2.GetLadderStandingResponse:
        try:
            view = self.registry.ladder_standing(request.ladder, request.bot)
        except RegistryError as exc:
            _abort(context, exc)
        return arena_pb2.GetLadderStandingResponse(
            ladder=view.ladder.name, game=GAME_TO_ENUM.get(view.ladder.game, 0), bot=view.current.name,
            table_size=view.table_size, placement_games=view.placement_games, rated_games=view.rated_games,
            current=ladder_row_message(view.current), versions=[ladder_row_message(r) for r in view.versions])

    def SubmitBot(self, request: arena_pb2.SubmitBotRequest, context: grpc.ServicerContext) -> arena_pb2.SubmitBotResponse:
        try:
            done = self.registry.submit(request.name, _games(request.games), bytes(request.archive), request.token,
                                        client=client_address(context.peer()))
        except RegistryError as exc:
            _abort(context, exc)
        return arena_pb2.SubmitBotResponse(
            bot=bot_message(done.bot, owner=True), token=done.token, report=report_message(done.report),
            sha256=done.sha256, size=done.size, unpacked_size=done.unpacked_size, build_log=done.log,
            installed=[arena_pb2.InstalledPackage(**p) for p in done.installed], changed=done.changed)

    def GetBotLog(self, request: arena_pb2.GetBotLogRequest, context: grpc.ServicerContext) -> arena_pb2.GetBotLogResponse:
        try:
            found = self.registry.build_log(request.name, request.token)
            outputs = self.registry.game_output(request.name, request.token, request.game_id) if request.game_id else []
        except RegistryError as exc:
            _abort(context, exc)
        build = found.build
        return arena_pb2.GetBotLogResponse(
            sha256=build.code_sha256 if build else "", build_log=build.log if build else "",
            installed=[arena_pb2.InstalledPackage(**p) for p in (build.installed if build else [])],
            submissions=[arena_pb2.BotSubmission(sha256=x.code_sha256, submitted_at=_timestamp(x.submitted_at),
                                                 size=x.size, unpacked_size=x.unpacked_size) for x in found.submissions],
            outputs=[arena_pb2.GameOutput(seat=o.seat, text=o.text, truncated=o.truncated) for o in outputs])

    def ListLadderGames(self, request: arena_pb2.ListLadderGamesRequest,
                        context: grpc.ServicerContext) -> arena_pb2.ListLadderGamesResponse:
        try:
            rows, token = self.registry.ladder_games(request.ladder, request.bot, request.page_size, request.page_token)
        except RegistryError as exc:
            _abort(context, exc)
        return arena_pb2.ListLadderGamesResponse(games=[ladder_game_message(g) for g in rows], next_page_token=token)


def ladder_row_message(row: LadderStanding) -> arena_pb2.LadderVersionRow:
    """One version's row; ``None`` values stay unset."""
    optional = {k: getattr(row, k) for k in ("rank", "rating", "low", "high")}
    return arena_pb2.LadderVersionRow(version=row.version, status=row.status, latest=row.latest, games=row.games,
                                      placing=row.placing, **{k: v for k, v in optional.items() if v is not None})


def ladder_game_message(game: GameRow) -> arena_pb2.LadderGame:
    """A ladder game as the protocol shows it: seeds and results only where the store's read model shows
    them (done and not sealed, ``store.sealing``)."""
    tail = game.season_name.rpartition(":epoch-")[2]  # an epoch's season is named <ladder>:epoch-<n>
    epoch = int(tail) if tail.isdigit() else 0
    seats = [arena_pb2.LadderGameSeat(seat=s.seat, bot=s.bot_name, version=s.version or "",
                                      **{k: v for k, v in (("place", s.place), ("change", s.change)) if v is not None})
             for s in game.seats]
    return arena_pb2.LadderGame(id=game.id, epoch=epoch, status=game.status, seats=seats,
                                finished_at=_timestamp(game.finished_at),
                                **({"seed": game.seed} if game.seed is not None else {}))


def _games(values: object) -> list[str]:
    """Protocol game enums -> game names; RegistryError(INVALID_ARGUMENT) for GAME_UNSPECIFIED or unknown."""
    out = []
    for value in values:  # type: ignore[attr-defined]
        try:
            out.append(game_for_enum(value))
        except ValueError:
            raise RegistryError(ErrorKind.INVALID_ARGUMENT, f"unknown game {value} (GAME_UNSPECIFIED is not a game)") from None
    return out


def _abort(context: grpc.ServicerContext, exc: RegistryError) -> NoReturn:
    trailing = []
    if exc.report is not None:
        trailing.append((REPORT_METADATA_KEY, report_message(exc.report).SerializeToString()))
    if exc.log:
        trailing.append((LOG_METADATA_KEY, exc.log.encode()[-MAX_LOG_METADATA_BYTES:]))
    if trailing:
        context.set_trailing_metadata(tuple(trailing))
    context.abort(GRPC_STATUS[exc.kind], exc.message)
    raise AssertionError("unreachable")  # context.abort raises


def start_arena_server(store_url: str, host: str = "127.0.0.1", port: int = 0, *,
                       registry: Registry | None = None, config: RegistryConfig | None = None) -> tuple[grpc.Server, int]:
    """Serve the Arena (and grpc.health.v1) on ``host:port`` (0: a free port); returns ``(server, port)``.

    Opens (and migrates) the store at ``store_url`` unless ``registry`` is
    given; ``config`` defaults to the settings' policy (``config.Settings``). Raises
    StoreError if the store cannot be opened, RuntimeError if the address cannot
    be bound. Stop with ``server.stop(grace)``.
    """
    if registry is None:
        registry = Registry(open_store(store_url, policy=POLICY), config or RegistryConfig.from_settings())
    largest = MAX_REQUEST_BYTES + registry.hosting_config().artifact_limits.max_bytes  # SubmitBot's archive
    return start_grpc_server(lambda server: arena_pb2_grpc.add_ArenaServicer_to_server(ArenaServicer(registry), server),
                             "cardarena.v1.Arena", host, port, THREADS, largest, "arena")
