"""Write the real request/answer pairs of docs/protocol.md, taken from the replays of refereed games.

Usage: python docs/protocol_examples.py [--check]

Plays one seeded game of each game with the reference bots (in-process, through the referee and the
protocol codecs, exactly as a season does), takes from each game's record (its replay) the first
decision of every kind, and writes them as protobuf JSON between the markers of docs/protocol.md.
``--check`` writes nothing and exits 1 when the file differs (a test runs it), so the examples
cannot drift from the protocol, the rules or the reference bots. The games are pure functions of
their seeds and the bots' answers; only the clock of a request depends on measured time, so it is
shown for a seat's first request (the full bank and budget) and left out of the others.
"""

from __future__ import annotations

import base64
import importlib
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from league.integrity import fairness
from referee.bots import load_bot
from cardarena.v1 import bot_pb2
from referee.clients import InProcessBotClient
from referee.games import games, make_params, package, spec
from referee.record import DecisionLog, GameRecord
from referee.referee import play

DOC = Path(__file__).resolve().parent / "protocol.md"
BEGIN = "<!-- examples: written by docs/protocol_examples.py; do not edit by hand -->"
END = "<!-- end of examples -->"


@dataclass(frozen=True)
class Game:
    """One example game: the game, its parameters, the reference bots by seat, the seeds tried, and
    the game's picker of decisions to show.

    Each game's package has an ``examples`` module with ``PARAMS``, ``BOTS`` (reference bots by
    seat), ``SEEDS`` (tried in order) and ``find(decisions, view, answer)``: from the record's
    decisions that were called and answered, with ``view(d)`` the game's view message sent and
    ``answer(d)`` the ``ActResponse`` received, the decisions to show as (title, note citing the
    rules sections, decision), or None when this game does not show every kind."""

    game: str
    params: dict[str, Any]
    bots: tuple[str, ...]
    seeds: range
    find: Callable[..., list[tuple[str, str, DecisionLog]] | None]


def _example_game(game: str) -> Game:
    """The example game of ``game``, from its package's ``examples`` module."""
    module = importlib.import_module(f"{package(game)}.examples")
    return Game(game, module.PARAMS, module.BOTS, module.SEEDS, module.find)


GAMES = tuple(_example_game(g) for g in games())


@dataclass(frozen=True)
class Example:
    """One decision of a replay to show: a title, what it shows, the record and the decision."""

    title: str
    note: str
    record: GameRecord
    decision: DecisionLog
    first_request: bot_pb2.ActRequest | None = None


def _play(game: Game, seed: int) -> tuple[GameRecord, dict[int, bot_pb2.ActRequest]]:
    """Play ``game`` at ``seed``; return its record and each seat's first request as the bot received it."""
    first: dict[int, bot_pb2.ActRequest] = {}

    def client(seat: int, name: str) -> InProcessBotClient:
        bot = load_bot(name, seed=seat)

        def handler(request: bot_pb2.ActRequest) -> bot_pb2.ActResponse:
            first.setdefault(request.seat, request)
            return bot.act(request)
        return InProcessBotClient(handler)

    gs = spec(game.game)
    record = play(gs, make_params(game.game, game.params), len(game.bots), seed,
                  [client(s, name) for s, name in enumerate(game.bots)], game_id=example_id(game.game, seed))
    return record, first


def example_id(game: str, seed: int) -> str:
    """The game id an example's bots are sent: as the platform sends one (opaque, keyed), that of the game
    numbered by ``game``'s place in the registry in season 1 of the reproducible season of ``seed``."""
    return fairness.game_token(fairness.key_from_seed(seed), 1, games().index(game))


def _view(record: GameRecord, d: DecisionLog) -> Message:
    field = spec(record.game).proto_field
    cls = type(getattr(bot_pb2.ActRequest(), field))
    return cls.FromString(base64.b64decode(d.view))


def _answer(d: DecisionLog) -> bot_pb2.ActResponse:
    assert d.answer is not None
    return bot_pb2.ActResponse.FromString(base64.b64decode(d.answer))


def examples() -> Iterator[Example]:
    """The examples of every game, from the first seed whose game shows every decision kind."""
    for game in GAMES:
        for seed in game.seeds:
            record, first = _play(game, seed)
            answered = [d for d in record.decisions if d.called and d.answer is not None]
            found = game.find(answered, partial(_view, record), _answer)
            if found:
                break
        else:
            raise RuntimeError(f"no seed in {game.seeds} shows every decision of {game.game}")
        for title, note, d in sorted(found, key=lambda f: (f[2].event_index, f[2].decision)):
            together = [x.seat for x in record.decisions if x.event_index == d.event_index and x.seat != d.seat and x.called]
            if together:
                note += f" Seats {', '.join(map(str, sorted(set(together))))} were asked at the same time."
            yield Example(title, note, record, d, first[d.seat] if first[d.seat].decision == d.decision else None)


def _ordered(message: Message) -> dict[str, Any]:
    """Protobuf JSON with proto field names, every field without presence shown (defaults too), in
    declaration order; optional and message fields only when set."""
    data = json_format.MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    out: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        if field.name not in data:
            continue
        value = getattr(message, field.name)
        if field.message_type is not None:
            out[field.name] = [_ordered(v) for v in value] if field.is_repeated else _ordered(value)
        else:
            out[field.name] = data[field.name]
    return out


def _dump(value: Any, indent: int = 0) -> str:
    """JSON with objects one field a line and lists of plain values on one line."""
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f'{pad}  {json.dumps(k)}: {_dump(v, indent + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(f"{pad}  {_dump(v, indent + 1)}" for v in value) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False)


def render() -> str:
    """The examples section of docs/protocol.md, markers included."""
    parts = [BEGIN]
    game = None
    for ex in examples():
        record, d = ex.record, ex.decision
        if record.game != game:
            game = record.game
            seats = ", ".join(f"seat {s}: {name}" for s, name in enumerate(next(g for g in GAMES if g.game == game).bots))
            parts.append(f"\n### {spec(game).name}\n\nFrom the replay of game `{record.game_id}` "
                         f"({record.num_seats} seats; {seats}; parameters {json.dumps(record.params)}).")
        field = spec(record.game).proto_field
        if ex.first_request is not None:
            request = _ordered(ex.first_request)
            where = "This seat's first request, complete (its clock is the full time bank and budget)."
        else:
            request = {"game_id": record.game_id, "seat": d.seat, "decision": d.decision, field: _ordered(_view(record, d))}
            where = "`clock` left out (it counts down with the measured time; see Time)."
        parts.append(f"\n#### {ex.title}\n\n{ex.note} Seat {d.seat}, decision {d.decision}, after event {d.event_index}. "
                     f"{where}\n\n```json\n{_dump(request)}\n```\n\nThe answer (`ActResponse`):\n\n"
                     f"```json\n{_dump(_ordered(_answer(d)))}\n```")
    parts.append(END)
    return "\n".join(parts)


def updated(text: str) -> str:
    """``text`` (the document) with its examples section replaced by :func:`render`'s."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + render() + text[end:]


def main(argv: list[str]) -> int:
    text = DOC.read_text()
    new = updated(text)
    if "--check" in argv:
        if new != text:
            print("docs/protocol.md: the examples are stale; run `python docs/protocol_examples.py`", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
