"""``cardarena demo``: a whole season on the embedded default, end to end.

Starts the reference bots as real gRPC servers in their own processes on
127.0.0.1, registers them (through ``Describe``, as the platform does for any
bot), schedules a season with rotated seats, plays it on the local pool of
worker processes with a progress bar, and prints the standings.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.markup import escape

from cli import options
from cli.common import DbOption, console, counts_text, db_url, fail, open_db
from referee.games import games as registered_games, names_text, spec, specs


def demo(
    game: Annotated[str, typer.Option(help=f"{names_text()}, or all.")] = registered_games()[0],
    games: Annotated[int | None, typer.Option(help="Games per season (default: "
                                              + "; ".join(f"{gs.name} {gs.demo.games}" for gs in specs())
                                              + ").", min=1)] = None,
    workers: Annotated[int | None, typer.Option(help="Local worker processes (default: one per core), each refereeing CARDARENA_GAMES_PER_PROCESS games at once (default 2).", min=1)] = None,
    seed: Annotated[int | None, typer.Option(
        help="Make the demo season reproducible from this seed (default: a secret key).", min=0, max=2**63 - 1)] = None,
    db: DbOption = None,
    serve: Annotated[bool, typer.Option("--serve", help="Then leave the dashboard running on the demo's database.")] = False,
    port: Annotated[int | None, typer.Option(
        help="Dashboard port with --serve (default: the port of CARDARENA_DASHBOARD_URL, 8000 unless set).",
        min=1, max=65535, show_default=False)] = None,
    grpc_port: Annotated[int, typer.Option(
        help="Arena gRPC port (bot registration) with --serve.", min=1, max=65535)] = 50050,
    bot_ports: options.BotPorts = None,
) -> None:
    """Run a demo season: reference bots over gRPC, refereed, stored, rated and ranked."""
    from cli.progress import run_pending_locally
    from cli.season import print_standings
    from league.competition.seasons import SeasonError, create_season
    from league.entry.checks import run_entry_checks
    from referee.botprocess import start_bot_process

    if game == "all":
        chosen = specs()
    elif game in registered_games():
        chosen = [spec(game)]  # the game id resolved here, once: what follows takes the GameSpec
    else:
        from league.names import did_you_mean

        fail(f"unknown game {game!r}{did_you_mean(game, [*registered_games(), 'all'])}; choose from {names_text()}, all", 2)
    store = open_db(db)
    if serve:
        from cli.server import check_ports_free, dashboard_port

        port = dashboard_port(port)
        check_ports_free("127.0.0.1", port, grpc_port)  # before the seasons, not after them
    for game_spec in chosen:
        name, lineup = game_spec.name, game_spec.demo
        started = time.perf_counter()
        processes = []
        try:
            doing = f"starting {len(lineup.bots)} bot servers for {name} and running their entry checks"
            if not console.is_terminal:  # a log or a pipe: the spinner below shows nothing there
                console.print(f"{doing}...", highlight=False)
            ports = options.bot_ports(bot_ports, len(lineup.bots))
            with console.status(f"{doing}..."):
                bot_names = []
                for (ref, bot_seed), bot_port in zip(lineup.bots, ports, strict=True):
                    process = start_bot_process(ref, bot_seed, port=bot_port)
                    processes.append(process)
                    # the platform's entry checks, as for any submitted bot: health, Describe, a validation game
                    report = run_entry_checks(process.endpoint, [game_spec], shown_as=f"{ref}-{bot_seed}")
                    if not report.passed:
                        failed = next(c for c in report.checks if not c.passed)
                        fail(f"reference bot {ref}-{bot_seed} failed its entry checks: {failed.name}: {failed.detail}")
                    bot_names.append(register_or_update(store, f"{ref}-{bot_seed}", process.endpoint, report.describe))
                    if not console.is_terminal:
                        console.print(f"  {ref}-{bot_seed} serving at {process.endpoint}: entry checks passed",
                                      highlight=False)
            season_name = f"demo-{name}-{time.strftime('%Y%m%d-%H%M%S')}"
            try:
                season_id = create_season(store, season_name, game_spec, bot_names, lineup.tables, games or lineup.games, seed)
            except SeasonError as exc:
                fail(str(exc))
            outcomes = run_pending_locally(store, season_id, db_url(db), workers, f"{season_name}")
        finally:
            for process in processes:
                process.stop()
        elapsed = time.perf_counter() - started
        print_standings(store, store.seasons.get_season(season_id))
        del outcomes  # counted from the store, as `season run` does (one vocabulary, store.PROGRESS_KEYS)
        summary = f"{season_name}: {counts_text(store.seasons.season_progress(season_id), all_counts=True)}"
        again = f"cardarena standings --season {season_name}" + (f" --db {db}" if db else "")
        console.print(f"{summary} in {elapsed:.1f} s. Again: [bold]{escape(again)}[/]", highlight=False)
    if serve:
        from cli.server import serve as serve_dashboard

        serve_dashboard(db_url(db), port=port, grpc_port=grpc_port)


def register_or_update(store, name: str, endpoint: str, described) -> str:
    """Register the demo bot for the games its Describe lists, or point its existing registration at the
    new endpoint; returns its name."""
    games = [gs.name for gs in specs() if gs.proto_enum in described.games]
    existing = store.bots.get_bot_by_name(name)
    if existing is None:
        store.bots.register_bot(name, endpoint, described.version, described.author, games, max(1, described.capacity))
    else:
        store.bots.update_bot(existing.id, endpoint=endpoint, version=described.version, games=games,
                         capacity=max(1, described.capacity))
    return name
