"""The identity policy (league.entry.identity, rules §4.9): what a Describe answer means against the store."""

from __future__ import annotations

import pytest

from league.entry.identity import ANOTHER_BOT, MAX_CAPACITY, Declared, Expected, Review, review

KNOWN = Expected("odds", "1.0", 4)


@pytest.mark.parametrize("expected, declared, result", [
    (KNOWN, Declared("odds", "1.0", 4), Review()),  # nothing changed
    (KNOWN, Declared("random", "1.0", 4), Review(f"{ANOTHER_BOT}random (registered: odds)")),
    (KNOWN, Declared("", "1.0", 4), Review(f"{ANOTHER_BOT}(no name) (registered: odds)")),
    (KNOWN, Declared("random", "2.0", 1), Review(f"{ANOTHER_BOT}random (registered: odds)")),  # nothing stored
    (KNOWN, Declared("odds", "1.0", 1), Review(None, {"capacity": 1, "described_capacity": 1})),
    (KNOWN, Declared("odds", "1.0", 0), Review(None, {"capacity": 1, "described_capacity": 1})),  # 0 means 1
    (KNOWN, Declared("odds", "1.0", 1000), Review(None, {"capacity": MAX_CAPACITY, "described_capacity": MAX_CAPACITY})),
    (KNOWN, Declared("odds", "2.0", 4), Review(None, {"version": "2.0", "described_version": "2.0"})),
    (KNOWN, Declared("odds", "2.0\x00\n", 4), Review(None, {"version": "2.0", "described_version": "2.0"})),
    (KNOWN, Declared("odds", "", 4), Review(None, {"described_version": ""})),  # no version: the bot's stays
    # stored before the declared identity was kept: the first answer is recorded, nothing else changes
    (Expected(None, None, None), Declared("odds", "3.1", 2),
     Review(None, {"described_name": "odds", "described_capacity": 2, "described_version": "3.1"})),
])
def test_review(expected: Expected, declared: Declared, result: Review) -> None:
    assert review(expected, declared) == result
