"""The conformance harness (referee.conformance) over every registered game, and its command."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from referee.games import games
from referee import conformance as harness
from referee.games.conformance import Conformance

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("check", harness.CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("game", games())
def test_every_game_passes_every_check(game: str, check) -> None:  # type: ignore[no-untyped-def]
    check(game)


def test_the_check_command_passes_and_names_a_stale_playthrough(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = subprocess.run([sys.executable, "-m", "referee.conformance", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"{len(games())} game(s), 0 failure(s)"
    # a playthrough whose answer differs from the play now is named, line and both texts
    game = games()[0]
    stale = tmp_path / "playthrough.txt"
    lines = harness.playthrough(game).splitlines()
    lines[5] = lines[5].replace(" answer ", " answer {\"other\":1} was ")
    stale.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(harness, "playthrough_path", lambda g: stale)
    with pytest.raises(harness.ConformanceError, match=f"{game}: playthrough line 6 differs"):
        harness.check_playthrough(game)
    stale.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(harness.ConformanceError, match="differs|lines stored"):
        harness.check_playthrough(game)


def test_a_bad_declaration_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    game = games()[0]
    declared = harness.conformance(game)
    monkeypatch.setattr(harness, "conformance", lambda g: Conformance(strong_bot="nobody"))
    with pytest.raises(harness.ConformanceError, match=f"{game}: strong_bot 'nobody' is not one of its bots"):
        harness.check_declaration(game)
    monkeypatch.setattr(harness, "conformance", lambda g: Conformance(declared.strong_bot))
    with pytest.raises(harness.ConformanceError, match="declares no wire_edge_views, replay_cases, replay_events, engine_table"):
        harness.check_declaration(game)
    monkeypatch.setattr(harness, "conformance", lambda g: dataclasses.replace(declared, playthrough_seats=99))
    with pytest.raises(harness.ConformanceError, match="playthrough_seats 99 outside"):
        harness.check_declaration(game)


def test_the_playthrough_prints_an_answer_of_0_as_0() -> None:
    """A bid of 0 is ``"bid":0``, not ``{}``; protobuf's other defaults (false, empty, unspecified) stay out."""
    assert harness.answer_text({"g": {"bid": 0}}) == '{"g":{"bid":0}}'
    assert harness.answer_text({"g": {"amount": 0, "call": False, "discard": "", "melds": [], "lay_offs": [{"meld": 0}],
                                      "move": "G_MOVE_UNSPECIFIED", "draw": "G_DRAW_STOCK"}}) == (
        '{"g":{"amount":0,"draw":"G_DRAW_STOCK","lay_offs":[{"meld":0}]}}')
    assert harness.answer_text(None) == "-"
