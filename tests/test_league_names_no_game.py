"""No file in ``league/`` names a game: the league reaches what is game-specific (a luck estimator, an
informed-play scorer, the score direction) only through the registry's ``GameSpec``, so a new game's
audit scorers are declared in its own folder and the league needs no edit.

Three checks over every registered game (``referee.games.games()``), so a new game is covered too:

- no module of ``league`` imports a game's package (``referee.games.<game>`` or a module inside it),
  directly, imports inside functions included (grimp's graph, as import-linter builds it);
- no ``.py`` file under ``league/`` names a game in its code (the rule of
  ``tests/test_games_follow_registry.py``: a string holding a game's name, a game's module name);
- nor anywhere in its text, docstrings, comments and the package READMEs included, by its name
  (``svara``) or its name read as words (``Slippery Sam``), whatever the case.
"""

from __future__ import annotations

import re
from pathlib import Path

from referee.games import games, spec
from tests.test_games_follow_registry import named_games

LEAGUE = Path(__file__).resolve().parents[1] / "league"


def _game_packages() -> set[str]:
    return {f"referee.games.{spec(g).proto_field}" for g in games()}


def league_imports_of_games() -> list[str]:
    """``"<league module> -> <game module>"`` for every import of a game's package by a module of ``league``."""
    import grimp

    graph = grimp.build_graph("league", "referee", cache_dir=None)
    packages = _game_packages()
    out = []
    for module in sorted(m for m in graph.modules if m.split(".")[0] == "league"):
        for other in sorted(graph.find_modules_directly_imported_by(module)):
            if any(other == p or other.startswith(p + ".") for p in packages):
                out.append(f"{module} -> {other}")
    return out


def _any_mention() -> re.Pattern[str]:
    """A game's name or module, or its name with spaces for hyphens and underscores, as a word, any case."""
    words = set()
    for g in games():
        field = spec(g).proto_field
        words |= {g, field, g.replace("-", " "), f"{field}_pb2"}
    alternatives = "|".join(re.escape(w).replace(r"\ ", r"[\s_-]+") for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])", re.IGNORECASE)


def mentions(text: str) -> set[str]:
    """The games (as written) that ``text`` mentions anywhere."""
    return {m.group(0) for m in _any_mention().finditer(text)}


def test_no_league_module_imports_a_game() -> None:
    found = league_imports_of_games()
    assert not found, ("league imports a game's package; declare what it needs in the game's GameSpec "
                       "(referee/games/__init__.py) and read it from there: " + "; ".join(found))


def test_no_league_file_names_a_game() -> None:
    naming = {}
    for path in sorted([*LEAGUE.rglob("*.py"), *LEAGUE.rglob("*.md")]):
        text = path.read_text()
        found = mentions(text) | (named_games(text, ".py") if path.suffix == ".py" else set())
        if found:
            naming[path.relative_to(LEAGUE.parent).as_posix()] = sorted(found)
    assert not naming, ("these league files name a game; what is game-specific lives in referee/games/<game>/ and "
                        f"reaches the league through its GameSpec: {naming}")


def test_the_scan_finds_what_it_should() -> None:
    """The checks can fail: a name in a docstring, a comment or prose, a module name, the name as words."""
    game = games()[0]
    field = spec(game).proto_field
    words = game.replace("-", " ").title()
    assert mentions(f'"""Scores of {game}."""\n') == {game}
    assert mentions(f"# {words} only\n") == {words}
    assert mentions(f"from referee.games.{field}.audit import informed\n") == {field}
    assert mentions(f"The {game}_event kind\n") == set()  # another word, not the game
    assert mentions("the informed-play scorer of a game (GameSpec.informed)\n") == set()
