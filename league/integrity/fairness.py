"""Provably fair deals: a season's secret key, its commitment, and every game's deal seed.

The scheme of online card rooms, commit then reveal:

- **key**: 32 bytes drawn from :mod:`secrets` when the season is created, or, for a
  *reproducible* season (``season create --seed N``), ``SHA-256("cardarena season key "
  + decimal N)``, so that anyone who knows N knows the key and every card;
- **commitment**: ``SHA-256(key + scheme)``, the SHA-256 digest of the key's 32 raw bytes
  (not of its hex form) followed by the ASCII name of the season's chance scheme
  (``referee.chance.SCHEMES``, e.g. ``per-deal-aside``), as 64 lowercase hex digits;
  published from the season's creation. It binds the scheme as well as the key: the
  organiser cannot deal a game again under another scheme and choose between the two
  deals. Seasons created before the scheme was committed have ``SHA-256(key)``;
- **deal seed** of a game: the first 8 bytes of ``HMAC-SHA256(key, label)`` read as a
  big-endian unsigned integer and shifted right by one bit (63 bits, in ``[0, 2**63)``);
  the label is the ASCII text ``game:<number>`` (the game's 0-based number in the
  schedule) or, in a duplicate season, ``group:<group>`` (the number of the table's
  rotation group, shared by all its rotations);
- **schedule seed**: the same with the label ``schedule``; it seeds the seating draws
  (``league.competition.schedule``);
- **game id** of a game (:func:`game_token`, the ``game_id`` of every Act its bots are sent, and its
  replay's): ``g-`` followed by the first 12 bytes of ``HMAC-SHA256(key, "game-id:<season id>:<number>")``
  as 24 lowercase hex digits. It is the same for every attempt of the game (a rerun deals other cards,
  rules §4.3, so nothing of a deal links through it), and unlike ``<season id>/<number>`` it tells a bot
  nothing of the schedule: not the game's number, not its deal group, not which rotation of a deal it
  is (two rotations of one deal have unrelated ids). The season id in the label keeps the ids of two
  reproducible seasons of the same seed (the same key) apart.

The key stays in the store until the season is over (every game final); then it is
published, and anyone can check ``SHA-256(key)`` against the commitment, recompute every
deal seed and re-run every replay (``league.integrity.verify``, ``cardarena season verify``).
HMAC-SHA256 is a pseudo-random function: no deal seed, and not the key, follows from
any set of other outputs (the seats of the schedule, the seeds of stored games, the game ids
the bots were sent); once the key is published anyone can recompute every game id too.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: Bytes of a season key.
KEY_BYTES = 32
#: Deal seeds are in [0, 2**63) (stored as signed 64-bit integers).
SEED_LIMIT = 2**63


def new_key() -> bytes:
    """A fresh secret season key: 32 bytes from :func:`secrets.token_bytes`."""
    return secrets.token_bytes(KEY_BYTES)


def key_from_seed(seed: int) -> bytes:
    """The key of a reproducible season: ``SHA-256("cardarena season key <seed>")`` (32 bytes).

    Raises ValueError for a seed outside ``[0, 2**63)``."""
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"--seed must be in [0, 2**63), got {seed}")
    return hashlib.sha256(f"cardarena season key {seed}".encode("ascii")).digest()


def commitment(key: bytes, scheme: str | None = None) -> str:
    """The commitment to ``key`` and the chance ``scheme``: SHA-256 of the key's raw bytes followed by the
    scheme's ASCII name, 64 lowercase hex digits; ``scheme`` None (a season from before the scheme was
    committed): SHA-256 of the key alone."""
    return hashlib.sha256(key + (scheme or "").encode("ascii")).hexdigest()


def derive(key: bytes, label: str) -> int:
    """The 63-bit value of ``label`` under ``key``: HMAC-SHA256's first 8 bytes, big-endian, >> 1."""
    digest = hmac.new(key, label.encode("ascii"), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def deal_label(number: int, deal_group: int, duplicate: bool) -> str:
    """The label a game's deal seed is derived from: ``group:<deal_group>`` in a duplicate
    season (all rotations of a table share it), else ``game:<number>``."""
    return f"group:{deal_group}" if duplicate else f"game:{number}"


def deal_seed(key: bytes, number: int, deal_group: int, duplicate: bool) -> int:
    """The deal seed of game ``number`` (in ``deal_group``) of the season with ``key``."""
    return derive(key, deal_label(number, deal_group, duplicate))


def schedule_seed(key: bytes) -> int:
    """The seed of the schedule's seating draws (``league.competition.schedule``)."""
    return derive(key, "schedule")


#: The prefix of a game id (:func:`game_token`): it is never a number, so it is never read as a store id.
GAME_ID_PREFIX = "g-"
#: Hex digits of a game id after its prefix (96 bits: no two games of a store share one in practice).
GAME_ID_HEX = 24


def game_label(season_id: int, number: int) -> str:
    """The label a game id is derived from: ``game-id:<season id>:<number>``."""
    return f"game-id:{season_id}:{number}"


def game_token(key: bytes, season_id: int, number: int) -> str:
    """The id the bots of game ``number`` of season ``season_id`` (with ``key``) are sent: ``g-`` and the
    first :data:`GAME_ID_HEX` hex digits of ``HMAC-SHA256(key, game_label(season_id, number))`` (module
    docstring), e.g. ``g-5f0c2a9e41d7b3c86a01e2ff``."""
    digest = hmac.new(key, game_label(season_id, number).encode("ascii"), hashlib.sha256).hexdigest()
    return GAME_ID_PREFIX + digest[:GAME_ID_HEX]


def is_game_token(text: str) -> bool:
    """Whether ``text`` has the shape of a game id (:func:`game_token`): the prefix and 24 lowercase hex digits."""
    tail = text[len(GAME_ID_PREFIX):]
    return (text.startswith(GAME_ID_PREFIX) and len(tail) == GAME_ID_HEX
            and all(c in "0123456789abcdef" for c in tail))
