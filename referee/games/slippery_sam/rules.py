"""Slippery Sam ("Shoot"): the rules engine.

Source: ``docs/rules/slippery-sam.md`` (rules §1), with
the referee policy of rules §4 for default actions. Amounts are whole
tokens. Seats are numbered 0..n-1 clockwise; "left" is the next seat number.

The engine is pure: chance comes from the referee through :class:`Shuffle`
requests, decisions through :class:`Ask`, and nothing here does I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from referee.cards import JOKER, RANKS, check, pack
from referee.engine import BadParameters, BaseState, GameName, IllegalAction, Shuffle, Step, ask_one
from referee.params import check_each, param

PACK = pack()
#: The one chance request of Slippery Sam: a shuffle of the pack (immutable, so shared).
_SHUFFLE = Shuffle(PACK)
#: The minimum kitty is this many tokens per seat not out (rules §1.3).
KITTY_PER_SEAT = 10
#: Deals a dealer keeps the bank for (rules §1.3).
DEALS_PER_TURN = 3
MIN_SEATS, MAX_SEATS = 3, 8
#: Most tokens a seat may start with: all of a table's tokens must fit the protocol's uint32 fields.
MAX_TOKENS = 100_000_000


@dataclass(frozen=True)
class SlipperySamParams:
    """Parameters of rules §1, with their defaults; each field's range and meaning are declared with
    :func:`referee.params.param` (the rules' parameter table is written from them).

    ``starting_tokens``: tokens each seat starts with (at least 10 x seats too, checked by
    :class:`SlipperySamRules`). ``orbits``: how many times the deal goes round the table before
    the game ends. Raises BadParameters for impossible values.
    """

    starting_tokens: int = param(300, "tokens each seat starts with", "§1.1, §1.17", low=1, high=MAX_TOKENS,
                                 unit="tokens", note=f"at least {KITTY_PER_SEAT} × seats too")
    orbits: int = param(2, "times the deal goes round the table before the game ends", "§1.10, §1.17", low=1, high=100)

    def __post_init__(self) -> None:
        check_each(self)


class Phase(enum.Enum):
    """Where the game stands."""

    FIRST_DEALER = enum.auto()  # waiting for the Black Jack method's shuffle
    KITTY = enum.auto()         # the dealer must put up his kitty
    SHUFFLE = enum.auto()       # waiting for the shuffle of a deal
    BET = enum.auto()           # a player must bet
    OVER = enum.auto()


class Decision(enum.Enum):
    """What a seat is asked (mirrors ``cardarena.v1.SlipperySamDecision``)."""

    KITTY = 1
    BET = 2


# The members the per-decision path compares against, as module constants: an Enum class's attribute
# is looked up through EnumType's ``__getattr__`` hook, several times slower than a global.
_FIRST_DEALER, _KITTY, _SHUFFLE_PHASE, _BET, _OVER = Phase.FIRST_DEALER, Phase.KITTY, Phase.SHUFFLE, Phase.BET, Phase.OVER
_KITTY_DECISION, _BET_DECISION = Decision.KITTY, Decision.BET


@dataclass(frozen=True)
class SlipperySamAction:
    """The one kind of action: an amount of tokens (the kitty, or a bet)."""

    amount: int


@dataclass(frozen=True)
class SettledBet:
    """One settled bet (rules §1.5): who held the bank, who bet how much, the turned card, the outcome."""

    dealer: int
    seat: int
    amount: int
    turned: str
    won: bool
    shoot: bool


@dataclass(slots=True)
class SlipperySamView:
    """What one seat may see at a decision (rules §1.7), and what it must decide.

    ``hand`` is the seat's own cards (empty for the dealer); ``tokens`` per
    seat exclude the kitty; ``turned`` and ``shots`` cover the current deal only;
    ``bets`` cover the whole game. ``decision`` is None when the seat is not asked.
    ``starting_tokens`` is the game's parameter (rules §1.1).

    A new view is built for every call of ``view`` and nothing keeps or changes one: it is a
    plain (not frozen) dataclass because building a frozen one costs about 2 us more per decision.
    """

    seat: int
    decision: Decision | None
    min_amount: int
    max_amount: int
    hand: tuple[str, ...]
    dealer: int
    kitty: int
    deal_in_turn: int
    tokens: tuple[int, ...]
    out: tuple[bool, ...]
    turned: tuple[str, ...]
    shots: tuple[tuple[int, tuple[str, ...]], ...]
    bets: tuple[SettledBet, ...]
    first_dealer_cards: tuple[str, ...]
    orbit: int
    orbits: int
    starting_tokens: int = 0


@dataclass
class SlipperySamState(BaseState):
    """The full state of a game (hidden cards included); only the referee holds it.

    ``tokens`` are per seat, outside the kitty; the dealer's kitty is ``kitty``.
    """

    tokens: list[int] = field(default_factory=list)
    phase: Phase = Phase.FIRST_DEALER
    first_dealer: int = -1
    first_dealer_cards: list[str] = field(default_factory=list)
    turn_index: int = 0            # dealer turns begun or skipped since the first dealer
    dealer: int = -1
    kitty: int = 0
    deal_in_turn: int = 0          # 1..3 while the bank is held
    hands: list[list[str]] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)
    players: list[int] = field(default_factory=list)  # seats dealt in this deal, betting order
    to_bet: int = 0                # index into players
    turned: list[str] = field(default_factory=list)
    shots: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    bets: list[SettledBet] = field(default_factory=list)
    exits: list[int] = field(default_factory=list)     # seats in the order they went out

    def out(self, seat: int) -> bool:
        """A seat with no tokens, its kitty included, is out (rules §1.1)."""
        return self.tokens[seat] + (self.kitty if seat == self.dealer else 0) <= 0


def _what(decision: Decision) -> str:
    """The decision's name in a fault message."""
    return "kitty" if decision is _KITTY_DECISION else "bet"


def beats(hand: Sequence[str], turned: str) -> bool:
    """Whether a player's hand wins against the turned stack card (rules §1.5).

    ``hand`` is the player's cards (3 in play; any number is accepted) and
    ``turned`` the stack card, as strings like ``"Ah"``. The hand wins when one
    of its cards is of the turned card's suit and strictly higher (aces high).
    Raises referee.cards.BadCard for a string that is not a card.

    >>> beats(["5h", "Kc", "Qs"], "2d")   # rules §1.5, first example: no diamond
    False
    >>> beats(["Ac", "4h", "7d"], "3h")   # rules §1.5, second example: 4h beats 3h
    True
    """
    suit, rank = _SUIT_RANK.get(turned) or _SUIT_RANK[check(turned)]
    for card in hand:
        c_suit, c_rank = _SUIT_RANK.get(card) or _SUIT_RANK[check(card)]
        if c_suit == suit and c_rank > rank:
            return True
    return False


#: (suit, rank index) of each card of the pack: ``beats`` is on the path of every bet.
_SUIT_RANK = {card: (card[1], RANKS.index(card[0])) for card in (*PACK, JOKER)}


class SlipperySamRules:
    """Slippery Sam for ``num_seats`` seats (3-8) with ``params``.

    Raises BadParameters when the seat count is out of range or the starting
    tokens are fewer than 10 x seats (rules §1.1).
    """

    game: GameName = "slippery-sam"

    def __init__(self, params: SlipperySamParams, num_seats: int) -> None:
        if not MIN_SEATS <= num_seats <= MAX_SEATS:
            raise BadParameters(f"Slippery Sam is played by {MIN_SEATS} to {MAX_SEATS} seats, not {num_seats}")
        if params.starting_tokens < KITTY_PER_SEAT * num_seats:
            raise BadParameters(
                f"starting_tokens must be at least {KITTY_PER_SEAT} x seats = {KITTY_PER_SEAT * num_seats}, got {params.starting_tokens}"
            )
        self.params = params
        self.num_seats = num_seats

    # -- the flow ---------------------------------------------------------

    def new_state(self) -> SlipperySamState:
        """Every seat with ``starting_tokens``, before the Black Jack method (rules §1.1-1.2)."""
        return SlipperySamState(num_seats=self.num_seats, tokens=[self.params.starting_tokens] * self.num_seats)

    def step(self, state: SlipperySamState) -> Step | None:
        """A shuffle before the first-dealer deal and every deal; the dealer (kitty) or the next player (bet); None when over."""
        phase = state.phase
        if phase is _BET:
            return ask_one(state.players[state.to_bet])
        if phase is _SHUFFLE_PHASE or phase is _FIRST_DEALER:
            return _SHUFFLE
        if phase is _KITTY:
            return ask_one(state.dealer)
        return None

    def apply_chance(self, state: SlipperySamState, outcome: Sequence[str] | int) -> None:
        """Apply a shuffled 52-card pack (top first); ``outcome`` answers the pending Shuffle (checked
        by the step driver, ``referee.driver``)."""
        order = list(outcome)  # type: ignore[arg-type]
        if state.phase is _FIRST_DEALER:
            self._black_jack(state, order)
        else:
            self._deal(state, order)

    def _black_jack(self, state: SlipperySamState, order: list[str]) -> None:
        """rules §1.2: deal face up from seat 0 round the table; the first jack makes the dealer."""
        for i, card in enumerate(order):
            state.first_dealer_cards.append(card)
            if card[0] == "J":
                state.first_dealer = i % self.num_seats
                break
        state.log("first_dealer", cards=list(state.first_dealer_cards), dealer=state.first_dealer)
        self._begin_turn(state)

    def _begin_turn(self, state: SlipperySamState) -> None:
        """Start the next dealer's turn, skipping dealers who cannot fund the kitty (rules §1.3, 1.10)."""
        while True:
            alive = [s for s in range(self.num_seats) if state.tokens[s] > 0]
            minimum = KITTY_PER_SEAT * len(alive)
            if state.turn_index >= self.params.orbits * self.num_seats:
                return self._end(state, "orbits played")
            if len(alive) < 2:
                return self._end(state, "fewer than two seats not out")
            if all(state.tokens[s] < minimum for s in alive):
                return self._end(state, "no seat can fund the minimum kitty")
            dealer = (state.first_dealer + state.turn_index) % self.num_seats
            state.turn_index += 1
            if state.tokens[dealer] >= minimum:
                state.dealer = dealer
                state.deal_in_turn = 0
                state.phase = _KITTY
                return
            state.log("skip", dealer=dealer, reason="out" if state.tokens[dealer] == 0 else "cannot fund the minimum kitty")

    def _deal(self, state: SlipperySamState, order: list[str]) -> None:
        """rules §1.4: 3 cards one at a time to each seat not out but the dealer, from his left."""
        n = self.num_seats
        state.deal_in_turn += 1
        tokens = state.tokens
        state.players = players = [s for s in ((state.dealer + k) % n for k in range(1, n)) if tokens[s] > 0]
        k = len(players)
        state.hands = hands = [[] for _ in range(n)]
        for i, s in enumerate(players):  # card i of the order goes to players[i % k]
            hands[s] = [order[i], order[i + k], order[i + 2 * k]]
        state.stack = order[3 * k:]
        state.turned, state.shots, state.to_bet = [], [], 0
        state.log("deal", dealer=state.dealer, deal=state.deal_in_turn, players=list(state.players))
        for s in state.players:
            state.log("hand", (s,), seat=s, cards=list(state.hands[s]))
        state.phase = _BET

    def _end_turn(self, state: SlipperySamState, reason: str) -> None:
        """rules §1.8-1.9: the kitty goes back to the dealer and the deal passes left."""
        dealer, back = state.dealer, state.kitty
        state.tokens[dealer] += back
        state.kitty = 0
        state.log("turn_end", dealer=dealer, returned=back, reason=reason)
        if state.tokens[dealer] == 0:
            state.exits.append(dealer)
            state.log("out", seat=dealer)
        state.dealer, state.hands, state.stack, state.players = -1, [], [], []
        state.turned, state.shots = [], []
        self._begin_turn(state)

    def _end(self, state: SlipperySamState, reason: str) -> None:
        state.phase = _OVER
        state.end_reason = reason
        state.log("game_over", reason=reason, tokens=list(state.tokens))

    # -- decisions ----------------------------------------------------------

    def _range(self, state: SlipperySamState) -> tuple[Decision, int, int, int]:
        """The asked seat, its decision and the legal amounts (inclusive)."""
        phase = state.phase
        if phase is _BET:
            seat = state.players[state.to_bet]
            tokens, kitty = state.tokens[seat], state.kitty
            return _BET_DECISION, seat, 1, kitty if kitty < tokens else tokens
        if phase is _KITTY:
            alive = sum(1 for tokens in state.tokens if tokens > 0)
            return _KITTY_DECISION, state.dealer, KITTY_PER_SEAT * alive, state.tokens[state.dealer]
        raise IllegalAction("no decision is pending")

    def check(self, state: SlipperySamState, seat: int, action: SlipperySamAction) -> None:
        """Raise IllegalAction unless ``seat`` is asked and ``action.amount`` (tokens) is in its legal range (rules §1.3, 1.5)."""
        self._check_in(self._range(state), seat, action)

    @staticmethod
    def _check_in(legal: tuple[Decision, int, int, int], seat: int, action: SlipperySamAction) -> None:
        """``check`` against the legal range ``legal`` (``_range``'s answer)."""
        decision, asked, low, high = legal
        if seat != asked:
            raise IllegalAction(f"seat {seat} is not asked; seat {asked} is")
        if not isinstance(action, SlipperySamAction) or not isinstance(action.amount, int):
            raise IllegalAction(f"expected an amount of tokens for the {_what(decision)}")
        if not low <= action.amount <= high:
            rule = "rules §1.3" if decision is _KITTY_DECISION else "rules §1.5"
            raise IllegalAction(f"{_what(decision)} of {action.amount} tokens is outside {low}..{high} ({rule})")

    def apply(self, state: SlipperySamState, actions: Mapping[int, SlipperySamAction]) -> None:
        """Apply the asked seat's kitty or bet; raises IllegalAction (state unchanged) for anything else."""
        legal = self._range(state)
        decision, asked, _, _ = legal
        if len(actions) != 1 or asked not in actions:
            raise IllegalAction(f"expected exactly one action, from seat {asked}")
        action = actions[asked]
        self._check_in(legal, asked, action)
        if decision is _BET_DECISION:
            self._bet(state, asked, action.amount)
        else:
            state.tokens[asked] -= action.amount
            state.kitty = action.amount
            state.log("kitty", dealer=asked, amount=action.amount)
            state.phase = _SHUFFLE_PHASE

    def _bet(self, state: SlipperySamState, seat: int, amount: int) -> None:
        """rules §1.5-1.6, 1.8: settle one bet against the next stack card."""
        shoot = amount == state.kitty
        hand = state.hands[seat]
        state.log("bet", seat=seat, amount=amount, shoot=shoot)
        if shoot:
            state.shots.append((seat, tuple(hand)))
            state.log("shoot", seat=seat, cards=list(hand))
        turned = state.stack.pop(0)
        state.turned.append(turned)
        won = beats(hand, turned)
        if won:
            state.tokens[seat] += amount
            state.kitty -= amount
        else:
            state.tokens[seat] -= amount
            state.kitty += amount
        state.bets.append(SettledBet(state.dealer, seat, amount, turned, won, shoot))
        state.log("turn", seat=seat, card=turned, won=won, kitty=state.kitty)
        if state.tokens[seat] == 0:
            state.exits.append(seat)
            state.log("out", seat=seat)
        state.to_bet += 1
        if state.kitty == 0:
            self._end_turn(state, "kitty empty")
        elif state.to_bet == len(state.players):
            if state.deal_in_turn == DEALS_PER_TURN:
                self._end_turn(state, "three deals played")
            elif not any(state.tokens[s] > 0 for s in range(self.num_seats) if s != state.dealer):
                self._end_turn(state, "no player left to deal to")
            else:
                state.phase = _SHUFFLE_PHASE

    def default_action(self, state: SlipperySamState, seat: int) -> SlipperySamAction:
        """rules §4.2: bet 1 token; as dealer, the minimum kitty."""
        _, _, low, _ = self._range(state)
        return SlipperySamAction(low)

    # -- what a seat sees, and the result -------------------------------------

    def view(self, state: SlipperySamState, seat: int) -> SlipperySamView:
        """What ``seat`` may see now (rules §1.7), with its legal range if it is asked."""
        decision, low, high = None, 0, 0
        phase = state.phase
        if phase is _BET or phase is _KITTY:
            d, asked, lo, hi = self._range(state)
            if asked == seat:
                decision, low, high = d, lo, hi
        return SlipperySamView(
            seat=seat,
            decision=decision,
            min_amount=low,
            max_amount=high,
            hand=tuple(state.hands[seat]) if phase is _BET and seat in state.players else (),
            dealer=state.dealer,
            kitty=state.kitty,
            deal_in_turn=state.deal_in_turn,
            tokens=tuple(state.tokens),
            out=self._out(state),
            turned=tuple(state.turned),
            shots=tuple(state.shots),
            bets=tuple(state.bets),
            first_dealer_cards=tuple(state.first_dealer_cards),
            orbit=max(0, state.turn_index - 1) // self.num_seats,
            orbits=self.params.orbits,
            starting_tokens=self.params.starting_tokens,
        )

    @staticmethod
    def _out(state: SlipperySamState) -> tuple[bool, ...]:
        """Per seat, whether it is out (``SlipperySamState.out``)."""
        out = [tokens <= 0 for tokens in state.tokens]
        dealer = state.dealer
        if dealer >= 0:  # state.out(dealer): his kitty counts
            out[dealer] = state.tokens[dealer] + state.kitty <= 0
        return tuple(out)

    def rank_key(self, state: SlipperySamState, seat: int) -> tuple[int, ...]:
        """rules §1.11: final tokens; among seats that went out, the later exit ranks higher."""
        exit_order = state.exits.index(seat) if seat in state.exits else len(state.exits)
        return (state.tokens[seat], exit_order)

    def scores(self, state: SlipperySamState) -> tuple[int, ...]:
        """Tokens per seat, a dealer's kitty included (rules §1.1)."""
        return tuple(state.tokens[s] + (state.kitty if s == state.dealer else 0) for s in range(self.num_seats))

    def score_changes(self, state: SlipperySamState) -> tuple[int, ...]:
        """Tokens won (positive) or lost per seat since the start."""
        return tuple(t - self.params.starting_tokens for t in self.scores(state))
