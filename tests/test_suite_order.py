"""`make test`'s order of files (tests/conftest.py): every file it hands out first is one of the suite's."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import FIRST

ROOT = Path(__file__).resolve().parents[1]


def test_the_files_handed_out_first_exist_once_each() -> None:
    assert len(set(FIRST)) == len(FIRST)
    missing = [path for path in FIRST if not (ROOT / path).is_file()]
    assert not missing, f"tests/conftest.py's FIRST names files that are gone: {missing}"
