"""Bot names: what a name may be (:func:`bot_name_problem`), and close matches for a name that was not
found (a typo): "did you mean" in the CLI and the API.

A bot's name is how spectators, standings and the pages tell bots apart, so a name must never pass for
another's: it is matched whole (``re.fullmatch``: a ``$`` would also match before a final newline, so
``"odds-1\\n"`` would stand beside ``odds-1``), names are unique whatever their case (the store compares
them case-folded), and words that are paths of the dashboard or the Arena are refused.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

#: Bot names: 1 to 40 letters, digits, ``_``, ``.`` or ``-``, starting with a letter or digit.
BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
#: Names refused whatever their case: path words of the dashboard's and the Arena's routes, which a
#: page or an API path holding a bot name could be read as (``/bots/api``, ``/static``, ...).
RESERVED_NAMES = frozenset({
    ".", "..", "-", "_", "api", "static", "v1", "arena", "bots", "games", "seasons", "ladders", "replays",
    "standings", "crosstable", "fairness", "verification", "ratings", "history", "stored", "download",
    "output", "code", "log", "logs", "submit", "retire", "openapi.json", "docs", "redoc", "audit",
})
#: What a valid bot name is, for error messages and help texts.
BOT_NAME_RULE = ("1 to 40 letters, digits, '_', '.' or '-', starting with a letter or digit, not all digits, "
                 "and not a word of the dashboard's paths (such as 'api' or 'static')")


def bot_name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a bot's name, in a few words, or None when it can (module docstring):
    not a string, not :data:`BOT_NAME` whole, all digits (``/bots/<id>`` reads digits as a bot's id),
    or one of :data:`RESERVED_NAMES` in any case."""
    if not isinstance(name, str) or not BOT_NAME.fullmatch(name):
        return "use " + BOT_NAME_RULE.split(", not all digits")[0]
    if name.isdigit():
        return "not all digits (the dashboard reads /bots/<digits> as a bot id)"
    if name.lower() in RESERVED_NAMES:
        return "a word of the dashboard's paths is reserved"
    return None

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
