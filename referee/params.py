"""A game parameter's range and meaning, declared once on its field of the game's params dataclass.

A game's params dataclass (``GameSpec.params_type``) declares each field with :func:`param`: its
default, its meaning in one line, the rules sections it belongs to and its allowed values. The
dataclass's ``__post_init__`` validates through :func:`check_each` or :func:`check_by_stage`, which
read those declarations, and ``docs/game_tables.py`` writes each rules document's parameter table
from them (:func:`table_rows`), so a range is typed in one place only.

Errors are :class:`~referee.engine.BadParameters` naming the parameter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from referee.engine import BadParameters

#: The key of a field's :class:`Param` in its ``dataclasses.field`` metadata.
KEY = "cardarena.param"


@dataclass(frozen=True)
class Param:
    """What one game parameter means and allows.

    - ``meaning``: one line, no final stop.
    - ``sections``: the rules sections that use it, as cited (``"§1.10, §1.17"``).
    - ``low``/``high``: the smallest and largest whole number allowed (None: no such bound).
    - ``at_least``: the name of another parameter whose value is a lower bound.
    - ``none``: when ``None`` is allowed too, the words that follow "or None" in the error and
      the docs (``": unlimited"``, ``" for the default"``); None when it is not.
    - ``unit``: what the number counts, as the error says it ("a whole number of tokens").
    - ``note``: further words on the allowed values for the docs (a bound the rules check with
      the table size, what a boundary value means).
    - ``kind``/``valid``: for a parameter that is not a whole number, what it must be in words and
      the test of a value.
    """

    meaning: str
    sections: str
    low: int | None = None
    high: int | None = None
    at_least: str | None = None
    none: str | None = None
    unit: str = ""
    note: str = ""
    kind: str = ""
    valid: Callable[[Any], bool] | None = None

    @property
    def whole(self) -> bool:
        """True for a whole-number parameter (no ``valid`` test of its own)."""
        return self.valid is None

    def allowed(self) -> str:
        """The allowed values in words, for the docs: ``"1 to 10,000"``, ``"`min_stake` to 100,000,000"``."""
        if not self.whole:
            text = self.kind
        else:
            low = f"`{self.at_least}`" if self.at_least else (f"{self.low:,}" if self.low is not None else "")
            if low and self.high is not None:
                text = f"{low} to {self.high:,}"
            elif low:
                text = f"{low} or more"
            else:
                text = f"at most {self.high:,}"
        if self.none is not None:
            text += f", or `None`{self.none}"
        if self.note:
            text += f" ({self.note})"
        return text


def param(default: Any, meaning: str, sections: str, **allowed: Any) -> Any:
    """A dataclass field of a game parameter: ``default``, and a :class:`Param` of ``meaning``,
    ``sections`` and ``allowed`` (its other fields) in the field's metadata."""
    return dataclasses.field(default=default, metadata={KEY: Param(meaning, sections, **allowed)})


def params_of(params_type: type) -> Iterator[tuple[str, Any, Param]]:
    """``(name, default, Param)`` of every field of a params dataclass, in declaration order; raises
    TypeError for a field declared without :func:`param`."""
    for f in dataclasses.fields(params_type):
        if KEY not in f.metadata:
            raise TypeError(f"{params_type.__name__}.{f.name} is not declared with referee.params.param")
        yield f.name, f.default, f.metadata[KEY]


def _grouped(n: int) -> str:
    """A bound as the whole-number errors write it: with thousands separators from six digits on."""
    return f"{n:,}" if n >= 100_000 else str(n)


def check_each(params: Any) -> None:
    """Validate ``params`` field by field in declaration order, one error naming each field's whole
    range: ``"orbits must be a whole number from 1 to 100, got 0"``. A whole number is an ``int``
    proper (not a bool); raises BadParameters for the first field out of its range."""
    for name, _, p in params_of(type(params)):
        value = getattr(params, name)
        if p.none is not None and value is None:
            continue
        if not p.whole:
            if not p.valid(value):  # type: ignore[misc]
                raise BadParameters(f"{name} must be {p.kind}, got {value!r}")
            continue
        bounds = [b for b in (p.low, p.high) if b is not None]
        if type(value) is not int or (p.low is not None and value < p.low) or (p.high is not None and value > p.high):
            unit = f" of {p.unit}" if p.unit else ""
            if len(bounds) == 2:
                span = f" from {_grouped(bounds[0])} to {_grouped(bounds[1])}"
            elif p.low is not None:
                span = f" of at least {_grouped(p.low)}"
            else:
                span = f" of at most {_grouped(bounds[0])}" if bounds else ""
            none = f" (or None{p.none})" if p.none is not None else ""
            raise BadParameters(f"{name} must be a whole number{unit}{span}{none}, got {value!r}")


def check_by_stage(params: Any, upper_first: tuple[str, ...] = ()) -> None:
    """Validate ``params`` in three stages, each over the fields in declaration order: the kinds
    (``"hands must be an integer, not 'x'"``; an integer is not a bool), then the lower bounds
    (``"hands must be at least 1, not 0"``, ``"max_stake (5) must be at least min_stake (10)"``),
    then the upper bounds (``"hands must be at most 10,000, not 20000"``), those of ``upper_first``
    (field names) before the others, so that a game keeps which of two bad values its error names.
    Raises BadParameters for the first failure."""
    fields = list(params_of(type(params)))
    for name, _, p in fields:
        value = getattr(params, name)
        if not p.whole:
            if not p.valid(value):  # type: ignore[misc]
                raise BadParameters(f"{name} must be {p.kind}, not {value!r}")
        elif not isinstance(value, int) or isinstance(value, bool):
            raise BadParameters(f"{name} must be an integer, not {value!r}")
    for name, _, p in fields:
        value = getattr(params, name)
        if p.whole and p.low is not None and value < p.low:
            raise BadParameters(f"{name} must be at least {p.low}, not {value}")
        if p.whole and p.at_least is not None and value < getattr(params, p.at_least):
            raise BadParameters(f"{name} ({value}) must be at least {p.at_least} ({getattr(params, p.at_least)})")
    for name, _, p in sorted(fields, key=lambda f: f[0] not in upper_first):
        value = getattr(params, name)
        if p.whole and p.high is not None and value > p.high:
            raise BadParameters(f"{name} must be at most {p.high:,}, not {value}")
