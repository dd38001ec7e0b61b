"""The docs' game tables (docs/game_tables.py) are current, follow the registry, and the parameter
ranges they show are the ones the params dataclasses enforce (referee/params.py)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from referee.engine import BadParameters
from referee.games import games, spec
from referee.params import KEY, check_by_stage, check_each, param, params_of
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]




T = load_script("docs/game_tables.py")


def test_every_generated_block_of_the_docs_is_current() -> None:
    assert T.stale() == [], "stale generated blocks: run `python docs/game_tables.py --write`"
    assert T.main(["--check"]) == 0


def test_every_block_is_used_where_it_belongs() -> None:
    used = {name for path in T.documents() for name in T.blocks(path.read_text(encoding="utf-8"))}
    assert used == set(T.BLOCKS)
    assert "games-list" in T.blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    for g in games():
        assert "params" in T.blocks((ROOT / spec(g).rules_doc).read_text(encoding="utf-8")), spec(g).rules_doc


def test_a_stale_block_is_named_and_written_anew() -> None:
    path = ROOT / "docs" / "rules" / "referee.md"
    text = path.read_text(encoding="utf-8")
    name = T.blocks(text)[0]
    start = text.index(T.begin(name)) + len(T.begin(name)) + 1
    edited = text[:start] + "| a row typed by hand |\n" + text[start:]
    assert T.stale_blocks(edited, path) == [name]
    assert T.updated(edited, path) == text
    emptied = text[:start] + text[text.index(T.end(name)):]
    assert T.stale_blocks(emptied, path) == [name]
    assert T.updated(emptied, path) == text


def test_unknown_or_unclosed_or_misplaced_blocks_are_errors() -> None:
    here = ROOT / "docs" / "protocol.md"
    with pytest.raises(T.BlockError, match="unknown generated block 'no-such-table'"):
        T.updated(f"a\n{T.begin('no-such-table')}\n{T.end('no-such-table')}\n", here)
    with pytest.raises(T.BlockError, match="no line"):
        T.updated(f"a\n{T.begin('games-list')}\nb\n", here)
    with pytest.raises(T.BlockError, match="belongs in a game's rules document"):
        T.updated(f"{T.begin('params')}\n{T.end('params')}\n", here)


def test_the_tables_follow_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    readme = ROOT / "README.md"
    table = T.games_list(readme)
    for g in games():
        gs = spec(g)
        assert f"| `{gs.name}` | {gs.description} | {gs.min_seats} to {gs.max_seats} |" in table
        assert f"]({gs.rules_doc})" in table
        assert f"| {gs.default_budget_s:g} s |" in T.budgets(ROOT / "docs" / "rules" / "referee.md")
    # one game fewer in the registry: one row fewer everywhere, nothing else needed
    first, *rest = games()
    monkeypatch.setattr(T, "games", lambda: rest)
    fewer = T.games_list(readme)
    assert f"`{first}`" not in fewer and fewer.count("\n") == table.count("\n") - 1
    gone = (f"`{first}`", T.chapter(spec(first)).title, spec(first).description)
    for block in ("protocol-games", "chapters", "budgets", "default-actions", "replay-modules", "optional-fields"):
        text = T.BLOCKS[block](ROOT / "docs" / "x.md")
        assert all(any(w in text for w in (f"`{g}`", T.chapter(spec(g)).title, spec(g).description)) for g in rest), block
        assert not any(words in text for words in gone), block


def test_the_optional_fields_are_those_the_games_declare() -> None:
    from referee.games.conformance import conformance

    listed = T.optional_fields(ROOT / "docs" / "protocol.md")
    for g in games():
        line = next(item for item in listed.split("\n- ") if item.lstrip("- ").startswith(f"`{g}`"))
        fields = set(re.findall(r"`([A-Z]\w*\.\w+)`", line))
        assert fields == {f"{m}.{f}" for m, f in conformance(g).presence_fields}, g


def test_the_generator_names_no_game() -> None:
    source = (ROOT / "docs" / "game_tables.py").read_text(encoding="utf-8").lower()
    for g in games():
        assert g not in source and spec(g).proto_field not in source


def test_each_rules_chapter_is_read_from_its_heading() -> None:
    numbers = [T.chapter(spec(g)).number for g in games()]
    assert len(set(numbers)) == len(numbers)
    for g in games():
        first = (ROOT / spec(g).rules_doc).read_text(encoding="utf-8").splitlines()[0]
        assert first == f"# {T.chapter(spec(g)).number} {T.chapter(spec(g)).title}"


# -- the ranges, declared once --------------------------------------------------------------------

def test_every_parameter_declares_its_range_and_meaning() -> None:
    for g in games():
        fields = dataclasses.fields(spec(g).params_type)
        assert fields and all(KEY in f.metadata for f in fields), g
        for name, _, p in params_of(spec(g).params_type):
            assert p.meaning and not p.meaning.endswith(".") and p.sections.startswith("§"), (g, name)
            assert p.whole or (p.kind and p.valid), (g, name)
            assert p.whole == (p.low is not None or p.at_least is not None or p.high is not None), (g, name)


def test_the_declared_bounds_are_the_enforced_ones() -> None:
    """Each whole-number parameter takes its bounds and refuses one past them, with an error naming it."""
    checked = 0
    for g in games():
        params_type = spec(g).params_type
        base = {name: getattr(params_type(), name) for name, _, _ in params_of(params_type)}
        for name, default, p in params_of(params_type):
            if not p.whole:
                continue
            low = base[p.at_least] if p.at_least else p.low
            for ok in (low, p.high):
                if ok is not None:
                    params_type(**{**base, name: ok})
            for bad in ([low - 1] if low is not None else []) + ([p.high + 1] if p.high is not None else []) + ["1", True, 1.5]:
                with pytest.raises(BadParameters, match=rf"^{name}\b.* must be|^{name} must be"):
                    params_type(**{**base, name: bad})
                checked += 1
            if p.none is None:
                with pytest.raises(BadParameters, match=rf"^{name}\b"):
                    params_type(**{**base, name: None})
            else:
                params_type(**{**base, name: None})
        for name, _, p in params_of(params_type):
            if not p.whole:
                with pytest.raises(BadParameters, match=rf"^{name} must be"):
                    params_type(**{**base, name: "not a value"})
    assert checked > 10


@dataclasses.dataclass(frozen=True)
class _OneByOne:
    count: int = param(2, "a count", "§0.4", low=1, high=100_000, unit="turns")
    small: int = param(3, "a small count", "§0.4", low=1, high=10_000)
    cap: int | None = param(None, "a cap", "§0.4", low=0, high=10, none=": unlimited", note="0: never")

    def __post_init__(self) -> None:
        check_each(self)


@dataclasses.dataclass(frozen=True)
class _ByStage:
    card: str = param("6c", "a card", "§0.1", kind="a card", valid=lambda v: v in ("6c", "Ah"))
    least: int = param(10, "the least", "§0.4", low=1)
    most: int = param(100, "the most", "§0.4", at_least="least", high=100_000_000)

    def __post_init__(self) -> None:
        check_by_stage(self)


@pytest.mark.parametrize(("make", "error"), [
    (lambda: _OneByOne(count=0), "count must be a whole number of turns from 1 to 100,000, got 0"),
    (lambda: _OneByOne(count=True), "count must be a whole number of turns from 1 to 100,000, got True"),
    (lambda: _OneByOne(small=10_001), "small must be a whole number from 1 to 10000, got 10001"),
    (lambda: _OneByOne(count=0, small=0), "count must be a whole number of turns from 1 to 100,000, got 0"),
    (lambda: _OneByOne(cap=11), "cap must be a whole number from 0 to 10 (or None: unlimited), got 11"),
    (lambda: _ByStage(card="Jk"), "card must be a card, not 'Jk'"),
    (lambda: _ByStage(least=0, most="x"), "most must be an integer, not 'x'"),
    (lambda: _ByStage(least=0), "least must be at least 1, not 0"),
    (lambda: _ByStage(most=5), "most (5) must be at least least (10)"),
    (lambda: _ByStage(most=100_000_001), "most must be at most 100,000,000, not 100000001"),
])
def test_the_errors_state_the_declared_range(make, error) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BadParameters) as raised:
        make()
    assert str(raised.value) == error
    _OneByOne(cap=None)


def test_the_allowed_values_in_words() -> None:
    allowed = {name: p.allowed() for cls in (_OneByOne, _ByStage) for name, _, p in params_of(cls)}
    assert allowed == {"count": "1 to 100,000", "small": "1 to 10,000", "cap": "0 to 10, or `None`: unlimited (0: never)",
                       "card": "a card", "least": "1 or more", "most": "`least` to 100,000,000"}
