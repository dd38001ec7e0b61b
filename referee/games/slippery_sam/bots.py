"""Reference policies for Slippery Sam: ``random_action``, the ``odds`` bot and ``odds_policy`` (it, for in-process play)."""

from __future__ import annotations

import random

from cardarena.v1 import slippery_sam_pb2 as pb

from collections.abc import Callable

from botsdk.bot import REFERENCE_CAPACITY, Bot, Context
from referee.cards import RANKS, pack

_PACK = pack()
_PACK_SET = frozenset(_PACK)
#: Suit -> rank index (into RANKS) -> the pack's cards of that suit ranked below it.
_BELOW = {s: [tuple(r + s for r in RANKS[:i]) for i in range(len(RANKS))] for s in {c[1] for c in _PACK}}


def random_action(view: pb.SlipperySamView, rng: random.Random) -> pb.SlipperySamAction:
    """A uniformly random legal amount (kitty or bet)."""
    return pb.SlipperySamAction(amount=rng.randrange(view.min_amount, view.max_amount + 1))  # rng.randint's draw


def win_probability(hand: list[str], seen: set[str]) -> float:
    """Exact chance that the next stack card is beaten by ``hand`` (rules §1.5).

    The turned card is equally likely to be any card the player has not seen:
    not in his hand, not turned in this deal, not in a shot hand. Raises
    ValueError for a hand card whose rank is not one of ``RANKS``.
    """
    unknown = len(_PACK_SET) - len(_PACK_SET.intersection(seen))
    if not unknown:
        return 0.0
    best: dict[str, int] = {}
    for card in hand:
        best[card[1]] = max(best.get(card[1], -1), RANKS.index(card[0]))
    # an unseen card is beaten when the hand holds a higher card of its suit
    wins = sum(1 for suit, rank in best.items() if suit in _BELOW for c in _BELOW[suit][rank] if c not in seen)
    return wins / unknown


class OddsBot(Bot):
    """Bets by its exact probability of winning, counting every card it has seen.

    With a winning chance p above one half it bets a Kelly fraction (2p - 1) of
    its tokens, capped by the kitty (a shoot when that reaches the kitty);
    otherwise the minimum of 1 token. As dealer it puts up twice the minimum
    kitty, capped by its tokens: the bank wins on average, but a large kitty
    invites shoots.
    """

    name = "odds"
    capacity = REFERENCE_CAPACITY
    version = "1.0.0"
    author = "cardarena"
    games = ("slippery-sam",)

    def slippery_sam(self, view: pb.SlipperySamView, ctx: Context) -> pb.SlipperySamAction:
        """Kitty: twice the minimum; bet: a Kelly fraction of tokens when the chance of winning is above one half."""
        if view.decision == pb.SLIPPERY_SAM_DECISION_KITTY:
            return pb.SlipperySamAction(amount=min(view.max_amount, 2 * view.min_amount))
        seen = set(view.hand) | set(view.turned)
        for shot in view.shots:
            seen.update(shot.cards)
        p = win_probability(list(view.hand), seen)
        if p <= 0.5:
            return pb.SlipperySamAction(amount=view.min_amount)
        stake = int((2 * p - 1) * view.tokens[ctx.seat])
        return pb.SlipperySamAction(amount=max(view.min_amount, min(view.max_amount, stake)))


def odds_policy(seat: int, aggression: float = 1.0) -> Callable[[pb.SlipperySamView, random.Random], pb.SlipperySamAction]:
    """The ``odds`` bot in ``seat`` as a ``(view, rng) -> action`` policy (``referee.playout``), its bets
    ``aggression`` times its stake above the minimum bet (1.0: the bot itself; capped by the legal maximum)."""
    bot = OddsBot()

    def policy(view: pb.SlipperySamView, rng: random.Random) -> pb.SlipperySamAction:
        action = bot.slippery_sam(view, Context("in-process", seat, 0, 0, 0, 0, rng))
        if view.decision == pb.SLIPPERY_SAM_DECISION_BET and aggression != 1.0:
            low = view.min_amount
            action.amount = max(low, min(view.max_amount, low + round((action.amount - low) * aggression)))
        return action
    return policy
