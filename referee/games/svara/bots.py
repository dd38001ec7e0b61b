"""Reference Svara policies (rules §2): a uniform random player and a points-based bot.

Both read only the protocol view (``cardarena.v1.SvaraView``) and answer
a ``SvaraAction``; every answer is one of ``view.legal.moves``.
"""

from __future__ import annotations

import random

from cardarena.v1 import svara_pb2

from botsdk.bot import REFERENCE_CAPACITY, Bot, Context
from referee.games.svara.points import hand_points

LOOK = svara_pb2.SVARA_MOVE_LOOK
FOLD = svara_pb2.SVARA_MOVE_FOLD
STAKE = svara_pb2.SVARA_MOVE_STAKE
SEE = svara_pb2.SVARA_MOVE_SEE
PROPOSE = svara_pb2.SVARA_MOVE_PROPOSE
ACCEPT = svara_pb2.SVARA_MOVE_ACCEPT
REFUSE = svara_pb2.SVARA_MOVE_REFUSE
JOIN = svara_pb2.SVARA_MOVE_JOIN
DECLINE = svara_pb2.SVARA_MOVE_DECLINE


def _action(move: int, amount: int = 0) -> svara_pb2.SvaraAction:
    return svara_pb2.SvaraAction(move=move, amount=amount)


def random_action(view: svara_pb2.SvaraView, rng: random.Random) -> svara_pb2.SvaraAction:
    """A uniformly random legal move; a STAKE amount uniform in [stake_min, stake_max] tokens.

    Looking is one of the moves, so the player looks first some of the time.
    Raises ValueError for a view with no legal move (the seat is not asked).
    """
    legal = view.legal
    moves = legal.moves
    if not moves:
        raise ValueError("the view asks for no decision")
    move = rng.choice(moves)
    if move == STAKE:  # rng.randint's draw
        return svara_pb2.SvaraAction(move=STAKE, amount=rng.randrange(legal.stake_min, legal.stake_max + 1))
    return svara_pb2.SvaraAction(move=move)


class PointsBot(Bot):
    """Plays by its hand points (rules §2.2): looks at once, folds weak hands,
    matches middling ones, raises to the maximum with strong ones, sees when
    two are left and its hand is likely ahead, joins a svara when the expected
    share of the bank exceeds the cost, accepts proposals only with a weak or
    unseen hand."""

    name = "points"
    capacity = REFERENCE_CAPACITY
    version = "1.0.0"
    author = "cardarena"
    games = ("svara",)

    #: Hand points at or above which the bot plays on / raises / sees.
    PLAY = 18
    RAISE = 25
    SEE_AT = 21

    def svara(self, view: svara_pb2.SvaraView, ctx: Context) -> svara_pb2.SvaraAction:
        """One decision; always a legal move of ``view``."""
        legal = view.legal
        moves = set(legal.moves)
        if view.decision == svara_pb2.SVARA_DECISION_VOTE:
            if view.looked and hand_points(view.hand, view.szacha) >= self.PLAY:
                return _action(REFUSE)
            return _action(ACCEPT)
        if view.decision == svara_pb2.SVARA_DECISION_JOIN:
            return _action(JOIN if self._join_pays(view) else DECLINE)
        if LOOK in moves:
            return _action(LOOK)
        if not view.hand or STAKE not in moves:
            return _action(FOLD)
        points = hand_points(view.hand, view.szacha)
        if SEE in moves and points >= self.SEE_AT:
            return _action(SEE)
        if points >= self.RAISE:
            return _action(STAKE, legal.stake_max)
        if points >= self.PLAY:
            return _action(STAKE, legal.stake_min)
        return _action(FOLD)

    @staticmethod
    def _join_pays(view: svara_pb2.SvaraView) -> bool:
        """Join when an equal share of the bank after joining exceeds the join cost.

        With k seats already in the svara, a joiner wins the bank (which grows by
        the cost) with chance about 1/(k+1), ignoring the stakes still to come.
        """
        cost = view.legal.join_cost
        players = sum(1 for p in view.in_play if p)
        share = (view.bank + cost) / (players + 1)
        return share > cost
