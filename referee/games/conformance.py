"""What a game declares for the conformance checks (:mod:`referee.conformance`) and the cross-cutting tests.

Each game's package has a ``conformance`` module whose ``CONFORMANCE`` is a :class:`Conformance`
(``referee/games/<game>/conformance.py``): the per-game data of the generic checks lives beside the
game, not in a table in a test.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from referee.games import GameName, package


@dataclass(frozen=True)
class ReplayCase:
    """Games for the replay page's state checker: ``bots`` in seat order (reference bot names),
    ``params`` (overrides), one game per seed of ``seeds``."""

    bots: tuple[str, ...]
    params: Mapping[str, Any]
    seeds: range


@dataclass(frozen=True)
class RefusalProbe:
    """Random well-formed answers tried at every decision of ``games`` real games of random bots (seeds 0..,
    the demo's first table size): ``answers(view, rng)`` draws some for a protocol view (most of them illegal
    there); the rules must refuse them in at least ``kinds`` different ways, each citing its rules section."""

    answers: Callable[[Message, random.Random], Sequence[Message]]
    games: int = 8
    kinds: int = 2


#: What the engine's state holds for the replay page's state checker (``tests/dashboard/``): ``hands``
#: (a list of cards per seat), ``scores`` (each seat's figure), ``pot``, and any table part the checker knows.
EngineTable = Callable[[Any], dict[str, Any]]


@dataclass(frozen=True)
class Conformance:
    """What the conformance checks and the cross-cutting tests need of one game.

    - ``strong_bot``: the reference bot seated with ``random`` in playouts, the time-budget
      check (rules §4.1) and the playthrough; one of the game's ``GameSpec.bots``.
    - ``short_params``: overrides for a very short game (a few dozen decisions at four seats),
      for record round trips.
    - ``season_params``: overrides for one short season game at a 3-seat table (examples).
    - ``playthrough_seats``: the table size of the golden playthrough.
    - ``playthrough_seed``: its seed.
    - ``deals_params``: overrides for a game of several deals at four seats (the per-deal chance
      check: other bots, the same deals), or None for a game of one deal.
    - ``wire_edge_views``: views (field name -> value, the rest unset) of edge values the wire encoder
      (:mod:`referee.wire`) must write as protobuf does: zeros with and without presence, the largest
      uint32, unknown enum numbers, strings beyond ASCII, repeated and empty repeated fields.
    - ``presence_fields``: ``(message, field)`` pairs of the game's protocol messages (names in
      ``cardarena.v1``) that must be proto3 ``optional``: values whose absence means "none".
    - ``replay_cases``: :class:`ReplayCase` games the replay page's state checker follows, every table size.
    - ``replay_events``: the event kinds those games must hold (every way tokens or cards move).
    - ``replay_holds``: a further demand on those games' ``{"record", "truth"}`` cases: None, or the
      problem (e.g. a rules case none of them reached).
    - ``engine_table``: the game's :data:`EngineTable`.
    - ``replay_checks``: the state checker's demands of the game's table: ``"cards-add-up"`` (cards, not
      tokens, are conserved: hands, melds, discard pile and stock), ``"dealer-holds-nothing"``.
    - ``replay_breaks``: ``(line, instead, why)``: a line of the game's ``replay.js`` whose replacement by
      ``instead`` the state checker must catch with a failure naming ``why``.
    - ``replay_opening``: ``(first, skip)``: the replay page opens after the first event of kind ``first``
      and the events of kind ``skip`` (or None) that follow it: the first deal, cards on the table.
    - ``replay_new_deal``: the event kinds after which every seat's cards went in (a new deal, as the game's
      rules log it): the replay's seat panel shows no view of a decision from before such an event.
    - ``illegal_answer(view)``: an answer to the game's protocol view message that is well-formed (it decodes
      to an action of the game) but that the rules refuse at this view, or None when the view leaves no such
      answer; fixture bots that fault on purpose play it (the rules section is cited where each game
      defines it). None (the default) for a game whose every well-formed answer is legal at every decision;
      its ``refusal_probe`` then expects no refusal (``kinds=0``), which the checks confirm.
    - ``refusal_probe``: the game's :class:`RefusalProbe` (every illegal answer's refusal cites its rule).
    - ``extra``: anything further a game-specific part of a cross-cutting test reads, by name.
    """

    strong_bot: str
    short_params: Mapping[str, Any] = field(default_factory=dict)
    season_params: Mapping[str, Any] = field(default_factory=dict)
    playthrough_seats: int = 3
    playthrough_seed: int = 1
    deals_params: Mapping[str, Any] | None = None
    wire_edge_views: tuple[Mapping[str, Any], ...] = ()
    presence_fields: tuple[tuple[str, str], ...] = ()
    replay_cases: tuple[ReplayCase, ...] = ()
    replay_events: frozenset[str] = frozenset()
    replay_holds: Callable[[Sequence[Mapping[str, Any]]], str | None] | None = None
    engine_table: EngineTable | None = None
    replay_checks: frozenset[str] = frozenset()
    replay_breaks: tuple[tuple[str, str, str], ...] = ()
    replay_opening: tuple[str, str | None] = ("deal", None)
    replay_new_deal: frozenset[str] = frozenset({"deal"})
    illegal_answer: Callable[[Message], Message | None] | None = None
    refusal_probe: RefusalProbe | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


class ConformanceError(AssertionError):
    """A game that fails a conformance check; the message names the game and what failed."""


def conformance(game: GameName) -> Conformance:
    """The :class:`Conformance` of ``game`` (``<its package>.conformance.CONFORMANCE``); raises
    ValueError for an unknown game and ConformanceError for a game that declares none."""
    try:
        module = importlib.import_module(f"{package(game)}.conformance")
    except ModuleNotFoundError as error:
        raise ConformanceError(f"{game}: no {package(game)}.conformance module ({error})") from None
    declared = getattr(module, "CONFORMANCE", None)
    if not isinstance(declared, Conformance):
        raise ConformanceError(f"{game}: {module.__name__}.CONFORMANCE is not a Conformance")
    return declared
