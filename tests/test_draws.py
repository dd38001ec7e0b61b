"""The integrity screens' draws (league/integrity/draws.py) are random.Random.choice's, value for value: a screen's
p-values do not change with how they are computed."""

from __future__ import annotations

import math
import random

import pytest

from league.integrity.draws import drawn_sum


def test_the_sums_are_those_of_choice_from_the_same_stream() -> None:
    shapes = random.Random(5)
    for case in range(200):
        tables = [[shapes.gauss(0, 10) for _ in range(shapes.randint(1, 9))] for _ in range(shapes.randint(1, 40))]
        ours, theirs = random.Random(f"{case}/x"), random.Random(f"{case}/x")
        draw = drawn_sum(tables, ours)
        for _ in range(50):
            assert draw() == math.fsum(theirs.choice(t) for t in tables), case
        assert ours.random() == theirs.random()  # the streams are at the same place after


def test_an_empty_table_is_refused_as_choice_refuses_it() -> None:
    with pytest.raises(IndexError):
        drawn_sum([[1.0], []], random.Random(1))
