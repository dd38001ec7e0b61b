"""Options shared by the commands that set up competitions (``season create``, ``ladder create``):
defined once, so both say and check the same."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.games import games as registered_games, spec

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
         + ", ".join(f"{g} {spec(g).default_budget_s:g}" for g in registered_games()) + ").")]
SuspendAfter = Annotated[float, typer.Option(
    help="Seconds a bot may go without answering at game start before it is suspended from the season (a ladder's "
         "epoch; its remaining games there are then not played; 1 s to a week).")]


def time_control(game: str, deadline: float, time_bank: float, budget: float | None):  # -> TimeControl
    """The time control of these options for ``game``; exits 2 with one line for bad values."""
    from cli.common import fail
    from referee.engine import BadParameters
    from referee.timecontrol import TimeControl

    try:
        return TimeControl.for_game(game, deadline_s=deadline, time_bank_s=time_bank, budget_s=budget)
    except (BadParameters, ValueError) as exc:
        fail(str(exc), 2)
