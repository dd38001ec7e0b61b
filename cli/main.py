"""The ``cardarena`` command: one Typer app assembling one sub-app per area."""

from __future__ import annotations

import sys
from functools import cache

import click
import typer
from typer.exceptions import TyperException

from cli import bot, ladder, season
from cli.common import CliError, Stopped, err_console, is_stop, sigterm_as_interrupt
from cli.demo import demo
from cli.match import match
from cli.server import server
from cli.wait import wait
from cli.worker import worker
from referee.games import specs

app = typer.Typer(
    name="cardarena",
    help=f"cardarena: a tournament runner for card-game bots ({'; '.join(gs.description for gs in specs())}) played over gRPC.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: flags without a "<bool>" type column, readable when piped
)
app.command("demo")(demo)
app.command("match")(match)
app.command("standings")(season.standings)
app.add_typer(bot.app, name="bot")
app.add_typer(season.app, name="season")
app.add_typer(ladder.app, name="ladder")
app.command("server")(server)
app.command("worker")(worker)
app.command("wait")(wait)


@cache
def command() -> click.Command:
    """The command line ``app`` makes, built once in a process: calling ``app`` builds it anew each time, reading
    every command's signature (about 50 ms), which a test that runs commands in its own process paid at every one."""
    return typer.main.get_command(app)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; errors become one line on stderr and a non-zero exit (2 for bad usage)."""
    try:
        with sigterm_as_interrupt():  # SIGTERM (kill, a supervisor) ends a command as Ctrl-C does
            result = command().main(args=argv, prog_name="cardarena", standalone_mode=False)
    except CliError as exc:
        err_console.print(f"cardarena: error: {exc}", highlight=False, markup=False)
        return exc.code
    except Stopped as exc:  # stopped cleanly: it said so and how to resume
        return exc.code
    except typer.Abort:
        err_console.print("cardarena: aborted", highlight=False)
        return 130
    except typer.Exit as exc:
        return exc.exit_code
    except TyperException as exc:  # bad usage: unknown command, missing or invalid option
        ctx = getattr(exc, "ctx", None)
        hint = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        err_console.print(f"cardarena: error: {message}{hint}", highlight=False, markup=False)
        return int(getattr(exc, "exit_code", 2) or 2)
    except KeyboardInterrupt:
        err_console.print("cardarena: aborted", highlight=False)
        return 130
    except Exception as exc:
        if not is_stop(exc):  # a stop that landed in a library's code and came out as its error
            raise
        err_console.print("cardarena: aborted", highlight=False)
        return 130
    if isinstance(result, int) and result != 0:  # Typer returns Ctrl-C as 130 without standalone mode
        if result == 130:
            err_console.print("cardarena: aborted", highlight=False)
        return result
    return 0


def entry() -> None:
    """The console script: exit with the status of :func:`main`."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
