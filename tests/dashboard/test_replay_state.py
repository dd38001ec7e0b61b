"""The replay page's table state, run by node over many real games of every game and
checked against the engines at every event (tokens and cards conserved, no card drawn in a
hand that does not hold it; the same table as the engine's wherever the engine stopped).

The games are played here by the referee with the reference bots; the engine's state is
taken by re-running each record (``referee.replay.rerun``). The JavaScript is the page's own:
``dashboard/static/replay_state.js`` and each game's module (``referee/games/<game>/replay.js``,
found as the dashboard serves it), loaded by ``replay_state_check.js``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dashboard.game_assets import replay_module
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.games import games, make_params, spec
from referee.games.conformance import conformance
from referee.record import GameRecord
from referee.referee import play
from referee.replay import rerun

HERE = Path(__file__).resolve().parent
CHECKER = HERE / "replay_state_check.js"
STATE_JS = HERE.parents[1] / "dashboard" / "static" / "replay_state.js"
NODE = shutil.which("node")


def module_path(game: str) -> Path:
    """The game's replay module, as a file."""
    return Path(str(replay_module(game)))

#: (game, bots in seat order, parameters, seeds): short games, every table size the game allows, each
#: game's own (``Conformance.replay_cases``).
GAMES: list[tuple[str, list[str], dict[str, Any], range]] = [
    (g, list(case.bots), dict(case.params), case.seeds) for g in games() for case in conformance(g).replay_cases]


#: Events the games above must hold, so that every way tokens or cards move is exercised.
MUST_COVER = {g: set(conformance(g).replay_events) for g in games()}


def play_with(game: str, bots: list[str], params: dict[str, Any], seed: int) -> GameRecord:
    clients = [InProcessBotClient(load_bot(name, seed * 10 + seat).act) for seat, name in enumerate(bots)]
    return play(spec(game), make_params(game, params), len(bots), seed, clients)


def engine_table(game: str, state: Any) -> dict[str, Any]:
    """What the engine holds now, as the game's ``Conformance.engine_table`` reads it."""
    reader = conformance(game).engine_table
    assert reader is not None, f"{game} declares no engine_table for the replay state checker"
    return reader(state)


def truths(record: GameRecord) -> dict[str, Any]:
    """The engine's table at every event position where it stopped (after each chance outcome
    and each decision applied), keyed by the number of events logged by then; and the hands
    at the moment each event was logged (a step may deal and collect cards, several events)."""
    settled: dict[int, dict[str, Any]] = {}
    logged: list[list[list[str]]] = []
    for _, state in rerun(record):
        if not settled:  # the state before the first step: follow its log from here on
            log = state.log

            def log_and_look(kind: str, visible_to: tuple[int, ...] | None = None, **data: Any) -> None:
                logged.append(engine_table(record.game, state)["hands"])
                log(kind, visible_to, **data)

            state.log = log_and_look
        settled[len(state.events)] = engine_table(record.game, state)
    return {"settled": settled, "logged": logged}


def run_checker(cases: list[dict[str, Any]], tmp_path: Path, instead: dict[Path, Path] | None = None) -> dict[str, Any]:
    """The checker's result over ``cases``, with the page's files (``instead``: some replaced by others)."""
    data = tmp_path / "cases.json"
    data.write_text(json.dumps(cases))
    files = [STATE_JS] + [module_path(g) for g in sorted({c["record"]["game"] for c in cases})]
    files = [(instead or {}).get(f, f) for f in files]
    proc = subprocess.run([str(NODE), str(CHECKER), str(data), *map(str, files)], capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def cases() -> list[dict[str, Any]]:
    out = []
    for game, bots, params, seeds in GAMES:
        for seed in seeds:
            record = play_with(game, bots, params, seed)
            out.append({"record": record.to_json(), "truth": truths(record), "checks": sorted(conformance(game).replay_checks)})
    return out


needs_node = pytest.mark.skipif(NODE is None, reason="the replay state test runs the page's JavaScript with node")


@needs_node
def test_the_replay_table_matches_the_engine_at_every_event(cases: list[dict[str, Any]], tmp_path: Path) -> None:
    for game, kinds in MUST_COVER.items():
        assert kinds, f"{game} declares no replay_events"
        seen = {e["kind"] for c in cases if c["record"]["game"] == game for e in c["record"]["events"]}
        assert kinds <= seen, f"{game}: no {sorted(kinds - seen)} in these games"
        holds = conformance(game).replay_holds
        problem = holds([c for c in cases if c["record"]["game"] == game]) if holds else None
        assert problem is None, f"{game}: {problem}"
    events = sum(len(c["record"]["events"]) for c in cases)
    result = run_checker(cases, tmp_path)
    assert result["failures"] == []
    assert result["checks"] > 10 * events  # every event of every replay, as every viewer


#: Loads the page's state file and every game module given, as the page does; prints what each module says.
DESCRIBE = """
const [state, ...modules] = process.argv.slice(1);
globalThis.ReplayState = require(state);
for (const m of modules) require(m);
const out = {};
for (const g of JSON.parse(process.env.GAMES)) {
  const m = ReplayState.gameOf(g);
  out[g] = { unit: m.unit, lowerIsBetter: m.lowerIsBetter, opening: m.opening || null };
}
process.stdout.write(JSON.stringify(out));
"""


@needs_node
def test_every_game_has_a_replay_module_that_agrees_with_its_spec() -> None:
    names = games()
    proc = subprocess.run([str(NODE), "-e", DESCRIBE, str(STATE_JS), *(str(module_path(g)) for g in names)],
                          capture_output=True, text=True, timeout=60, check=True, env={"GAMES": json.dumps(names)})
    described = json.loads(proc.stdout)
    for name in names:
        gs = spec(name)
        assert described[name]["unit"] == gs.score_unit, name
        assert described[name]["lowerIsBetter"] is (not gs.higher_score_is_better), name
        assert described[name]["opening"] is not None, name  # a replay opens at the first deal


@pytest.mark.parametrize("game", games())
def test_a_game_scored_in_points_has_its_cards_checked(game: str) -> None:
    """Points are not conserved (more is better: won from no one; fewer is better: taken as penalties), so the
    checker cannot add up the figures: a game scored in points declares ``cards-add-up`` (docs/adding-a-game.md,
    "Points, not tokens"); a game counted in tokens declares no such check of the cards."""
    gs, checks = spec(game), conformance(game).replay_checks
    assert ("cards-add-up" in checks) is (gs.score_unit == "points"), (game, gs.score_unit, sorted(checks))


#: The table after each event of a record given on stdin, as everyone and as seat 0 saw it.
TABLES = """
const RS = require(process.argv[1]);
const record = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = [];
for (let n = 0; n <= record.events.length; n++) {
  out.push([null, 0].map((seat) => {
    const t = RS.tableAt(record, n, seat);
    return { hands: t.hands, scores: t.scores, pot: t.pot, folded: t.folded, out: t.out, shown: t.shown, stage: t.stage };
  }));
}
process.stdout.write(JSON.stringify({ tables: out, opening: RS.openingPosition(record) }));
"""


def event(kind: str, visible_to: list[int] | None = None, **data: Any) -> dict[str, Any]:
    return {"kind": kind, "visible_to": visible_to, "data": data}


@needs_node
def test_a_game_without_a_module_replays_the_common_vocabulary() -> None:
    """docs/replay.md: a new game's events that fit the common vocabulary are drawn with no module."""
    record = {"game": "high-card", "num_seats": 3, "params": {"starting_tokens": 10}, "events": [
        event("ante", seats=[0, 1, 2], amount=1),  # not in the vocabulary: changes nothing
        event("hand", [0], seat=0, cards=["Ah"]), event("hand", [1], seat=1, cards=["Td"]),
        event("fold", seat=2), event("show", seat=1, cards=["Td"], points=10),
        event("win", seat=0, amount=5), event("split", seats=[1, 2], amounts=[2, 1]), event("out", seat=2),
        event("game_over", reason="one seat left", tokens=[15, 12, 3]),
    ]}
    proc = subprocess.run([str(NODE), "-e", TABLES, str(STATE_JS)], input=json.dumps(record), capture_output=True,
                          text=True, timeout=60, check=True)
    result = json.loads(proc.stdout)
    tables = [everyone for everyone, _ in result["tables"]]
    as_seat_0 = [mine for _, mine in result["tables"]]
    assert result["opening"] == 0 and tables[0]["scores"] == [10, 10, 10] and tables[1] == tables[0]
    assert tables[3]["hands"][:2] == [{"cards": ["Ah"], "hidden": 0}, {"cards": ["Td"], "hidden": 0}]
    assert as_seat_0[3]["hands"][1] == {"cards": [], "hidden": 0}  # seat 1's card was private to it
    assert tables[4]["folded"] == {"2": True} and tables[5]["shown"] == {"1": 10}
    assert as_seat_0[5]["hands"][1] == {"cards": ["Td"], "hidden": 0}  # shown to all
    assert tables[6]["scores"] == [15, 10, 10] and tables[7]["scores"] == [15, 12, 11]
    assert tables[8]["out"] == {"2": True}
    last = tables[9]
    assert last["scores"] == [15, 12, 3] and last["stage"] == "game over: one seat left"
    assert all(h == {"cards": [], "hidden": 0} for h in last["hands"]) and last["pot"] is None


@needs_node
def test_the_checker_needs_the_game_modules(cases: list[dict[str, Any]], tmp_path: Path) -> None:
    empty = tmp_path / "empty.js"
    empty.write_text("")
    for game in games():
        one = [c for c in cases if c["record"]["game"] == game][:1]
        result = run_checker(one, tmp_path, {module_path(game): empty})
        assert f"no replay module defines {game}" in " ".join(result["failures"])


#: Lines of the page's own file (every game) whose breaking the checker must catch, besides each game's
#: ``Conformance.replay_breaks`` in its module.
PAGE_BREAKS = [
    # private events shown to every viewer
    ("return seat === null || !e.visible_to || e.visible_to.includes(seat);", "return true;",
     "which no event this viewer saw names"),
    # a pot won not paid to its winner
    ("t.scores[d.seat] += d.amount; t.pot = null;", "t.pot = null;", "tokens add up"),
]


@needs_node
@pytest.mark.parametrize(("game", "line", "instead", "why"), [
    *((g, *broken) for g in games() for broken in conformance(g).replay_breaks),
    *((None, *broken) for broken in PAGE_BREAKS),
])
def test_the_checker_catches_a_misdrawn_table(cases: list[dict[str, Any]], tmp_path: Path, game: str | None,
                                              line: str, instead: str, why: str) -> None:
    """A line of a game's module (or, for ``None``, of the page's own file) broken: the checker fails."""
    target = STATE_JS if game is None else module_path(game)
    source = target.read_text()
    assert source.count(line) == 1, line
    broken = tmp_path / target.name
    broken.write_text(source.replace(line, instead))
    result = run_checker([c for c in cases if game is None or c["record"]["game"] == game], tmp_path, {target: broken})
    assert any(why in f for f in result["failures"]), result["failures"][:3]
