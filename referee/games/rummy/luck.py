"""Standardised luck terms of contract rummy for the luck audit (``GameSpec.luck_terms``).

The chance card that decides a draw is the top card of the stock (rules §3.6). At a draw with a
live card on the discard pile and cards in the stock (a real choice: the draw is asked, rules
§3.14), let ``S`` be the multiset of stock cards as the referee's history gives it: the deck
(rules §3: two packs and the jokers) less every hand dealt, the upcard and every card drawn
since, with the pile but its top card added back at each rebuild (rules §3.12). The stock's order
was drawn uniformly and nothing in the history depends on the order of the cards still in it
(no one has seen them), so its top card is uniform over ``S`` given everything before the draw. After
a rebuild that kept a card of the old stock on top (rules §3.12: the pile goes *under* what is left),
the stock is two parts: the old cards, in their order, then the shuffled pile; the top card is then
uniform over the old part alone (one card left: known for sure, and no luck at all). So ``S`` is the
top part: the first part of the stock that still holds cards.

**Term.** Let ``H`` be the drawer's hand before the draw and ``f(c)`` how well card ``c`` fits it
toward the round's contract (rules §3.2): with sets in the contract, the copies of ``c``'s rank in
``H`` (at most 2: a set needs 3); with runs, the ranks of ``c``'s suit in ``H`` within 3 of ``c``'s
(at most 3: a run needs 4); a joker counts 2 (it fits anything). (The reference bot's deficiency,
``referee.games.rummy.bots.deficiency``, measures the same more exactly, but costs more than the game
itself when every card of the stock is tried at every draw; any ``f`` fixed before the card is seen
keeps the mean zero, and this one is what a bot that knows the card acts on.) With ``m`` and ``R``
the mean and the range (max - min) of ``f`` over ``S``:

- the drawer takes the stock (``s = +1``): ``c`` is the card it draws (with a take-it caller, who gets
  the top card as a penalty first, rules §3.5, the live card is gone before the draw: no term);
- it takes the live discard (``s = -1``): ``c`` is the stock card it declined, the next card
  anyone draws from the stock (a rebuild keeps it on top, rules §3.12);

and ``x = s (f(c) - m) / R`` (no term when ``R = 0``). ``s``, ``H``, ``m`` and ``R`` are fixed before
``c`` is seen and ``c`` is uniform over ``S``, so ``E[x | before] = 0`` whatever the bots do, and
``|x| <= 1``. A bot that knows the stock takes it when its top card helps and the discard when it
does not: positive terms.

**One term open at a time.** A declined card is seen only when someone next draws from the stock,
often the next seat in its own draw; two terms open at once would measure the same card and their
product would not have mean 1. So while a term waits for its card, no other is opened (the next
seat's draw makes none), and a term still waiting when the round ends is dropped; both choices are
made before the card is seen, so they keep the mean. The terms of all seats then form one martingale
difference sequence, each revealed before the next is opened, so the luck audit may take any
seats' terms (a bot's) as a test martingale.

Pure functions of a record's events; cards as strings (``"Ah"``, ``"Jk"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from referee.cards import JOKER, RANKS, SUITS
from referee.games.rummy.rules import deck


def luck_terms(events: Iterable[Mapping[str, Any]], num_seats: int,
               params: Mapping[str, Any] | None = None) -> tuple[tuple[float, ...], ...]:
    """Per seat, its standardised luck terms in play order, each in ``[-1, 1]`` with conditional mean zero
    (see the module docstring; rules §3.5-3.6, 3.12); the game's ``GameSpec.luck_terms``. ``params``: the
    record's parameters (``jokers``; None: 4 for 3-4 seats, 6 for 5-6, rules §3). Raises ValueError for
    events that do not fit together (a card drawn that is not in the top part of the stock)."""
    jokers = (params or {}).get("jokers")
    full = [0] * 53  # copies per card index (rank * 4 + suit; 52 the joker)
    for c in deck(jokers if jokers is not None else (4 if num_seats <= 4 else 6)):
        full[_INDEX[c]] += 1
    terms: list[list[float]] = [[] for _ in range(num_seats)]
    hands: list[list[str]] = [[] for _ in range(num_seats)]
    stock: list[list[int]] = []  # the stock's parts, top first: copies per card index in each
    sizes: list[int] = []  # cards in each part
    pile: list[str] = []
    live = False
    sets = runs = 0
    pending: tuple[int, tuple[list[int], list[int]], float, float, float] | None = None  # seat, fit, m, R, sign
    for e in events:
        kind, data = e["kind"], e["data"]
        if kind == "round":
            sets, runs, pending = data["sets"], data["runs"], None
            hands = [[] for _ in range(num_seats)]
            stock, sizes, pile, live = [list(full)], [sum(full)], [], False
        elif kind == "hand":
            hands[data["seat"]] = list(data["cards"])
            for c in data["cards"]:
                stock[0][_INDEX[c]] -= 1
            sizes[0] -= len(data["cards"])
        elif kind == "upcard":
            stock[0][_INDEX[data["card"]]] -= 1
            sizes[0] -= 1
            pile, live = [data["card"]], True
        elif kind == "draw":
            seat = data["seat"]
            top = next((k for k, n in enumerate(sizes) if n > 0), None)
            if live and top is not None and pending is None:  # one term open at a time: a new one waits its turn
                fit = _fit(hands[seat], sets, runs)
                spread = _spread(fit, stock[top], sizes[top])
                if spread is not None:
                    pending = (seat, fit, spread[0], spread[1], 1.0 if data["source"] == "stock" else -1.0)
            if data["source"] == "discard_pile":
                hands[seat].append(pile.pop())
                live = False
        elif kind == "take_it":
            hands[data["seat"]].append(pile.pop())
            live = False
        elif kind == "drawn_card":
            card, seat = data["card"], data["seat"]
            i = _INDEX.get(card)
            top = next((k for k, n in enumerate(sizes) if n > 0), None)
            if i is None or top is None or stock[top][i] <= 0:
                raise ValueError(f"{card} drawn but not in the top part of the stock")
            stock[top][i] -= 1
            sizes[top] -= 1
            hands[seat].append(card)
            if pending is not None:  # the stock's top card: the one the open term's seat drew or declined
                owner, fit, mean, spread_, sign = pending
                terms[owner].append(max(-1.0, min(1.0, sign * (_value(fit, i) - mean) / spread_)))
                pending = None
        elif kind == "discard":
            seat = data["seat"]
            _remove(hands[seat], [data["card"]])
            pile.append(data["card"])
            live = True
        elif kind == "go_down":
            for meld in data["melds"]:
                _remove(hands[data["seat"]], meld["cards"])
        elif kind == "lay_off":
            _remove(hands[data["seat"]], data["cards"])
        elif kind == "rebuild":  # rules §3.12: the pile but its top, shuffled, under what is left of the stock
            part = [0] * 53
            for c in pile[:-1]:
                part[_INDEX[c]] += 1
            stock.append(part)
            sizes.append(len(pile) - 1)
            pile = pile[-1:]
        elif kind == "round_end":
            pending = None
    return tuple(tuple(t) for t in terms)


def _fit(hand: list[str], sets: int, runs: int) -> tuple[list[int], list[int]]:
    """``f`` of the hand as two tables: per rank the set part, per card index (rank * 4 + suit) the run part."""
    counts = [0] * 13
    masks = [0, 0, 0, 0]
    for c in hand:
        i = _INDEX.get(c, 52)
        if i < 52:
            counts[i >> 2] += 1
            masks[i & 3] |= 1 << (i >> 2)
    set_part = [min(n, 2) for n in counts] if sets else [0] * 13
    run_part = [min((masks[i & 3] & _WINDOW[i >> 2]).bit_count(), 3) for i in range(52)] if runs else [0] * 52
    return set_part, run_part


def _value(fit: tuple[list[int], list[int]], i: int) -> float:
    """``f`` of card index ``i`` (52: the joker, 2)."""
    return 2.0 if i == 52 else float(fit[0][i >> 2] + fit[1][i])


def _spread(fit: tuple[list[int], list[int]], stock: list[int], left: int) -> tuple[float, float] | None:
    """``(m, R)``: the mean of ``f`` over a part of the stock (``stock``: copies per card index, ``left`` in all) and
    its range over the cards in it; None when ``R = 0`` (one kind of card left: no luck)."""
    set_part, run_part = fit
    low, high, total = 99, -1, 0
    for i in range(52):
        n = stock[i]
        if n:
            v = set_part[i >> 2] + run_part[i]
            total += n * v
            if v < low:
                low = v
            if v > high:
                high = v
    if stock[52] > 0:
        total += 2 * stock[52]
        low, high = min(low, 2), max(high, 2)
    if high <= low:
        return None
    return total / left, float(high - low)


#: the index of each card: rank index * 4 + suit index; the joker 52
_INDEX = {f"{r}{s}": i * 4 + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)} | {JOKER: 52}
#: per rank, the bits of the ranks within 3 of it (a run of 4 can hold both)
_WINDOW = [sum(1 << k for k in range(max(0, i - 3), min(13, i + 4)) if k != i) for i in range(13)]


def _remove(hand: list[str], cards: Iterable[str]) -> None:
    """Take ``cards`` out of ``hand`` (one copy each); a card not in it is ignored (a joker played as another
    card is written as the joker)."""
    for c in cards:
        if c in hand:
            hand.remove(c)
