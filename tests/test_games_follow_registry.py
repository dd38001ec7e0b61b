"""No test outside a game's folder names a game: the cross-cutting tests run over ``referee.games.games()``
and read what they need of a game from its declarations (its ``GameSpec`` and its ``conformance`` module),
so a new game is covered without editing them.

A file "names a game" when, outside comments and docstrings, a string holds a registered game's name as a
word (``"svara"``, ``"--game rummy"``), or a name is a game's module (``slippery_sam``, ``svara_pb2``); in a
``.js`` file, when the text holds one. Words that are also field terms (a svara, the tie of rules §3) in
comments and docstrings do not count. No file under ``tests/`` may name one: a test that needs *a* game
takes it from ``tests/a_game.py``.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from referee.games import games, spec

TESTS = Path(__file__).resolve().parent

def _words() -> tuple[list[str], set[str]]:
    """The registered games' names (as words in strings) and module names (``<field>``, ``<field>_pb2``)."""
    names = games()
    modules = {spec(g).proto_field for g in names}
    return names, modules | {f"{m}_pb2" for m in modules} | {f"{m}_pb2_grpc" for m in modules}


def named_games(text: str, suffix: str) -> set[str]:
    """The game names and game modules ``text`` (a ``.py`` or ``.js`` file) names, by the module docstring's rule."""
    names, modules = _words()
    word = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted({*names, *modules}))) + r")(?![\w-])")
    if suffix == ".js":
        return set(word.findall(text))
    found: set[str] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME and token.string in modules:
            found.add(token.string)
        elif token.type in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)):
            if not token.string.lstrip("rbfuRBFU").startswith(('"""', "'''")):  # docstrings: field terms allowed
                found.update(word.findall(token.string))
    return found


def naming_files(root: Path = TESTS) -> dict[str, set[str]]:
    """Each ``.py``/``.js`` file under ``root`` that names a game -> what it names (paths relative to ``root``)."""
    out = {}
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.js")]):
        found = named_games(path.read_text(), path.suffix)
        if found:
            out[path.relative_to(root).as_posix()] = found
    return out


def test_no_test_outside_a_games_folder_names_a_game() -> None:
    naming = {path: sorted(found) for path, found in naming_files().items()}
    assert not naming, ("these tests name a game; take it from tests/a_game.py or run them over "
                        "referee.games.games(), reading the game's conformance declaration, or move them to the "
                        f"game's tests/ folder: {naming}")


def test_the_scan_finds_what_it_should() -> None:
    game = games()[0]
    field = spec(game).proto_field
    assert named_games(f'play("{game}")\n', ".py") == {game}
    assert named_games(f'args = ["--game", "{game}"]\n', ".py") == {game}
    assert named_games(f"from cardarena.v1 import {field}_pb2\n", ".py") == {f"{field}_pb2"}
    assert named_games(f'def f():\n    """A {game} docstring."""\n    # a {game} comment\n', ".py") == set()
    assert named_games(f'"{game}_event"\n', ".py") == set()  # an event kind, not the game
    assert named_games(f"const g = '{game}';\n", ".js") == {game}
