"""The league's decisions the store applies inside its transactions (``store.policy.LeaguePolicy``).

The store is persistence only and never imports the league; whoever opens a
store passes :data:`POLICY` (``store.open_store(url, policy=POLICY)``), and the
store calls it where a write needs the league: the season's Elo after a game
becomes final (:func:`league.ratings.elo.replay`), a reproducible season's key, its
commitment and its games' ids (:mod:`league.integrity.fairness`), when a bot that does not answer at game
start is suspended (rules §4.9, :mod:`league.competition.availability`), and whether a done
season may publish its key (:mod:`league.ratings.settling`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from league.competition.availability import suspend_after_s
from league.integrity import chain, fairness
from league.ratings import elo
from league.ratings.settling import SEQUENTIAL_KEY


@dataclass(frozen=True)
class Policy:
    """The league's policy; ``key_bytes``: bytes of a season key (:data:`league.integrity.fairness.KEY_BYTES`)."""

    key_bytes: int = fairness.KEY_BYTES

    def rate(self, base: Mapping[int, tuple[float, int]], games: Iterable[tuple[int, Sequence[int], Sequence[int]]],
             checkpoint_before: int) -> tuple[dict[int, tuple[float, int]], dict[int, tuple[float, int]]]:
        """:func:`league.ratings.elo.replay`: ``(ratings now, ratings at the new checkpoint)``, ``{bot: (elo, games)}``."""
        return elo.replay(base, games, checkpoint_before)

    def season_key(self, seed: int) -> bytes:
        """:func:`league.integrity.fairness.key_from_seed`. Raises ValueError for a seed outside [0, 2**63)."""
        return fairness.key_from_seed(seed)

    def commitment(self, key: bytes, scheme: str | None = None) -> str:
        """:func:`league.integrity.fairness.commitment`: SHA-256 of the key and the chance scheme, 64 lowercase hex digits."""
        return fairness.commitment(key, scheme)

    def game_token(self, key: bytes, season_id: int, number: int) -> str:
        """:func:`league.integrity.fairness.game_token`: the id game ``number`` of the season's bots are sent."""
        return fairness.game_token(key, season_id, number)

    def chain_link(self, previous: str, entry: str) -> str:
        """:func:`league.integrity.chain.link`: the hash of a season's chain entry after the entry hashed ``previous``."""
        return chain.link(previous, entry)

    def chain_format(self, entries: Sequence[Any]) -> int:
        """:func:`league.integrity.chain.chain_format_of`: the chain format a season's entries state (1 without one)."""
        return chain.chain_format_of(entries)

    def check_chain(self, entries: Sequence[Any], season: Mapping[str, Any], games: Mapping[int, Mapping[str, Any]],
                    seats: Mapping[int, Sequence[int]], groups: Mapping[int, int | None], close: Mapping[str, Any],
                    finished: bool, head: tuple[str | None, int], heads: Sequence[str]) -> tuple[list[str], int, str | None]:
        """:func:`league.integrity.chain.check_chain` of ``entries`` against the season as it is now (the fields of
        :class:`league.integrity.chain.SeasonNow`): ``(problems, heads seen, note)``."""
        found = chain.check_chain(entries, chain.SeasonNow(season, games, seats, groups, close, finished), self.chain_link,
                                  head, heads)
        return found.problems, found.heads_seen, found.note

    def suspend_after_s(self, config: Mapping[str, Any]) -> float:
        """:func:`league.competition.availability.suspend_after_s` of the season's scheduler ``config``, seconds."""
        return suspend_after_s(dict(config))

    def key_is_public(self, config: Mapping[str, Any]) -> bool:
        """A done season's key may be published unless it is played until settled and has not
        stopped (between two batches its later games' seeds still come from the key), or is a ladder's
        epoch not closed yet (games may still be appended to it)."""
        epoch = config.get("ladder_epoch")  # a ladder's epoch: not before it is closed (rules §5.1)
        if epoch is not None and not epoch.get("closed"):
            return False
        sequential = config.get(SEQUENTIAL_KEY)
        return sequential is None or sequential.get("stop") is not None


#: The policy every store of the platform is opened with.
POLICY = Policy()
