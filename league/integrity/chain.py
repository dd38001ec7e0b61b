"""The links of a season's chain of stored records (``store.chain`` writes and audits it).

An entry's hash is ``SHA-256(previous + "\\n" + entry)``, in 64 lowercase hex digits,
``previous`` being the hash of the entry before (64 zeros for a season's first) and
``entry`` the entry's canonical JSON text. Anyone holding the entries can recompute
every hash; anyone who saw a head (the last hash) can check that a later chain
extends it: changing or removing an entry changes every hash after it.
"""

from __future__ import annotations

import hashlib


def link(previous: str, entry: str) -> str:
    """The hash of ``entry`` (its text) after the entry whose hash is ``previous`` (64 hex digits)."""
    return hashlib.sha256(f"{previous}\n{entry}".encode()).hexdigest()
