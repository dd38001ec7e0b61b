"""Adding a game is what docs/adding-a-game.md says: its steps, followed in a copy of the repository, make a
game from the template that the platform plays, and touch nothing outside the game's folder but the files
the checklist names. It adds two games: the template's, counted in tokens, and one scored in points where more
is better (the template's game changed as the checklist's section "Points, not tokens" says).

The copy holds the working tree's tracked (and untracked, not ignored) files, in a git repository of its own
whose first commit is the state before the steps; Python runs there with the copy first on its path, so
the copy's modules are the ones imported (checked), not those of the editable install.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cardarena.v1 import bot_pb2
from referee.games import games, scaffold, spec
from referee.games.conformance import Conformance

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "adding-a-game.md"
NAME, FIELD = "toy-cards", "toy_cards"
#: The second game the test adds: one scored in points where more is better, made from the template by the
#: checklist's section "Points, not tokens" (:data:`POINTS_EDITS`).
POINTS_NAME, POINTS_FIELD = "toy-points", "toy_points"
GAME_DIRS = (f"referee/games/{FIELD}/", f"referee/games/{POINTS_FIELD}/")
BOT_PROTO = "proto/cardarena/v1/bot.proto"

#: The generators of the checklist's step 6 (files or blocks written from the registry), as it gives them.
GENERATORS: list[str] = ["python docs/protocol_examples.py", "python docs/game_tables.py --write"]

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

#: The tests run in the copy once the game is made: the game's own (its folder) and these, over every game.
TESTS_OVER_EVERY_GAME = ["tests/games", "tests/test_proto.py", "tests/test_rules_docs.py",
                         "tests/test_games_follow_registry.py", "tests/test_game_tables.py", "tests/test_examples.py",
                         "tests/test_fault_details.py", "tests/test_time_budget.py", "tests/test_chance.py",
                         "tests/test_record_json.py", "tests/store/test_replay_format.py",
                         "tests/dashboard/test_replay_state.py", "tests/dashboard/test_browser_replay.py",
                         "tests/dashboard/test_browser_replay_marks.py"]

#: A block a generator writes: from a line ``<!-- ... written by ... -->`` (docs/protocol_examples.py) or
#: ``<!-- begin generated ... -->`` (docs/game_tables.py) to the next ``<!-- end ... -->``.
_BLOCK = re.compile(r"^<!--[^\n]*(?:written by|begin generated)[^\n]*-->$.*?^<!-- end[^\n]*-->$",
                    re.MULTILINE | re.DOTALL)


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


def cases_of(node_ids: list[str], names: list[str]) -> list[str]:
    """The test ids among ``node_ids`` drawn for one of the games ``names``: a game's name is a whole part of the
    id's parameters (``test_x[svara]``, ``test_y[unary-toy-cards]``)."""
    part = "|".join(re.escape(name) for name in names)
    return [i for i in node_ids if re.search(rf"\[(?:[^\[\]]*-)?(?:{part})(?:-[^\[\]]*)?\]$", i)]


def test_the_cases_of_a_game_are_found_by_its_whole_name() -> None:
    ids = ["t.py::a[whist]", "t.py::b[unary-whist]", "t.py::c[whist-2]", "t.py::d[toy-cards]", "t.py::e",
           "t.py::f[whists]", "t.py::g[whist-unary-toy-cards]"]
    assert cases_of(ids, ["whist"]) == ["t.py::a[whist]", "t.py::b[unary-whist]", "t.py::c[whist-2]",
                                        "t.py::g[whist-unary-toy-cards]"]
    assert cases_of(ids, ["toy-cards"]) == ["t.py::d[toy-cards]", "t.py::g[whist-unary-toy-cards]"]


def _git(copy: Path, *args: str) -> str:
    config = ["-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", *config, *args], cwd=copy, capture_output=True, text=True, check=True).stdout


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


def test_a_name_gives_every_spelling_and_bad_names_are_refused() -> None:
    n = scaffold.names("high-card2", None, 9)
    assert (n.name, n.field, n.camel, n.upper, n.title, n.chapter) == ("high-card2", "high_card2", "HighCard2",
                                                                       "HIGH_CARD2", "High card2", 9)
    assert scaffold.names("go", "Go the card game", 1).title == "Go the card game"
    assert scaffold.names("oh-toy", "Oh Toy!", 1).title == "Oh Toy!"  # a title may end as a game's name does
    for bad in ("High-card", "high_card", "2-high", "high-2", "high--card", "", "pass", "conformance", "x" * 25):
        with pytest.raises(scaffold.ScaffoldError):
            scaffold.names(bad, None, 1)
    with pytest.raises(scaffold.ScaffoldError, match="not a title"):
        scaffold.names("go", 'Go" + x', 1)


def test_the_protocol_lines_take_the_article_of_the_title() -> None:
    def view_line(title: str) -> str:
        return scaffold.protocol_lines(scaffold.names("oh-toy", title, 1), 7, 17)[2][1]

    assert view_line("Oh Toy!") == "OhToyView oh_toy = 17;  // an Oh Toy! decision"
    assert scaffold.protocol_lines(scaffold.names("oh-toy", None, 1), 7, 17)[3][1] == (
        "OhToyAction oh_toy = 17;  // answers an oh_toy view")
    assert view_line("High card").endswith("// a High card decision")
    assert [scaffold.article(t) for t in ("Euchre", "Uno", "One-card", "Umbrella", "8-ball", "Hearts")] == [
        "a", "a", "a", "an", "an", "a"]


def test_the_scaffold_takes_the_next_free_numbers_and_refuses_a_taken_game() -> None:
    enum_value, member = scaffold.next_numbers(ROOT)
    assert enum_value == max(bot_pb2.Game.values()) + 1
    assert member == max(f.number for f in bot_pb2.ActRequest.DESCRIPTOR.oneofs_by_name["view"].fields) + 1
    assert scaffold.next_chapter(ROOT) > max(int(m) for m in re.findall(r"^\| §(\d+) ", (ROOT / "docs/rules/README.md").read_text(), re.M))
    taken = spec(games()[0])
    with pytest.raises(scaffold.ScaffoldError, match="already a game"):
        scaffold.plan(ROOT, scaffold.names(taken.name, None, 99))


def test_the_template_fills_every_placeholder_and_writes_only_new_files(tmp_path: Path) -> None:
    n = scaffold.names("high-card", None, 99)
    files = scaffold.plan(ROOT, n)
    assert sorted(p.as_posix() for p in files if not p.as_posix().startswith("referee/games/high_card/")) == [
        "docs/rules/high-card.md", "proto/cardarena/v1/high_card.proto"]
    assert {"__init__.py", "rules.py", "codec.py", "bots.py", "replay.js", "examples.py", "conformance.py"} <= {
        p.name for p in files if p.parent.as_posix() == "referee/games/high_card"}
    assert not [p for p, text in files.items() if "{{" in text or "}}" in text], "a placeholder left"
    assert "# 99 High card" in files[Path("docs/rules/high-card.md")]
    lines = [line for _, line in scaffold.protocol_lines(n, 7, 17)]
    assert lines == ['import "cardarena/v1/high_card.proto";', "GAME_HIGH_CARD = 7;  // High card",
                     "HighCardView high_card = 17;  // a High card decision",
                     "HighCardAction high_card = 17;  // answers a high_card view"]
    # the lines go where they are printed to go: the enum and the oneofs' last members, after the imports
    text = insert_protocol_lines((ROOT / BOT_PROTO).read_text(), lines)
    assert re.search(r"GAME_HIGH_CARD = 7;[^\n]*\n}", text) and text.count("high_card = 17;") == 2
    (tmp_path / "docs/rules").mkdir(parents=True)
    (tmp_path / "docs/rules/high-card.md").write_text("")
    with pytest.raises(scaffold.ScaffoldError, match="exist already"):
        _plan_over(tmp_path, n)


def _plan_over(root: Path, n: scaffold.Names) -> None:
    """The scaffold's plan for a root whose template and protocol are this checkout's, some files existing."""
    for part in (scaffold.TEMPLATE, Path(BOT_PROTO).parent):
        shutil.copytree(ROOT / part, root / part, dirs_exist_ok=True)
    scaffold.plan(root, n)


def leftover_grep(name: str) -> str:
    """The command of step 1 that finds what is left of the template's wording, as the checklist gives it, for
    game ``name``."""
    text = DOC.read_text().split("this finds what is left of it", 1)[1]
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    command = " ".join(line.strip().removesuffix("\\").strip() for line in block.splitlines())
    assert command.startswith("grep "), command
    return command.replace("<name>", name).replace("<field>", name.replace("-", "_"))


@pytest.mark.parametrize("game", [g for g in games() if spec(g).score_unit == "points"])
def test_the_leftover_grep_finds_nothing_in_a_game_scored_in_points(game: str) -> None:
    """A game scored in points keeps none of the template's words (it names the tables' ``pot`` as every game
    does, in its replay module and its engine table): no hit."""
    if shutil.which("grep") is None:
        pytest.skip("grep is not installed")
    clean = subprocess.run(["sh", "-c", leftover_grep(game)], cwd=ROOT, capture_output=True, text=True)
    assert (clean.returncode, clean.stdout, clean.stderr) == (1, "", "")


def test_the_leftover_grep_finds_the_template_in_a_fresh_scaffold(tmp_path: Path) -> None:
    """A fresh scaffold: hits, its protocol's ``pot`` among them."""
    if shutil.which("grep") is None:
        pytest.skip("grep is not installed")
    _plan_over(tmp_path, scaffold.names("high-card", None, 99))
    scaffold.scaffold("high-card", root=tmp_path)
    fresh = subprocess.run(["sh", "-c", leftover_grep("high-card")], cwd=tmp_path, capture_output=True, text=True)
    assert fresh.returncode == 0 and re.search(r"high_card\.proto:\d+:\s*uint32 pot = ", fresh.stdout), fresh.stdout


def test_the_block_rule_sees_what_is_outside_a_block() -> None:
    for opening, closing in (("<!-- x: written by g.py -->", "<!-- end of x -->"),
                             ("<!-- begin generated games:x (python docs/game_tables.py --write) -->",
                              "<!-- end generated games:x -->")):
        before = f"a\n{opening}\nold\n{closing}\nb\n"
        assert without_blocks(before) == without_blocks(before.replace("old", "new\nlines"))
        assert without_blocks(before) != without_blocks(before.replace("b\n", "c\n"))
        assert without_blocks(before) != without_blocks(before.replace("a\n", "a\nrow\n"))


def test_every_command_is_in_the_checklist() -> None:
    text = DOC.read_text()
    missing = [c for c in COMMANDS if c not in text]
    assert not missing, f"docs/adding-a-game.md does not give these commands: {missing}"
    make = ROOT.joinpath("Makefile").read_text().split("\nproto:", 1)[1].split("\n\n", 1)[0]
    assert "proto/generate.py" in make and "proto/wire_lock.py" in make  # `make proto` is the same two commands
    step8 = text.split("8. **", 1)[1].split("\n9. ", 1)[0].split("\n## ", 1)[0]
    unlisted = [path for path in TESTS_OVER_EVERY_GAME if path not in step8]
    assert not unlisted, f"step 8 of docs/adding-a-game.md does not run these tests over every game: {unlisted}"
    # the tests that read a game's replay declarations (the conformance section's replay_* fields) are among them
    fields = "|".join(f.name for f in dataclasses.fields(Conformance) if f.name.startswith("replay_"))
    readers = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "tests").rglob("test_*.py")
                     if re.search(rf"\.(?:{fields})\b", path.read_text(encoding="utf-8")))
    assert readers and not [path for path in readers if path not in TESTS_OVER_EVERY_GAME], readers


#: The template's game made a game scored in points where more is better, as the checklist's section "Points, not
#: tokens" says: (file of the game's folder, text, replacement). The winner of a hand scores a point besides the
#: pot, which nobody pays: the figures grow, so the game declares ``cards-add-up`` and keeps the table in rummy's
#: words (no discard pile or melds; the stock is the cards not dealt). The game's own tests follow the rule.
POINTS_EDITS: list[tuple[str, str, str]] = [
    ("__init__.py", 'score_unit="tokens",', 'score_unit="points",'),
    ("__init__.py", 'description="Toy points, a one-card betting game",',
     'description="Toy points, a one-card game scored in points",'),
    ("rules.py", "ANTE, BET = 1, 1", "ANTE, BET = 1, 1\n#: The point the winner of a hand scores besides the pot.\nBONUS = 1"),
    ("rules.py", "amounts = [share + (1 if i < odd else 0) for i in range(len(winners))]",
     "amounts = [share + (1 if i < odd else 0) + BONUS for i in range(len(winners))]"),
    ("replay.js", 'unit: "tokens",', 'unit: "points",'),
    ("replay.js", "    events: {\n",
     "    start(t) {  // the table as the cards check reads it: no discard pile or melds,"
     " the stock the cards not dealt\n"
     "      t.melds = {}; t.pile = []; t.stock = null; t.deckSize = 52;\n"
     "    },\n"
     "    events: {\n"
     "      game_over(t, d) {  // every hand goes in, as the engine's do: the cards are back in the stock\n"
     "        RS.COMMON.game_over(t, d); t.stock = t.deckSize;\n"
     "      },\n"),
    ("replay.js", "t.dealer = d.dealer; RS.clearHands(t); t.shown = {}; t.folded = {};",
     "t.dealer = d.dealer; RS.clearHands(t); t.shown = {}; t.folded = {};\n"
     "        t.stock = t.deckSize - (d.players || []).length;"),
    ("conformance.py", 'return {"hands": [list(h) for h in state.hands], "scores": list(state.tokens), "pot": state.pot}',
     'return {"hands": [list(h) for h in state.hands], "scores": list(state.tokens), "pot": state.pot, "pile": [],\n'
     '            "stock": 52 - sum(map(len, state.hands)) if state.hand_number else None, "melds": {}}'),
    ("conformance.py", "    engine_table=engine_table,\n",
     '    engine_table=engine_table,\n    replay_checks=frozenset({"cards-add-up"}),\n'),
    ("conformance.py", '("RS.pay(t, d.seat, d.amount);", "", "tokens add up"),',
     '("t.stock = t.deckSize - (d.players || []).length;", "t.stock = t.deckSize;", "cards on the table add up"),'),
    # the game's own tests: the winner's point
    ("tests/test_toy_points_rules.py", "state.tokens == [8, 13, 9]", "state.tokens == [8, 14, 9]"),
    ("tests/test_toy_points_rules.py", '"amounts": [3, 2]}', '"amounts": [4, 3]}'),
    ("tests/test_toy_points_rules.py", "state.tokens == [9, 11, 10]", "state.tokens == [9, 12, 11]"),
    ("tests/test_toy_points_rules.py", "state.tokens == [21, 19]", "state.tokens == [22, 19]"),
    ("tests/test_toy_points_rules.py", "state.tokens == [1, 5]", "state.tokens == [1, 6]"),
    ("tests/test_toy_points_rules.py", "score_changes(state) == (-2, 2)", "score_changes(state) == (-2, 3)"),
    ("tests/test_toy_points_rules.py", "sum(state.tokens) + state.pot == 6 * seats",
     "sum(state.tokens) + state.pot >= 6 * seats"),
]


def make_points_game(folder: Path) -> None:
    """Apply :data:`POINTS_EDITS` to the game's folder; each text is found exactly once."""
    for name, old, new in POINTS_EDITS:
        path = folder / name
        text = path.read_text()
        assert text.count(old) == 1, f"{name}: {old!r} found {text.count(old)} times"
        path.write_text(text.replace(old, new))


#: What tests/test_examples.py says when it skips a game an example does not declare.
NOT_DECLARED = re.compile(r"does not declare ([a-z0-9-]+) \(teaching the examples a game is optional\)")


@pytest.mark.slow
def test_games_made_by_the_checklist_are_played_and_touch_only_their_files(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the copy's changes are found with git")
    copy = tmp_path / "repo"
    _copy_tree(copy)
    _git(copy, "init", "-q")
    _git(copy, "add", "-A")
    _git(copy, "commit", "-q", "-m", "before the games")
    # the copy's runs write Python's compiled modules and use them again (where PYTHONDONTWRITEBYTECODE is set, each
    # of its 20 runs compiled the whole tree again)
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
           "PYTHONPATH": os.pathsep.join([str(copy), str(copy / "proto")])}

    def run(*args: str) -> str:
        """``python ARGS`` (this interpreter) in the copy; its output."""
        # a bound against a hang, not a speed target: the tests over every game take 4 to 5 minutes here when the
        # suite's other process shares the machine's 2 cores (one CI run went past an earlier 300 s)
        done = subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    def follow(command: str, name: str = NAME) -> str:
        """One of the checklist's commands (:data:`COMMANDS`), for game ``name``."""
        words = command.replace("<name>", name).replace("<field>", name.replace("-", "_")).split()
        assert words[0] == "python", command
        return run(*words[1:])

    where = run("-c", "import cardarena, referee.games; print(cardarena.__file__); print(referee.games.__file__)")
    assert all(Path(line).is_relative_to(copy) for line in where.split()), where

    # 1. the template, and what it says to add by hand: the protocol lines, nothing else; 2. those lines, in
    # bot.proto (the only edit by hand outside the game's folder and its new files); for each game in turn
    bot = copy / BOT_PROTO
    proto_lines: list[str] = []
    for name in (NAME, POINTS_NAME):
        printed = follow(COMMANDS[0], name)
        lines = re.findall(r"^    (.+)$", printed, re.MULTILINE)
        field = name.replace("-", "_")
        assert len(lines) == 4 and lines[0] == f'import "cardarena/v1/{field}.proto";', printed
        assert not re.search(r"^ *\|", printed, re.MULTILINE), f"the scaffold asks for a table row by hand:\n{printed}"
        bot.write_text(insert_protocol_lines(bot.read_text(), lines))
        proto_lines += lines
    # the second game scored in points, more is better (section "Points, not tokens")
    make_points_game(copy / GAME_DIRS[1])
    # 3. make proto; 6. the generators; 7. the golden playthroughs
    for command in COMMANDS[1:3] + GENERATORS:
        follow(command)
    for command in COMMANDS[3 + len(GENERATORS):-1]:
        for name in (NAME, POINTS_NAME):
            follow(command, name)
    _git(copy, "add", "-A")  # what the maintainer commits (the rules tests read the tracked files)

    # the registry lists the games, the harness passed on them (above); their tests and the tests over every game pass
    assert run("-c", "from referee.games import games; print(*games()[-2:])").split() == [NAME, POINTS_NAME]
    assert run("-c", "from referee.games import spec; s = spec('toy-points'); print(s.score_unit, s.higher_score_is_better)"
               ).split() == ["points", "True"]
    for name in (NAME, POINTS_NAME):
        follow(COMMANDS[-1], name)
    # the cases of the games that were there before are left out: their files are unchanged (checked below) and the
    # suite runs the same cases on them; every case of the new games runs, and every test not drawn per game
    listed = run("-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider", *TESTS_OVER_EVERY_GAME)
    before = cases_of(listed.splitlines(), games())
    assert before and cases_of(listed.splitlines(), [NAME, POINTS_NAME]), listed[-3000:]
    tested = run("-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *TESTS_OVER_EVERY_GAME,
                 *(f"--deselect={case}" for case in before))
    assert f"{len(before)} deselected" in tested, tested[-3000:]
    skipped = [line for line in tested.splitlines() if line.startswith("SKIPPED")]
    # the examples skip the new games, which they do not declare (as any other game they were not taught: teaching
    # them is optional); nothing else is skipped but for a missing tool
    not_declared = {m[1] for line in skipped for m in [NOT_DECLARED.search(line)] if m}
    assert {NAME, POINTS_NAME} <= not_declared, tested[-3000:]
    assert not_declared <= set(run("-c", "from referee.games import games; print(*games())").split()), not_declared
    assert all(NOT_DECLARED.search(line) or "is not installed" in line for line in skipped), skipped
    run("docs/game_tables.py", "--check")
    chapters = (copy / "docs" / "rules" / "README.md").read_text()
    for name in (NAME, POINTS_NAME):
        assert f"[`{name}.md`]({name}.md)" in chapters and f"(`{name}`)" in chapters, "the chapter table lacks the game"
        assert f"`{name}`" in (copy / "README.md").read_text(), "the README's games table lacks the game"

    # what changed outside the games' folders: only what the checklist names
    status = dict(line.split("\t", 1)[::-1] for line in _git(copy, "diff", "--cached", "--name-status", "HEAD").splitlines())
    outside = {path: kind for path, kind in status.items() if not path.startswith(GAME_DIRS)}
    added = set()
    for name in (NAME, POINTS_NAME):
        field = name.replace("-", "_")
        added |= {f"proto/cardarena/v1/{field}.proto", f"docs/rules/{name}.md",
                  *(f"proto/cardarena/v1/{field}{suffix}" for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py"))}
    assert {p for p, kind in outside.items() if kind == "A"} == added
    modified = {p for p, kind in outside.items() if kind == "M"}
    generated = {"docs/protocol.md", "docs/rules/README.md", "README.md"}  # the games' tables, the chapter table
    assert set(outside.values()) == {"A", "M"} and {BOT_PROTO, "proto/wire.lock", *generated} <= modified

    def diff(path: str) -> tuple[list[str], list[str]]:
        """The lines added to and removed from ``path``."""
        lines = _git(copy, "diff", "--cached", "-U0", "HEAD", "--", path).splitlines()[4:]
        return ([x[1:] for x in lines if x.startswith("+")], [x[1:] for x in lines if x.startswith("-")])

    ours = rf"{FIELD}|{FIELD.upper()}|ToyCards|{POINTS_FIELD}|{POINTS_FIELD.upper()}|ToyPoints"
    for path in sorted(modified):
        added_lines, removed = diff(path)
        if path == BOT_PROTO:  # exactly the protocol lines, four a game
            assert removed == [] and sorted(line.strip() for line in added_lines) == sorted(proto_lines), (added_lines, removed)
        elif path == "proto/wire.lock":  # appended: the new games' fields and values
            assert removed == [] and added_lines and all(re.search(ours, x) for x in added_lines), added_lines
        elif path in {"proto/cardarena/v1/bot_pb2.py", "proto/cardarena/v1/bot_pb2.pyi"}:
            pass  # regenerated (tests/test_proto.py, run above, checks the stubs are protoc's output)
        else:  # a file with generated blocks: nothing changed outside them
            before = _git(copy, "show", f"HEAD:{path}")
            assert without_blocks(before) == without_blocks((copy / path).read_text()), f"{path} changed outside its blocks"
