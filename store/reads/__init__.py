"""Read models: what the dashboard, the CLI and the workers read, as plain frozen dataclasses.

One style: each module has a class over one :class:`store.session.Database`
whose methods run one read transaction each (``store.Store`` holds one of
each: ``store.game_reads``, ``store.season_reads``, ``store.bot_reads``).
Where a read model's fields are public, the JSON API's schemas
(``dashboard.schemas``) use the dataclass itself, so a public field is declared
once; a field's note (:func:`doc`, in the field's standard ``metadata``) is its
description in the OpenAPI schema.
"""

from __future__ import annotations


def doc(text: str) -> dict[str, str]:
    """A dataclass field's ``metadata`` describing it: ``field(metadata=doc("..."))``."""
    return {"description": text}
