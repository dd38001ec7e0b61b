"""The shape of the documentation: a README a newcomer reads in minutes, lines short enough to read and diff,
and no link that leads nowhere.

Every git-tracked ``*.md`` file is checked: no line over :data:`MAX_LINE` characters (code blocks and tables
included: a line that must be long is a defect), and every relative link names a file or folder that exists,
and its ``#anchor``, if any, a heading (or an ``id``/``name`` attribute) of the Markdown page it points to, as
GitHub renders it. The README must stay under :data:`MAX_README_BYTES` and link each user guide (:data:`GUIDES`). The design,
``docs/design.md``, is a map under :data:`MAX_DESIGN_BYTES`: every doc it links exists, and it links the doc beside
each package that has one (the part's decisions).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The README's size limit, bytes: the quick start, what a user does, and links; the detail is in the guides.
MAX_README_BYTES = 15_000
#: The design's size limit, bytes: a map of the parts and of one game's flow through them; each part's decisions, with
#: their reasons, are in the doc beside its package, which the map links.
MAX_DESIGN_BYTES = 20_000
DESIGN = ROOT / "docs" / "design.md"
#: The longest line allowed in any tracked Markdown file, characters.
MAX_LINE = 300
#: The README and the user guides it links to, from the repository root: the pages a new user reads, whose shell
#: blocks ``tests/test_readme.py`` pastes as scripts, in reading order.
GUIDES = ("README.md", "docs/writing-a-bot.md", "docs/organising.md", "docs/cli.md", "docs/ratings.md",
          "docs/fair-play.md")

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
_INLINE_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]"  # the text, one level of brackets inside
                          r"\(\s*<?([^()\s<>]*(?:\([^()\s]*\))?[^()\s<>]*)>?(?:\s+\"[^\"]*\")?\s*\)")  # (target "title")
_REFERENCE_DEF = re.compile(r"^[ ]{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
_HEADING = re.compile(r"^#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$", re.M)
_HTML_ID = re.compile(r"<[a-zA-Z][^>]*\s(?:id|name)=\"([^\"]+)\"")
_SCHEME = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")


def tracked_markdown() -> list[str]:
    """The repository's tracked ``*.md`` files, as paths from its root (every ``*.md`` outside ``.venv``,
    ``.git`` and ``node_modules`` when the tree is not a git checkout)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", "*.md"], cwd=ROOT, capture_output=True, check=True,
                             timeout=60).stdout
    except (OSError, subprocess.CalledProcessError):
        skip = {".venv", ".git", "node_modules"}
        return sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.md") if not skip & set(p.parts))
    return sorted(name for name in out.decode().split("\0") if name and (ROOT / name).is_file())


def prose(text: str) -> str:
    """``text`` without its fenced code blocks and inline code spans (a link in code is not a link)."""
    return _CODE_SPAN.sub("code", _FENCE.sub("", text))


def links(text: str) -> list[str]:
    """The link targets of a Markdown text: inline links and images, and reference definitions."""
    body = prose(text)
    return _INLINE_LINK.findall(body) + _REFERENCE_DEF.findall(body)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, markup and punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors a Markdown page offers: its headings' slugs (repeats numbered ``-1``, ``-2`` as GitHub does)
    and the ``id``/``name`` attributes of its HTML."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in _HEADING.findall(_FENCE.sub("", text)):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found | set(_HTML_ID.findall(text))


def broken_links(source: Path) -> list[str]:
    """The links of the Markdown file ``source`` that lead nowhere: a relative target that does not exist, or an
    anchor that names no heading of the Markdown page it points to."""
    broken = []
    for target in links(source.read_text(encoding="utf-8")):
        if not target or _SCHEME.match(target):
            continue
        path, _, anchor = target.partition("#")
        dest = (source.parent / unquote(path)).resolve() if path else source
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.is_file() and dest.suffix == ".md":
            if unquote(anchor) not in anchors(dest.read_text(encoding="utf-8")):
                broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    return broken


MARKDOWN = tracked_markdown()


def test_the_readme_is_short() -> None:
    size = len((ROOT / "README.md").read_bytes())
    assert size <= MAX_README_BYTES, f"README.md is {size:,} bytes, over {MAX_README_BYTES:,}: move detail to a guide"


def test_the_guides_are_tracked_and_the_readme_links_each() -> None:
    assert set(GUIDES) <= set(MARKDOWN), sorted(set(GUIDES) - set(MARKDOWN))
    readme_links = {(ROOT / t.partition("#")[0]).resolve() for t in links((ROOT / "README.md").read_text())
                    if t and not _SCHEME.match(t) and not t.startswith("#")}
    unlinked = [g for g in GUIDES[1:] if (ROOT / g).resolve() not in readme_links]
    assert not unlinked, f"guides the README does not link to: {unlinked}"


def linked_docs(source: Path) -> set[Path]:
    """The files and folders the relative links of the Markdown file ``source`` name (anchors dropped)."""
    return {(source.parent / unquote(t.partition("#")[0])).resolve() for t in links(source.read_text(encoding="utf-8"))
            if t and not _SCHEME.match(t) and not t.startswith("#")}


def package_docs() -> list[str]:
    """The tracked ``README.md`` beside a package of the product (a folder holding ``__init__.py``)."""
    return [name for name in MARKDOWN if name.endswith("/README.md") and (ROOT / name).parent.joinpath("__init__.py").is_file()]


def test_the_design_is_a_short_map_and_links_each_part_s_doc() -> None:
    size = len(DESIGN.read_bytes())
    assert size <= MAX_DESIGN_BYTES, (f"docs/design.md is {size:,} bytes, over {MAX_DESIGN_BYTES:,}: move a part's "
                                      "decisions to the doc beside its package and link it")
    linked = linked_docs(DESIGN)
    assert linked and not [p for p in linked if not p.is_file()], sorted(str(p) for p in linked if not p.is_file())
    docs = package_docs()
    assert {"referee/README.md", "store/README.md", "workers/README.md", "league/README.md"} <= set(docs), docs
    unlinked = [name for name in docs if (ROOT / name).resolve() not in linked]
    assert not unlinked, f"docs/design.md does not link these parts' docs: {unlinked}"


@pytest.mark.parametrize("name", MARKDOWN)
def test_no_line_is_too_long(name: str) -> None:
    lines = (ROOT / name).read_text(encoding="utf-8").splitlines()
    long = [f"line {i}: {len(line)} characters" for i, line in enumerate(lines, 1) if len(line) > MAX_LINE]
    assert not long, f"{name}: lines over {MAX_LINE} characters:\n" + "\n".join(long)


@pytest.mark.parametrize("name", MARKDOWN)
def test_every_relative_link_resolves(name: str) -> None:
    broken = broken_links(ROOT / name)
    assert not broken, f"{name}: links that lead nowhere:\n" + "\n".join(broken)


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """The link and anchor readers find what they must (a checker that finds no links passes everything)."""
    text = ("# Quick start\n## Faults (rules §4.2)\n## Version A/B\n## Version A/B\n<a id=\"x\"></a>\n"
            "[a](docs/a.md#b) [`c`](c/) ![i](i.png \"t\") [web](https://example.org) `[no](code.md)`\n"
            "```\n[no](fenced.md)\n# Not a heading\n```\n[r]: ref.md\n")
    assert links(text) == ["docs/a.md#b", "c/", "i.png", "https://example.org", "ref.md"]
    assert anchors(text) == {"quick-start", "faults-rules-42", "version-ab", "version-ab-1", "x"}
    assert slug("`cardarena season create` and *more*") == "cardarena-season-create-and-more"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n## b\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](docs/a.md#b) [top](#top) [gone](docs/gone.md) [wrong](docs/a.md#c) [self](#nowhere)\n# Top\n")
    assert broken_links(page) == ["docs/gone.md: no such file", "docs/a.md#c: no heading #c in a.md",
                                  "#nowhere: no heading #nowhere in page.md"]
