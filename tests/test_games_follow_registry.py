"""No test outside a game's folder names a game: the cross-cutting tests run over ``referee.games.games()``
and read what they need of a game from its declarations (its ``GameSpec`` and its ``conformance`` module),
so a new game is covered without editing them.

A file "names a game" when, outside comments and docstrings, a string holds a registered game's name as a
word (``"svara"``, ``"--game rummy"``), or a name is a game's module (``slippery_sam``, ``svara_pb2``); in a
``.js`` file, when the text holds one. Words that are also field terms (a svara, the tie of rules §3) in
comments and docstrings do not count. ``NAMING`` lists the files that still name a game, each with why: it
may only shrink (a file listed that names no game any more fails, so the list is kept exact).
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

from referee.games import games, spec

TESTS = Path(__file__).resolve().parent

#: Files under tests/ that still name a game, and why. Integration tests that need *some* real game to run a
#: season, a worker or a page use a concrete one; moving each to ``games()[0]`` or a game's folder is the
#: next step. Only shrink this list.
_SEASONS = "integration test: plays a season or a game of one concrete game to exercise the platform"
NAMING: dict[str, str] = {
    "dashboard/test_audit_column.py": _SEASONS,
    "dashboard/test_bot_filters.py": _SEASONS,
    "dashboard/test_browser_replay.py": "per-game checks of the replay page's drawing",
    "dashboard/test_browser_replay_marks.py": _SEASONS,
    "dashboard/test_ladder.py": _SEASONS,
    "dashboard/test_luck_column.py": _SEASONS,
    "dashboard/test_names_and_counts.py": _SEASONS,
    "dashboard/test_pages.py": _SEASONS,
    "dashboard/test_verify_api.py": _SEASONS,
    "games/test_registry.py": "the registry itself: the protocol's game names and their packages",
    "ladder/test_cli_ladder.py": _SEASONS,
    "ladder/test_compare.py": _SEASONS,
    "ladder/test_incremental.py": _SEASONS,
    "ladder/test_incremental_extras.py": _SEASONS,
    "ladder/test_runner.py": _SEASONS,
    "ladder_world.py": _SEASONS,
    "store/conftest.py": _SEASONS,
    "store/test_availability.py": _SEASONS,
    "store/test_ladders.py": _SEASONS,
    "store/test_migrations.py": _SEASONS,
    "store/test_ratings.py": _SEASONS,
    "store/test_repo.py": _SEASONS,
    "store/test_sequential.py": _SEASONS,
    "test_audit.py": _SEASONS,
    "test_bench_fair_play.py": _SEASONS,
    "test_cli.py": _SEASONS,
    "test_cli_interrupt.py": _SEASONS,
    "test_driver.py": _SEASONS,
    "test_fair_deals.py": _SEASONS,
    "test_live_view.py": _SEASONS,
    "test_luck.py": _SEASONS,
    "test_quiet_output.py": _SEASONS,
    "test_readme.py": "the README's own commands, run as written",
    "test_recheck.py": _SEASONS,
    "test_rules_docs.py": "the rules documents of each game (docs/rules/)",
    "test_season_cancel.py": _SEASONS,
    "test_verify_tampering.py": _SEASONS,
    "workers/conftest.py": _SEASONS,
    "workers/test_bots_down.py": _SEASONS,
    "workers/test_busy_retry_clock.py": _SEASONS,
    "workers/test_capacity.py": _SEASONS,
    "workers/test_celery_ladder.py": _SEASONS,
    "workers/test_claims.py": _SEASONS,
    "workers/test_cli_params.py": _SEASONS,
    "workers/test_identity.py": _SEASONS,
    "workers/test_ladder_compare_cli.py": _SEASONS,
    "workers/test_leases.py": _SEASONS,
    "workers/test_live.py": _SEASONS,
    "workers/test_sequential_season.py": _SEASONS,
    "workers/test_time_limits.py": _SEASONS,
    "workers/test_visibility.py": _SEASONS,
}


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
    naming = naming_files()
    new = {path: sorted(found) for path, found in naming.items() if path not in NAMING}
    assert not new, ("these tests name a game; run them over referee.games.games() and read the game's "
                     f"conformance declaration, or move them to the game's tests/ folder: {new}")
    stale = sorted(set(NAMING) - set(naming))
    assert not stale, f"these files name no game any more: remove them from NAMING: {stale}"


def test_the_scan_finds_what_it_should() -> None:
    game = games()[0]
    field = spec(game).proto_field
    assert named_games(f'play("{game}")\n', ".py") == {game}
    assert named_games(f'args = ["--game", "{game}"]\n', ".py") == {game}
    assert named_games(f"from cardarena.v1 import {field}_pb2\n", ".py") == {f"{field}_pb2"}
    assert named_games(f'def f():\n    """A {game} docstring."""\n    # a {game} comment\n', ".py") == set()
    assert named_games(f'"{game}_event"\n', ".py") == set()  # an event kind, not the game
    assert named_games(f"const g = '{game}';\n", ".js") == {game}
