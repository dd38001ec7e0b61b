"""What the store asks the league inside its transactions (the store computes no ratings).

The store is persistence only: it never imports ``league``. Where a write
needs a league decision in the same transaction (the season's Elo after a
result, a season key from an organiser's seed, when an unanswering bot is
suspended, when a season's key may be published), it asks the
:class:`LeaguePolicy` it was opened with (``store.open_store(url, policy=...)``;
the league's is ``league.policy.POLICY``). Only plain values cross.

Shapes: a bot's rating is ``(elo, rated games)``; a rated game is
``(game number, bot of each seat, place of each seat)``, in schedule order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

#: ``(elo, rated games)`` of one bot.
Rated = tuple[float, int]
#: ``(game number, bot of each seat, place of each seat)``.
RatedGame = tuple[int, Sequence[int], Sequence[int]]


class LeaguePolicy(Protocol):
    """The league's decisions the store applies (``league.policy.Policy``)."""

    #: Bytes of a season key.
    key_bytes: int

    def rate(self, base: Mapping[int, Rated], games: Sequence[RatedGame],
             checkpoint_before: int) -> tuple[dict[int, Rated], dict[int, Rated]]:
        """``(ratings after every game, ratings after the games numbered below checkpoint_before)``,
        both for every bot of ``base`` and ``games``, from the checkpoint ratings ``base``."""
        ...

    def season_key(self, seed: int) -> bytes:
        """The key of the reproducible season of ``seed``."""
        ...

    def commitment(self, key: bytes, scheme: str | None = None) -> str:
        """The published commitment to a season key and its chance scheme."""
        ...

    def game_token(self, key: bytes, season_id: int, number: int) -> str:
        """The id the bots of game ``number`` of season ``season_id`` (with ``key``) are sent (opaque, keyed)."""
        ...

    def chain_link(self, previous: str, entry: str) -> str:
        """The hash of a season's chain entry (text) after the entry hashed ``previous`` (``store.chain``)."""
        ...

    def chain_format(self, entries: Sequence[Any]) -> int:
        """The chain format a season's entries (``store.chain.Entry``, in order) state."""
        ...

    def check_chain(self, entries: Sequence[Any], season: Mapping[str, Any], games: Mapping[int, Mapping[str, Any]],
                    seats: Mapping[int, Sequence[int]], groups: Mapping[int, int | None], close: Mapping[str, Any],
                    finished: bool, head: tuple[str | None, int], heads: Sequence[str]) -> tuple[list[str], int, str | None]:
        """Check a season's chain ``entries`` against the season as it is now: ``(problems, heads seen, note)``."""
        ...

    def suspend_after_s(self, config: Mapping[str, Any]) -> float:
        """Seconds a bot may not answer at game start before it is suspended from the season."""
        ...

    def key_is_public(self, config: Mapping[str, Any]) -> bool:
        """Whether a done season with this scheduler ``config`` may publish its key."""
        ...
