"""The Svara (Seka) engine: parameters, state, actions, views and the rules.

Source: ``docs/rules/svara.md`` (rules §2), with the
referee's default actions from rules §4.2. The choices made where the rules were
silent are listed below and in ``docs/rules/svara.md``.

Shape of a game (OpenSpiel-style: the :class:`SvaraRules` object is the
immutable game, :class:`SvaraState` the mutable state, :class:`SvaraView`
what one seat may see):

* the first dealer is drawn by lot (DrawLot over every seat);
* a hand: antes, Shuffle (bottom card; an ace or the szacha costs the dealer
  a second ante and passes the deal left, with a new Shuffle), the deal, then
  betting turns (Ask one seat) until a see, a fold to one, or the circuit
  limit; a tie at a show starts a svara: joining (Ask one seat at a time),
  DrawLot for its dealer, Shuffle, deal, betting...;
* a proposal asks every other player still in, one at a time in seat order
  from the proposer's left (Ask one seat per vote).

The engine never draws random numbers and never does I/O. All amounts are
tokens. Illegal input raises :class:`~referee.engine.IllegalAction` and
leaves the state unchanged.

Choices where the rules were silent (what Svara/Seka players expect; the same
list, in order, is rules §2.13-2.27):

1. The first hand's dealer is drawn by lot among all seats.
2. "Left" is the next seat number, wrapping round.
3. The next hand's dealer is the first seat in the hand to the left of the
   previous hand's first-deal dealer (out seats are skipped).
4. Looking happens only on one's own betting turn (a TURN move).
5. A player who cannot pay the current stake may only fold (and look); he
   may not propose.
6. SEE is allowed whenever exactly two remain, also before anyone staked in
   the deal; it costs the current stake.
7. A proposed svara counts towards ``svaras_per_bank``; with 0 there is no
   svara at all (ties split at once, no proposals).
8. Votes are asked one at a time from the proposer's left (rules §2.9),
   each voter seeing the earlier votes; every voter is asked, also after a
   refusal; any refusal refuses.
9. Joining is open to every seat not out and not in the svara (folded
   players included) holding at least the join cost, asked one at a time
   from the left of the dealer of the deal that ended; the cost is fixed at
   the tie.
10. A svara seat short of the minimum stake is checked when the cards are
    dealt (after bottom-card penalties).
11. A circuit ends when the turn moves on from the dealer's seat or past it
    (a folded dealer's position counts); LOOK and a refused proposal do not
    move the turn.
12. Shows list hands from the dealer's left; the tied highest of all hands
    shown go to the svara or the split.
13. Out is for good; an out seat keeps its remaining tokens.
14. A dealer with no tokens who turns an ace or the szacha pays nothing and
    the deal still passes.
15. A shuffle's order is top first; the bottom card is its last card and is
    never dealt.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from referee.cards import pack
from referee.engine import Ask, BadParameters, BaseState, DrawLot, GameName, IllegalAction, Shuffle, Step, ask_one
from referee.games.svara.points import SVARA_RANKS, hand_points, is_svara_card
from referee.params import check_by_stage, param

#: Seats at a Svara table (rules §2.3).
MIN_SEATS = 3
MAX_SEATS = 8

#: The 36-card pack, rank-major (rules §2: 6 to ace).
PACK: tuple[str, ...] = pack(SVARA_RANKS)

#: The deal's chance request, by whether it is a svara's (aside from the game's hands): immutable, so shared.
_SHUFFLES = {False: Shuffle(PACK), True: Shuffle(PACK, aside=True)}


#: Most tokens a stake or a seat's start may be: every amount must fit the protocol's uint32 fields.
MAX_AMOUNT = 100_000_000


@dataclass(frozen=True)
class SvaraParams:
    """Svara parameters (rules §2.1, 2.3), with their defaults; each field's range and meaning are
    declared with :func:`referee.params.param` (the rules' parameter table is written from them).
    Amounts are tokens; the upper bounds keep amounts within the protocol's uint32 fields and a game
    within reasonable time.

    Raises BadParameters naming the parameter for impossible values.
    """

    szacha: str = param("6c", "the wild card", "§2.1", kind="a card of the 36-card pack (6..A, suits cdhs)",
                        valid=is_svara_card)
    min_stake: int = param(10, "the minimum stake", "§2.3", low=1)
    max_stake: int = param(100, "the maximum stake", "§2.3", at_least="min_stake", high=MAX_AMOUNT)
    starting_tokens: int = param(1000, "tokens each seat starts with", "§2.3", at_least="min_stake", high=MAX_AMOUNT)
    hands: int = param(30, "hands per game", "§2.3, §2.11", low=1, high=10_000)
    circuits: int = param(3, "circuits of betting before a forced show", "§2.3, §2.6", low=1, high=1_000)
    svaras_per_bank: int = param(3, "svaras a bank may be played again before a tie splits it", "§2.3, §2.8, §2.19",
                                 low=0, high=100, note="0: ties split at once, no proposals")

    def __post_init__(self) -> None:
        check_by_stage(self, upper_first=("starting_tokens",))


class SvaraMove(enum.IntEnum):
    """A move; values equal the protocol's ``SvaraMove`` numbers."""

    LOOK = 1
    FOLD = 2
    STAKE = 3
    SEE = 4
    PROPOSE = 5
    ACCEPT = 6
    REFUSE = 7
    JOIN = 8
    DECLINE = 9


class Decision(enum.IntEnum):
    """What a seat is asked to decide; values equal the protocol's ``SvaraDecision``."""

    NONE = 0
    TURN = 1
    VOTE = 2
    JOIN = 3


class Phase(enum.Enum):
    """What the state waits for."""

    FIRST_DEALER = "first_dealer"  # DrawLot: the first hand's dealer
    SHUFFLE = "shuffle"            # Shuffle: the dealer shuffles (bottom card, then the deal)
    TURN = "turn"                  # Ask(to_act): a betting turn
    VOTE = "vote"                  # Ask(voters[0]): a proposed svara, one voter at a time
    JOIN = "join"                  # Ask(join_queue[0]): join the coming svara?
    SVARA_DEALER = "svara_dealer"  # DrawLot: the svara's dealer among its seats
    OVER = "over"                  # the game is over


# The members the per-decision path compares against, as module constants: an Enum class's attribute
# is looked up through EnumType's ``__getattr__`` hook, several times slower than a global.
_P_FIRST_DEALER, _P_SHUFFLE, _P_TURN, _P_VOTE = Phase.FIRST_DEALER, Phase.SHUFFLE, Phase.TURN, Phase.VOTE
_P_JOIN, _P_SVARA_DEALER, _P_OVER = Phase.JOIN, Phase.SVARA_DEALER, Phase.OVER
_LOOK, _FOLD, _STAKE, _SEE, _PROPOSE = SvaraMove.LOOK, SvaraMove.FOLD, SvaraMove.STAKE, SvaraMove.SEE, SvaraMove.PROPOSE
_ACCEPT, _REFUSE, _JOIN, _DECLINE = SvaraMove.ACCEPT, SvaraMove.REFUSE, SvaraMove.JOIN, SvaraMove.DECLINE
_D_NONE, _D_TURN, _D_VOTE, _D_JOIN = Decision.NONE, Decision.TURN, Decision.VOTE, Decision.JOIN


@dataclass(frozen=True)
class SvaraMoveAction:
    """One seat's action: a move, and for STAKE the amount in tokens (ignored otherwise)."""

    move: SvaraMove
    amount: int = 0


@dataclass(frozen=True)
class SvaraLegal:
    """The legal moves now; amounts in tokens (0 where they do not apply)."""

    moves: tuple[SvaraMove, ...] = ()
    stake_min: int = 0
    stake_max: int = 0
    see_cost: int = 0
    join_cost: int = 0


@dataclass(frozen=True)
class SvaraEvent:
    """One move of the current deal as every seat saw it; ``amount`` = tokens paid."""

    seat: int
    move: SvaraMove
    amount: int = 0


@dataclass(frozen=True)
class SvaraShown:
    """A hand shown at a show in the current hand (public from then on)."""

    seat: int
    cards: tuple[str, ...]
    points: int


@dataclass(slots=True)
class SvaraView:
    """Everything ``seat`` may see now (mirrors ``cardarena.v1.SvaraView``).

    ``hand`` is empty until the seat has looked; other seats' cards appear
    only in ``shown``. Per-seat tuples have one entry per seat. During a
    JOIN decision ``in_play`` marks the seats already in the coming svara.
    ``dealer`` and ``proposer`` are -1 when there is none. ``svaras_per_bank``
    and ``starting_tokens`` are the game's parameters (rules §2.3, 2.8).

    A new view is built for every call of ``view`` and nothing keeps or changes one: it is a
    plain (not frozen) dataclass because building a frozen one costs about 2 us more per decision.
    """

    seat: int
    decision: Decision
    legal: SvaraLegal
    hand: tuple[str, ...]
    looked: bool
    szacha: str
    bottom_card: str
    dealer: int
    bank: int
    current_stake: int
    min_stake: int
    max_stake: int
    tokens: tuple[int, ...]
    in_play: tuple[bool, ...]
    has_looked: tuple[bool, ...]
    out: tuple[bool, ...]
    svara: int
    circuit: int
    circuits: int
    hand_number: int
    hands: int
    history: tuple[SvaraEvent, ...]
    shown: tuple[SvaraShown, ...]
    proposer: int
    svaras_per_bank: int = 0
    starting_tokens: int = 0


@dataclass
class SvaraState(BaseState):
    """The mutable state of one game. Per-seat lists have ``num_seats`` entries.

    ``tokens`` are outside the bank; ``bank`` holds the rest, so
    ``sum(tokens) + bank`` is constant. ``cards[s]`` is seat s's hand in the
    current deal (empty if none). ``svara`` is 0 in a hand's first deal and n
    in its n-th svara. ``hand_dealer`` is the seat that dealt the current
    hand's first deal (the deal rotates from it, rules §2.10).
    """

    starting_tokens: int = 0
    tokens: list[int] = field(default_factory=list)
    out: list[bool] = field(default_factory=list)
    phase: Phase = Phase.FIRST_DEALER
    hand_number: int = 0
    hand_dealer: int = -1
    dealer: int = -1
    svara: int = 0
    bank: int = 0
    current_stake: int = 0
    circuit: int = 0
    in_deal: list[bool] = field(default_factory=list)
    in_play: list[bool] = field(default_factory=list)
    looked: list[bool] = field(default_factory=list)
    cards: list[tuple[str, ...]] = field(default_factory=list)
    bottom_card: str = ""
    to_act: int = -1
    proposed: list[bool] = field(default_factory=list)
    proposer: int = -1
    voters: tuple[int, ...] = ()          # VOTE: the voters still to answer, the next first
    refused: bool = False                 # VOTE: a voter refused the proposal
    svara_seats: list[int] = field(default_factory=list)
    join_queue: list[int] = field(default_factory=list)
    join_cost: int = 0
    history: list[SvaraEvent] = field(default_factory=list)
    shown: list[SvaraShown] = field(default_factory=list)


_NO_LEGAL = SvaraLegal()
_VOTE_LEGAL = SvaraLegal(moves=(_ACCEPT, _REFUSE))


@lru_cache(maxsize=1024)
def _join_legal(join_cost: int) -> SvaraLegal:
    """The legal moves when asked to join a svara costing ``join_cost`` tokens (rules §2.8)."""
    return SvaraLegal(moves=(_JOIN, _DECLINE), join_cost=join_cost)


@lru_cache(maxsize=8192)
def _betting_legal(looked: bool, tokens: int, current: int, max_stake: int, two_left: bool,
                   may_propose: bool) -> SvaraLegal:
    """The legal moves of a betting turn (rules §2.5-2.7, 2.9), from the seat's ``looked`` and
    ``tokens``, the ``current`` stake, the game's ``max_stake`` (tokens), whether exactly two
    players are left (``two_left``, for a seat that looked) and whether it ``may_propose``.
    Cached: a game asks the same few questions again and again (the results are immutable)."""
    moves = [] if looked else [_LOOK]
    moves.append(_FOLD)
    if tokens < current:  # rules §2.6: cannot pay the current stake: must fold
        return SvaraLegal(moves=tuple(moves))
    stake_max = min(max_stake, tokens)
    if looked:
        moves.append(_STAKE)
        if two_left:
            moves.append(_SEE)
        return SvaraLegal(moves=tuple(moves), stake_min=current, stake_max=stake_max, see_cost=current if two_left else 0)
    if may_propose:
        moves.append(_PROPOSE)
    return SvaraLegal(moves=tuple(moves), stake_min=current, stake_max=stake_max)


class SvaraRules:
    """The rules of Svara for fixed parameters and table size (3..8 seats, rules §2.3).

    Implements the :class:`referee.engine.Rules` protocol. Raises
    BadParameters for a table size outside 3..8.
    """

    game: GameName = "svara"

    def __init__(self, params: SvaraParams | None = None, num_seats: int = 3) -> None:
        if not isinstance(num_seats, int) or not MIN_SEATS <= num_seats <= MAX_SEATS:
            raise BadParameters(f"Svara is played by {MIN_SEATS} to {MAX_SEATS} seats, not {num_seats!r}")
        self.params = params if params is not None else SvaraParams()
        self.num_seats = num_seats

    # ----------------------------------------------------------------- protocol

    def new_state(self) -> SvaraState:
        """The state before the first dealer is drawn; every seat holds ``starting_tokens``."""
        n = self.num_seats
        p = self.params
        return SvaraState(
            num_seats=n,
            starting_tokens=p.starting_tokens,
            tokens=[p.starting_tokens] * n,
            out=[False] * n,
            in_deal=[False] * n,
            in_play=[False] * n,
            looked=[False] * n,
            cards=[()] * n,
            proposed=[False] * n,
        )

    def step(self, state: SvaraState) -> Step | None:
        """The pending request: DrawLot (first dealer, svara dealer), Shuffle, Ask, or None when over."""
        phase = state.phase
        if phase is _P_TURN:
            return ask_one(state.to_act)
        if phase is _P_SHUFFLE:
            return _SHUFFLES[state.svara > 0]  # a svara's deal is not one of the game's hands
        if phase is _P_VOTE:
            return ask_one(state.voters[0])
        if phase is _P_JOIN:
            return ask_one(state.join_queue[0])
        if phase is _P_SVARA_DEALER:
            return DrawLot(tuple(sorted(state.svara_seats)))
        if phase is _P_FIRST_DEALER:
            return DrawLot(tuple(range(state.num_seats)))
        return None

    def apply_chance(self, state: SvaraState, outcome: Sequence[str] | int) -> None:
        """Answer the pending Shuffle (a permutation of :data:`PACK`, top first) or DrawLot (a seat).

        ``outcome`` answers the pending request: the step driver checked it (``referee.driver``).
        """
        if state.phase is _P_SHUFFLE:
            self._shuffled(state, tuple(outcome))  # type: ignore[arg-type]
        elif state.phase is _P_FIRST_DEALER:
            state.log("first_dealer", seat=outcome)
            self._start_hand(state, outcome)  # type: ignore[arg-type]
        else:
            self._svara_dealer(state, outcome)  # type: ignore[arg-type]

    def check(self, state: SvaraState, seat: int, action: SvaraMoveAction) -> None:
        """Raise IllegalAction (saying why) if ``seat`` may not play ``action`` now. Never changes ``state``."""
        if not isinstance(action, SvaraMoveAction) or not isinstance(action.move, SvaraMove):
            raise IllegalAction(f"not a Svara action: {action!r}")
        if not isinstance(action.amount, int) or isinstance(action.amount, bool):
            raise IllegalAction(f"amount must be an integer, not {action.amount!r}")
        if seat != self._asked_seat(state):
            raise IllegalAction(f"seat {seat} is not asked to act now")
        move = action.move
        legal = self._legal(state, seat)
        if move not in legal.moves:
            raise IllegalAction(self._why_not(state, seat, move))
        if move is _STAKE and not legal.stake_min <= action.amount <= legal.stake_max:
            raise IllegalAction(
                f"stake {action.amount} out of range: from the current stake {legal.stake_min} "
                f"to {legal.stake_max} (maximum stake {self.params.max_stake}, own tokens {state.tokens[seat]}; rules §2.6)"
            )

    def apply(self, state: SvaraState, actions: Mapping[int, SvaraMoveAction]) -> None:
        """Apply one action per asked seat, in seat order.

        Raises IllegalAction (state unchanged) if the seats are not exactly the
        asked ones or an action is illegal.
        """
        seat = self._asked_seat(state)
        if seat < 0:
            raise IllegalAction("no decision is pending")
        if len(actions) != 1 or seat not in actions:
            raise IllegalAction(f"expected one action from each of seats {[seat]}, got {sorted(actions)}")
        action = actions[seat]
        self.check(state, seat, action)
        if state.phase is _P_TURN:
            self._turn(state, seat, action)
        elif state.phase is _P_VOTE:
            self._vote(state, seat, action.move)
        else:
            self._join(state, seat, action.move)

    def default_action(self, state: SvaraState, seat: int) -> SvaraMoveAction:
        """rules §4.2: fold (no look needed); refuse a proposal; do not join.

        Raises IllegalAction if ``seat`` is not asked now.
        """
        if seat != self._asked_seat(state):
            raise IllegalAction(f"seat {seat} is not asked to act now")
        if state.phase is _P_VOTE:
            return SvaraMoveAction(_REFUSE)
        if state.phase is _P_JOIN:
            return SvaraMoveAction(_DECLINE)
        return SvaraMoveAction(_FOLD)

    def view(self, state: SvaraState, seat: int) -> SvaraView:
        """What ``seat`` may see now: its own cards only once looked, others' only once shown."""
        if not 0 <= seat < state.num_seats:
            raise ValueError(f"no seat {seat} at a table of {state.num_seats}")
        phase = state.phase
        decision = _D_NONE
        legal = _NO_LEGAL
        if phase is _P_TURN and seat == state.to_act:
            decision = _D_TURN
        elif phase is _P_VOTE and seat == state.voters[0]:
            decision = _D_VOTE
        elif phase is _P_JOIN and seat == state.join_queue[0]:
            decision = _D_JOIN
        if decision is not _D_NONE:
            legal = self._legal(state, seat)
        if phase is _P_JOIN:
            in_play = tuple(s in state.svara_seats for s in range(state.num_seats))
        else:
            in_play = tuple(state.in_play)
        p = self.params
        return SvaraView(
            seat=seat,
            decision=decision,
            legal=legal,
            hand=state.cards[seat] if state.looked[seat] else (),
            looked=state.looked[seat],
            szacha=p.szacha,
            bottom_card=state.bottom_card,
            dealer=state.dealer,
            bank=state.bank,
            current_stake=state.current_stake,
            min_stake=p.min_stake,
            max_stake=p.max_stake,
            tokens=tuple(state.tokens),
            in_play=in_play,
            has_looked=tuple(state.looked),
            out=tuple(state.out),
            svara=state.svara,
            circuit=state.circuit,
            circuits=p.circuits,
            hand_number=state.hand_number,
            hands=p.hands,
            history=tuple(state.history),
            shown=tuple(state.shown),
            proposer=state.proposer if phase is _P_VOTE else -1,
            svaras_per_bank=p.svaras_per_bank,
            starting_tokens=p.starting_tokens,
        )

    def rank_key(self, state: SvaraState, seat: int) -> tuple[int, ...]:
        """rules §2.12: (final tokens,); larger ranks higher."""
        return (state.tokens[seat],)

    def scores(self, state: SvaraState) -> tuple[int, ...]:
        """Per seat, tokens held (outside the bank, which is empty once the game is over)."""
        return tuple(state.tokens)

    def score_changes(self, state: SvaraState) -> tuple[int, ...]:
        """Per seat, tokens won (positive) or lost (negative) over the game."""
        return tuple(t - state.starting_tokens for t in state.tokens)

    # ------------------------------------------------------------ legal moves

    def _asked_seat(self, state: SvaraState) -> int:
        """The one seat asked now (Svara asks one seat at a time), -1 when no decision is pending."""
        phase = state.phase
        if phase is _P_TURN:
            return state.to_act
        if phase is _P_VOTE:
            return state.voters[0]
        if phase is _P_JOIN:
            return state.join_queue[0]
        return -1

    def _legal(self, state: SvaraState, seat: int) -> SvaraLegal:
        """The legal moves of an asked seat (rules §2.5-2.9)."""
        phase = state.phase
        if phase is _P_VOTE:
            return _VOTE_LEGAL
        if phase is _P_JOIN:
            return _join_legal(state.join_cost)
        p = self.params
        looked = state.looked[seat]
        return _betting_legal(looked, state.tokens[seat], state.current_stake, p.max_stake,
                              looked and sum(state.in_play) == 2,
                              not looked and state.svara == 0 and not state.proposed[seat] and p.svaras_per_bank >= 1)

    def _why_not(self, state: SvaraState, seat: int, move: SvaraMove) -> str:
        """A readable reason why ``move`` is not legal for the asked ``seat`` now."""
        phase = state.phase
        if phase is _P_VOTE:
            return f"{move.name} is not a vote: answer ACCEPT or REFUSE (rules §2.20)"
        if phase is _P_JOIN:
            return f"{move.name} is not an answer to a svara: answer JOIN or DECLINE (rules §2.21)"
        looked = state.looked[seat]
        if move in (_ACCEPT, _REFUSE, _JOIN, _DECLINE):
            return f"{move.name}: no vote or svara is being asked; it is a betting turn (rules §2.6)"
        if move is _LOOK:
            return "already looked (rules §2.5)"
        if state.tokens[seat] < state.current_stake:
            return f"cannot pay the current stake {state.current_stake} with {state.tokens[seat]} tokens: must fold (rules §2.17)"
        if move in (_STAKE, _SEE) and not looked:
            return f"must look before {move.name.lower()} (rules §2.5)"
        if move is _SEE:
            return f"see needs exactly two players left, not {sum(state.in_play)} (rules §2.18)"
        if move is _PROPOSE:
            if looked:
                return "only a player who has not looked may propose a svara (rules §2.9)"
            if state.svara:
                return "no proposal inside a svara (rules §2.9)"
            if state.proposed[seat]:
                return "a player may propose once per hand (rules §2.9)"
            return "no svara may be played for this bank (svaras_per_bank = 0; rules §2.19)"
        return f"{move.name} is not legal now (rules §2.6)"

    # ------------------------------------------------------------ transitions

    def _left_of(self, start: int, members: Sequence[bool]) -> list[int]:
        """Seats with ``members[s]`` in order from the left of ``start``, ending with ``start``."""
        n = len(members)
        return [s % n for s in range(start + 1, start + n + 1) if members[s % n]]

    def _start_hand(self, state: SvaraState, candidate: int) -> None:
        """Antes and the dealer of a new hand (rules §2.4, 2.10, 2.11); ends the game if due."""
        p = self.params
        n = state.num_seats
        if state.hand_number >= p.hands:
            self._over(state, "hands")
            return
        for s in range(n):
            if not state.out[s] and state.tokens[s] < p.min_stake:
                state.out[s] = True
                state.log("out", seat=s, tokens=state.tokens[s])
        players = [s for s in range(n) if not state.out[s]]
        if len(players) < 2:
            self._over(state, "too few seats can ante")
            return
        for s in players:
            state.tokens[s] -= p.min_stake
        state.bank += p.min_stake * len(players)
        mask = [not o for o in state.out]
        dealer = candidate % n
        while not mask[dealer]:
            dealer = (dealer + 1) % n
        state.dealer = dealer
        state.hand_dealer = -1
        state.svara = 0
        state.in_deal = mask
        state.proposed = [False] * n
        state.shown = []
        state.history = []
        state.log("hand", hand=state.hand_number, dealer=dealer, seats=players)
        state.log("ante", seats=players, amount=p.min_stake, bank=state.bank)
        self._begin_deal(state)

    def _begin_deal(self, state: SvaraState) -> None:
        """Reset the deal's cards and betting, and ask for the dealer's shuffle."""
        n = state.num_seats
        state.looked = [False] * n
        state.cards = [()] * n
        state.in_play = list(state.in_deal)
        state.current_stake = self.params.min_stake
        state.circuit = 0
        state.to_act = -1
        state.phase = _P_SHUFFLE

    def _shuffled(self, state: SvaraState, order: tuple[str, ...]) -> None:
        """Bottom card and its penalty, then the deal (rules §2.4, 2.8)."""
        p = self.params
        dealer = state.dealer
        bottom = order[-1]
        state.bottom_card = bottom
        state.log("bottom_card", dealer=dealer, card=bottom)
        if bottom[0] == "A" or bottom == p.szacha:
            pay = min(p.min_stake, state.tokens[dealer])
            state.tokens[dealer] -= pay
            state.bank += pay
            state.dealer = self._left_of(dealer, state.in_deal)[0]
            state.log("bottom_penalty", seat=dealer, amount=pay, next_dealer=state.dealer)
            return  # still SHUFFLE: the next dealer shuffles
        seats = self._left_of(dealer, state.in_deal)
        k = len(seats)
        for i, s in enumerate(seats):
            hand = (order[i], order[i + k], order[i + 2 * k])
            state.cards[s] = hand
            state.log("deal", visible_to=(s,), seat=s, cards=list(hand))
        state.log("dealt", dealer=dealer, seats=seats, svara=state.svara)
        if state.svara == 0:
            state.hand_dealer = dealer
        elif any(state.tokens[s] < p.min_stake for s in seats):
            state.log("no_betting", seats=[s for s in seats if state.tokens[s] < p.min_stake])
            self._show(state, seats)
            return
        state.to_act = seats[0]
        state.phase = _P_TURN

    def _turn(self, state: SvaraState, seat: int, action: SvaraMoveAction) -> None:
        """A checked betting move (rules §2.5-2.7, 2.9)."""
        move = action.move
        if move is _LOOK:
            state.looked[seat] = True
            state.history.append(SvaraEvent(seat, move))
            state.log("look", seat=seat)
            return  # looking does not end the turn
        if move is _FOLD:
            state.in_play[seat] = False
            state.history.append(SvaraEvent(seat, move))
            state.log("fold", seat=seat)
            left = [s for s in range(state.num_seats) if state.in_play[s]]
            if len(left) == 1:
                self._award(state, left[0], unseen=True)
            else:
                self._next_turn(state, seat)
            return
        if move is _STAKE:
            amount = action.amount
            state.tokens[seat] -= amount
            state.bank += amount
            state.current_stake = amount
            state.history.append(SvaraEvent(seat, move, amount))
            state.log("stake", seat=seat, amount=amount, bank=state.bank)
            self._next_turn(state, seat)
            return
        if move is _SEE:
            amount = state.current_stake
            state.tokens[seat] -= amount
            state.bank += amount
            state.history.append(SvaraEvent(seat, move, amount))
            state.log("see", seat=seat, amount=amount, bank=state.bank)
            self._show(state, self._left_of(state.dealer, state.in_play))
            return
        # PROPOSE
        state.proposed[seat] = True
        state.proposer = seat
        state.voters = tuple(s for s in self._left_of(seat, state.in_play) if s != seat)  # rules §2.9
        state.refused = False
        state.history.append(SvaraEvent(seat, move))
        state.log("propose", seat=seat, voters=list(state.voters))
        state.phase = _P_VOTE

    def _next_turn(self, state: SvaraState, seat: int) -> None:
        """Pass the turn left; count circuits; force the show at the limit (rules §2.6, 2.7)."""
        n = state.num_seats
        q = seat
        passed = False
        while True:
            if q == state.dealer:
                passed = True
            q = (q + 1) % n
            if state.in_play[q]:
                break
        if passed:
            state.circuit += 1
            if state.circuit >= self.params.circuits:
                state.log("circuit_limit", circuits=state.circuit)
                self._show(state, self._left_of(state.dealer, state.in_play))
                return
        state.to_act = q

    def _vote(self, state: SvaraState, seat: int, move: SvaraMove) -> None:
        """One voter's answer to a proposal; after the last voter, the outcome (rules §2.9).

        Voters are asked one at a time from the proposer's left; every one is
        asked, and any refusal refuses.
        """
        state.voters = state.voters[1:]
        state.refused = state.refused or move is _REFUSE
        state.history.append(SvaraEvent(seat, move))
        state.log("vote", seat=seat, accept=move is _ACCEPT)
        if state.voters:
            return
        proposer = state.proposer
        state.proposer = -1
        if not state.refused:
            state.log("proposal_accepted", seat=proposer)
            self._start_svara(state, self._left_of(state.dealer, state.in_play), "proposal")
        else:
            state.log("proposal_refused", seat=proposer)
            state.phase = _P_TURN
            state.to_act = proposer

    def _show(self, state: SvaraState, seats: list[int]) -> None:
        """Show ``seats`` (ordered from the dealer's left); the highest take the bank or play a svara."""
        szacha = self.params.szacha
        points = {}
        for s in seats:
            pts = hand_points(state.cards[s], szacha)
            points[s] = pts
            state.shown.append(SvaraShown(s, state.cards[s], pts))
            state.log("show", seat=s, cards=list(state.cards[s]), points=pts)
        best = max(points.values())
        winners = [s for s in seats if points[s] == best]
        if len(winners) == 1:
            self._award(state, winners[0], unseen=False)
        elif state.svara < self.params.svaras_per_bank:
            self._start_svara(state, winners, "tie")
        else:
            self._split(state, winners)

    def _start_svara(self, state: SvaraState, seats: list[int], reason: str) -> None:
        """A svara among ``seats``: cards in, joining asked from the dealer's left (rules §2.8, 2.9)."""
        n = state.num_seats
        cost = state.bank // 2
        members = [s in seats for s in range(n)]
        state.svara_seats = list(seats)
        state.join_cost = cost
        state.join_queue = [
            s for s in self._left_of(state.dealer, [True] * n)
            if not members[s] and not state.out[s] and state.tokens[s] >= cost
        ]
        state.cards = [()] * n
        state.looked = [False] * n
        state.in_play = members
        state.history = []
        state.to_act = -1
        state.log("svara", seats=list(seats), bank=state.bank, join_cost=cost, reason=reason, number=state.svara + 1)
        state.phase = _P_JOIN if state.join_queue else _P_SVARA_DEALER

    def _join(self, state: SvaraState, seat: int, move: SvaraMove) -> None:
        """One seat's answer to joining the svara (rules §2.8)."""
        state.join_queue.pop(0)
        if move is _JOIN:
            cost = state.join_cost
            state.tokens[seat] -= cost
            state.bank += cost
            state.svara_seats.append(seat)
            state.in_play[seat] = True
            state.history.append(SvaraEvent(seat, move, cost))
            state.log("join", seat=seat, amount=cost, bank=state.bank)
        else:
            state.history.append(SvaraEvent(seat, move))
            state.log("decline", seat=seat)
        if not state.join_queue:
            state.phase = _P_SVARA_DEALER

    def _svara_dealer(self, state: SvaraState, dealer: int) -> None:
        """The svara's dealer, drawn by lot; then its deal starts (rules §2.8)."""
        n = state.num_seats
        state.svara += 1
        state.dealer = dealer
        state.in_deal = [s in state.svara_seats for s in range(n)]
        state.svara_seats = []
        state.join_cost = 0
        state.log("svara_dealer", seat=dealer, number=state.svara)
        self._begin_deal(state)

    def _award(self, state: SvaraState, seat: int, unseen: bool) -> None:
        """``seat`` takes the whole bank (rules §2.7)."""
        amount = state.bank
        state.tokens[seat] += amount
        state.bank = 0
        state.log("win", seat=seat, amount=amount, unseen=unseen)
        self._end_hand(state)

    def _split(self, state: SvaraState, seats: list[int]) -> None:
        """The last svara tied again: split evenly, the remainder to the first of ``seats``
        (ordered from the dealer's left) (rules §2.8)."""
        share, rest = divmod(state.bank, len(seats))
        amounts = [share + (rest if i == 0 else 0) for i in range(len(seats))]
        for s, a in zip(seats, amounts):
            state.tokens[s] += a
        state.bank = 0
        state.log("split", seats=list(seats), amounts=amounts)
        self._end_hand(state)

    def _end_hand(self, state: SvaraState) -> None:
        """Count the hand and pass the deal left of the hand's first dealer (rules §2.10)."""
        n = state.num_seats
        state.hand_number += 1
        state.in_play = [False] * n
        state.in_deal = [False] * n
        state.looked = [False] * n
        state.cards = [()] * n
        state.to_act = -1
        self._start_hand(state, (state.hand_dealer + 1) % n)

    def _over(self, state: SvaraState, reason: str) -> None:
        """The game is over (rules §2.11)."""
        state.phase = _P_OVER
        state.end_reason = reason
        state.log("game_over", reason=reason, tokens=list(state.tokens))
