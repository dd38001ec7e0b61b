"""`make test`'s order of files (tests/conftest.py): every pattern of the files it hands out first names some of the
suite's files."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import FIRST

ROOT = Path(__file__).resolve().parents[1]


def test_the_files_handed_out_first_exist_once_each() -> None:
    assert len(set(FIRST)) == len(FIRST)
    missing = [pattern for pattern in FIRST if not any(path.is_file() for path in ROOT.glob(pattern))]
    assert not missing, f"tests/conftest.py's FIRST names files that are gone: {missing}"
