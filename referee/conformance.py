"""The conformance checks every registered game passes (the registry's own ``api_test``).

Each game declares what the checks need in its package's ``conformance`` module
(``referee/games/<game>/conformance.py``), as ``CONFORMANCE``, a
:class:`referee.games.conformance.Conformance`;
the checks run over :func:`referee.games.games`, so a new game is covered as soon as
the protocol names it. The generic checks:

- :func:`check_playouts`: seeded games of the strong reference bot against the
  ``random`` bot at the smallest and the largest table end with a result per seat
  and no fault, re-run and verify from their records (``referee.replay.verify``), and
  their records survive the JSON round trip (``GameRecord.to_json``/``from_json``);
- :func:`check_playthrough`: the game's golden playthrough (a game of ``short_params``),
  ``referee/games/<game>/tests/playthrough.txt``: the seed, each decision's seat, a
  summary of the view sent, the answer (its numbers printed, 0 too: :func:`answer_text`), and the result, as the platform plays the game
  now. A change of the rules, the codec or the reference bots shows as a diff.

Command line (from the repository root)::

    python -m referee.conformance --check [--game G]   # exit 1 and name what differs
    python -m referee.conformance --write [--game G]   # rewrite the playthroughs

The other generic checks (view/wire identity, time budget, entry checks, the replay
page's state checker, proto enums) are tests parametrised over ``games()`` that read
the same declarations.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import referee.games
from referee.bots import load_bot
from referee.clients import InProcessBotClient
from referee.games import GameName, games, spec
from referee.games.conformance import ConformanceError, conformance
from referee.record import GameRecord
from referee.referee import play
from referee.replay import expand, verify


def lineup(game: GameName, num_seats: int) -> list[str]:
    """The reference bots of a conformance game: the strong bot at even seats, ``random`` at odd ones."""
    strong = conformance(game).strong_bot
    return [strong if seat % 2 == 0 else "random" for seat in range(num_seats)]


def play_reference(game: GameName, num_seats: int, seed: int, params: Mapping[str, Any] | None = None) -> GameRecord:
    """One in-process game of :func:`lineup` (bot seeds ``seed * 10 + seat``), the game's
    ``quick_params`` unless ``params`` are given."""
    gs = spec(game)
    clients = [InProcessBotClient(load_bot(name, seed * 10 + seat).act) for seat, name in enumerate(lineup(game, num_seats))]
    return play(gs, gs.params(gs.quick_params if params is None else params), num_seats, seed, clients,
                game_id=f"conformance-{game}")


def check_declaration(game: GameName) -> None:
    """The declaration names a reference bot of the game, parameters the game accepts, and what the
    cross-cutting tests need (wire edge views, replay cases and events, the engine-state reader)."""
    gs, conf = spec(game), conformance(game)
    names = {bot.name for bot in gs.bots}
    if conf.strong_bot not in names:
        raise ConformanceError(f"{game}: strong_bot {conf.strong_bot!r} is not one of its bots {sorted(names)}")
    for label in ("short_params", "season_params"):
        gs.params(getattr(conf, label))
    missing = [label for label in ("wire_edge_views", "replay_cases", "replay_events", "engine_table")
               if not getattr(conf, label)]
    if missing:
        raise ConformanceError(f"{game}: its Conformance declares no {', '.join(missing)}")
    if not gs.min_seats <= conf.playthrough_seats <= gs.max_seats:
        raise ConformanceError(f"{game}: playthrough_seats {conf.playthrough_seats} outside {gs.min_seats}..{gs.max_seats}")


def check_playouts(game: GameName, seeds: Sequence[int] = (0, 1)) -> None:
    """Reference games at the smallest and largest table end with a result for each seat and no
    fault, verify on re-run and round-trip through JSON; raises ConformanceError."""
    gs = spec(game)
    for num_seats in sorted({gs.min_seats, gs.max_seats}):
        for seed in seeds:
            record = play_reference(game, num_seats, seed)
            where = f"{game}: {num_seats} seats, seed {seed}"
            if record.faults:
                raise ConformanceError(f"{where}: reference bots faulted: {record.faults[:3]}")
            if sorted(r.seat for r in record.results) != list(range(num_seats)):
                raise ConformanceError(f"{where}: results {record.results}")
            if not any(d.called for d in record.decisions):
                raise ConformanceError(f"{where}: no bot was asked anything")
            try:
                verify(record)
            except Exception as error:
                raise ConformanceError(f"{where}: the record does not verify: {error}") from error
            if GameRecord.from_json(json.loads(json.dumps(record.to_json()))) != record:
                raise ConformanceError(f"{where}: the record changes in a JSON round trip")


def _view_summary(view: Mapping[str, Any], view_b64: str) -> str:
    """A digest of the view's wire bytes and its scalar fields (``view`` as :func:`referee.replay.expand` gives it)."""
    digest = hashlib.sha256(base64.b64decode(view_b64)).hexdigest()[:12]
    return f"{digest} {_compact(_pruned({k: v for k, v in view.items() if not isinstance(v, (list, dict))}))}"


def _pruned(value: Any, zeros: bool = False) -> Any:
    """``value`` without its false, empty and ``*_UNSPECIFIED`` members (protobuf's defaults), recursively, and
    without its zeros unless ``zeros``."""
    if isinstance(value, dict):
        return {k: _pruned(v, zeros) for k, v in value.items() if not _default(v, zeros)}
    if isinstance(value, list):
        return [_pruned(v, zeros) for v in value]
    return value


def _default(value: Any, zeros: bool) -> bool:
    """Whether :func:`_pruned` drops ``value``: "", False, None, [], {}, a ``*_UNSPECIFIED`` enum value, and 0 unless
    ``zeros`` (``False == 0`` in Python, so a bool is told from a number by its type)."""
    if isinstance(value, bool) or value is None:
        return not value
    if isinstance(value, (int, float)):
        return value == 0 and not zeros
    if isinstance(value, str):
        return value == "" or value.endswith("_UNSPECIFIED")
    return value in ([], {})


def answer_text(answer: Mapping[str, Any] | None) -> str:
    """An answer (``ActResponse`` as :func:`referee.replay.expand` gives it) as the playthrough prints it: compact
    JSON without its false, empty and unspecified members, but with its numbers, 0 too (a bid of 0 is ``"bid":0``,
    not ``{}``); ``-`` for no answer."""
    return "-" if answer is None else _compact(_pruned(dict(answer), zeros=True))


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def playthrough(game: GameName) -> str:
    """The golden playthrough transcript of ``game`` (see the module docstring), one line per decision."""
    conf = conformance(game)
    record = play_reference(game, conf.playthrough_seats, conf.playthrough_seed, conf.short_params)
    lines = [f"# {game}: the platform's play of one seeded game; `python -m referee.conformance --write` rewrites it",
             f"game {game} seed {record.seed} seats {record.num_seats} params {json.dumps(record.params, sort_keys=True)}",
             f"bots {' '.join(lineup(game, record.num_seats))}"]
    for raw, d in zip(record.decisions, expand(record)["decisions"]):
        lines.append(f"{d['decision']} seat {d['seat']} view {_view_summary(d['view'], raw.view)} "
                     f"answer {answer_text(d['answer'])}")
    lines.append(f"end {record.reason} {record.detail}".rstrip())
    for r in record.results:
        lines.append(f"seat {r.seat} place {r.place} score {r.score} change {r.change} faults {r.faults}")
    return "\n".join(lines) + "\n"


def playthrough_path(game: GameName) -> Path:
    """Where ``game``'s golden playthrough is kept: ``referee/games/<field>/tests/playthrough.txt``."""
    return Path(referee.games.__file__).parent / spec(game).proto_field / "tests" / "playthrough.txt"


def check_playthrough(game: GameName) -> None:
    """The stored playthrough equals the one played now; raises ConformanceError naming the first difference."""
    path = playthrough_path(game)
    if not path.exists():
        raise ConformanceError(f"{game}: no playthrough at {path.name}; run `python -m referee.conformance --write`")
    stored, now = path.read_text().splitlines(), playthrough(game).splitlines()
    for number, (old, new) in enumerate(zip(stored, now), start=1):
        if old != new:
            raise ConformanceError(f"{game}: playthrough line {number} differs:\n  stored {old}\n  now    {new}")
    if len(stored) != len(now):
        raise ConformanceError(f"{game}: playthrough has {len(stored)} lines stored, {len(now)} now")


CHECKS = (check_declaration, check_playouts, check_playthrough)


def run(selected: Sequence[GameName] | None = None) -> list[str]:
    """Every check of every selected game (all by default); the failures, one message each."""
    failures = []
    for game in selected or games():
        for check in CHECKS:
            try:
                check(game)
            except ConformanceError as error:
                failures.append(str(error))
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    """``--check``: run every check (exit 1 on a failure); ``--write``: rewrite the playthroughs."""
    parser = argparse.ArgumentParser(prog="python -m referee.conformance", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="run the conformance checks of every game")
    mode.add_argument("--write", action="store_true", help="rewrite each game's golden playthrough")
    parser.add_argument("--game", action="append", choices=games(), help="only this game (repeatable)")
    args = parser.parse_args(argv)
    selected = args.game or games()
    if args.write:
        for game in selected:
            check_declaration(game)
            playthrough_path(game).write_text(playthrough(game))
            print(f"wrote {playthrough_path(game)}")
        return 0
    failures = run(selected)
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{len(selected)} game(s), {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
