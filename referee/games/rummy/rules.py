"""Contract rummy with "take it": the rules engine.

Source: ``docs/rules/rummy.md`` (rules §3; section numbers are stable),
with the referee policy of rules §4.2 for default
actions. Points are card points (rules §3.9); lower totals are better.
Seats are numbered 0..n-1; "left" is the next seat number.

The engine is pure: chance comes from the referee through :class:`Shuffle`
(the deal, a rebuilt stock) and :class:`DrawLot` (the first dealer)
requests, decisions through :class:`Ask`, and nothing here does I/O.

Flow of a game: draw the first dealer by lot; then 7 rounds, each a shuffle
and deal followed by turns. A turn is the take-it window (an :class:`Ask` of
every eligible seat at once), the draw (the player in turn) and the play
(the player in turn). Choices where the rules were silent are marked "Choice:"
below and listed in ``docs/rules/rummy.md``.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from referee.cards import JOKER, RANKS, SUITS, is_card, pack
from referee.engine import Ask, BadParameters, BaseState, DrawLot, GameName, IllegalAction, Shuffle, Step, ask_one
from referee.games.rummy.melds import (
    Meld,
    MeldKind,
    RunEnd,
    card_points,
    hand_points,
    lay_off,
    new_meld,
)
from referee.params import check_each, param

MIN_SEATS, MAX_SEATS = 3, 6
ROUNDS = 7
#: Per round: (sets, runs) of the contract (rules §3.2).
CONTRACTS: dict[int, tuple[int, int]] = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (3, 1)}
#: Per round: cards dealt to each seat (rules §3.2): 7 in round 1 ... 13 in round 7.
HAND_SIZES: dict[int, int] = {r: 6 + r for r in range(1, ROUNDS + 1)}
#: The round in which going down melds the whole hand (rules §3.8).
WHOLE_HAND_ROUND = 7


def deck(jokers: int) -> tuple[str, ...]:
    """The deck: two 52-card packs plus ``jokers`` jokers, in a fixed order (rules §3)."""
    return pack() + pack() + (JOKER,) * jokers


@dataclass(frozen=True)
class RummyParams:
    """Parameters of rules §3, with their defaults; each field's range and meaning are declared with
    :func:`referee.params.param` (the rules' parameter table is written from them).

    - ``jokers``: jokers in the deck; ``None`` means 4 for 3-4 seats and 6 for 5-6 seats (rules §3).
    - ``turn_limit``: turns in a round after which it ends and every player scores his hand (rules §3.9).
    - ``take_it_limit``: take-its per player per round; ``None`` = unlimited (rules §3.5).

    Raises BadParameters for impossible values.
    """

    jokers: int | None = param(None, "jokers in the deck; `None`: 4 for 3–4 seats, 6 for 5–6", "§3, §3.25",
                               low=4, high=6, none=" for the default")
    turn_limit: int = param(200, "turns in a round after which it ends and every hand is scored", "§3.9, §3.21, §3.25",
                            low=1, high=10_000, unit="turns")
    take_it_limit: int | None = param(None, "take-its per player per round", "§3.5, §3.24, §3.25", low=0, high=100,
                                      none=": unlimited", note="0: the seat is never asked to call")

    def __post_init__(self) -> None:
        check_each(self)


class Phase(enum.Enum):
    """Where the game stands."""

    FIRST_DEALER = enum.auto()  # waiting for the draw by lot of the first dealer
    DEAL = enum.auto()          # waiting for the shuffle of a round's deal
    REBUILD = enum.auto()       # waiting for the shuffle of the discard pile into the stock
    CALL = enum.auto()          # the take-it window: eligible seats answer at once
    DRAW = enum.auto()          # the player in turn draws (or settles a take-it)
    PLAY = enum.auto()          # the player in turn goes down, lays off, discards
    OVER = enum.auto()


class Decision(enum.Enum):
    """What a seat is asked (mirrors ``cardarena.v1.RummyDecision``)."""

    CALL = 1
    DRAW = 2
    PLAY = 3


class DrawSource(enum.Enum):
    """Where the player in turn draws from (mirrors ``RummyDrawSource``).

    When others called, DISCARD_PILE takes the card himself and STOCK gives it
    to the first caller, then draws from the stock (rules §3.5).
    """

    STOCK = 1
    DISCARD_PILE = 2


class RoundEnd(enum.Enum):
    """Why a round ended (rules §3.8, §3.9)."""

    WENT_OUT = "went_out"
    NO_CARD = "no_card_to_draw"
    TURN_LIMIT = "turn_limit"


@dataclass(frozen=True)
class NewMeld:
    """A meld laid when going down: a set in any order; a run without jokers in any order, one with jokers
    low to high with each joker at its position (rules §3.1)."""

    kind: MeldKind
    cards: tuple[str, ...]


@dataclass(frozen=True)
class LayOff:
    """Cards laid off on meld ``meld_id``; for a run, ``end`` is required and ``cards`` go outward from it.

    Choice: lay-offs are applied in the order listed; several may name one
    meld; on a set ``end`` is ignored.
    """

    meld_id: int
    cards: tuple[str, ...]
    end: RunEnd | None = None


@dataclass(frozen=True)
class RummyAction:
    """One answer; only the fields of the decision asked are read, the others are ignored.

    - CALL: ``call`` True calls "take it".
    - DRAW: ``draw`` (required).
    - PLAY: ``go_down`` (the contract's melds, or none), ``lay_offs`` (applied
      in order after going down; melds laid in this action get the next ids in
      order), ``discard`` (required, except when going down in round 7).
    """

    call: bool = False
    draw: DrawSource | None = None
    go_down: tuple[NewMeld, ...] = ()
    lay_offs: tuple[LayOff, ...] = ()
    discard: str | None = None


@dataclass(slots=True)
class RummyView:
    """Everything one seat may see now (no other hand, not the stock's order).

    ``decision`` is None when the seat is not asked. ``contract`` is
    (sets, runs). ``hand`` is the seat's own cards, sorted. ``scores`` are
    per-seat point totals of the finished rounds. ``callers`` (DRAW only) are
    the seats that called, in priority order. ``forbidden_discard`` (PLAY only)
    is the card taken from the discard pile this turn, "" if none.
    ``take_it_limit`` (None: unlimited) and ``jokers`` are the game's (rules §3, 3.5).

    A new view is built for every call of ``view`` and nothing keeps or changes one: it is a
    plain (not frozen) dataclass because building a frozen one costs about 2 us more per decision.
    """

    seat: int
    decision: Decision | None
    round: int
    contract: tuple[int, int]
    hand: tuple[str, ...]
    melds: tuple[Meld, ...]
    discard_top: str
    discard_live: bool
    stock_size: int
    discard_size: int
    dealer: int
    in_turn: int
    hand_sizes: tuple[int, ...]
    down: tuple[bool, ...]
    scores: tuple[int, ...]
    callers: tuple[int, ...]
    forbidden_discard: str
    turn: int
    turn_limit: int
    take_its: int
    take_it_limit: int | None = None
    jokers: int = 0


@dataclass
class RummyState(BaseState):
    """The full state of a game (hidden cards included); only the referee holds it.

    ``stock`` and ``pile`` list cards top first and top last respectively:
    ``stock[0]`` is drawn next and ``pile[-1]`` is the discard pile's top.
    ``totals`` are points per seat over the finished rounds.
    """

    phase: Phase = Phase.FIRST_DEALER
    round: int = 0
    first_dealer: int = -1
    dealer: int = -1
    hands: list[list[str]] = field(default_factory=list)
    stock: list[str] = field(default_factory=list)
    pile: list[str] = field(default_factory=list)
    top_live: bool = False
    discarder: int | None = None          # who discarded the pile's top (None: the upcard)
    melds: list[Meld] = field(default_factory=list)
    down: list[bool] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    round_points: list[list[int]] = field(default_factory=list)  # per finished round, per seat
    round_ends: list[RoundEnd] = field(default_factory=list)
    in_turn: int = -1
    turn: int = 0                         # turns completed in this round
    eligible: list[int] = field(default_factory=list)   # CALL: seats asked
    callers: list[int] = field(default_factory=list)    # DRAW: callers in priority order
    taken_from_pile: str | None = None    # the card the player in turn took from the pile this turn
    drawn: str | None = None              # the card the player in turn drew this turn
    take_its: list[int] = field(default_factory=list)   # per seat, this round


class RummyRules:
    """Contract rummy for ``num_seats`` seats (3-6) with ``params`` (rules §3).

    Raises BadParameters when the seat count is out of range.
    """

    game: GameName = "rummy"

    def __init__(self, params: RummyParams, num_seats: int) -> None:
        if type(num_seats) is not int or not MIN_SEATS <= num_seats <= MAX_SEATS:
            raise BadParameters(f"rummy is played by {MIN_SEATS} to {MAX_SEATS} seats, not {num_seats!r}")
        self.params = params
        self.num_seats = num_seats
        self.jokers = params.jokers if params.jokers is not None else (4 if num_seats <= 4 else 6)
        self.deck = deck(self.jokers)

    # -- the flow ---------------------------------------------------------------

    def new_state(self) -> RummyState:
        """The state before the first dealer is drawn: no cards dealt, every total 0 points."""
        n = self.num_seats
        return RummyState(num_seats=n, totals=[0] * n, hands=[[] for _ in range(n)], down=[False] * n, take_its=[0] * n)

    def step(self, state: RummyState) -> Step | None:
        """What must happen next (rules §3.3-3.9).

        ``DrawLot`` of all seats for the first dealer; ``Shuffle`` of the whole
        deck for a deal, or of the discard pile but its top card for a new
        stock; ``Ask`` of every eligible seat at once for the take-it window,
        of the player in turn for the draw and the play; None once round 7 is over.
        """
        phase = state.phase
        if phase is Phase.FIRST_DEALER:
            return DrawLot(tuple(range(self.num_seats)))
        if phase is Phase.DEAL:
            return Shuffle(self.deck)
        if phase is Phase.REBUILD:
            return Shuffle(tuple(state.pile[:-1]), stream="stock")  # numbered apart from the deals
        if phase is Phase.CALL:
            return Ask(tuple(sorted(state.eligible)))
        if phase in (Phase.DRAW, Phase.PLAY):
            return ask_one(state.in_turn)
        return None

    def apply_chance(self, state: RummyState, outcome: Sequence[str] | int) -> None:
        """Apply the draw by lot (a seat) or a shuffle (a permutation, top first).

        ``outcome`` answers the pending request: the step driver checked it (``referee.driver``).
        """
        if state.phase is Phase.FIRST_DEALER:
            state.first_dealer = outcome  # type: ignore[assignment]
            state.log("first_dealer", seat=outcome)
            self._begin_round(state, 1)
            return
        if state.phase is Phase.DEAL:
            self._deal(state, list(outcome))
        else:
            self._rebuild(state, list(outcome))

    def start_at_round(self, state: RummyState, rnd: int) -> None:
        """Skip to round ``rnd`` (1 to 7) before any card is dealt: its deal is pending next, by the
        dealer rules §3.3 gives that round.

        For tests and studies of one round (its contract, rules §3.2) without the rounds
        before it, which then score nothing. Raises IllegalAction unless the first dealer
        is drawn and round 1 is not dealt yet; BadParameters for a round out of 1..7.
        """
        if state.phase is not Phase.DEAL or state.round != 1:
            raise IllegalAction("a game starts at a later round only before the first deal")
        if type(rnd) is not int or not 1 <= rnd <= ROUNDS:
            raise BadParameters(f"a round is 1 to {ROUNDS}, not {rnd!r}")
        self._begin_round(state, rnd)

    def begin_turn(self, state: RummyState) -> None:
        """Begin the turn of ``state.in_turn`` from the table as it stands: the take-it window, else
        the draw, a rebuilt stock or the end of the round (rules §3.4-3.6, §3.9).

        The rules do this after every deal, rebuild and play; tests that arrange a table by
        hand (a short stock, an empty one) call it to hand the game back to the rules.
        """
        self._start_turn(state)

    def _begin_round(self, state: RummyState, rnd: int) -> None:
        """rules §3.3: the deal passes left each round."""
        state.round = rnd
        state.dealer = (state.first_dealer + rnd - 1) % self.num_seats
        state.phase = Phase.DEAL

    def _deal(self, state: RummyState, order: list[str]) -> None:
        """rules §3.2-3.3: deal the round's cards one at a time from the dealer's left; turn the upcard.

        Choice: the deal takes cards from the top of the shuffle (its first
        card), the next card is the upcard, the rest the stock.
        """
        n, size = self.num_seats, HAND_SIZES[state.round]
        state.hands = [[] for _ in range(n)]
        for i in range(n * size):
            state.hands[(state.dealer + 1 + i) % n].append(order[i])
        upcard = order[n * size]
        state.stock = order[n * size + 1:]
        state.pile = [upcard]
        state.top_live, state.discarder = True, None
        state.melds, state.down = [], [False] * n
        state.take_its = [0] * n
        state.turn = 0
        state.in_turn = (state.dealer + 1) % n
        sets, runs = CONTRACTS[state.round]
        state.log("round", round=state.round, dealer=state.dealer, sets=sets, runs=runs, hand_size=size)
        for s in range(n):
            state.log("hand", (s,), seat=s, cards=list(state.hands[s]))
        state.log("upcard", card=upcard)
        self._start_turn(state)

    def _eligible(self, state: RummyState) -> list[int]:
        """rules §3.5: who may call "take it" for the pile's top card now."""
        if not state.pile or not state.top_live:
            return []
        limit = self.params.take_it_limit
        return [
            s for s in range(self.num_seats)
            if s != state.in_turn and s != state.discarder and (limit is None or state.take_its[s] < limit)
        ]

    def _start_turn(self, state: RummyState) -> None:
        """Begin the turn of ``state.in_turn``: the take-it window, else the draw (rules §3.4-3.6, §3.9).

        Choice: a turn counts when its play ends; the turn limit is checked
        here, so a round ends after ``turn_limit`` complete turns. Seats that
        reached ``take_it_limit`` are not asked.
        """
        state.callers, state.eligible = [], []
        state.taken_from_pile = state.drawn = None
        if state.turn >= self.params.turn_limit:
            self._end_round(state, RoundEnd.TURN_LIMIT)
            return
        eligible = self._eligible(state)
        if eligible:
            # rules §3.5: take it only while the stock, rebuilt first if needed, holds 2 cards.
            if len(state.stock) < 2 and len(state.pile) > 1:
                state.phase = Phase.REBUILD
                return
            if len(state.stock) >= 2:
                state.eligible = eligible
                state.phase = Phase.CALL
                return
        self._to_draw(state)

    def _to_draw(self, state: RummyState) -> None:
        """rules §3.6, §3.9: the draw; rebuild an empty stock, or end the round if there is no card.

        When the stock is empty and the pile holds only its top card, the
        player in turn draws that card if it is live (rules §3.6); the round
        ends ("no card to draw") only when it is dead or there is none.
        Choice: when only one draw is possible (the stock, or the live top
        with the stock empty), it is made without asking.
        """
        if not state.stock:
            if len(state.pile) > 1:
                state.phase = Phase.REBUILD
            elif state.pile and state.top_live:
                self._draw(state, DrawSource.DISCARD_PILE)
            else:
                self._end_round(state, RoundEnd.NO_CARD)
            return
        if state.callers or (state.pile and state.top_live):
            state.phase = Phase.DRAW
        else:
            state.drawn = self._draw_stock(state, state.in_turn)
            state.phase = Phase.PLAY

    def _rebuild(self, state: RummyState, order: list[str]) -> None:
        """rules §3.9: the pile but its top card, shuffled, goes under what is left of the stock.

        The top card stays with its live or dead state. Choice: when the
        stock still holds a card (rebuilt for the take-it window), that card
        stays on top of the new stock.
        """
        state.stock = state.stock + order
        state.pile = state.pile[-1:]
        state.log("rebuild", cards=len(order), stock=len(state.stock))
        self._start_turn(state)

    def _draw_stock(self, state: RummyState, seat: int) -> str:
        card = state.stock.pop(0)
        state.hands[seat].append(card)
        state.log("draw", seat=seat, source="stock")
        state.log("drawn_card", (seat,), seat=seat, card=card)
        return card

    def _end_round(self, state: RummyState, reason: RoundEnd, out: int | None = None) -> None:
        """rules §3.9-3.10: each player scores the cards in his hand; after round 7 the game is over.

        Choice: the hands are shown to all for the count (a public event).
        """
        points = [0 if s == out else hand_points(state.hands[s]) for s in range(self.num_seats)]
        for s in range(self.num_seats):
            state.totals[s] += points[s]
        state.round_points.append(points)
        state.round_ends.append(reason)
        state.log(
            "round_end", round=state.round, reason=reason.value, out=out,
            hands=[sorted(h) for h in state.hands], points=points, totals=list(state.totals),
        )
        state.eligible, state.callers = [], []
        if state.round == ROUNDS:
            state.phase = Phase.OVER
            state.end_reason = f"{ROUNDS} rounds played"
            state.log("game_over", totals=list(state.totals))
        else:
            self._begin_round(state, state.round + 1)

    # -- decisions ----------------------------------------------------------------

    def _asked(self, state: RummyState) -> tuple[Decision, tuple[int, ...]]:
        if state.phase is Phase.CALL:
            return Decision.CALL, tuple(sorted(state.eligible))
        if state.phase is Phase.DRAW:
            return Decision.DRAW, (state.in_turn,)
        if state.phase is Phase.PLAY:
            return Decision.PLAY, (state.in_turn,)
        raise IllegalAction("no decision is pending")

    def check(self, state: RummyState, seat: int, action: RummyAction) -> None:
        """Raise IllegalAction, saying why, if ``seat`` may not play ``action`` now; never changes ``state``."""
        decision, seats = self._asked(state)
        if seat not in seats:
            raise IllegalAction(f"seat {seat} is not asked now; seats {list(seats)} are")
        if not isinstance(action, RummyAction):
            raise IllegalAction(f"expected a RummyAction, got {type(action).__name__}")
        if decision is Decision.CALL:
            if not isinstance(action.call, bool):
                raise IllegalAction("call must be true or false")
        elif decision is Decision.DRAW:
            if not isinstance(action.draw, DrawSource):
                raise IllegalAction("the draw must name its source: STOCK or DISCARD_PILE")
            if action.draw is DrawSource.DISCARD_PILE and not (state.pile and state.top_live):
                raise IllegalAction("the discard pile's top card is dead or missing and cannot be taken (rules §3.6)")
        else:
            try:
                self._plan(state, seat, action)
            except IllegalAction as exc:  # every illegal play cites its rule (docs/protocol.md: Faults)
                if "rules §" in str(exc):
                    raise
                raise IllegalAction(f"{exc} (rules §3.28)") from None

    def _plan(self, state: RummyState, seat: int, action: RummyAction) -> tuple[list[Meld], list[Meld], list[str]]:
        """Validate a play (rules §3.7-3.8) without changing ``state``.

        Choice: the discard restriction compares cards by value, so with two
        packs the other copy of the card taken is forbidden too.

        Returns (new melds, every meld after the lay-offs, the hand left before
        the discard). Raises IllegalAction saying why.
        """
        rnd = state.round
        taken = state.taken_from_pile
        discard = action.discard
        if not action.go_down and not action.lay_offs:  # the common play: a discard only
            if discard is None:
                raise IllegalAction("the play ends with a discard (rules §3.7)")
            if not is_card(discard):
                raise IllegalAction(f"not a card: {discard!r}")
            hand_list = state.hands[seat]
            if discard not in hand_list:
                raise IllegalAction(f"cards not held: [{discard!r}]")
            if taken is not None and discard == taken and any(c != taken for c in hand_list):
                raise IllegalAction(f"may not discard {taken}, the card taken from the discard pile this turn (rules §3.7)")
            return [], list(state.melds), list(hand_list)
        sets, runs = CONTRACTS[rnd]
        hand = Counter(state.hands[seat])
        used: Counter[str] = Counter()
        go_down = tuple(action.go_down)
        lay_offs = tuple(action.lay_offs)
        new: list[Meld] = []
        if go_down:
            if state.down[seat]:
                raise IllegalAction("already down this round: no other melds, ever (rules §3.7)")
            kinds = Counter()
            for i, m in enumerate(go_down):
                if not isinstance(m, NewMeld) or not isinstance(m.kind, MeldKind):
                    raise IllegalAction("a meld must name its kind, SET or RUN")
                new.append(new_meld(len(state.melds) + i, seat, m.kind, m.cards))
                kinds[m.kind] += 1
                used.update(m.cards)
            if kinds[MeldKind.SET] != sets or kinds[MeldKind.RUN] != runs:
                raise IllegalAction(
                    f"going down in round {rnd} lays exactly {sets} set(s) and {runs} run(s), "
                    f"got {kinds[MeldKind.SET]} set(s) and {kinds[MeldKind.RUN]} run(s) (rules §3.7)"
                )
        table = list(state.melds) + new
        if lay_offs:
            if rnd == WHOLE_HAND_ROUND:
                raise IllegalAction("no laying off in round 7 (rules §3.8)")
            if not (state.down[seat] or go_down):
                raise IllegalAction("only a player who is down may lay off (rules §3.7)")
            for lo in lay_offs:
                if not isinstance(lo, LayOff) or not isinstance(lo.meld_id, int) or not 0 <= lo.meld_id < len(table):
                    raise IllegalAction(f"a lay-off names no meld on the table (ids 0..{len(table) - 1})")
                if lo.end is not None and not isinstance(lo.end, RunEnd):
                    raise IllegalAction("a lay-off's end must be LOW or HIGH")
                table[lo.meld_id] = lay_off(table[lo.meld_id], lo.cards, lo.end)
                used.update(lo.cards)
        if discard is not None and not is_card(discard):
            raise IllegalAction(f"not a card: {discard!r}")
        missing = used + Counter([discard] if discard is not None else []) - hand
        if missing:
            raise IllegalAction(f"cards not held: {sorted(missing.elements())}")
        left = list((hand - used).elements())
        if rnd == WHOLE_HAND_ROUND and go_down:
            if left:
                raise IllegalAction(f"going down in round 7 melds the whole hand; left over: {sorted(left)} (rules §3.8)")
            if discard is not None:
                raise IllegalAction("no discard after going down in round 7 (rules §3.8)")
            return new, table, left
        if discard is None:
            if not left:
                raise IllegalAction("a player keeps a card to discard: no emptying the hand by melds or lay-offs (rules §3.7)")
            raise IllegalAction("the play ends with a discard (rules §3.7)")
        if taken is not None and discard == taken and any(c != taken for c in left):
            raise IllegalAction(f"may not discard {taken}, the card taken from the discard pile this turn (rules §3.7)")
        return new, table, left

    def apply(self, state: RummyState, actions: Mapping[int, RummyAction]) -> None:
        """Apply the asked seats' actions; raises IllegalAction (state unchanged) if one is missing or illegal.

        In the take-it window the answers are ordered by seat priority from
        the left of the player in turn, never by arrival (rules §3.5).
        """
        decision, seats = self._asked(state)
        if set(actions) != set(seats):
            raise IllegalAction(f"expected one action from each of seats {list(seats)}")
        if decision is Decision.PLAY:
            seat = state.in_turn
            action = actions[seat]
            if not isinstance(action, RummyAction):
                raise IllegalAction(f"expected a RummyAction, got {type(action).__name__}")
            self._play(state, seat, action, self._plan(state, seat, action))  # _plan is the check
            return
        for s in seats:
            self.check(state, s, actions[s])
        if decision is Decision.CALL:
            self._calls(state, actions)
        else:
            source = actions[state.in_turn].draw
            self._draw(state, source if isinstance(source, DrawSource) else DrawSource.STOCK)

    def _priority(self, state: RummyState) -> list[int]:
        """Seats in order from the left of the player in turn."""
        n = self.num_seats
        return [(state.in_turn + k) % n for k in range(1, n)]

    def _calls(self, state: RummyState, actions: Mapping[int, RummyAction]) -> None:
        """rules §3.5: collect the calls, first caller first in seat order from the player in turn's left."""
        state.callers = [s for s in self._priority(state) if s in actions and actions[s].call]
        state.eligible = []
        if state.callers:
            state.log("take_it_called", card=state.pile[-1], callers=list(state.callers))
        state.phase = Phase.DRAW

    def _draw(self, state: RummyState, source: DrawSource) -> None:
        """rules §3.5-3.6: the draw, settling a take-it if others called.

        Choice: the player in turn taking the card himself is his draw, not a
        take-it (no penalty, not counted against ``take_it_limit``); the card
        under it is dead too (rules §3.15: when a player gets the top card, the
        one below may not be picked up).
        """
        seat = state.in_turn
        if source is DrawSource.DISCARD_PILE:
            card = state.pile.pop()
            state.hands[seat].append(card)
            state.taken_from_pile = state.drawn = card
            state.top_live = False
            state.log("draw", seat=seat, source="discard_pile", card=card, callers=list(state.callers))
        else:
            if state.callers:
                caller = state.callers[0]
                card = state.pile.pop()
                state.hands[caller].append(card)
                state.take_its[caller] += 1
                state.top_live = False  # rules §3.5: the card now on top is dead
                state.log("take_it", seat=caller, card=card, given_by=seat)
                penalty = state.stock.pop(0)
                state.hands[caller].append(penalty)
                state.log("penalty_card", seat=caller)
                state.log("drawn_card", (caller,), seat=caller, card=penalty)
            state.drawn = self._draw_stock(state, seat)
        state.callers = []
        state.phase = Phase.PLAY

    def _play(self, state: RummyState, seat: int, action: RummyAction, plan: tuple[list[Meld], list[Meld], list[str]]) -> None:
        """Carry out a play checked by :meth:`_plan` (its result is ``plan``)."""
        new, table, left = plan
        if new:
            state.down[seat] = True
            state.log("go_down", seat=seat, melds=[{"id": m.id, "kind": m.kind.name.lower(), "cards": list(m.cards)} for m in new])
        for lo in action.lay_offs:
            state.log("lay_off", seat=seat, meld_id=lo.meld_id, cards=list(lo.cards), end=lo.end.name.lower() if lo.end else None)
        state.melds = table
        if state.round == WHOLE_HAND_ROUND and new:
            state.hands[seat] = []
            self._end_round(state, RoundEnd.WENT_OUT, out=seat)
            return
        discard = action.discard if action.discard is not None else ""  # _plan checked it is held
        left.remove(discard)
        state.hands[seat] = left
        state.pile.append(discard)
        state.top_live, state.discarder = True, seat
        state.log("discard", seat=seat, card=discard)
        state.turn += 1
        if not left:
            self._end_round(state, RoundEnd.WENT_OUT, out=seat)
            return
        state.in_turn = (seat + 1) % self.num_seats
        self._start_turn(state)

    def default_action(self, state: RummyState, seat: int) -> RummyAction:
        """rules §4.2: no take it; give the card to a caller, else draw from the stock; no melds or lay-offs;
        discard the card drawn this turn, or if that is not allowed, the highest-scoring other card
        (ties: higher rank, then suit in the order s h d c).

        Raises IllegalAction when ``seat`` is not asked.
        """
        decision, seats = self._asked(state)
        if seat not in seats:
            raise IllegalAction(f"seat {seat} is not asked now")
        if decision is Decision.CALL:
            return RummyAction(call=False)
        if decision is Decision.DRAW:
            return RummyAction(draw=DrawSource.STOCK)
        hand = state.hands[seat]
        drawn, taken = state.drawn, state.taken_from_pile
        if drawn is not None and drawn in hand and drawn != taken:
            return RummyAction(discard=drawn)
        others = [c for c in hand if c != taken] or list(hand)
        return RummyAction(discard=max(others, key=default_discard_key))

    # -- what a seat sees, and the result ---------------------------------------------

    def view(self, state: RummyState, seat: int) -> RummyView:
        """What ``seat`` may see now (see :class:`RummyView`): its own hand and the public table,
        never another hand or the stock's order."""
        decision: Decision | None = None
        try:
            d, seats = self._asked(state)
            if seat in seats:
                decision = d
        except IllegalAction:
            pass
        rnd = max(state.round, 1)
        return RummyView(
            seat=seat,
            decision=decision,
            round=state.round,
            contract=CONTRACTS[rnd],
            hand=tuple(sorted(state.hands[seat], key=_HAND_ORDER.__getitem__)) if state.hands else (),
            melds=tuple(state.melds),
            discard_top=state.pile[-1] if state.pile else "",
            discard_live=bool(state.pile) and state.top_live,
            stock_size=len(state.stock),
            discard_size=len(state.pile),
            dealer=max(state.dealer, 0),
            in_turn=max(state.in_turn, 0),
            hand_sizes=tuple(len(h) for h in state.hands),
            down=tuple(state.down),
            scores=tuple(state.totals),
            callers=tuple(state.callers) if decision is Decision.DRAW else (),
            forbidden_discard=(state.taken_from_pile or "") if decision is Decision.PLAY else "",
            turn=state.turn,
            turn_limit=self.params.turn_limit,
            take_its=state.take_its[seat] if state.take_its else 0,
            take_it_limit=self.params.take_it_limit,
            jokers=self.jokers,
        )

    def rank_key(self, state: RummyState, seat: int) -> tuple[int, ...]:
        """rules §3.11: total points, ascending (so the key is minus the points)."""
        return (-state.totals[seat],)

    def scores(self, state: RummyState) -> tuple[int, ...]:
        """Per seat, total points over the rounds played (lower is better)."""
        return tuple(state.totals)

    def score_changes(self, state: RummyState) -> tuple[int, ...]:
        """Per seat, the points taken over the game (the same as :meth:`scores`)."""
        return tuple(state.totals)


def default_discard_key(card: str) -> tuple[int, int, int]:
    """Order of rules §4.2's default discard: points, then rank, then suit (s > h > d > c); larger first."""
    if card == JOKER:
        return (card_points(card), len(RANKS), len(SUITS))
    return (card_points(card), RANKS.index(card[0]), SUITS.index(card[1]))


def hand_sort_key(card: str) -> tuple[int, int]:
    """Hands are shown sorted by rank (2..A), then suit (c d h s); jokers last."""
    if card == JOKER:
        return (len(RANKS), 0)
    return (RANKS.index(card[0]), SUITS.index(card[1]))


#: hand_sort_key of every card, looked up when a view sorts a hand (once per decision).
_HAND_ORDER = {card: hand_sort_key(card) for card in (*pack(), JOKER)}
