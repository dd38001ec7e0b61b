"""The README and its user guides as a new user meets them: their blocks pasted as scripts, the command reference
and the settings table against the CLI.

The pages are the README and the guides it links to (``GUIDES`` of ``tests/test_docs_shape.py``), read in that
order. The shell blocks run in a temporary folder holding the guide's ``mybot.py`` and the clone's ``.venv`` (as in
a fresh clone after ``make demo``), with none of the ``CARDARENA_`` variables set, real server and bot processes,
and the pages' port numbers mapped to free ports.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_docs_shape import GUIDES

REPO = Path(__file__).parents[1]
README = (REPO / "README.md").read_text()
#: The README and its user guides, in reading order: path from the root -> text.
PAGES = {name: (REPO / name).read_text() for name in GUIDES}
#: Ports the pages' recipes use; each is mapped to a free port for the test.
README_PORTS = ("8000", "50050", "50061", "50062", "50063")
#: Bound on one pasted block, seconds (it starts five servers and plays a small season).
BLOCK_LIMIT_S = 600


def blocks(language: str, pages: tuple[str, ...] = GUIDES) -> list[str]:
    """The fenced code blocks of ``language`` in ``pages`` (the README and its guides), in reading order."""
    return [body for page in pages for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", PAGES[page], flags=re.M | re.S)
            if lang == language]


def free_ports(n: int) -> list[int]:
    """``n`` distinct ports free on 127.0.0.1 now (held together while chosen, so they differ)."""
    held = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            held.append(s)
        return [s.getsockname()[1] for s in held]
    finally:
        for s in held:
            s.close()


def port_mapping() -> dict[str, str]:
    """The README's ports, each mapped to a port free now."""
    return dict(zip(README_PORTS, map(str, free_ports(len(README_PORTS))), strict=True))


def with_ports(text: str, mapping: dict[str, str]) -> str:
    """``text`` with the pages' ports replaced as ``mapping`` says."""
    return re.sub(r"(?<![\d.])(" + "|".join(README_PORTS) + r")(?!\d)", lambda m: mapping[m.group(1)], text)


def pasted(block: str, folder: Path, mapping: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``block`` with bash in ``folder`` as pasted in a shell with the environment active
    (stopping at the first failed command); background processes it leaves are stopped after it.
    ``mapping``: the README's ports to the ports used (default: free ones, :func:`port_mapping`)."""
    mapping = mapping or port_mapping()
    script = with_ports(block, mapping)
    (folder / "block.sh").write_text("set -e\n. .venv/bin/activate\n" + script)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARDARENA_") and k != "VIRTUAL_ENV"}
    # output to files, not pipes: the block's background servers would hold a pipe open after it ends
    with open(folder / "block.out", "w") as out, open(folder / "block.err", "w") as err:
        process = subprocess.Popen(["bash", "block.sh"], cwd=folder, env=env, stdout=out, stderr=err,
                                   start_new_session=True)
        try:
            process.wait(timeout=BLOCK_LIMIT_S)
        finally:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(process.pid, sig)  # the session the block's processes were started in
                except ProcessLookupError:
                    break
                if sig == signal.SIGTERM:
                    _wait_for_session_end(process.pid)
            if process.poll() is None:
                process.kill()
                process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, (folder / "block.out").read_text(),
                                       (folder / "block.err").read_text())


def _wait_for_session_end(session: int, limit_s: float = 30.0) -> None:
    """Wait until no process is left in the process group ``session`` (at most ``limit_s`` seconds)."""
    import time

    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        try:
            os.killpg(session, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


@pytest.fixture
def fresh_folder(tmp_path: Path) -> Path:
    """A folder as a new user's clone looks after `make demo`: ``.venv`` and the guide's ``mybot.py``, no store."""
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    (python,) = blocks("python")
    (tmp_path / "mybot.py").write_text(python)
    return tmp_path


def test_the_quick_start_is_the_two_make_commands_and_make_knows_them() -> None:
    assert re.findall(r"^## (.*)$", README, flags=re.M)[0] == "Quick start"
    quick = blocks("sh")[0]
    assert quick == blocks("sh", ("README.md",))[0]
    assert [line.split("#")[0].strip() for line in quick.strip().splitlines()] == ["make demo", "make test"]
    dry = subprocess.run(["make", "-n", "demo", "test"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0 and ".venv/bin/cardarena demo" in dry.stdout and ".venv/bin/python -m pytest" in dry.stdout


def test_every_other_shell_block_runs_pasted_as_a_script(fresh_folder: Path) -> None:
    recipes = blocks("sh")[1:]
    assert recipes, "the README and its guides lost their recipes"
    mapping = port_mapping()
    results = {}
    for block in recipes:
        result = results[block] = pasted(block, fresh_folder, mapping)
        assert result.returncode == 0, f"{block}\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}"
    # the match on demand: your bot at one table with the reference bots it names, a table row for each
    match = next(block for block in recipes if "cardarena match " in block)
    line = next(line.split("#")[0].split() for line in match.splitlines() if line.startswith("cardarena match "))
    targets = [word for word in line[2:] if not word.startswith("--") and word != line[line.index("--game") + 1]]
    assert len(targets) >= 2 and any(":" in t for t in targets), line
    for target in targets:  # the table's row: name, target as given, games
        row = rf"│ \S+\s*│ {re.escape(with_ports(target, mapping))}\s*│\s*\d+ │"
        assert re.search(row, results[match].stdout), (target, results[match].stdout)
    # the local season recipe: a store of its own, the three bots registered and ranked
    local = next(block for block in recipes if "season create my-first" in block)
    assert (fresh_folder / "var" / "my-league.db").exists()
    out = results[local].stdout
    assert "PASSED: the bot may enter seasons" in out and "registered bot random-a" in out and "12 done" in out
    assert all(name in out for name in ("cautious", "odds-a", "random-a"))
    # `bot list` through the Arena: endpoints (on this machine), games entered, and each bot answering
    game = re.search(r"bot register cautious .*?--game (\S+)", local)[1]
    assert re.search(rf"cautious\s*│\s*127\.0\.0\.1:{mapping['50061']}\s*│\s*{re.escape(game)}", out), out
    assert out.count("answering") >= 3
    # pasted again as it is, on the same ports: nothing is registered or created twice, and it still ends well
    again = pasted(local, fresh_folder, mapping)
    assert again.returncode == 0, f"--- stdout\n{again.stdout[-3000:]}\n--- stderr\n{again.stderr[-3000:]}"
    assert "ALREADY_EXISTS" not in again.stdout + again.stderr
    assert again.stdout.count("is registered already") == 3 and "season my-first exists already" in again.stdout
    assert "nothing to run: season my-first is finished (12 done)" in again.stdout


def test_the_python_block_runs_with_the_environments_python_and_declares_capacity_1(fresh_folder: Path) -> None:
    """`python mybot.py`'s imports work with the environment's python, and the bot has the SDK's
    default capacity that "Writing a bot" describes (its entry checks are in the recipe)."""
    bot = subprocess.run([str(fresh_folder / ".venv" / "bin" / "python"), "-c",
                          "import mybot; print(mybot.Cautious().describe().capacity)"],
                         cwd=fresh_folder, capture_output=True, text=True, timeout=60)
    assert bot.returncode == 0 and bot.stdout.strip() == "1", bot.stderr
    assert "declares `capacity = 1` unless it sets another" in PAGES["docs/writing-a-bot.md"]


def _commands():  # -> list[tuple[str, click.Command]]
    import typer

    from cli.main import app

    found = []

    def walk(command, path: str) -> None:
        subcommands = getattr(command, "commands", None)
        if subcommands:
            for name, sub in subcommands.items():
                walk(sub, f"{path} {name}")
        else:
            found.append((path, command))

    walk(typer.main.get_command(app), "cardarena")
    return found


def _table_rows(header: str) -> list[str]:
    """The rows of the table (in the README or a guide) whose header row starts with ``header``."""
    (page,) = [text for text in PAGES.values() if header in text]
    start = page.index(header)
    rows = []
    for line in page[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def _command_entries() -> list[tuple[str, str]]:
    """The command reference of the README and its guides: each list item that starts with a command's synopsis
    (``- `cardarena …`: what it does``, continued on indented lines), as (synopsis, whole item), whitespace runs as
    one space."""
    entries = []
    for text in PAGES.values():
        for item in re.findall(r"^- (`cardarena .*?)(?=\n(?!  )|\Z)", text, flags=re.M | re.S):
            item = " ".join(item.split())
            entries.append((re.match(r"`([^`]*)`", item)[1], item))
    return entries


def test_the_command_reference_is_read() -> None:
    """The reference holds synopses and what each does (a reader that finds nothing would pass every command)."""
    entries = _command_entries()
    assert len(entries) >= len(_commands())
    assert all(synopsis.startswith("cardarena ") and len(item) > len(synopsis) + 10 for synopsis, item in entries)


@pytest.mark.parametrize(("path", "command"), _commands(), ids=[p for p, _ in _commands()])
def test_every_option_of_every_command_is_in_the_command_reference(path: str, command) -> None:
    rows = [item for synopsis, item in _command_entries() if re.search(re.escape(path) + r"\b", synopsis)]
    assert rows, f"{path} is not in the command reference"
    options = [opt for param in command.params for opt in param.opts if opt.startswith("--") and opt != "--help"]
    missing = [opt for opt in options if not any(re.search(re.escape(opt) + r"(?![\w-])", row) for row in rows)]
    assert not missing, f"{path}: {', '.join(missing)} missing from the command reference"


def test_every_setting_is_in_the_settings_table() -> None:
    from config import Settings

    table = "\n".join(_table_rows("| variable | default | what |"))
    names = {f"CARDARENA_{field.upper()}" for field in Settings.model_fields}
    for _, command in _commands():
        for param in command.params:
            envvar = getattr(param, "envvar", None)
            names |= set([envvar] if isinstance(envvar, str) else envvar or [])
    missing = sorted(n for n in names if f"`{n}`" not in table)
    assert not missing, f"settings missing from the settings table: {', '.join(missing)}"
    assert "CARDARENA_BOT_TOKEN" in names and "CARDARENA_ARENA" in names


def test_boolean_flags_show_no_type_in_help() -> None:
    for args in (["demo", "--help"], ["standings", "--help"], ["season", "create", "--help"]):
        result = subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=REPO, capture_output=True, text=True,
                                timeout=60)
        assert result.returncode == 0 and "<bool>" not in result.stdout, result.stdout
