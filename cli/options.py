"""Options shared by the commands that set up competitions (``season create``, ``ladder create``):
defined once, so both say and check the same."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.games import specs

Tables = Annotated[str, typer.Option(help="Table sizes, comma-separated, e.g. 3,4,5,6 (a season uses them in turn, "
                                          "a ladder chooses among them).")]
Duplicate = Annotated[bool, typer.Option(help="Play each deal seed once in every rotation of its table.")]
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
