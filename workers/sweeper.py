"""The sweeper: games whose worker was lost go back to pending.

A worker renews its game's lease every third of ``lease_s`` (workers.service);
a lease that ran out (by the database's clock, never this process's) means the
worker died or hung. :func:`sweep` voids those
attempts as "lease expired" (back to pending, or failed after the 3rd), so the
caller can enqueue them again. Run it every second or so: the ``season run``
follower does. Safe to run from many places at once (each release is one
conditional update under the season's lock).
"""

from __future__ import annotations

import logging

from store import Store, StoreError

log = logging.getLogger(__name__)


def sweep(store: Store) -> list[int]:
    """Release every expired lease (all seasons); returns the released game ids.

    A database error is logged and gives ``[]`` (the next sweep tries again).
    """
    try:
        released = store.games.release_expired()
    except StoreError as exc:
        log.warning("sweep failed: %s", exc)
        return []
    if released:
        log.warning("released %d game(s) whose lease expired: %s", len(released), released)
    return released
