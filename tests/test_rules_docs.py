"""The rules documents (docs/rules/*.md) and every citation of them (rules §0).

A section is defined by a heading that starts with its number
(``### 2.8 Svara (replay of a tie)``), a chapter by a heading that starts with
its number alone (``# 2 Svara (Seka)``). Citations are ``§`` followed by a
section (``§2.8``), a chapter (``§2``), a range (``§3.7-3.8``) or a list
(``§1.3, 1.10`` or ``§1.3, §1.10``), in any tracked file. The tests fail when a
cited section or chapter does not exist, when a number is defined twice or
skipped, and when a tracked file names a document outside the repository.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
_CHAPTER_ROW = re.compile(r"^\|\s*§(\d+)\s*\|\s*(?:this page|\[`([\w.-]+)`\]\([\w.-]+\))\s*\|", re.MULTILINE)


def chapter_files() -> dict[int, str]:
    """Which document holds which chapter, read from the chapter table of docs/rules/README.md
    (``| §N | [`file.md`](file.md) | ... |``; "this page" is the README itself)."""
    return {int(m[1]): m[2] or "README.md" for m in _CHAPTER_ROW.finditer((RULES / "README.md").read_text())}


#: Which document holds which chapter (the table of docs/rules/README.md).
CHAPTER_FILES = chapter_files()

_HEADING = re.compile(r"^#{1,6}[ \t]+(\d+)(?:\.(\d+))?[ \t]+\S", re.MULTILINE)
_NUM = r"\d+(?:\.\d+)?"
_CITATION = re.compile(rf"§[ \t]*{_NUM}(?:[ \t]*[-–][ \t]*§?[ \t]*{_NUM})?(?:[ \t]*,[ \t]*(?:and[ \t]+)?§?[ \t]*\d+\.\d+(?:[ \t]*[-–][ \t]*§?[ \t]*{_NUM})?)*")
_PART = re.compile(rf"({_NUM})(?:[ \t]*[-–][ \t]*§?[ \t]*({_NUM}))?")

Number = tuple[int, int | None]  # (chapter, section or None for the whole chapter)


@dataclass(frozen=True)
class Cite:
    """One cited number or range, with where it was found."""

    first: Number
    last: Number | None
    where: str


def _number(text: str) -> Number:
    chapter, _, section = text.partition(".")
    return int(chapter), int(section) if section else None


def definitions(docs: dict[str, str]) -> tuple[dict[Number, list[str]], list[str]]:
    """Every defined chapter and section with where (``file:line``), and the problems of numbering found."""
    defined: dict[Number, list[str]] = {}
    problems: list[str] = []
    for name, text in sorted(docs.items()):
        for m in _HEADING.finditer(text):
            number = (int(m[1]), int(m[2]) if m[2] else None)
            defined.setdefault(number, []).append(f"docs/rules/{name}:{text.count(chr(10), 0, m.start()) + 1}")
    for number, places in sorted(defined.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        label = f"§{number[0]}" + (f".{number[1]}" if number[1] is not None else "")
        if len(places) > 1:
            problems.append(f"{label} is defined {len(places)} times: {', '.join(places)}")
        chapter = defined.get((number[0], None))
        if number[1] is not None and (chapter is None or chapter[0].split(":")[0] != places[0].split(":")[0]):
            problems.append(f"{label} ({places[0]}) is not in the document of chapter §{number[0]}")
    for chapter in {c for c, _ in defined}:
        present = sorted(s for c, s in defined if c == chapter and s is not None)
        if present != list(range(1, len(present) + 1)):
            problems.append(f"the sections of §{chapter} are not numbered 1, 2, 3, ... without gaps: {present}")
    return defined, problems


def citations(text: str, where: str = "") -> list[Cite]:
    """Every number and range cited in ``text``; ``where`` labels them (``file:line`` is added)."""
    found = []
    for m in _CITATION.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        for part in _PART.finditer(m[0]):
            found.append(Cite(_number(part[1]), _number(part[2]) if part[2] else None, f"{where}:{line}"))
    return found


def missing(defined: dict[Number, list[str]], cites: list[Cite]) -> list[str]:
    """The citations that name no defined chapter or section, or an impossible range."""
    def label(n: Number) -> str:
        return f"§{n[0]}" + (f".{n[1]}" if n[1] is not None else "")

    problems = []
    for c in cites:
        for n in (c.first, c.last) if c.last else (c.first,):
            if n not in defined:
                problems.append(f"{c.where}: {label(n)} does not exist")
        if c.last and (c.first[0] != c.last[0] or c.first[1] is None or c.last[1] is None or c.first[1] >= c.last[1]):
            problems.append(f"{c.where}: {label(c.first)}-{label(c.last)} is not a range within one chapter")
    return problems


def _rules_docs() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(RULES.glob("*.md"))}


def _tracked_texts() -> dict[str, str]:
    """Every tracked text file of the repository, by path."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout, cannot list tracked files: {exc}")
    texts = {}
    for name in out.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        try:
            texts[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary
    return texts


# -- the parser itself ---------------------------------------------------------------

def _s(text: str) -> str:
    """``text`` with ``@`` for the section sign, so that these examples are not citations of this file."""
    return text.replace("@", "\u00a7")


def test_citations_are_parsed_in_every_written_form() -> None:
    text = _s("a (rules @1.3, 1.10) b rules @3.7-3.8; c @3.9–@3.11 d rules @2 e @2.3, @2.8, and @2.19: 5, 1.5 f")
    got = [(c.first, c.last) for c in citations(text)]
    assert got == [
        ((1, 3), None), ((1, 10), None), ((3, 7), (3, 8)), ((3, 9), (3, 11)), ((2, None), None),
        ((2, 3), None), ((2, 8), None), ((2, 19), None),
    ]
    assert citations(_s("rules @3.9; default 200, 1.5")) == [Cite((3, 9), None, ":1")]
    assert citations(_s("`rules @N.M` and no section at all")) == []


def test_missing_sections_duplicates_and_gaps_are_reported() -> None:
    docs = {
        "a.md": "# 1 One\n### 1.1 First\n### 1.2 Second\n### 1.2 Again\n",
        "b.md": "# 2 Two\n### 2.1 First\n### 2.3 Third\n### 1.3 Misplaced\n",
    }
    defined, problems = definitions(docs)
    assert any("§1.2 is defined 2 times" in p for p in problems)
    assert any("§1.3" in p and "not in the document of chapter §1" in p for p in problems)
    assert any("sections of §2" in p for p in problems)
    cites = citations(_s("rules @1.1, 1.2 and @2.9; rules @3; @2.3-2.1"), "x.py")
    assert missing(defined, cites) == [
        _s("x.py:1: @2.9 does not exist"),
        _s("x.py:1: @3 does not exist"),
        _s("x.py:1: @2.3-@2.1 is not a range within one chapter"),
    ]


# -- the repository ------------------------------------------------------------------

def test_every_section_number_is_defined_once_in_its_chapter_document() -> None:
    defined, problems = definitions(_rules_docs())
    assert problems == []
    for chapter, name in CHAPTER_FILES.items():
        assert defined.get((chapter, None), [""])[0].startswith(f"docs/rules/{name}:"), f"§{chapter} is not in {name}"
    assert sorted(c for c, s in defined if s is None) == sorted(CHAPTER_FILES)
    # the sections the platform is built on (the binding ones of each chapter)
    for chapter, last in {0: 3, 1: 11, 2: 12, 3: 11, 4: 3}.items():
        assert all((chapter, s) in defined for s in range(1, last + 1)), f"§{chapter} lacks one of its first {last} sections"


def test_every_cited_rules_section_exists() -> None:
    defined, _ = definitions(_rules_docs())
    cites = [c for name, text in sorted(_tracked_texts().items()) for c in citations(text, name)]
    assert missing(defined, cites) == []
    # the scan is not vacuous: code, protos and docs cite every chapter
    assert len(cites) > 150
    assert {c.first[0] for c in cites} == set(CHAPTER_FILES)
    files = {c.where.split(":")[0] for c in cites}
    assert any(f.startswith("proto/") for f in files) and any(f.startswith("referee/") for f in files)


def test_no_tracked_file_names_documents_outside_the_repository() -> None:
    forbidden = re.compile(
        # a rule text's file name: a game's name, a language code, .txt (as the original texts are named)
        "|".join([r"\brulings\b", "seeds/", r"seed text", r"\b[a-z][a-z-]*\.[a-z]{2}\.txt\b"]),
        re.IGNORECASE,
    )
    me = Path(__file__).resolve().relative_to(ROOT).as_posix()
    found = [
        f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m[0]!r}"
        for name, text in sorted(_tracked_texts().items()) if name != me
        for m in forbidden.finditer(text)
    ]
    assert found == []
