"""``cardarena match``: games between bots on demand, without registration.

Each target is a bot's endpoint (``host:port``) or a reference bot's name (started as a gRPC
server in its own process, as ``cardarena demo`` starts them). The targets are asked ``Describe``,
seated at one table in every rotation, and the games are played by the season's machinery on
a throwaway SQLite store: the same referee, time control, faults and replays as a season
(rules §4), nothing registered anywhere else. The results are printed per game and per target;
``--serve`` then opens the dashboard on that store to step through the replays, and the store
is removed when the command ends.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from cli.common import console, fail
from referee.games import GameSpec, games as registered_games, names_text, spec

#: host:port (a name or an IPv4 address, or [IPv6]) with a port number.
ENDPOINT = re.compile(r"(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})")


@dataclass(frozen=True)
class Target:
    """A bot at the table: its name in the results, where it listens, and what it said of itself."""

    name: str
    endpoint: str
    shown_as: str  # the target as given: a reference name or the endpoint
    version: str
    author: str
    capacity: int


def _is_endpoint(text: str) -> bool:
    match = ENDPOINT.fullmatch(text)
    return match is not None and 1 <= int(match.group(2)) <= 65535


def _unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``... when taken (a bot takes one seat per table)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "-", name).strip("-.") or "bot"
    candidate, n = safe, 1
    while candidate in taken:
        n += 1
        candidate = f"{safe}-{n}"
    taken.add(candidate)
    return candidate


@contextmanager
def started_targets(given: list[str], gs: GameSpec, seed: int, first_port: int | None = None) -> Iterator[list[Target]]:
    """The targets, each asked Describe (reference bots started first, stopped on exit; on consecutive ports
    from ``first_port``, else on ports the kernel picks); exits with one line for a target that is neither,
    does not answer, or does not play game ``gs``."""
    from cli import options
    from referee.botprocess import start_bot_process
    from referee.bots import names_text as bot_names, reference_bots
    from referee.clients import BotCallError, GrpcBotClient

    processes = []
    ports = iter(options.bot_ports(first_port, sum(1 for text in given if text in reference_bots())))
    try:
        targets: list[Target] = []
        taken: set[str] = set()
        for i, text in enumerate(given):
            if text in reference_bots():
                process = start_bot_process(text, seed + i, port=next(ports))
                processes.append(process)
                endpoint = process.endpoint
            elif _is_endpoint(text):
                endpoint = text
            else:
                fail(f"target {text!r} is neither host:port nor a reference bot ({bot_names()})", 2)
            try:
                described = GrpcBotClient(endpoint).describe()
            except BotCallError as exc:
                fail(f"target {text} ({endpoint}) does not answer Describe: {exc}")
            if gs.proto_enum not in described.games:
                fail(f"target {text} ({described.name or endpoint}) does not play {gs.name}")
            name = _unique(text if text in reference_bots() else (described.name or text), taken)
            targets.append(Target(name, endpoint, text, described.version, described.author,
                                  max(1, described.capacity)))
        yield targets
    finally:
        for process in processes:
            process.stop()


def match(
    targets: Annotated[list[str], typer.Argument(
        metavar="TARGET...", help="The bots: an endpoint HOST:PORT, or a reference bot's name (started here). A target may be "
             "given twice (two seats).", show_default=False)],
    game: Annotated[str, typer.Option(help=f"{names_text()}.")],
    games: Annotated[int | None, typer.Option(
        help="Games to play (rounded up to whole seat rotations; default: one rotation, a game per seat).",
        min=1, max=10_000)] = None,
    seed: Annotated[int | None, typer.Option(
        help="Make the match reproducible: the seating and every deal come from this seed (default: a secret key).",
        min=0, max=2**63 - 1)] = None,
    workers: Annotated[int | None, typer.Option(help="Local worker processes (default: one per core).", min=1)] = None,
    serve: Annotated[bool, typer.Option("--serve", help="Then open the dashboard on the match's games to step "
                                                        "through the replays (until Ctrl-C).")] = False,
    port: Annotated[int | None, typer.Option(
        help="Dashboard port with --serve (default: the port of CARDARENA_DASHBOARD_URL, 8000 unless set).",
        min=1, max=65535, show_default=False)] = None,
    grpc_port: Annotated[int, typer.Option(
        help="Arena gRPC port with --serve (the dashboard's server starts it).", min=1, max=65535)] = 50050,
    bot_ports: Annotated[int | None, typer.Option(
        "--bot-ports", metavar="FIRST", help="Start the reference bots named on 127.0.0.1 at consecutive ports from "
        "FIRST (default: ports the kernel picks).", min=1, max=65535, show_default=False)] = None,
) -> None:
    """Play games between TARGETs on demand, without registering them: the same referee, time control and
    faults as a season, on a throwaway store; print each game's places and scores and each target's totals."""
    from cli.progress import run_pending_locally
    from league.competition.seasons import SeasonError, create_season
    from league.policy import POLICY
    from store import open_store

    if game not in registered_games():
        fail(f"unknown game {game!r}; choose from {names_text()}", 2)
    gs = spec(game)  # the game id resolved here, once: what follows takes the GameSpec
    if not gs.min_seats <= len(targets) <= gs.max_seats:
        fail(f"{game} is played by {gs.min_seats} to {gs.max_seats} seats: give that many targets, not {len(targets)}", 2)
    if serve:
        from cli.server import check_ports_free, dashboard_port

        port = dashboard_port(port)
        check_ports_free("127.0.0.1", port, grpc_port)
    folder = Path(tempfile.mkdtemp(prefix="cardarena-match-"))
    url = f"sqlite:///{folder / 'match.db'}"
    try:
        store = open_store(url, policy=POLICY)
        with started_targets(targets, gs, seed if seed is not None else 0, bot_ports) as seated:
            for t in seated:
                store.bots.register_bot(t.name, t.endpoint, t.version, t.author, [game], t.capacity)
            name = f"match-{game}"
            try:
                season_id = create_season(store, name, gs, [t.name for t in seated], [len(seated)],
                                          games or len(seated), seed)
            except SeasonError as exc:
                fail(str(exc), 2)
            console.print(f"match of {game}: {store.seasons.season_progress(season_id)['total']} games between "
                          + ", ".join(f"{t.name} ({t.endpoint})" for t in seated), highlight=False, markup=False)
            run_pending_locally(store, season_id, url, workers, name)
        print_results(store, season_id, gs, seated)
        if serve:
            from cli.server import serve as serve_dashboard

            console.print(f"replays: http://127.0.0.1:{port}/games?season_id={season_id} (Ctrl-C to stop; the "
                          "match's store is removed then)", highlight=False, markup=False)
            store.close()
            serve_dashboard(url, port=port, grpc_port=grpc_port)
        else:
            store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def print_results(store, season_id: int, gs: GameSpec, seated: list[Target]) -> None:
    """A line per game of season ``season_id`` of game ``gs`` (each target's place and score, or why the game
    was not played), then a table of each target's games, wins, average place, total score change and faults."""
    names = {t.name: t for t in seated}
    totals = {t.name: {"games": 0, "wins": 0, "places": 0, "change": 0, "faults": 0} for t in seated}
    for g in store.game_reads.list_games(season_id, limit=10_000):
        if str(g.status) != "done":
            console.print(f"game {g.number}: {g.status}: {g.detail}", highlight=False, markup=False)
            continue
        seats = sorted(g.seats, key=lambda s: (s.place or 0, s.seat))
        console.print(f"game {g.number} (id {g.id}): " + ", ".join(
            f"{s.bot_name} {_ordinal(s.place or 0)} ({s.score} {gs.score_unit}, {s.change:+d})"
            + (f" [{s.faults} fault{'s' if s.faults != 1 else ''}]" if s.faults else "") for s in seats),
            highlight=False, markup=False)
        for s in g.seats:
            row = totals[s.bot_name]
            row["games"] += 1
            row["wins"] += s.place == 1
            row["places"] += s.place or 0
            row["change"] += s.change or 0
            row["faults"] += s.faults or 0
    better = "higher is better" if gs.higher_score_is_better else "lower is better"
    table = Table(title=f"match of {gs.name}")
    table.add_column("target", no_wrap=True, min_width=max(len(n) for n in names))
    table.add_column("as given", no_wrap=True, min_width=max(len(t.shown_as) for t in seated))
    for column in ("games", "wins", "avg place", f"{gs.score_unit} change ({better})", "faults"):
        table.add_column(column, justify="right")
    for name, row in sorted(totals.items(), key=lambda item: item[1]["places"] / max(1, item[1]["games"])):
        played = row["games"]
        table.add_row(escape(name), escape(names[name].shown_as), str(played), str(row["wins"]),
                      f"{row['places'] / played:.2f}" if played else "-", f"{row['change']:+d}", str(row["faults"]))
    console.print(table)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
