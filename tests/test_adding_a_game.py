"""Adding a game is what docs/adding-a-game.md says: its steps, followed in a copy of the repository, make a
game from the template that the platform plays, and touch nothing outside the game's folder but the files
the checklist names.

The copy holds the working tree's tracked (and untracked, not ignored) files, in a git repository of its own
whose first commit is the state before the steps; Python runs there with the copy first on its path, so
the copy's modules are the ones imported (checked), not those of the editable install.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "adding-a-game.md"
NAME, FIELD = "toy-cards", "toy_cards"
GAME_DIR = f"referee/games/{FIELD}/"
BOT_PROTO = "proto/cardarena/v1/bot.proto"

#: The generators of step 5 that write files or blocks from the registry, as the checklist gives them.
GENERATORS: list[str] = ["python docs/protocol_examples.py"]

#: The checklist's commands this test runs, as the document writes them (``<name>``: the game's name).
COMMANDS = [
    "python -m referee.games.scaffold <name>",
    "python proto/generate.py",
    "python proto/wire_lock.py",
    *GENERATORS,
    "python -m referee.conformance --write --game <name>",
    "python -m referee.conformance --check --game <name>",
    "python -m pytest referee/games/<field>",
]

#: Files outside the game's folder still edited by hand, each with the one line the scaffold prints for it.
HAND_ROWS = {"docs/rules/README.md": "the chapter table's row (tests/test_rules_docs.py reads the chapters from it)"}

#: A block a generator writes: from a line ``<!-- ... written by ... -->`` to the next ``<!-- end ... -->``.
_BLOCK = re.compile(r"^<!--[^\n]*written by[^\n]*-->$.*?^<!-- end[^\n]*-->$", re.MULTILINE | re.DOTALL)


def _copy_tree(target: Path) -> None:
    """The working tree's tracked and untracked (not ignored) files, copied to ``target``; but this file, which
    names the toy game (in the copy, a test that names a game: tests/test_games_follow_registry.py)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and source != Path(__file__).resolve():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _git(copy: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=copy,
                          capture_output=True, text=True, check=True).stdout


def insert_protocol_lines(text: str, lines: list[str]) -> str:
    """bot.proto with the scaffold's four lines where it says: the import after the last import, the enum
    value and the two oneof members each as the last member of its block, indented as its neighbours."""
    import_line, enum_line, view_line, action_line = lines
    out = text.splitlines(keepends=True)

    def last_member(opening: str) -> int:
        start = next(i for i, line in enumerate(out) if line.strip() == opening)
        return next(i for i in range(start, len(out)) if out[i].strip() == "}") - 1

    for opening, line in (("oneof action {", action_line), ("oneof view {", view_line), ("enum Game {", enum_line)):
        at = last_member(opening)
        indent = re.match(r"\s*", out[at])[0]  # type: ignore[index]
        out.insert(at + 1, f"{indent}{line}\n")
    at = max(i for i, line in enumerate(out) if line.startswith("import "))
    out.insert(at + 1, import_line + "\n")
    return "".join(out)


def without_blocks(text: str) -> str:
    """``text`` with every generated block (:data:`_BLOCK`) emptied."""
    return _BLOCK.sub("<!-- block -->", text)


def test_the_block_rule_sees_what_is_outside_a_block() -> None:
    before = "a\n<!-- x: written by g.py -->\nold\n<!-- end of x -->\nb\n"
    assert without_blocks(before) == without_blocks(before.replace("old", "new\nlines"))
    assert without_blocks(before) != without_blocks(before.replace("b\n", "c\n"))


def test_every_command_is_in_the_checklist() -> None:
    text = DOC.read_text()
    missing = [c for c in COMMANDS if c not in text]
    assert not missing, f"docs/adding-a-game.md does not give these commands: {missing}"
    make = ROOT.joinpath("Makefile").read_text().split("\nproto:", 1)[1].split("\n\n", 1)[0]
    assert "proto/generate.py" in make and "proto/wire_lock.py" in make  # `make proto` is the same two commands


@pytest.mark.slow
def test_a_game_made_by_the_checklist_is_played_and_touches_only_its_files(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the copy's changes are found with git")
    copy = tmp_path / "repo"
    _copy_tree(copy)
    _git(copy, "init", "-q")
    _git(copy, "add", "-A")
    _git(copy, "commit", "-q", "-m", "before the game")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), str(copy / "proto")]), "PYTHONDONTWRITEBYTECODE": "1"}

    def run(*args: str) -> str:
        """``python ARGS`` (this interpreter) in the copy; its output."""
        done = subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    def follow(command: str) -> str:
        """One of the checklist's commands (:data:`COMMANDS`), for the toy game."""
        words = command.replace("<name>", NAME).replace("<field>", FIELD).split()
        assert words[0] == "python", command
        return run(*words[1:])

    where = run("-c", "import cardarena, referee.games; print(cardarena.__file__); print(referee.games.__file__)")
    assert all(Path(line).is_relative_to(copy) for line in where.split()), where

    # 1. the template, and what it says to add by hand
    printed = follow(COMMANDS[0])
    proto_lines = re.findall(r"^    (.+)$", printed, re.MULTILINE)
    assert len(proto_lines) == 4 and proto_lines[0] == f'import "cardarena/v1/{FIELD}.proto";', printed
    readme_row = re.search(r"^  (\| §\d+ \|.*)$", printed, re.MULTILINE)
    assert readme_row, printed
    # 2. the protocol lines, and the chapter's row
    bot = copy / BOT_PROTO
    bot.write_text(insert_protocol_lines(bot.read_text(), proto_lines))
    readme = copy / "docs" / "rules" / "README.md"
    rows = readme.read_text().splitlines(keepends=True)
    last_row = max(i for i, line in enumerate(rows) if re.match(r"\| §\d+ \|", line))
    readme.write_text("".join(rows[:last_row + 1] + [readme_row[1] + "\n"] + rows[last_row + 1:]))
    # 3. make proto; 5. the generators; 6. the golden playthrough
    for command in COMMANDS[1:-1]:
        follow(command)
    _git(copy, "add", "-A")  # what the maintainer commits (the rules tests read the tracked files)

    # the registry lists the game, the harness passed on it (above); its tests and the tests over every game pass
    assert run("-c", "from referee.games import games; print(games()[-1])").strip() == NAME
    follow(COMMANDS[-1])
    run("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/games", "tests/test_proto.py", "tests/test_rules_docs.py",
        "tests/test_games_follow_registry.py")

    # what changed outside the game's folder: only what the checklist names
    status = dict(line.split("\t", 1)[::-1] for line in _git(copy, "diff", "--cached", "--name-status", "HEAD").splitlines())
    outside = {path: kind for path, kind in status.items() if not path.startswith(GAME_DIR)}
    stubs = {f"proto/cardarena/v1/{FIELD}{suffix}" for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")}
    assert {p for p, kind in outside.items() if kind == "A"} == {f"proto/cardarena/v1/{FIELD}.proto", f"docs/rules/{NAME}.md", *stubs}
    modified = {p for p, kind in outside.items() if kind == "M"}
    assert set(outside.values()) == {"A", "M"} and {BOT_PROTO, "proto/wire.lock", "docs/protocol.md"} <= modified

    def diff(path: str) -> tuple[list[str], list[str]]:
        """The lines added to and removed from ``path``."""
        lines = _git(copy, "diff", "--cached", "-U0", "HEAD", "--", path).splitlines()[4:]
        return ([x[1:] for x in lines if x.startswith("+")], [x[1:] for x in lines if x.startswith("-")])

    for path in sorted(modified):
        added, removed = diff(path)
        if path == BOT_PROTO:  # exactly the four protocol lines
            assert removed == [] and [line.strip() for line in added] == proto_lines, (added, removed)
        elif path in HAND_ROWS:  # exactly the row the scaffold printed
            assert removed == [] and added == [readme_row[1]], (path, added, removed)
        elif path == "proto/wire.lock":  # appended: the new game's fields and values
            assert removed == [] and added and all(re.search(rf"{FIELD}|{FIELD.upper()}|ToyCards", x) for x in added), added
        elif path in {"proto/cardarena/v1/bot_pb2.py", "proto/cardarena/v1/bot_pb2.pyi"}:
            pass  # regenerated (tests/test_proto.py, run above, checks the stubs are protoc's output)
        else:  # a file with generated blocks: nothing changed outside them
            before = _git(copy, "show", f"HEAD:{path}")
            assert without_blocks(before) == without_blocks((copy / path).read_text()), f"{path} changed outside its blocks"
