"""Svara on the dashboard's JSON API: an illegal move shown as answered, and every field of a view and an
action shown as the bot received it (a zero, false or empty one too; rules §2.29)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.dashboard.conftest import World, build_world
from tests.dashboard.conftest import client  # noqa: F401 (the fixture: the dashboard app over ``world`` below)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """The dashboard tests' store (tests/dashboard/conftest.py) with a season of svara."""
    w = build_world(f"sqlite:///{tmp_path / 'dash.db'}", "svara")
    yield w
    w.store.close()


def test_an_illegal_move_is_shown_as_answered(client: TestClient, world: World) -> None:  # noqa: F811
    [illegal] = client.get(f"/api/v1/bots/{world.bot_ids['charlie']}").json()["faults"]
    assert illegal["kind"] == "illegal"
    assert illegal["answer"]["svara"]["move"] in ("SVARA_MOVE_SEE", "SVARA_MOVE_JOIN", "SVARA_MOVE_ACCEPT")


def test_replay_views_show_every_field_as_the_bot_received_it(client: TestClient, world: World) -> None:  # noqa: F811
    """A zero, false or empty field is shown (issue: a first view without ``looked``, ``bank`` or ``hand``)."""
    from cardarena.v1 import svara_pb2

    record = client.get(f"/api/v1/replays/{world.done_ids[0]}").json()["record"]
    always = {f.name for f in svara_pb2.SvaraView.DESCRIPTOR.fields if not f.has_presence}
    for d in record["decisions"]:
        assert always <= d["view"].keys(), sorted(always - d["view"].keys())
    first = next(d["view"] for d in record["decisions"] if d["view"]["hand"] == [])
    assert first["looked"] is False and first["hand"] == [] and first["svara"] == 0
    actions = [d["action"] for d in record["decisions"]]
    assert all("move" in a for a in actions)  # a move of value 0 too
    illegal = [f for f in record["faults"] if f["kind"] == "illegal"]
    assert illegal and all(f["answer"]["svara"].keys() == {"move", "amount"} for f in illegal), illegal  # amount 0 too
