"""Options shared by the commands that set up competitions (``season create``, ``ladder create``), and by
those that start reference bots (``demo``, ``match``): defined once, so they say and check the same."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.games import specs

Tables = Annotated[str, typer.Option(help="Table sizes, comma-separated, e.g. 3,4,5,6 (a season uses them in turn, "
                                          "a ladder chooses among them).")]
Duplicate = Annotated[bool, typer.Option(help="Play each deal seed once in every rotation of its table.")]
OnePerAuthor = Annotated[bool, typer.Option(
    "--one-per-author", help="Never seat two bots of one author (as each bot's Describe declares it; none: its own) at a "
                             "table, so an author's bots cannot play as a team; refused when a table has more seats "
                             "than the bots have authors.")]
Param = Annotated[list[str], typer.Option(metavar="NAME=VALUE", help="Game parameter (repeatable), e.g. orbits=3.")]
Deadline = Annotated[float, typer.Option(help="Seconds per decision.")]
TimeBank = Annotated[float, typer.Option(help="Seconds of time bank per seat per game.")]
Budget = Annotated[float | None, typer.Option(
    help="Total thinking seconds per seat per game (default: the game's, sized to its length: "
         + ", ".join(f"{gs.name} {gs.default_budget_s:g}" for gs in specs()) + ").")]
SuspendAfter = Annotated[float, typer.Option(
    help="Seconds a bot may go without answering at game start before it is suspended from the season (a ladder's "
         "epoch; its remaining games there are then not played; 1 s to a week).")]


def game_spec(game: str):  # -> GameSpec
    """The GameSpec of the game id ``game`` as given on the command line, resolved here once; exits 2
    with one line naming the known games for an unknown one."""
    from cli.common import fail
    from referee.games import spec

    try:
        return spec(game)
    except ValueError as exc:
        fail(str(exc), 2)


def time_control(game, deadline: float, time_bank: float, budget: float | None):  # game: GameSpec -> TimeControl
    """The time control of these options for ``game``; exits 2 with one line for bad values."""
    from cli.common import fail
    from referee.engine import BadParameters
    from referee.timecontrol import TimeControl

    try:
        return TimeControl.for_game(game, deadline_s=deadline, time_bank_s=time_bank, budget_s=budget)
    except (BadParameters, ValueError) as exc:
        fail(str(exc), 2)


BotPorts = Annotated[int | None, typer.Option(
    "--bot-ports", metavar="FIRST",
    help="Start the bots on 127.0.0.1 at consecutive ports from FIRST (default: ports the kernel picks).",
    min=1, max=65535, show_default=False)]


def bot_ports(first: int | None, count: int) -> list[int]:
    """The ports of ``count`` bots started from ``first`` (``--bot-ports``): ``first``, ``first + 1``, ... or
    0 for each (the kernel picks) without it; exits 2 with one line when they run past 65535 or one is taken."""
    from botsdk.server import port_busy
    from cli.common import fail

    if first is None:
        return [0] * count
    ports = list(range(first, first + count))
    if ports and ports[-1] > 65535:
        fail(f"--bot-ports {first}: {count} bots need ports {first} to {ports[-1]}, past 65535", 2)
    for port in ports:
        if busy := port_busy("127.0.0.1", port):
            fail(f"cannot start a bot on 127.0.0.1:{port}: {busy} (choose another --bot-ports)", 2)
    return ports
