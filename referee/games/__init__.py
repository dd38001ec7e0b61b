"""The registry of games: the one place a game plugs into the platform.

The games are read from the protocol (:mod:`cardarena.games`): each member of
the ``view`` oneof of ``cardarena.v1.ActRequest`` is a game; field
``a_game`` is the game ``a-game``, played by the package
``referee.games.a_game``, whose ``SPEC`` (a :class:`GameSpec`) holds
everything game-specific the platform needs: its rules and codec, its random
policy and reference bots, its short parameters for tests and validation
games, its demo lineup, its help-text description, its rules document and an
optional luck estimator. The referee, store, league, CLI, dashboard and SDK
iterate over :func:`games` (or :func:`specs`); none of them names a game.

A game id (``"a-game"``) is resolved to its GameSpec once, where it arrives: the
command line, the arena's and the dashboard's APIs, and the worker's task (from the
stored game) call :func:`spec`, and pass the GameSpec on; inner code takes a
GameSpec, never a name. Stored rows keep the id (``GameSpec.name``).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from botsdk.bot import Bot
from cardarena import games as protocol_games
from cardarena.v1 import bot_pb2
from referee.engine import BadParameters, GameName, Rules
from referee.wire import ViewCodec


class MalformedAction(ValueError):
    """A bot's answer that cannot be read as an action of the game (wrong or missing fields)."""


@dataclass(frozen=True)
class DemoLineup:
    """The demo season of one game (``cardarena demo``).

    ``bots``: ``(reference bot name, seed)`` pairs, one registered bot each (named ``name-seed``);
    ``tables``: the table sizes (seats) the season rotates through; ``games``: games per season.
    """

    bots: tuple[tuple[str, int], ...]
    tables: tuple[int, ...]
    games: int


#: Luck estimator of a game: ``(events, num_seats) -> per-seat luck``, in the game's score unit.
#: ``events`` are a record's events as dicts ``{"kind", "data", "visible_to"}``; the luck terms
#: must have mean zero whatever the bots do, so that the actual change minus the luck estimates
#: the same strength with less noise. Raises ValueError for events that do not fit together.
LuckEstimator = Callable[[Sequence[Mapping[str, Any]], int], tuple[float, ...]]

#: Informed-play scorer of a game: ``(events, num_seats, params) -> per-seat score`` (plain numbers, no unit),
#: how well each seat's moves fit the cards it could not see (others' hands, the stock's order). ``events`` as
#: for :data:`LuckEstimator`, ``params`` the record's parameters (a mapping). An honest bot's moves depend on the
#: hidden cards only through what it was shown, so the score has the same distribution in every rotation of a
#: duplicate deal; the duplicate audit (``league.integrity.audit``, rules §0.6) tests whether a bot scores higher
#: in the rotations it played after the first. Raises ValueError, KeyError or TypeError for events that do not
#: fit together (that game is then left out of the test).
InformedScorer = Callable[[Sequence[Mapping[str, Any]], int, Mapping[str, Any]], tuple[float, ...]]


class HeldFit(Protocol):
    """A game's held-hand fit of one record (what a :data:`HeldFitScorer` returns).

    ``responses(seat)``: the observations of ``seat`` as ``(key, value)`` pairs (hashable keys; in Svara each move
    keyed by what the seat's own view showed that shapes it, its hand's points, the seats still in, whether the
    stake was raised, valued by its tokens, negative for a fold; and each other hand still in, keyed by the spot
    and valued 1 when it beat the seat's hand). ``fit(seat, held, centre)``: how well the moves of ``seat`` fit
    the hidden hands of the seats in ``held`` (a frozenset of seats) beyond what its own view explains, reading
    ``centre`` (the mean value per key; a key absent has the game's default): a tuple of floats, one per reading of
    the moves (the same length every call; Svara's: against the best held hand, and against each apart), no
    unit, zeros for no seats. The audit tests the largest reading, each over its own spread. ``readings``: what each
    reading reads the moves against, in its order (a flag line names the one that carried it).
    The duplicate audit (``league.integrity.audit``) passes as ``centre`` the bot's mean value per key over all its
    games of the season, the same in every order of its rotations."""

    readings: tuple[str, ...]

    def responses(self, seat: int) -> Iterable[tuple[Hashable, float]]: ...

    def __call__(self, seat: int, held: frozenset[int],
                 centre: Mapping[Hashable, float] | None = None) -> tuple[float, ...]: ...


#: Held-hand scorer of a game: ``(events, num_seats, params) -> fit`` (a :class:`HeldFit`). ``events`` and
#: ``params`` as for :data:`InformedScorer`. In a duplicate deal a bot held, in each earlier rotation, the hand of
#: another seat; the duplicate audit (``league.integrity.audit``, rules §0.6) tests whether its moves fit the hands
#: it held before in the real order of its rotations better than in other orders. Raises ValueError, KeyError or
#: TypeError for events that do not fit together (that game is then left out of the test).
HeldFitScorer = Callable[[Sequence[Mapping[str, Any]], int, Mapping[str, Any]], HeldFit]
#: Standardised luck terms of a game: ``(events, num_seats, params) -> per seat, its terms in play
#: order``. Each term lies in ``[-1, 1]`` and has conditional mean zero given everything the referee
#: knew before the chance card it measures was revealed, whatever the bots do (the game's module
#: proves it); a bot that knows that card before it is revealed gets positive terms. ``params`` are
#: the record's parameters. Read by the luck audit (``league.integrity.eprocess``). Raises ValueError
#: for events that do not fit together.
LuckTerms = Callable[[Sequence[Mapping[str, Any]], int, Mapping[str, Any]], tuple[tuple[float, ...], ...]]


@dataclass(frozen=True)
class PairMove:
    """One move of ``seat`` read against the hidden cards of ``other``, a seat still in the deal (the collusion
    screen, ``league.integrity.collusion``).

    ``stratum``: what the seat could see that shapes the move (e.g. its own hand's strength and whether a stake was
    raised): moves are compared only with the same seat's moves in the same stratum. ``move``: the move, signed so
    that a larger value is what a partner of ``other`` who knew ``other``'s cards would do more of when ``fit`` is
    high (e.g. folding to a stronger partner). ``fit``: what ``other``'s hidden cards say about that move (e.g. 1
    when they beat the seat's, 0 when not). A seat that does not know ``other``'s cards moves independently of
    ``fit`` within a stratum that holds everything it saw."""

    seat: int
    other: int
    stratum: str
    move: float
    fit: float


@dataclass(frozen=True)
class TeamPlay:
    """What a game's record shows of its seats playing as a team (``GameSpec.team_play``).

    ``moves``: the :class:`PairMove` of every move of every seat against every other seat still in the deal.
    ``flows[a][b]``: tokens (the game's score unit) seat ``a`` put into banks (pots) seat ``b`` won, beyond the
    forced payments every seat makes alike (antes); 0 on the diagonal."""

    moves: tuple[PairMove, ...]
    flows: tuple[tuple[float, ...], ...]


#: Team-play scorer of a game: ``(events, num_seats, params) -> TeamPlay``; ``events`` as a record's events
#: (dicts ``{"kind", "data", "visible_to"}``), ``params`` the game's parameters as a mapping. Raises ValueError
#: (or KeyError) for events that do not fit together.
TeamPlayScorer = Callable[[Sequence[Mapping[str, Any]], int, Mapping[str, Any]], TeamPlay]


@dataclass(frozen=True)
class GameSpec:
    """How the platform plays one game.

    - ``name``: the game name (``"a-game"``), which must be the registry's name of
      the package's protocol field (:func:`spec` checks it).
    - ``params_type``: a frozen dataclass of the game's parameters, each field declared
      with :func:`referee.params.param` (its default, meaning, rules sections and range;
      ``docs/game_tables.py`` writes the rules chapter's parameter table from them); its
      ``__post_init__`` validates through :func:`referee.params.check_each` or
      :func:`referee.params.check_by_stage`, raising BadParameters for impossible values.
    - ``make_rules(params, num_seats)``: the game's :class:`~referee.engine.Rules`.
    - ``proto_field``: the name of the game's member in the ``view``/``action``
      oneofs of ``ActRequest``/``ActResponse`` (the game name with ``_`` for ``-``).
    - ``encode_view(view)``: the engine's view -> the protocol view message.
    - ``view_codec``: the same encoding described for :mod:`referee.wire`, whose
      ``encoder()`` gives a game's views as wire bytes, each history entry
      encoded once (what the referee sends).
    - ``decode_action(message)``: the protocol action message -> the engine's
      action; raises MalformedAction.
    - ``encode_action(action)``: the engine's action -> the protocol message
      (for the replay and in-process bots).
    - ``min_seats``/``max_seats``: table sizes the rules allow.
    - ``score_unit``: "tokens" or "points", for reports.
    - ``description``: one line for help texts (the game's full name and kind, no final stop).
    - ``random_action(view, rng)``: a uniformly random legal answer to a protocol view
      (the ``random`` reference bot, test playouts); raises ValueError for a view that
      asks nothing.
    - ``demo``: the :class:`DemoLineup` of ``cardarena demo``.
    - ``rules_doc``: the game's rules document, a path from the repository root
      (``docs/rules/<game>.md``).
    - ``bots``: the game's reference bots (``botsdk.Bot`` subclasses, each named by its
      ``name`` attribute, built with ``cls(seed=n)``), besides ``random`` which plays every game.
    - ``opponents``: the reference bots a candidate meets in its validation game
      (entry checks), by name; the candidate takes seat 0.
    - ``quick_params``: parameter overrides for a short game (tests: a few hundred decisions).
    - ``validation_params``: parameter overrides of the entry checks' validation game
      (a few minutes of a season's worth of decisions).
    - ``higher_score_is_better``: False when the score counts penalty points.
    - ``default_budget_s``: the thinking budget of a seat for one game, seconds,
      when a season sets none (rules §4.1): room for a bot that answers near the
      1 s deadline at every decision of a long game of the default parameters
      (at least twice the decisions of a seat in the longest tenth of games
      between the reference bots at the largest table), so the deadline can be used.
    - ``luck``: the game's :data:`LuckEstimator`, or None when it has none (the
      standings then show no luck-adjusted change).
    - ``informed``: the game's :data:`InformedScorer` (in its folder, ``referee/games/<game>/audit.py``),
      or None when it has none (the duplicate audit then tests the score and the luck only). A game with
      hidden cards a remembering bot could know from an earlier rotation of a deal should declare one.
    - ``held_fit``: the game's :data:`HeldFitScorer` (in its folder, ``referee/games/<game>/audit.py``), or
      None: a game whose seats' hands are hidden and decide its moves (a betting game) should declare one, so that
      the duplicate audit reads a bot's moves against the hands it held in earlier rotations of a deal.
    - ``luck_terms``: the game's :data:`LuckTerms` for the luck audit, or None when no chance
      card decides anything after a seat's decision (its rules chapter says why; the luck audit
      then has nothing to test for the game).
    - ``team_play``: the game's :data:`TeamPlayScorer` (moves read against a partner's hidden cards, chips that
      flow between seats), or None: its seasons are then not screened for colluding bots
      (``league.integrity.collusion``).
    """

    name: GameName
    params_type: type
    make_rules: Callable[[Any, int], Rules[Any, Any, Any]]
    proto_field: str
    encode_view: Callable[[Any], Message]
    view_codec: ViewCodec
    decode_action: Callable[[Message], Any]
    encode_action: Callable[[Any], Message]
    min_seats: int
    max_seats: int
    score_unit: str
    description: str
    random_action: Callable[[Message, random.Random], Message]
    demo: DemoLineup
    rules_doc: str
    bots: tuple[type[Bot], ...] = ()
    opponents: tuple[str, ...] = ("random", "random")
    quick_params: Mapping[str, Any] = field(default_factory=dict)
    validation_params: Mapping[str, Any] = field(default_factory=dict)
    higher_score_is_better: bool = True
    default_budget_s: float = 120.0
    luck: LuckEstimator | None = None
    informed: InformedScorer | None = None
    held_fit: HeldFitScorer | None = None
    luck_terms: LuckTerms | None = None
    team_play: TeamPlayScorer | None = None

    @property
    def proto_enum(self) -> int:
        """The game's ``cardarena.v1.Game`` number (``GAME_<FIELD>``, read from the protocol)."""
        return protocol_games.enum_of(self.name)

    @property
    def view_type(self) -> type[Message]:
        """The game's view message class: its member of ``ActRequest``'s ``view`` oneof."""
        return self.view_codec.message_type

    @property
    def action_type(self) -> type[Message]:
        """The game's action message class: its member of ``ActResponse``'s ``action`` oneof."""
        field_ = bot_pb2.ActResponse.DESCRIPTOR.fields_by_name[self.proto_field]
        return GetMessageClass(field_.message_type)  # type: ignore[no-any-return]

    def params(self, values: Mapping[str, Any] | None = None) -> Any:
        """The game's parameters (a ``params_type``) from a mapping of overrides; raises BadParameters
        for unknown names or bad values."""
        values = dict(values or {})
        known = set(self.params_type.__dataclass_fields__)
        unknown = sorted(set(values) - known)
        if unknown:
            raise BadParameters(f"unknown parameter(s) for {self.name}: {', '.join(unknown)}; "
                                f"known: {', '.join(sorted(known))}")
        return self.params_type(**values)


def games() -> list[GameName]:
    """Every game the platform plays, in the order of the protocol's ``view`` oneof."""
    return protocol_games.names()


def names_text() -> str:
    """The games for help texts and error messages: ``"a-game, b-game, c-game"``."""
    return ", ".join(games())


def game_for_enum(number: int) -> GameName:
    """The game of ``cardarena.v1.Game`` number ``number``; raises ValueError for an unknown number."""
    return protocol_games.game_for_enum(number)


def check_name(game: str) -> GameName:
    """``game`` when it is a game of the registry (without loading its package); raises ValueError
    naming the known games (and the closest one) otherwise."""
    try:
        protocol_games.field_of(game)
    except (ValueError, AttributeError, TypeError):
        import difflib

        close = difflib.get_close_matches(str(game).lower(), games(), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown game {game!r}{hint}; games: {names_text()}") from None
    return game


def package(game: GameName) -> str:
    """The package that holds ``game``: ``referee.games.<its protocol field>``; raises ValueError
    for an unknown game (:func:`check_name`)."""
    return f"{__name__}.{protocol_games.field_of(check_name(game))}"


def spec(game: GameName) -> GameSpec:
    """The GameSpec of ``game`` (a game id, as it arrives at the command line, an API or a stored
    row); raises ValueError for an unknown game, naming the known ones. Called where a game id
    arrives; the GameSpec is passed on from there.

    Raises RuntimeError when the game's package does not describe the game its protocol
    field names (a ``SPEC`` with another name or field)."""
    return _load(game)


def specs() -> list[GameSpec]:
    """Every game's GameSpec, in the order of :func:`games` (help texts, the reference bots,
    a bot's Describe). Raises RuntimeError as :func:`spec` does."""
    return [_load(g) for g in games()]


def _load(game: GameName) -> GameSpec:
    module = importlib.import_module(package(game))
    gs: GameSpec = module.SPEC
    field_name = module.__name__.rsplit(".", 1)[1]
    if gs.name != game or gs.proto_field != field_name:
        raise RuntimeError(f"{module.__name__}.SPEC describes {gs.name!r} (field {gs.proto_field!r}), not {game!r}")
    return gs


def make_params(game: GameName, values: Mapping[str, Any] | None = None) -> Any:
    """The parameters of ``game`` (a game id) from a mapping of overrides: ``spec(game).params(values)``,
    for tests and tools that start from a name; raises ValueError for an unknown game, BadParameters
    for unknown names or bad values."""
    return spec(game).params(values)
