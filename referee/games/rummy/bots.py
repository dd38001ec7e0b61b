"""Reference policies for contract rummy (rules §3): ``random_action`` and the ``greedy`` bot.

Both read only the protocol view (``cardarena.v1.RummyView``) and answer a
legal ``RummyAction``; both use :mod:`referee.games.rummy.meld_search` to find a way to go down.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from cardarena.v1 import rummy_pb2 as pb

from botsdk.bot import REFERENCE_CAPACITY, Bot, Context
from referee.games.rummy.meld_search import FoundLayOff, FoundMeld, TableMeld, find_go_down, find_lay_offs

RANKS = "23456789TJQKA"
SUITS = "cdhs"
JOKER = "Jk"
WHOLE_HAND_ROUND = 7
_POINTS = {**{r: 5 for r in "234567"}, **{r: 10 for r in "89TJQK"}, "A": 20}

_KIND = {"set": pb.RUMMY_MELD_KIND_SET, "run": pb.RUMMY_MELD_KIND_RUN}
_END = {"": pb.RUMMY_RUN_END_UNSPECIFIED, "low": pb.RUMMY_RUN_END_LOW, "high": pb.RUMMY_RUN_END_HIGH}


def points(card: str) -> int:
    """Points of a card left in hand (rules §3.9)."""
    return 50 if card == JOKER else _POINTS[card[0]]


def table_melds(view: pb.RummyView) -> list[TableMeld]:
    """The melds on the table in the meld search's terms."""
    return [
        TableMeld(m.id, "set" if m.kind == pb.RUMMY_MELD_KIND_SET else "run", tuple(m.cards), tuple(m.stands_for))
        for m in view.melds
    ]


def _as_table(melds: Sequence[FoundMeld], first_id: int) -> list[TableMeld]:
    """Melds about to be laid, as they will stand on the table (ids in laying order)."""
    out = []
    for i, m in enumerate(melds):
        if m.kind == "set":
            stands = tuple("" if c == JOKER else c for c in m.cards)
        else:
            # a run holds at most one ace and 2+ naturals, so a non-ace natural fixes the positions
            k, natural = next((k, c) for k, c in enumerate(m.cards) if c != JOKER and c[0] != "A")
            start = RANKS.index(natural[0]) + 2 - k
            stands = tuple(("A" if p in (1, 14) else RANKS[p - 2]) + natural[1] for p in range(start, start + len(m.cards)))
        out.append(TableMeld(first_id + i, m.kind, m.cards, stands))
    return out


def _new_melds(melds: Sequence[FoundMeld]) -> list[pb.RummyNewMeld]:
    return [pb.RummyNewMeld(kind=_KIND[m.kind], cards=m.cards) for m in melds]


def _lay_offs(found: Sequence[FoundLayOff]) -> list[pb.RummyLayOff]:
    return [pb.RummyLayOff(meld_id=f.meld_id, cards=[f.card], end=_END[f.end]) for f in found]


def _go_down(action: pb.RummyAction, view: pb.RummyView, hand: list[str], table: list[TableMeld]) -> list[str] | None:
    """If the meld search finds the round's contract in ``hand``, add its melds to ``action``
    and to ``table`` (numbered after the view's melds) and return the cards left in hand;
    None when it finds none (rules §3.7-3.8)."""
    found = find_go_down(hand, view.contract.sets, view.contract.runs, whole_hand=view.round == WHOLE_HAND_ROUND)
    if found is None:
        return None
    action.go_down.extend(_new_melds(found))
    table += _as_table(found, len(view.melds))
    return _remove(hand, [c for m in found for c in m.cards])


def _remove(hand: list[str], cards: Sequence[str]) -> list[str]:
    left = list(hand)
    for c in cards:
        left.remove(c)
    return left


def _allowed_discards(left: Sequence[str], forbidden: str) -> list[str]:
    """rules §3.7: not the card taken from the pile this turn, unless every card equals it."""
    return [c for c in left if c != forbidden] or list(left)


# -- random play -------------------------------------------------------------------------------


def random_action(view: pb.RummyView, rng: random.Random) -> pb.RummyAction:
    """A random legal answer: call or not at random; a random legal draw source; in the play,
    go down half the time the meld search finds a way, lay off some of the time, and
    discard a random legal card. Raises ValueError when the view asks for no decision."""
    if view.decision == pb.RUMMY_DECISION_CALL:
        return pb.RummyAction(call=rng.random() < 0.3)
    if view.decision == pb.RUMMY_DECISION_DRAW:
        sources = [pb.RUMMY_DRAW_SOURCE_STOCK]
        if view.discard_live and view.discard_top:
            sources.append(pb.RUMMY_DRAW_SOURCE_DISCARD_PILE)
        return pb.RummyAction(draw=rng.choice(sources))
    if view.decision != pb.RUMMY_DECISION_PLAY:
        raise ValueError("the view asks for no decision")
    seat_down = _my_down(view)
    hand = list(view.hand)
    action = pb.RummyAction()
    whole = view.round == WHOLE_HAND_ROUND
    table = table_melds(view)
    if not seat_down and rng.random() < 0.5:
        left = _go_down(action, view, hand, table)
        if left is not None:
            if whole:
                return action
            hand, seat_down = left, True
    if seat_down and not whole and rng.random() < 0.5:
        found_offs = find_lay_offs(hand, table, keep=1)
        found_offs = found_offs[: rng.randint(0, len(found_offs))]
        action.lay_offs.extend(_lay_offs(found_offs))
        hand = _remove(hand, [f.card for f in found_offs])
    action.discard = rng.choice(_allowed_discards(hand, view.forbidden_discard))
    return action


def _my_down(view: pb.RummyView) -> bool:
    """Whether the seat in turn (the one asked to play) is down."""
    return bool(view.down) and bool(view.down[view.in_turn])


# -- the greedy bot -------------------------------------------------------------------------------


#: a natural card's (rank 0..12, suit 0..3, its rank's bit)
_RANK_SUIT_BIT = {r + s: (i, j, 1 << i) for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)}


def _best_window(ranks: int) -> tuple[int, int]:
    """(naturals held, start position) of the window of 4 positions holding most of a suit's ``ranks``."""
    pm = (ranks << 2) | ((ranks >> 12 & 1) << 1)  # positions 1 (low ace) .. 14
    best = (-1, 1)
    for start in range(1, 12):
        h = (pm >> start & 15).bit_count()
        if h > best[0]:
            best = (h, start)
    return best


#: Two tables over the 8,192 masks of 13 ranks, which the greedy bot reads millions of times in a season: per mask of
#: a suit's ranks, (naturals held, the mask of the ranks in its best window) of :func:`_best_window`; per mask, the
#: ranks (0..12) whose bits are set. Built at their first use (25 ms), not when a process that plays no rummy imports
#: the games' registry; assigned whole, so a bot's server threads never see them half built.
_TABLES: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...]] | None = None


def _tables() -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...]]:
    global _TABLES
    if _TABLES is None:
        windows = tuple((h, ((15 << start >> 2) & 0x1FFF) | ((15 << start >> 1 & 1) << 12))
                        for h, start in map(_best_window, range(1 << 13)))
        _TABLES = (windows, tuple(tuple(r for r in range(13) if mask >> r & 1) for mask in range(1 << 13)))
    return _TABLES


def deficiency(hand: Sequence[str], sets: int, runs: int) -> int:
    """A quick estimate of how many cards the hand lacks to go down (0 = maybe now).

    Runs are windows of 4 of one suit, sets ranks of 3; the best windows and
    ranks are taken greedily (runs first, then sets, and the other way
    round; the smaller wins). A meld needs 2 naturals: those missing must be
    drawn; the other gaps may be filled by the hand's jokers.
    """
    return _deficiency_of(tuple(sorted(hand)), sets, runs)


def deficiency_without(hand: Sequence[str], sets: int, runs: int) -> dict[str, int]:
    """``{card: deficiency(hand less one copy of card, sets, runs)}`` for each distinct card of ``hand``: what each
    discard leaves (:func:`deficiency`), the hand read once for all of them."""
    return dict(_without_of(tuple(sorted(hand)), sets, runs))


@lru_cache(maxsize=1 << 12)
def _without_of(hand: tuple[str, ...], sets: int, runs: int) -> tuple[tuple[str, int], ...]:
    counts, one, two, jokers = _masks(hand)
    out = []
    for card in dict.fromkeys(hand):
        rsb = _RANK_SUIT_BIT.get(card)
        if rsb is None:  # the joker
            out.append((card, _least(counts, one, two, jokers - 1, sets, runs)))
            continue
        r, s, bit = rsb
        less = list(counts)
        less[r] -= 1
        one_less, two_less = list(one), list(two)
        if two[s] & bit:
            two_less[s] &= ~bit
        else:
            one_less[s] &= ~bit
        out.append((card, _least(less, one_less, two_less, jokers, sets, runs)))
    return tuple(out)


@lru_cache(maxsize=1 << 14)
def _deficiency_of(hand: tuple[str, ...], sets: int, runs: int) -> int:
    return _least(*_masks(hand), sets, runs)


def _masks(hand: Sequence[str]) -> tuple[list[int], list[int], list[int], int]:
    """The hand's naturals per rank (13 counts), its masks of ranks held once and twice per suit (4 13-bit masks
    each), and its jokers."""
    counts = [0] * 13
    one = [0, 0, 0, 0]  # per suit, 13-bit masks of ranks held (one copy / two copies)
    two = [0, 0, 0, 0]
    jokers = 0
    for c in hand:
        rsb = _RANK_SUIT_BIT.get(c)
        if rsb is None:  # the joker
            jokers += 1
            continue
        r, s, bit = rsb
        counts[r] += 1
        if one[s] & bit:
            two[s] |= bit
        else:
            one[s] |= bit
    return counts, one, two, jokers


#: :func:`_least`'s answers by the hand's masks, jokers and contract (the counts follow from the masks): a season
#: reads the same hands again and again (each discard of a hand, the audit after the bots). Emptied when full.
_LEAST: dict[tuple[int, ...], int] = {}
_LEAST_MAX = 1 << 16


def _least(counts: list[int], one: list[int], two: list[int], jokers: int, sets: int, runs: int) -> int:
    """The cards lacking, the smaller of taking runs first and sets first (the lists are not changed)."""
    key = (one[0], one[1], one[2], one[3], two[0], two[1], two[2], two[3], jokers, sets, runs)
    known = _LEAST.get(key)
    if known is not None:
        return known
    least = _deficiency(list(counts), list(one), list(two), jokers, sets, runs, runs_first=True)
    if sets and runs:  # both kinds of meld: the other order may take better ones
        least = min(least, _deficiency(list(counts), list(one), list(two), jokers, sets, runs, runs_first=False))
    if len(_LEAST) >= _LEAST_MAX:
        _LEAST.clear()
    _LEAST[key] = least
    return least


def _deficiency(counts: list[int], one: list[int], two: list[int], jokers: int, sets: int, runs: int, runs_first: bool) -> int:
    """The cards lacking when ``runs`` runs and ``sets`` sets are taken greedily from the hand's ``counts`` per rank
    and its masks of ranks held once (``one``) and twice (``two``) per suit (changed in place), runs first or sets."""
    if runs_first:
        must, fill = _take_runs(counts, one, two, runs)
        more_must, more_fill = _take_sets(counts, one, two, sets, last=True)
    else:
        must, fill = _take_sets(counts, one, two, sets)
        more_must, more_fill = _take_runs(counts, one, two, runs, last=True)
    gaps = fill + more_fill - jokers
    return must + more_must + (gaps if gaps > 0 else 0)


def _take_runs(counts: list[int], one: list[int], two: list[int], runs: int, last: bool = False) -> tuple[int, int]:
    """Take ``runs`` runs, each the window of 4 of one suit holding most naturals, out of the hand (in place);
    returns ``(must, fill)``: the naturals they lack below 2 a meld (to be drawn) and their other gaps (jokers may
    fill them). ``last``: no sets are taken after, so ``counts`` is left as it was."""
    must = fill = 0
    table, ranks_in = _TABLES or _tables()
    for _ in range(runs):
        best_h, ranks = table[one[0]]
        best_s = 0
        for s in (1, 2, 3):
            h, window = table[one[s]]
            if h > best_h:
                best_h, best_s, ranks = h, s, window
        if best_h < 2:
            must += 2 - best_h
            fill += 2
        else:
            fill += 4 - best_h
        taken = one[best_s] & ranks
        one[best_s] = (one[best_s] & ~taken) | (two[best_s] & taken)
        two[best_s] &= ~taken
        if not last:
            for r in ranks_in[taken]:
                counts[r] -= 1
    return must, fill


def _take_sets(counts: list[int], one: list[int], two: list[int], sets: int, last: bool = False) -> tuple[int, int]:
    """Take ``sets`` sets, each of the rank held most, out of the hand (in place); returns ``(must, fill)`` as
    :func:`_take_runs` does (a set of 3). ``last``: no runs are taken after, so the masks are left as they were."""
    must = fill = 0
    for _ in range(sets):
        c = max(counts)
        r = counts.index(c)
        if c < 3:
            must += 2 - c if c < 2 else 0
            fill += 1
            take = c
        else:
            take = 3
        counts[r] -= take
        if last:
            continue
        bit = 1 << r
        for s in range(4):  # remove the naturals used, from any suits
            while take and one[s] & bit:
                if two[s] & bit:
                    two[s] &= ~bit
                else:
                    one[s] &= ~bit
                take -= 1
    return must, fill


class GreedyBot(Bot):
    """Goes down as soon as the meld search finds the contract, lays off all it can
    (keeping a card to discard), discards its worst card (the most points among
    those least useful for the contract), and calls "take it" or takes the
    discard only when the card brings it closer to its contract (by
    :func:`deficiency`). Once down it never calls."""

    name = "greedy"
    capacity = REFERENCE_CAPACITY
    version = "1.0.0"
    author = "cardarena"
    games = ("rummy",)

    def rummy(self, view: pb.RummyView, ctx: Context) -> pb.RummyAction:
        if view.decision == pb.RUMMY_DECISION_CALL:
            down = bool(view.down) and ctx.seat < len(view.down) and view.down[ctx.seat]
            # Round 7: a take-it's penalty card must be melded too, so calling only bloats the hand.
            return pb.RummyAction(call=not down and view.round != WHOLE_HAND_ROUND and self._wants(view))
        if view.decision == pb.RUMMY_DECISION_DRAW:
            take = view.discard_live and bool(view.discard_top) and self._wants_to_draw(view)
            return pb.RummyAction(draw=pb.RUMMY_DRAW_SOURCE_DISCARD_PILE if take else pb.RUMMY_DRAW_SOURCE_STOCK)
        if view.decision == pb.RUMMY_DECISION_PLAY:
            return self._play(view)
        raise ValueError("the view asks for no decision")

    @staticmethod
    def _wants(view: pb.RummyView) -> bool:
        card = view.discard_top
        if not card:
            return False
        sets, runs = view.contract.sets, view.contract.runs
        hand = list(view.hand)
        return deficiency(hand + [card], sets, runs) < deficiency(hand, sets, runs)

    def _wants_to_draw(self, view: pb.RummyView) -> bool:
        if view.down and view.down[view.in_turn]:
            card = view.discard_top
            return card != JOKER and bool(find_lay_offs([card, card], table_melds(view), keep=1, jokers=False))
        return self._wants(view)

    def _play(self, view: pb.RummyView) -> pb.RummyAction:
        hand = list(view.hand)
        sets, runs = view.contract.sets, view.contract.runs
        whole = view.round == WHOLE_HAND_ROUND
        action = pb.RummyAction()
        down = bool(view.down) and view.down[view.in_turn]
        table = table_melds(view)
        if not down:
            left = _go_down(action, view, hand, table)
            if left is not None:
                if whole:
                    return action
                hand, down = left, True
        if down and not whole:
            offs = find_lay_offs(hand, table, keep=1)
            action.lay_offs.extend(_lay_offs(offs))
            hand = _remove(hand, [f.card for f in offs])
        allowed = _allowed_discards(hand, view.forbidden_discard)
        if down:
            action.discard = max(allowed, key=lambda c: (points(c), c))
        else:
            left = deficiency_without(hand, sets, runs)
            action.discard = min(sorted(set(allowed)), key=lambda c: (left[c], -points(c), c))
        return action

