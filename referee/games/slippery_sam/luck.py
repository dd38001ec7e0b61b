"""Luck-adjusted scores for Slippery Sam: a control variate from what the referee knows.

A Slippery Sam game's token changes are mostly the luck of the turned cards. The
referee knows, at every bet, every hand dealt and the cards turned so far, so it
knows exactly how the turned card is distributed: uniformly over the stack cards
still unturned (rules §1.4-1.5: the pack is shuffled uniformly, and no decision
depends on the order of the cards nobody has seen). For one bet of ``a`` tokens
by a player whose hand beats ``w`` of the ``m`` cards left in the stack:

- the *result* ``R`` is ``+a`` if the turned card is beaten, else ``-a`` (rules §1.5);
- the *expected result* is ``E[R | F] = a * (2 w / m - 1)``, where ``F`` is
  everything that happened before the card is turned (all hands, all bets and
  turned cards, the amount ``a`` itself);
- the *luck term* is ``L = R - E[R | F]``.

The bet's tokens go between the player and the kitty, which is the dealer's
(rules §1.1), so the player's luck is ``+L`` and the dealer's ``-L``. The
luck-adjusted token change of a seat over a game is its actual change minus the
sum of its luck terms.

**Unbiased by construction.** Number the bets of a game ``k = 1..K`` with
``K <= orbits x seats x 3 x (seats - 1)`` (at most three deals per dealer turn,
rules §1.3, one bet per player per deal, rules §1.5), and let ``F_k`` be the
history before the k-th card is turned. Whether a k-th bet happens at all, and
``E[R_k | F_k]``, are functions of ``F_k``; so ``E[1{k-th bet} L_k] =
E[1{k-th bet} E[L_k | F_k]] = E[1{k-th bet} (E[R_k | F_k] - E[R_k | F_k])] = 0``.
Summing the finitely many terms, ``E[sum of luck terms] = 0`` for every seat
and every bots' policy, so the luck-adjusted change has the same expectation as
the actual change: it estimates the same strength, with the turned cards' noise
taken out (the luck of the hands dealt stays in). The terms are martingale
differences, so they are uncorrelated with each other and with everything
before them; the mean adjustment over many games is zero within its interval
(tests/test_luck.py checks this by simulation).

The league reads the estimator through ``GameSpec.luck`` (:mod:`league.ratings.luck`).

**Standardised terms for the luck audit** (``GameSpec.luck_terms``, :func:`luck_terms`,
read by :mod:`league.integrity.eprocess`). Per bet, the *player* (the seat that decided the
amount) gets ``x = L / (2 M)``, where ``M`` is the largest bet allowed at that bet: the
smaller of the kitty and the player's tokens (rules §1.5). ``M`` is known before the card is
turned, so ``E[x | F] = E[L | F] / (2 M) = 0`` whatever the bots do, and since
``|L| = a |R/a - (2p - 1)| <= 2a <= 2M``, ``x`` lies in ``[-1, 1]``. Equivalently
``x = (a / M) (R/a - (2p - 1)) / 2``: the bet's share of the most it could bet, times its
standardised luck. A player that knows the card to come bets big on a win and small on a loss,
so its terms are positive; an honest player's have conditional mean zero. The dealer gets no
term (it decides nothing between the deal and the turned card). The tokens are followed from
the events and ``starting_tokens`` (rules §1.1); without it, ``M`` is the kitty (still at least
the largest bet, so the bound and the mean stay).

All amounts are tokens, as floats: the expected results are fractions of a token.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from referee.cards import RANKS
from referee.games.slippery_sam.rules import PACK, beats


def bet_luck(hand: Sequence[str], stack: Sequence[str], amount: int, won: bool) -> float:
    """The luck term of one bet (rules §1.5), tokens: the result minus its expectation.

    ``hand`` is the player's cards, ``stack`` the unturned stack cards just before
    the card is turned (the turned card among them), ``amount`` the bet in tokens,
    ``won`` whether the player won. Raises ValueError for an empty stack.
    """
    if not stack:
        raise ValueError("a bet needs at least one stack card left")
    p = sum(1 for c in stack if beats(hand, c)) / len(stack)
    return (amount if won else -amount) - amount * (2.0 * p - 1.0)


def events_luck(events: Iterable[Mapping[str, Any]], num_seats: int) -> tuple[float, ...]:
    """Per seat, the sum of its luck terms over the game, tokens (player ``+L``, dealer ``-L``).

    ``events`` are the game's events (dicts ``{"kind", "data", "visible_to"}``, as a record
    holds them: ``deal``, ``hand``, ``bet``, ``turn``; rules §1.4-1.5) for ``num_seats``
    seats; the game's ``GameSpec.luck``. Raises ValueError for events that do not fit
    together (a bet before a deal, a turned card not in the stack)."""
    luck = [0.0] * num_seats
    dealer = -1
    hands: dict[int, list[str]] = {}
    stack: set[str] = set()
    pending: tuple[int, int] | None = None  # (seat, amount) of the bet whose card is not turned yet
    for e in events:
        kind, data = e["kind"], e["data"]
        if kind == "deal":
            dealer, hands, stack = data["dealer"], {}, set(PACK)
        elif kind == "hand":
            hands[data["seat"]] = list(data["cards"])
            stack.difference_update(data["cards"])
        elif kind == "bet":
            if dealer < 0 or data["seat"] not in hands:
                raise ValueError("a bet before its deal")
            pending = (data["seat"], data["amount"])
        elif kind == "turn":
            if pending is None or data["card"] not in stack:
                raise ValueError(f"turned card {data['card']} is not in the stack")
            seat, amount = pending
            term = bet_luck(hands[seat], sorted(stack), amount, bool(data["won"]))
            luck[seat] += term
            luck[dealer] -= term
            stack.discard(data["card"])
            pending = None
    return tuple(luck)



def luck_terms(events: Iterable[Mapping[str, Any]], num_seats: int,
               params: Mapping[str, Any] | None = None) -> tuple[tuple[float, ...], ...]:
    """Per seat, its standardised luck terms in play order, each in ``[-1, 1]`` with conditional mean
    zero (one per bet it made: ``L / (2 M)``, see the module docstring; rules §1.3-1.5); the game's
    ``GameSpec.luck_terms``. ``params``: the record's parameters (``starting_tokens``). Raises
    ValueError for events that do not fit together (as :func:`events_luck`)."""
    terms: list[list[float]] = [[] for _ in range(num_seats)]
    for seat, _, most, luck in settled_bets(events, num_seats, params):
        terms[seat].append(max(-1.0, min(1.0, luck / (2.0 * most))))
    return tuple(tuple(t) for t in terms)


def settled_bets(events: Iterable[Mapping[str, Any]], num_seats: int,
                 params: Mapping[str, Any] | None = None) -> Iterable[tuple[int, int, int, float]]:
    """Each settled bet of the game in order: ``(seat, amount, largest amount allowed, luck term L)``
    (tokens; rules §1.3-1.5), the tokens followed from ``params["starting_tokens"]`` (without it the
    largest amount is the kitty). Raises ValueError for events that do not fit together."""
    start = (params or {}).get("starting_tokens")
    tokens: list[float] = [float(start) if start is not None else math.inf] * num_seats
    dealer, kitty = -1, 0
    hands: dict[int, list[str]] = {}
    stack: dict[str, int] = {}  # the unturned stack cards as a bit mask of ranks per suit
    left = 0  # how many
    pending: tuple[int, int, int] | None = None  # (seat, amount, largest allowed) of the bet not settled yet
    for e in events:
        kind, data = e["kind"], e["data"]
        if kind == "kitty":
            tokens[data["dealer"]] -= data["amount"]
            kitty = data["amount"]
        elif kind == "deal":
            dealer, hands, stack, left = data["dealer"], {}, dict(_FULL), len(PACK)
        elif kind == "hand":
            hands[data["seat"]] = cards = list(data["cards"])
            for c in cards:
                stack[c[1]] &= ~_BIT[c]
            left -= len(cards)
        elif kind == "bet":
            seat = data["seat"]
            if dealer < 0 or seat not in hands:
                raise ValueError("a bet before its deal")
            most = min(kitty, tokens[seat])
            if not 1 <= data["amount"] <= most:
                raise ValueError(f"a bet of {data['amount']} outside 1..{most}")
            pending = (seat, data["amount"], int(most))
        elif kind == "turn":
            card = data["card"]
            if pending is None or card not in _BIT or not stack[card[1]] & _BIT[card]:
                raise ValueError(f"turned card {card} is not in the stack")
            seat, amount, most = pending
            won = bool(data["won"])
            top: dict[str, int] = {}  # per suit of the hand, the bits of the ranks below its highest card
            for c in hands[seat]:
                top[c[1]] = max(top.get(c[1], 0), _BIT[c] - 1)
            p = sum((stack[suit] & below).bit_count() for suit, below in top.items()) / left
            yield seat, amount, most, (amount if won else -amount) - amount * (2.0 * p - 1.0)
            tokens[seat] += amount if won else -amount
            kitty = data["kitty"]
            stack[card[1]] &= ~_BIT[card]
            left -= 1
            pending = None
        elif kind == "turn_end":
            tokens[data["dealer"]] += data["returned"]
            kitty = 0


#: each card's bit in its suit's mask (rank index, aces high) and the full pack's masks
_BIT = {c: 1 << RANKS.index(c[0]) for c in PACK}
_FULL: dict[str, int] = {}
for _c in PACK:
    _FULL[_c[1]] = _FULL.get(_c[1], 0) | _BIT[_c]
