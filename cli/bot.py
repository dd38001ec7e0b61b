"""``cardarena bot``: submit a bot's code for the platform to run, or serve a bot, check it as the platform
will, register, update and retire it, read a hosted bot's logs, and read where it stands in a ladder."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from cli.common import console, fail
from referee.games import names_text

app = typer.Typer(help="Serve bots over gRPC, check them as the platform will, and register them with the Arena.",
                  no_args_is_help=True, rich_markup_mode=None)


def reference_names() -> str:
    """The reference bots' names for the help text (``random`` and every game's own)."""
    from referee.bots import names_text as bot_names

    return bot_names()


@app.command("serve")
def serve_bot(
    bot: Annotated[str, typer.Argument(help=f"A reference bot ({reference_names()}) or module:Class of your own Bot subclass.")],
    port: Annotated[int, typer.Option(help="TCP port to listen on; 0 picks a free one.", min=0, max=65535)] = 50051,
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    seed: Annotated[int, typer.Option(help="Seed of the bot's own random choices.")] = 0,
    threads: Annotated[int | None, typer.Option(help="Server threads (default: the bot's capacity).", min=1)] = None,
) -> None:
    """Serve BOT over gRPC (the cardarena.v1.Bot service plus grpc.health.v1) until Ctrl-C."""
    from referee.bots import BotLoadError, load_bot
    from botsdk.server import serve

    import logging

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        instance = load_bot(bot, seed)
    except BotLoadError as exc:
        fail(str(exc), 2)
    try:
        server, bound = serve(instance, port=port, host=host, threads=threads)
    except RuntimeError as exc:
        fail(f"cannot serve on {host}:{port}: {exc}")
    console.print(f"serving bot [bold]{escape(instance.name)}[/] ({', '.join(instance.games)}) on {escape(host)}:{bound}",
                  highlight=False)
    signal.signal(signal.SIGTERM, lambda *_: server.stop(1))
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        server.stop(1)


#: Where `cardarena server` serves the Arena gRPC service by default.
DEFAULT_ARENA = "127.0.0.1:50050"  # `cardarena server`'s default Arena port
#: Seconds the bot commands wait for the Arena to listen (a `cardarena server` just started).
ARENA_CONNECT_S = 15.0
ServerOption = Annotated[str, typer.Option("--server", envvar="CARDARENA_ARENA",
                                           help="The platform's Arena gRPC service, HOST:PORT (env CARDARENA_ARENA); "
                                                f"waited for up to {ARENA_CONNECT_S:g} s if it does not listen yet.")]
TokenOption = Annotated[str | None, typer.Option(
    "--token", envvar="CARDARENA_BOT_TOKEN",
    help="The bot's token from `bot register` (env CARDARENA_BOT_TOKEN); asked for when missing on a terminal.")]


def _token(given: str | None) -> str:
    """The token given, else asked for (hidden) on a terminal; a one-line error without one."""
    if given:
        return given
    if sys.stdin.isatty():
        return str(typer.prompt("token", hide_input=True))
    fail("no token: pass --token or set CARDARENA_BOT_TOKEN (it was printed by `cardarena bot register`)", 2)
#: Seconds allowed for the Arena's own work besides entry checks.
ARENA_BASE_TIMEOUT_S = 30.0
#: Seconds allowed per validation game of the entry checks.
ARENA_GAME_TIMEOUT_S = 60.0


@app.command("check")
def check_bot(
    endpoint: Annotated[str, typer.Argument(help="HOST:PORT where your bot serves cardarena.v1.Bot.")],
    game: Annotated[list[str], typer.Option("--game", metavar="GAME", help=f"Game to check (repeat for several): {names_text()}.")],
    seed: Annotated[int, typer.Option(help="Seed of the validation games.")] = 0,
) -> None:
    """Run the platform's entry checks against a bot: network policy, health, Describe, a validation game per game.

    Prints each check, the latency of the bot's decisions (median, p99, max) and every fault with the
    answer that caused it. Exit status 1 if a check failed.
    """
    from arena.registry import RegistryConfig
    from league.entry.checks import check_endpoint

    from referee.games import games, spec

    unknown = [g for g in game if g not in games()]
    if unknown:
        fail(_unknown_games(unknown), 2)
    game_specs = [spec(g) for g in game]  # each game id resolved here, once
    try:
        policy = RegistryConfig.from_settings().policy
    except ValueError as exc:
        fail(f"bad network policy setting: {exc}")
    report = check_endpoint(endpoint, game_specs, policy, seed=seed)
    console.print(report.render(), highlight=False, markup=False)
    if not report.passed:
        fail("the bot failed the entry checks (see the report above)")


@app.command("register")
def register_bot(
    name: Annotated[str, typer.Argument(help="Unique bot name (whatever its case): 1-40 of letters, digits, '_', '.', '-', starting with a letter or digit; not 'api', 'static' or another path word.")],
    endpoint: Annotated[str, typer.Option(help="HOST:PORT where the bot serves, as the platform will dial it.")],
    game: Annotated[list[str], typer.Option(
        "--game", metavar="GAME", help=f"Game to enter (repeat for several; `bot update --game` adds one later): {names_text()}.")],
    version: Annotated[str, typer.Option(help="Version to record (default: the bot's Describe answer).")] = "",
    if_missing: Annotated[bool, typer.Option(
        "--if-missing", help="If a bot of this name is registered already at this endpoint for these games, say so "
                             "and exit 0 (nothing changes, no token is printed): a script can be run again.")] = False,
    server: ServerOption = DEFAULT_ARENA,
) -> None:
    """Register a bot with the platform's Arena service; prints its id and its token (shown once)."""
    from cardarena.v1 import arena_pb2

    if if_missing and _registered_already(server, name, endpoint, game):
        return
    request = arena_pb2.RegisterBotRequest(name=name, endpoint=endpoint, games=_game_enums(game), version=version)
    answer = _arena_call(server, "RegisterBot", request, ARENA_BASE_TIMEOUT_S + ARENA_GAME_TIMEOUT_S * len(game))
    console.print(f"registered bot [bold]{escape(answer.bot.name)}[/] (id {answer.bot.id}) at {escape(answer.bot.endpoint)} "
                  f"for {_game_names(answer.bot.games)}; entry checks passed ({_latency_line(answer.report)})",
                  highlight=False)
    console.print(f"token: {answer.token}", highlight=False, markup=False, soft_wrap=True)
    console.print("Keep the token: it is shown only now, and it is needed to update or retire the bot.", highlight=False)


@app.command("update")
def update_bot(
    name: Annotated[str, typer.Argument(help="The bot's name.")],
    token: TokenOption = None,
    endpoint: Annotated[str, typer.Option(help="New HOST:PORT (the entry checks run again, for every game).")] = "",
    version: Annotated[str, typer.Option(help="New version, for the games to come (past games keep the version "
                                                 "they were played with).")] = "",
    game: Annotated[list[str], typer.Option(
        "--game", metavar="GAME", help="Game to add to the registration (repeat for several; its entry checks run first).")] = [],
    server: ServerOption = DEFAULT_ARENA,
) -> None:
    """Point a registered bot at a new endpoint, record a new version, and/or enter it for more games."""
    from cardarena.v1 import arena_pb2

    request = arena_pb2.UpdateBotRequest(name=name, token=_token(token), endpoint=endpoint, version=version,
                                         games=_game_enums(game))
    answer = _arena_call(server, "UpdateBot", request, ARENA_BASE_TIMEOUT_S + 3 * ARENA_GAME_TIMEOUT_S)
    console.print(f"updated bot [bold]{escape(answer.bot.name)}[/]: {escape(answer.bot.endpoint)}, "
                  f"version {escape(answer.bot.version)}, registered for {_game_names(answer.bot.games)}",
                  highlight=False)


#: Seconds allowed for a submission's build (a Python bot's requirements), besides its entry checks.
ARENA_BUILD_TIMEOUT_S = 300.0


@app.command("submit")
def submit_bot(
    name: Annotated[str, typer.Argument(help="The bot's name: a new one registers a new hosted bot.")],
    path: Annotated[Path, typer.Argument(help="The bot's directory, or an archive of it (.tar, .tar.gz, .zip), with "
                                              "cardarena.toml at its root.", exists=True)],
    game: Annotated[list[str], typer.Option(
        "--game", metavar="GAME", help=f"Game to enter (repeat for several; a new bot needs one): {names_text()}.")] = [],
    token: Annotated[str | None, typer.Option(
        "--token", envvar="CARDARENA_BOT_TOKEN",
        help="The bot's token, to submit a new version of a registered bot (env CARDARENA_BOT_TOKEN); none for a "
             "new bot.")] = None,
    show_log: Annotated[bool, typer.Option("--log", help="Print the whole build log.")] = False,
    server: ServerOption = DEFAULT_ARENA,
) -> None:
    """Submit your bot's code: the platform runs it itself, in a sandbox on its workers (a hosted bot).

    The files are packed here (a canonical tar: its SHA-256 is the bot's version) and sent to the Arena,
    which builds a Python bot's requirements (pip, wheels only), starts the bot in its sandbox and runs the
    entry checks. A new name prints the bot's token (shown once); a registered bot's token submits a new
    version, a new entrant of every ladder. Exit status 1 if the platform refuses it (the reason, the
    entry checks and the build log are printed).
    """
    import gzip

    from cardarena.v1 import arena_pb2
    from hosting.artifact import ArtifactError, pack
    from hosting.launch import HostingConfig
    from hosting.manifest import ManifestError, of

    enums = _game_enums(game)
    try:
        artifact = pack(path, HostingConfig.from_settings().artifact_limits)
        manifest = of(artifact)
    except (ArtifactError, ManifestError) as exc:
        fail(f"cannot submit {path}: {exc}", 2)
    console.print(f"packed {escape(str(path))}: {artifact.entries} entries, {artifact.unpacked_bytes} bytes, "
                  f"SHA-256 {artifact.sha256} ({'serve ' + manifest.serve if manifest.serve else ' '.join(manifest.command)})",
                  highlight=False)
    request = arena_pb2.SubmitBotRequest(name=name, token=token or "", games=enums,
                                         archive=gzip.compress(artifact.tar, mtime=0))
    answer = _arena_call(server, "SubmitBot", request,
                         ARENA_BASE_TIMEOUT_S + ARENA_BUILD_TIMEOUT_S + ARENA_GAME_TIMEOUT_S * max(1, len(game) or 3))
    bot = answer.bot
    if not answer.changed:
        console.print(f"bot [bold]{escape(bot.name)}[/] runs these files already (version {answer.sha256}): "
                      "nothing changed", highlight=False)
        return
    console.print(f"submitted bot [bold]{escape(bot.name)}[/] (id {bot.id}), version {answer.sha256} ({answer.size} bytes "
                  f"stored) for {_game_names(bot.games)}; entry checks passed ({_latency_line(answer.report)})",
                  highlight=False)
    for package in answer.installed:
        console.print(f"  installed {package.name}=={package.version} sha256={package.sha256}", highlight=False,
                      markup=False)
    if show_log:
        console.print(answer.build_log, highlight=False, markup=False)
    if answer.token:
        console.print(f"token: {answer.token}", highlight=False, markup=False, soft_wrap=True)
        console.print("Keep the token: it is shown only now; it submits new versions and reads the bot's logs.",
                      highlight=False)


@app.command("log")
def bot_log(
    name: Annotated[str, typer.Argument(help="The hosted bot's name.")],
    game_id: Annotated[int, typer.Option("--game", min=1, help="A game it played: what it wrote then "
                                                               "(once the game is done and not sealed).")] = 0,
    token: TokenOption = None,
    server: ServerOption = DEFAULT_ARENA,
) -> None:
    """Your hosted bot's build log and submissions, or what it wrote (stdout and stderr) in one game.
    Only its author, with its token, may read them."""
    from cardarena.v1 import arena_pb2

    answer = _arena_call(server, "GetBotLog", arena_pb2.GetBotLogRequest(name=name, token=_token(token), game_id=game_id),
                         ARENA_BASE_TIMEOUT_S)
    if game_id:
        if not answer.outputs:
            console.print(f"{escape(name)} wrote nothing in game {game_id}", highlight=False)
        for output in answer.outputs:
            console.print(f"--- seat {output.seat}{' (cut to the platform cap)' if output.truncated else ''} ---",
                          highlight=False, markup=False)
            console.print(output.text, highlight=False, markup=False, end="")
        return
    if not answer.sha256:
        console.print(f"{escape(name)} is a remote bot: it has no build", highlight=False)
        return
    for submission in answer.submissions:
        console.print(f"submitted {submission.submitted_at.ToDatetime():%Y-%m-%d %H:%M:%S} UTC: {submission.sha256} "
                      f"({submission.size} bytes)", highlight=False)
    console.print(answer.build_log, highlight=False, markup=False)


def _registered_already(server: str, name: str, endpoint: str, games: list[str]) -> bool:
    """For ``register --if-missing``: True (said in one line) if ``name`` is registered at ``endpoint``
    for ``games`` already; False if no bot has the name; a one-line error if it is registered otherwise
    (another endpoint, fewer games, retired), naming the command that changes it."""
    from cardarena.v1 import arena_pb2

    _game_enums(games)  # unknown game names: exit 2 first
    listed = _arena_call(server, "ListBots", arena_pb2.ListBotsRequest(include_retired=True), ARENA_BASE_TIMEOUT_S)
    bot = next((b for b in listed.bots if b.name == name), None)
    if bot is None:
        return False
    if bot.retired:
        fail(f"bot {name!r} was registered and is retired: retirement is final, the name cannot come back (its games "
             "and ratings stay in history); choose another name")
    if bot.endpoint and bot.endpoint != endpoint:
        fail(f"bot {name!r} is registered already at {bot.endpoint}, not {endpoint} "
             f"(`cardarena bot update {name} --endpoint {endpoint}` moves it)")
    missing = sorted(set(games) - set(_game_names(bot.games).split(", ")))
    if missing:
        fail(f"bot {name!r} is registered already, without {', '.join(missing)} "
             f"(`cardarena bot update {name} --game {missing[0]}` adds it)")
    console.print(f"bot [bold]{escape(name)}[/] (id {bot.id}) is registered already"
                  f"{' at ' + escape(bot.endpoint) if bot.endpoint else ''} for {_game_names(bot.games)}: nothing "
                  "changed (--if-missing)", highlight=False)
    return True


@app.command("list")
def list_bots(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (a list, one object per bot) instead of a table.")] = False,
    check: Annotated[bool, typer.Option(
        "--check/--no-check", help="Ask each active bot's health check now (1 s at most, all at once).")] = True,
    retired: Annotated[bool, typer.Option("--retired", help="Also list retired bots.")] = False,
    server: ServerOption = DEFAULT_ARENA,
) -> None:
    """List the bots registered with the Arena: id, name, endpoint (shown to a caller on the platform's
    own machine only), games entered, version, capacity, games played, and whether each answers now."""
    import json

    from rich.table import Table

    from cardarena.v1 import arena_pb2

    answer = _arena_call(server, "ListBots", arena_pb2.ListBotsRequest(include_retired=retired, check=check),
                         ARENA_BASE_TIMEOUT_S)
    rows = [{"id": b.id, "name": b.name, "endpoint": b.endpoint or None, "games": _game_names(b.games).split(", ")
             if b.games else [], "version": b.version, "author": b.author, "capacity": b.capacity,
             "games_played": b.games_played, "availability": b.availability or None, "retired": b.retired}
            for b in answer.bots]
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    if not rows:
        console.print("no bots registered (see: cardarena bot register)", highlight=False)
        return
    table = Table("id", "bot", "endpoint", "games", "version", "capacity", "played", "availability")
    for column in table.columns:  # a narrow terminal wraps a cell, never cuts an endpoint or a name
        column.overflow = "fold"
    for r in rows:
        table.add_row(str(r["id"]), escape(r["name"]), escape(r["endpoint"] or "(hidden)"), ", ".join(r["games"]),
                      escape(r["version"]), str(r["capacity"]), str(r["games_played"]),
                      escape(r["availability"] or "-"))
    console.print(table)
    if any(r["endpoint"] is None for r in rows):
        console.print("(hidden): endpoints are shown only on the platform's own machine.", highlight=False)


def _game_enums(games: list[str]) -> list[int]:
    """Game names -> protocol enums; exit 2 naming unknown ones."""
    from referee.games import games as registered_games, spec

    unknown = [g for g in games if g not in registered_games()]
    if unknown:
        fail(_unknown_games(unknown), 2)
    return [spec(g).proto_enum for g in games]


def _unknown_games(unknown: list[str]) -> str:
    """One line naming unknown game names, with the close names ("did you mean") and the choices."""
    from league.names import did_you_mean
    from referee.games import games as registered_games

    hints = "".join(did_you_mean(g, registered_games()) for g in unknown)
    return f"unknown game(s) {', '.join(unknown)}{hints}; choose from {names_text()}"


def _game_names(enums) -> str:  # repeated cardarena.v1.Game
    """The games of protocol numbers, comma-separated; a number this version does not know stays a number."""
    from referee.games import game_for_enum

    names = []
    for number in enums:
        try:
            names.append(game_for_enum(number))
        except ValueError:
            names.append(str(number))
    return ", ".join(names)


@app.command("retire")
def retire_bot(
    name: Annotated[str, typer.Argument(help="The bot's name.")],
    token: TokenOption = None,
    server: ServerOption = DEFAULT_ARENA,
) -> None:
    """Retire a registered bot, for good: it joins no new season or ladder game, and neither it nor its name can
    come back (its games and ratings stay in history)."""
    from cardarena.v1 import arena_pb2

    answer = _arena_call(server, "RetireBot", arena_pb2.RetireBotRequest(name=name, token=_token(token)), ARENA_BASE_TIMEOUT_S)
    console.print(f"retired bot [bold]{escape(answer.bot.name)}[/]: for good, the name cannot be registered again "
                  "(its games and ratings stay in history)", highlight=False)


@app.command("ladder")
def ladder_standing(
    name: Annotated[str, typer.Argument(help="The bot's name.")],
    ladder: Annotated[str, typer.Option("--ladder", help="The ladder's name.")],
    games: Annotated[int, typer.Option("--games", min=0, max=500, help="Also list the bot's newest games there.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    server: ServerOption = DEFAULT_ARENA,
) -> None:
    """Where your bot stands in a ladder, through the Arena: each version's rank, rating with its 95%
    interval, games and placement (rules §5.4); with --games N its N newest games there. Public: no token."""
    import json

    from google.protobuf.json_format import MessageToDict
    from rich.table import Table

    from cardarena.v1 import arena_pb2

    answer = _arena_call(server, "GetLadderStanding", arena_pb2.GetLadderStandingRequest(ladder=ladder, bot=name),
                         ARENA_BASE_TIMEOUT_S)
    page = None
    if games:
        page = _arena_call(server, "ListLadderGames",
                           arena_pb2.ListLadderGamesRequest(ladder=ladder, bot=name, page_size=games), ARENA_BASE_TIMEOUT_S)
    if as_json:
        out = MessageToDict(answer, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
        if page is not None:
            out["games"] = [MessageToDict(g, preserving_proto_field_name=True) for g in page.games]
        print(json.dumps(out, indent=1))
        return
    c = answer.current
    where = f"rank {c.rank} of {answer.table_size}" if c.HasField("rank") else "not rated yet"
    placing = f", placing: {c.games} of {answer.placement_games} games" if c.placing else ""
    console.print(f"[bold]{escape(answer.bot)}[/]@{escape(c.version)} in ladder {escape(answer.ladder)}: {where}"
                  f"{placing} (ratings after {answer.rated_games} rated games)", highlight=False)
    table = Table("version", "state", "rank", "rating", "95% interval", "games")
    for v in answer.versions:
        table.add_row(escape(v.version), v.status + (" (placing)" if v.placing else ""),
                      str(v.rank) if v.HasField("rank") else "-", f"{v.rating:.0f}" if v.HasField("rating") else "-",
                      f"{v.low:.0f} to {v.high:.0f}" if v.HasField("low") else "-", str(v.games))
    console.print(table)
    if page is not None:
        games_table = Table("game", "epoch", "status", "seats (place)")
        for g in page.games:
            seats = ", ".join(f"{s.bot}@{s.version or '?'}" + (f" {s.place}" if s.HasField("place") else "")
                              for s in g.seats)
            games_table.add_row(str(g.id), str(g.epoch), g.status, escape(seats))
        console.print(games_table)


def _latency_line(report) -> str:  # arena_pb2.EntryReport
    return (f"{report.decisions} decisions: median {report.latency_median_ms:.1f} ms, "
            f"p99 {report.latency_p99_ms:.1f} ms, max {report.latency_max_ms:.1f} ms")


def _arena_call(server: str, method: str, request, timeout_s: float):
    """Call one Arena RPC with a deadline; a gRPC error becomes one line (and the entry report, if any)."""
    import grpc

    from arena.service import LOG_METADATA_KEY, REPORT_METADATA_KEY
    from cardarena.v1 import arena_pb2, arena_pb2_grpc
    from cli.common import err_console

    with grpc.insecure_channel(server) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=ARENA_CONNECT_S)
        except grpc.FutureTimeoutError:
            fail(f"cannot reach the Arena service at {server}: nothing answered within {ARENA_CONNECT_S:g} s "
                 f"(is `cardarena server` running there? `cardarena wait {server}` waits longer)")
        try:
            return getattr(arena_pb2_grpc.ArenaStub(channel), method)(request, timeout=timeout_s)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            details = exc.details() if hasattr(exc, "details") else str(exc)
            trailing = dict(exc.trailing_metadata() or ()) if hasattr(exc, "trailing_metadata") else {}
            if LOG_METADATA_KEY in trailing:
                err_console.print(trailing[LOG_METADATA_KEY].decode("utf-8", "replace"), highlight=False, markup=False)
            if REPORT_METADATA_KEY in trailing:
                report = arena_pb2.EntryReport.FromString(trailing[REPORT_METADATA_KEY])
                for c in report.checks:
                    err_console.print(f"  {'ok  ' if c.passed else 'FAIL'}  {c.name}  {c.detail}",
                                      highlight=False, markup=False)
                if report.decisions:
                    err_console.print(f"  latency of {_latency_line(report)}", highlight=False, markup=False)
            if code == grpc.StatusCode.UNAVAILABLE:
                fail(f"cannot reach the Arena service at {server}: {details}")
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                fail(f"the Arena service at {server} did not answer within {timeout_s:g} s")
            fail(f"{code.name if code else 'UNKNOWN'}: {details}")

