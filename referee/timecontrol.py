"""Time control and the per-seat clock of rules §4.1-4.2."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from referee.engine import BadParameters

if TYPE_CHECKING:
    from referee.games import GameSpec


@dataclass(frozen=True)
class TimeControl:
    """The referee's policy parameters (rules §4.1-4.2).

    ``deadline_s``: seconds per decision (default 1.0). ``time_bank_s``: seconds
    a seat may spend past deadlines over the whole game (default 10).
    ``budget_s``: total thinking seconds per seat per game (default 120; each
    game's own default, sized to its length, is ``GameSpec.default_budget_s``,
    which :meth:`for_game` applies); once spent, the seat's decisions fault at once. ``max_faults``: faults after
    which a seat is retired (default 3). Raises BadParameters for values out
    of range.
    """

    deadline_s: float = 1.0
    time_bank_s: float = 10.0
    budget_s: float = 120.0
    max_faults: int = 3

    def __post_init__(self) -> None:
        if not 0.001 <= self.deadline_s <= 600:
            raise BadParameters(f"deadline_s must be between 0.001 and 600 seconds, got {self.deadline_s}")
        if not 0 <= self.time_bank_s <= 3600:
            raise BadParameters(f"time_bank_s must be between 0 and 3600 seconds, got {self.time_bank_s}")
        if not 0.001 <= self.budget_s <= 36000:
            raise BadParameters(f"budget_s must be between 0.001 and 36000 seconds, got {self.budget_s}")
        if not isinstance(self.max_faults, int) or not 1 <= self.max_faults <= 1000:
            raise BadParameters(f"max_faults must be a whole number from 1 to 1000, got {self.max_faults!r}")

    @classmethod
    def for_game(cls, game: GameSpec, **given: Any) -> TimeControl:
        """The time control of ``game``: the ``given`` settings (``None`` values count as not
        given) over the defaults, with the game's own thinking budget ``GameSpec.default_budget_s``
        (rules §4.1) unless ``budget_s`` is given. Raises BadParameters for bad values or unknown names."""
        values = {k: v for k, v in given.items() if v is not None}
        values.setdefault("budget_s", game.default_budget_s)
        return cls.from_json(values)

    def to_json(self) -> dict[str, Any]:
        """The settings as a JSON-ready dict (seconds, and the fault count)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> TimeControl:
        """Build from a dict (missing keys take defaults); raises BadParameters for unknown keys or bad values."""
        data = dict(data or {})
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise BadParameters(f"unknown time control setting(s): {', '.join(sorted(unknown))}")
        return cls(**data)


@dataclass
class SeatClock:
    """One seat's time and fault account during a game. Times in seconds."""

    bank_s: float
    budget_s: float
    faults: int = 0
    retired: bool = False
    decisions: int = 0

    def charge(self, elapsed_s: float, deadline_s: float) -> bool:
        """Charge a measured answer time; return False if the answer came after deadline + bank (a timeout).

        Time past the deadline is taken from the bank (rules §4.1); all of it from the budget.
        """
        self.budget_s -= elapsed_s
        over = elapsed_s - deadline_s
        if over <= 0:
            return True
        if over > self.bank_s:
            self.bank_s = 0.0
            return False
        self.bank_s -= over
        return True
