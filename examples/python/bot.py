"""A cardarena bot in Python for all three games, with the SDK (botsdk): the same bot as examples/node/bot.js.

    python examples/python/bot.py --port 50061     # or --port 0: a free port; prints "bot python-example (...) listening on 127.0.0.1:PORT"

Structure, the same as the Node example:
    describe            who the bot is and what it plays (the class attributes)
    slippery_sam(...)   one Slippery Sam decision -> SlipperySamAction   (rules §1)
    svara(...)          one Svara decision        -> SvaraAction         (rules §2)
    rummy(...)          one rummy decision        -> RummyAction         (rules §3)
    serve_forever(port) the gRPC server: cardarena.v1.Bot and grpc.health.v1.Health (botsdk.serve_forever)
In Python, unset scalars read as 0 / "" / [] and ``optional`` fields are tested with ``HasField``.
"""

from __future__ import annotations

import argparse

from cardarena.v1 import rummy_pb2 as rm
from cardarena.v1 import slippery_sam_pb2 as ss
from cardarena.v1 import svara_pb2 as sv

from botsdk import Bot, Context, serve_forever

RANKS = "23456789TJQKA"
SUITS = "cdhs"
JOKER = "Jk"

# -- Slippery Sam (rules §1) ------------------------------------------------------------------


def win_chance(hand: list[str], seen: set[str]) -> float:
    """The chance that one of ``hand`` is of the turned card's suit and strictly higher, the turned
    card being any card this seat has not seen (rules §1.5)."""
    best: dict[str, int] = {}
    for c in hand:
        best[c[1]] = max(best.get(c[1], -1), RANKS.index(c[0]))
    unknown = [r + s for r in RANKS for s in SUITS if r + s not in seen]
    wins = sum(1 for c in unknown if RANKS.index(c[0]) < best.get(c[1], -1))
    return wins / len(unknown) if unknown else 0.0


# -- Svara (rules §2) -------------------------------------------------------------------------

SVARA_VALUE = {"A": 11, "K": 10, "Q": 10, "J": 10, "T": 10, "9": 9, "8": 8, "7": 7, "6": 6}


def points_of(cards: list[tuple[str, str, int]]) -> int:
    """Hand points (rules §2.2) of cards given as (rank, suit, value)."""
    best = max(c[2] for c in cards)  # the highest single card
    for s in SUITS:
        same = [c for c in cards if c[1] == s]
        if len(same) >= 2:
            best = max(best, sum(c[2] for c in same))
    if all(c[0] == cards[0][0] for c in cards):
        best = max(best, sum(c[2] for c in cards))
    if sum(1 for c in cards if c[0] == "A") >= 2:
        best = max(best, 22)
    return best


def svara_points(hand: list[str], szacha: str) -> int:
    """The szacha counts 11 and stands for whichever card scores most (rules §2.2)."""
    natural = [(c[0], c[1], SVARA_VALUE[c[0]]) for c in hand if c != szacha]
    if len(natural) == len(hand):
        return points_of(natural)
    return max(points_of([*natural, (r, s, 11)]) for r in "AKQJT9876" for s in SUITS)


# -- Contract rummy (rules §3) ----------------------------------------------------------------


def card_points(card: str) -> int:
    """Points of a card left in hand (rules §3.9)."""
    if card == JOKER:
        return 50
    return 5 if card[0] in "234567" else 20 if card[0] == "A" else 10


def rank_at(pos: int) -> str:
    """A run position: 1 is the ace low, 2..13 the ranks 2..K, 14 the ace high."""
    return "A" if pos in (1, 14) else RANKS[pos - 2]


def remove_cards(hand: list[str], cards: list[str]) -> list[str]:
    left = list(hand)
    for c in cards:
        left.remove(c)
    return left


def find_sets(hand: list[str], count: int) -> tuple[list[rm.RummyNewMeld], list[str]] | None:
    """Sets of one rank: 3+ cards, at least 2 natural (rules §3.1); (melds, cards left) or None."""
    left = list(hand)
    by_rank: dict[str, list[str]] = {}
    for c in left:
        if c != JOKER:
            by_rank.setdefault(c[0], []).append(c)
    ranks = sorted((r for r in by_rank if len(by_rank[r]) >= 2), key=lambda r: -len(by_rank[r]))
    melds = []
    for r in ranks[:count]:
        cards = list(by_rank[r])
        if len(cards) == 2:
            if JOKER not in left:
                return None
            cards.append(JOKER)
        left = remove_cards(left, cards)
        melds.append(rm.RummyNewMeld(kind=rm.RUMMY_MELD_KIND_SET, cards=cards))
    return (melds, left) if len(melds) == count else None


def find_runs(hand: list[str], count: int) -> tuple[list[rm.RummyNewMeld], list[str]] | None:
    """Runs: 4 consecutive positions of one suit, at least 2 natural, jokers filling the gaps, laid
    low to high (rules §3.1). Takes, for each run, the window with the most naturals."""
    left = list(hand)
    melds = []
    for _ in range(count):
        windows = [[rank_at(p) + s for p in range(start, start + 4)] for s in SUITS for start in range(1, 12)]
        best = max(windows, key=lambda w: sum(1 for c in w if c in left))  # the first of the best
        held = sum(1 for c in best if c in left)
        if held < 2 or 4 - held > left.count(JOKER):
            return None
        cards = [c if c in left else JOKER for c in best]
        left = remove_cards(left, cards)
        melds.append(rm.RummyNewMeld(kind=rm.RUMMY_MELD_KIND_RUN, cards=cards))
    return melds, left


def find_go_down(hand: list[str], contract: rm.RummyContract) -> tuple[list[rm.RummyNewMeld], list[str]] | None:
    """The round's contract from the hand, keeping a card to discard; None if not found."""
    runs = find_runs(hand, contract.runs)
    if runs is None:
        return None
    sets = find_sets(runs[1], contract.sets)
    if sets is None or not sets[1]:
        return None
    return runs[0] + sets[0], sets[1]


def table_meld(meld_id: int, kind: int, stands_for: list[str]) -> dict[str, object]:
    """A meld as the table shows it: its kind, and for a run its end positions from stands_for
    (rules §3.1: the first entry is the low end, the last the high end; an ace first is low)."""
    def pos(card: str, low: bool) -> int:
        return (1 if low else 14) if card[0] == "A" else RANKS.index(card[0]) + 2

    if kind == rm.RUMMY_MELD_KIND_SET:
        return {"id": meld_id, "kind": kind, "rank": next(c for c in stands_for if c)[0]}
    return {"id": meld_id, "kind": kind, "suit": stands_for[0][1], "low": pos(stands_for[0], True),
            "high": pos(stands_for[-1], False)}


def stands_for_new(meld: rm.RummyNewMeld) -> list[str]:
    """What a freshly laid meld stands for: the run's cards by position, a set's naturals."""
    if meld.kind == rm.RUMMY_MELD_KIND_SET:
        return ["" if c == JOKER else c for c in meld.cards]
    k = next(i for i, c in enumerate(meld.cards) if c != JOKER and c[0] != "A")
    start = RANKS.index(meld.cards[k][0]) + 2 - k
    return [rank_at(start + i) + meld.cards[k][1] for i in range(len(meld.cards))]


def find_lay_offs(hand: list[str], melds: list[dict[str, object]]) -> tuple[list[rm.RummyLayOff], list[str]]:
    """Lay off every card that fits a meld (one card per lay-off, applied in order), keeping one card."""
    left = list(hand)
    lay_offs = []
    found = True
    while found and len(left) > 1:
        found = False
        for m in melds:
            card, end = None, rm.RUMMY_RUN_END_UNSPECIFIED
            if m["kind"] == rm.RUMMY_MELD_KIND_SET:
                card = next((c for c in left if c == JOKER or c[0] == m["rank"]), None)
            else:
                low, high = int(m["low"]), int(m["high"])  # type: ignore[call-overload]
                up, down = rank_at(high + 1) + str(m["suit"]) if high < 14 else "", rank_at(low - 1) + str(m["suit"])
                if high < 14 and not (low == 1 and high == 13) and up in left:
                    card, end, m["high"] = up, rm.RUMMY_RUN_END_HIGH, high + 1
                elif low > 1 and not (high == 14 and low == 2) and down in left:
                    card, end, m["low"] = down, rm.RUMMY_RUN_END_LOW, low - 1
            if card is not None:
                lay_offs.append(rm.RummyLayOff(meld_id=int(m["id"]), cards=[card], end=end))  # type: ignore[call-overload]
                left = remove_cards(left, [card])
                found = True
                if len(left) <= 1:
                    break
    return lay_offs, left


def choose_discard(left: list[str], forbidden: str) -> str:
    """Never the card taken from the pile unless every card left equals it (judged on the cards left
    after this action's melds and lay-offs, rules §3.7); keep pairs and jokers."""
    choices = [c for c in left if c != forbidden] or left

    def worth(c: str) -> int:
        pairs = sum(1 for x in left if x != JOKER and x[0] == c[0]) - 1
        return -100 if c == JOKER else card_points(c) - 15 * pairs

    return max(choices, key=worth)  # the first of the best, as the Node bot's reduce


def wanted(view: rm.RummyView, card: str) -> bool:
    """Whether ``card`` would give this seat a set it lacks (a pair of its rank in hand)."""
    if not card or card == JOKER:
        return card == JOKER
    return view.contract.sets > 0 and sum(1 for c in view.hand if c[0] == card[0]) >= 2


class ExampleBot(Bot):
    """The example bot for all three games."""

    name = "python-example"
    version = "1.0.0"
    author = "cardarena examples"
    games = ("slippery-sam", "svara", "rummy")
    capacity = 4  # games at once; calls can overlap anyway (the server answers them concurrently)

    def slippery_sam(self, view: ss.SlipperySamView, ctx: Context) -> ss.SlipperySamAction:
        if view.decision == ss.SLIPPERY_SAM_DECISION_KITTY:
            return ss.SlipperySamAction(amount=view.min_amount)  # the smallest kitty (rules §1.3)
        seen = set(view.hand) | set(view.turned) | {c for shot in view.shots for c in shot.cards}
        p = win_chance(list(view.hand), seen)
        if p <= 0.5:
            return ss.SlipperySamAction(amount=view.min_amount)
        stake = int((2 * p - 1) * view.tokens[ctx.seat])  # a Kelly fraction of own tokens
        return ss.SlipperySamAction(amount=max(view.min_amount, min(view.max_amount, stake)))

    def svara(self, view: sv.SvaraView, ctx: Context) -> sv.SvaraAction:
        legal = view.legal
        points = svara_points(list(view.hand), view.szacha) if view.looked else 0
        if view.decision == sv.SVARA_DECISION_VOTE:
            return sv.SvaraAction(move=sv.SVARA_MOVE_REFUSE if view.looked and points >= 18 else sv.SVARA_MOVE_ACCEPT)
        if view.decision == sv.SVARA_DECISION_JOIN:
            in_svara = list(view.in_svara) or list(view.in_play)  # older platforms sent in_play only
            cost = legal.join_cost
            pays = (view.bank + cost) / (sum(in_svara) + 1) > cost
            return sv.SvaraAction(move=sv.SVARA_MOVE_JOIN if pays else sv.SVARA_MOVE_DECLINE)
        # A betting turn. LOOK does not end it: the referee asks again with the hand filled (rules §2.5).
        if sv.SVARA_MOVE_LOOK in legal.moves:
            return sv.SvaraAction(move=sv.SVARA_MOVE_LOOK)
        if sv.SVARA_MOVE_SEE in legal.moves and points >= 21:
            return sv.SvaraAction(move=sv.SVARA_MOVE_SEE)
        if sv.SVARA_MOVE_STAKE in legal.moves and points >= 25:
            return sv.SvaraAction(move=sv.SVARA_MOVE_STAKE, amount=legal.stake_max)
        if sv.SVARA_MOVE_STAKE in legal.moves and points >= 18:
            return sv.SvaraAction(move=sv.SVARA_MOVE_STAKE, amount=legal.stake_min)
        return sv.SvaraAction(move=sv.SVARA_MOVE_FOLD)

    def rummy(self, view: rm.RummyView, ctx: Context) -> rm.RummyAction:
        down = view.down[ctx.seat]
        if view.decision == rm.RUMMY_DECISION_CALL:
            left_ok = not view.HasField("take_its_left") or view.take_its_left > 0  # unset: no limit
            return rm.RummyAction(call=not down and view.round != 7 and left_ok and wanted(view, view.discard_top))
        if view.decision == rm.RUMMY_DECISION_DRAW:
            take = view.discard_live and not down and wanted(view, view.discard_top)
            return rm.RummyAction(draw=rm.RUMMY_DRAW_SOURCE_DISCARD_PILE if take else rm.RUMMY_DRAW_SOURCE_STOCK)
        # The play: go down if the contract is found (not in round 7, which melds the whole hand), lay off, discard.
        hand = list(view.hand)
        action = rm.RummyAction()
        table = [table_meld(m.id, m.kind, list(m.stands_for)) for m in view.melds]
        is_down = down
        if not down and view.round != 7:
            found = find_go_down(hand, view.contract)
            if found is not None:
                action.go_down.extend(found[0])
                hand, is_down = found[1], True
                # melds laid in this action take the next ids, after those on the table (rummy.proto)
                table += [table_meld(len(view.melds) + i, m.kind, stands_for_new(m)) for i, m in enumerate(found[0])]
        if is_down and view.round != 7:
            lay_offs, hand = find_lay_offs(hand, table)
            action.lay_offs.extend(lay_offs)
        action.discard = choose_discard(hand, view.forbidden_discard)
        return action


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=50061, help="port on 127.0.0.1 (0: a free one)")
    args = parser.parse_args()
    bot = ExampleBot()
    serve_forever(bot, port=args.port, threads=bot.capacity)  # says where it listens; a busy port is one line
