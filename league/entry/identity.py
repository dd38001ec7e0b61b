"""Is the bot at an endpoint still the bot registered there? The pure part of the identity check.

Before every game a worker reads each seat's ``Describe`` again
(``workers.identity``) and compares the answer with what the store holds for
the seat's bot. :func:`review` says what the answer means (rules §4.9):

- a **name** other than the one the endpoint declared when the bot was
  registered (``bots.described_name``) means the endpoint now serves another
  bot: the game is deferred as for a bot that does not answer, and nothing is
  played or rated under the registered name until the registered bot answers
  there again (or the bot is suspended from the season);
- a **capacity** other than the last one Describe declared becomes the bot's
  capacity, and the claim honours it from the next game;
- a **version** other than the last one Describe declared becomes the bot's
  version; every seat of a game keeps the version it was claimed with.

A capacity or version set by the operator (``store.bots.update_bot``, ``bot update
--version``) therefore holds until the bot declares another one. A hosted bot's
version is its code's hash (rules §4.12): what its Describe declares is recorded,
never made its version (``Expected.pinned``), so it cannot enter a ladder again by
declaring new versions. A bot stored
without what its Describe declared (registered before, or by the operator
without it) has its first answer recorded as it is, changing nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Largest capacity a bot may declare (games at once); a larger one counts as this.
MAX_CAPACITY = 32
#: Longest version string kept, characters.
MAX_VERSION_CHARS = 40
#: The most new versions a bot may enter in ladders in :data:`VERSION_WINDOW_S` (rules §5.2): each new version is a
#: new entrant rated from scratch, so a bot that could declare versions without end could shed a bad rating at will,
#: or enter many copies of itself and keep the luckiest one's rating as its best version.
MAX_NEW_VERSIONS = 5
#: The window of :data:`MAX_NEW_VERSIONS`, seconds (a day).
VERSION_WINDOW_S = 86_400.0
#: How the problem string of a deferral for a version over the limit starts.
TOO_MANY_VERSIONS = "too many new versions: "
#: How the problem string of a deferral for another bot at the endpoint starts.
ANOTHER_BOT = "endpoint serves another bot: "


@dataclass(frozen=True)
class Declared:
    """What an endpoint's Describe declared: ``name``, ``version`` (free text) and ``capacity``
    (games at once, as sent: 0 counts as 1)."""

    name: str
    version: str
    capacity: int


@dataclass(frozen=True)
class Expected:
    """What the store holds of the last Describe of a seat's bot (each None: not known yet):
    ``described_name``, ``described_version``, ``described_capacity``; ``pinned``: the bot's version is
    not Describe's (a hosted bot's is its code's hash)."""

    described_name: str | None
    described_version: str | None
    described_capacity: int | None
    pinned: bool = False  # a hosted bot: the version is its code's hash, whatever Describe declares


@dataclass(frozen=True)
class Review:
    """What :func:`review` found: ``problem`` (None, or why the bot's games must wait) and the
    store's fields to change (``bots`` columns: ``described_name``, ``capacity``,
    ``described_capacity``, ``version``, ``described_version``; empty when nothing changed)."""

    problem: str | None = None
    changes: dict[str, object] = field(default_factory=dict)


def clean(text: str, limit: int) -> str:
    """``text`` with unprintable characters removed, cut to ``limit`` characters."""
    return "".join(c for c in text if c.isprintable())[:limit]


def capacity_of(declared: int) -> int:
    """The capacity the platform uses for a declared one: 0 counts as 1, at most MAX_CAPACITY."""
    return min(max(1, declared), MAX_CAPACITY)


def version_limit(entered: int, version: str, current: str | None) -> str | None:
    """The problem of a new ``version`` declared by a bot that already entered ``entered`` versions in ladders in the
    last :data:`VERSION_WINDOW_S` seconds (rules §5.2), or None while it is within :data:`MAX_NEW_VERSIONS`. The
    bot's games wait, as for another bot at its endpoint, until it serves ``current`` again or the window passes."""
    if entered < MAX_NEW_VERSIONS:
        return None
    back = f"serve version {current!r} again or " if current else ""
    return (f"{TOO_MANY_VERSIONS}{version!r}: the bot entered {entered} versions in ladders in the last "
            f"{VERSION_WINDOW_S / 3600:g} h, the most allowed (rules §5.2): {back}wait")


def review(expected: Expected, declared: Declared) -> Review:
    """Compare a Describe answer with the stored bot (rules §4.9); see the module's docstring."""
    name = clean(declared.name, 64)
    if expected.described_name is not None and name != expected.described_name:
        return Review(f"{ANOTHER_BOT}{name or '(no name)'} (registered: {expected.described_name})")
    changes: dict[str, object] = {}
    if expected.described_name is None:
        changes["described_name"] = name
    capacity = capacity_of(declared.capacity)
    if capacity != expected.described_capacity:
        if expected.described_capacity is not None:
            changes["capacity"] = capacity
        changes["described_capacity"] = capacity
    version = clean(declared.version, MAX_VERSION_CHARS)
    if version != expected.described_version:
        if expected.described_version is not None and version and not expected.pinned:
            changes["version"] = version
        changes["described_version"] = version
    return Review(None, changes)
