"""Close matches for a name that was not found (a typo): "did you mean" in the CLI and the API."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: How alike (difflib's ratio, 0 to 1) a known name must be to be suggested.
CUTOFF = 0.6
#: The most names suggested.
MOST = 3


def close_names(name: str, known: Iterable[str], most: int = MOST) -> list[str]:
    """The known names closest to ``name``, best first (at most ``most``; case is ignored when
    comparing); empty when none is alike."""
    by_lower: dict[str, str] = {}
    for k in known:
        by_lower.setdefault(k.lower(), k)
    return [by_lower[m] for m in difflib.get_close_matches(name.lower(), list(by_lower), n=most, cutoff=CUTOFF)]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` (or ``'x' or 'y'``) for the names close to ``name``, else ``""``."""
    close = close_names(name, known)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?"
