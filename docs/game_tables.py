"""Write the docs' tables and lists of the games from the game registry, so no doc lists the games by hand.

Usage: python docs/game_tables.py --write | --check

A generated block is the lines between

    <!-- begin generated games:NAME (python docs/game_tables.py --write) -->
    <!-- end generated games:NAME -->

in README.md or any Markdown file under docs/. ``--write`` rewrites every block from the registry
(:func:`referee.games.games`, :func:`referee.games.spec`, each game's params dataclass with its
:mod:`referee.params` declarations, its rules document and its protocol messages); ``--check``
writes nothing and exits 1 naming each stale block (a test runs it). Nothing here names a game: a
game added to the registry appears in every block at the next ``--write``. The blocks (NAME):

- ``games-list``: each game's name, description, table sizes and rules document (README.md).
- ``protocol-games``: each game's ``ActRequest``/``ActResponse`` member, protocol file and rules chapter.
- ``chapters``: the rules chapters of the games (docs/rules/README.md), the chapter numbers read
  from each rules document's heading (``# N Title``).
- ``params``: the parameter table of the rules document it is in (a game's ``rules_doc``).
- ``budgets``: each game's default thinking budget (``GameSpec.default_budget_s``, rules §4.10).
- ``default-actions``: each game's default actions, the text of its rules document's section
  ``Default actions`` (rules §4.2).
- ``replay-modules``: each game's replay page module and the events its ``events`` object handles.
- ``optional-fields``: the proto3 ``optional`` fields of each game's protocol messages.

An unknown NAME, a block without its end marker, or a ``params`` block outside a game's rules
document raises :class:`BlockError`.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardarena.v1 import bot_pb2
from referee.games import GameSpec, games, package, spec
from referee.params import params_of

ROOT = Path(__file__).resolve().parents[1]
BEGIN = re.compile(r"^<!-- begin generated games:(?P<name>[\w-]+) \(python docs/game_tables\.py --write\) -->\n", re.MULTILINE)
#: Where blocks may be: the README and every Markdown file under docs/.
DOCS = ("README.md", "docs/**/*.md")
WIDTH = 110


class BlockError(ValueError):
    """A generated block that cannot be written: unknown name, no end marker, or out of place."""


def begin(name: str) -> str:
    return f"<!-- begin generated games:{name} (python docs/game_tables.py --write) -->"


def end(name: str) -> str:
    return f"<!-- end generated games:{name} -->"


@dataclass(frozen=True)
class Chapter:
    """A game's rules chapter: its number and title (from the heading ``# N Title``) and its document."""

    number: int
    title: str
    doc: Path


def chapter(gs: GameSpec) -> Chapter:
    """The chapter of ``gs``'s rules document; raises BlockError when its first line is no chapter heading."""
    doc = ROOT / gs.rules_doc
    first = doc.read_text(encoding="utf-8").splitlines()[0]
    m = re.fullmatch(r"# (\d+) (.+)", first)
    if not m:
        raise BlockError(f"{gs.rules_doc}: the first line is not a chapter heading `# N Title`: {first!r}")
    return Chapter(int(m[1]), m[2], doc)


def _link(target: Path, here: Path, anchor: str = "") -> str:
    """A relative link from the document ``here`` to ``target``."""
    rel = os.path.relpath(target, here.parent).replace(os.sep, "/")
    return rel + (f"#{anchor}" if anchor else "")


def _seats(gs: GameSpec) -> str:
    return f"{gs.min_seats} to {gs.max_seats}"


def _specs() -> Iterator[GameSpec]:
    for g in games():
        yield spec(g)


def _section(doc: Path, heading: str) -> tuple[str, str]:
    """The text of the ``## heading...`` section of ``doc`` (up to the next heading) as one line, and
    its anchor; raises BlockError when there is none."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("## " + heading):
            body = []
            for rest in lines[i + 1:]:
                if rest.startswith("#"):
                    break
                body.append(rest.strip())
            anchor = re.sub(r"[^\w\- ]", "", line[3:].strip().lower()).replace(" ", "-")
            return " ".join(" ".join(body).split()), anchor
    raise BlockError(f"{doc.relative_to(ROOT)} has no section `## {heading}`")


# -- the blocks ----------------------------------------------------------------------------------

def games_list(here: Path) -> str:
    rows = ["| game | what | seats | rules |", "|---|---|---|---|"]
    for gs in _specs():
        ch = chapter(gs)
        rows.append(f"| `{gs.name}` | {gs.description} | {_seats(gs)} | [§{ch.number} {ch.title}]({_link(ch.doc, here)}) |")
    return "\n".join(rows)


def protocol_games(here: Path) -> str:
    views = {f.name: f.message_type for f in bot_pb2.ActRequest.DESCRIPTOR.oneofs_by_name["view"].fields}
    actions = {f.name: f.message_type for f in bot_pb2.ActResponse.DESCRIPTOR.oneofs_by_name["action"].fields}
    rows = ["| game | `Game` (in `Describe`) | oneof member | view / action | file | rules | seats |",
            "|---|---|---|---|---|---|---|"]
    for gs in _specs():
        ch = chapter(gs)
        view, action = views[gs.proto_field], actions[gs.proto_field]
        proto = ROOT / "proto" / view.file.name
        enum = f"`{bot_pb2.Game.Name(gs.proto_enum)}` ({gs.proto_enum})"
        rows.append(f"| `{gs.name}` | {enum} | `{gs.proto_field}` | `{view.name}` / `{action.name}` | "
                    f"[`{proto.name}`]({_link(proto, here)}) | [§{ch.number}]({_link(ch.doc, here)}) | {_seats(gs)} |")
    return "\n".join(rows)


def chapters(here: Path) -> str:
    rows = ["| chapter | document | game | seats |", "|---|---|---|---|"]
    for gs in sorted(_specs(), key=lambda gs: chapter(gs).number):
        ch = chapter(gs)
        doc = f"[`{ch.doc.name}`]({_link(ch.doc, here)})"
        rows.append(f"| §{ch.number} | {doc} | {gs.description} (`{gs.name}`) | {_seats(gs)} |")
    return "\n".join(rows)


def _value(value: Any) -> str:
    if value is None or isinstance(value, str):
        return f"`{value}`"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def params(here: Path) -> str:
    owners = [gs for gs in _specs() if (ROOT / gs.rules_doc).resolve() == here.resolve()]
    if not owners:
        raise BlockError(f"{here.relative_to(ROOT)}: a `params` block belongs in a game's rules document")
    gs = owners[0]
    rows = ["| name | default | allowed | what | section |", "|---|---|---|---|---|",
            f"| seats | — | {_seats(gs)} | the table sizes | §{chapter(gs).number} |"]
    for name, default, p in params_of(gs.params_type):
        rows.append(f"| `{name}` | {_value(default)} | {p.allowed()} | {p.meaning} | {p.sections} |")
    return "\n".join(rows)


def budgets(here: Path) -> str:
    rows = ["| game | default `budget_s` | seats |", "|---|---|---|"]
    for gs in _specs():
        rows.append(f"| [{chapter(gs).title}]({_link(chapter(gs).doc, here)}) | {gs.default_budget_s:g} s | {_seats(gs)} |")
    return "\n".join(rows)


def default_actions(here: Path) -> str:
    items = []
    for gs in _specs():
        ch = chapter(gs)
        text, anchor = _section(ch.doc, "Default actions")
        text = text.split(": ", 1)[1] if "plays: " in text else text
        item = f"- **{ch.title}** ([§{ch.number}]({_link(ch.doc, here, anchor)})): {text}"
        items.append(textwrap.fill(item, WIDTH, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False))
    return "\n".join(items)


def _replay_events(module: Path) -> list[str]:
    """The members of the ``events: { ... }`` object of a game's replay.js, in order."""
    text = module.read_text(encoding="utf-8")
    start = text.find("events: {")
    if start < 0:
        return []
    depth, names, i = 0, [], start + len("events: ")
    line_start = True
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                break
        elif c == "\n":
            line_start = True
        elif line_start and not c.isspace():
            line_start = False
            m = re.match(r"(\w+)\s*[(:]", text[i:])
            if depth == 1 and m:
                names.append(m[1])
        i += 1
    return names


def replay_modules(here: Path) -> str:
    items = []
    for gs in _specs():
        ch = chapter(gs)
        module = ROOT / package(gs.name).replace(".", "/") / "replay.js"
        events = _replay_events(module) if module.exists() else []
        kinds = ", ".join(f"`{e}`" for e in events) or "none of its own"
        item = f"- {ch.title} ([`{module.relative_to(ROOT).as_posix()}`]({_link(module, here)}), rules §{ch.number}): {kinds}."
        items.append(textwrap.fill(item, WIDTH, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False))
    return "\n".join(items)


def _optional_fields(message: Any) -> Iterator[str]:
    """``Message.field`` of every proto3 ``optional`` field of ``message`` and its nested messages."""
    for f in message.fields:
        oneof = f.containing_oneof
        if oneof is not None and oneof.name == f"_{f.name}" and len(oneof.fields) == 1:
            yield f"{message.name}.{f.name}"
    for nested in message.nested_types:
        yield from _optional_fields(nested)


def optional_fields(here: Path) -> str:
    views = {f.name: f.message_type for f in bot_pb2.ActRequest.DESCRIPTOR.oneofs_by_name["view"].fields}
    items = []
    for gs in _specs():
        proto = views[gs.proto_field].file
        found = [name for message in proto.message_types_by_name.values() for name in _optional_fields(message)]
        item = f"- `{gs.name}` (`{Path(proto.name).name}`): " + (", ".join(f"`{n}`" for n in found) or "none")
        items.append(textwrap.fill(item, WIDTH, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False))
    return "\n".join(items)


#: Every block, by NAME: its content for the document it is in.
BLOCKS: dict[str, Callable[[Path], str]] = {
    "games-list": games_list,
    "protocol-games": protocol_games,
    "chapters": chapters,
    "params": params,
    "budgets": budgets,
    "default-actions": default_actions,
    "replay-modules": replay_modules,
    "optional-fields": optional_fields,
}


# -- the documents -------------------------------------------------------------------------------

def blocks(text: str) -> list[str]:
    """The NAMEs of the blocks of ``text``, in order."""
    return [m["name"] for m in BEGIN.finditer(text)]


def updated(text: str, path: Path) -> str:
    """``text`` (the document at ``path``) with every generated block written anew; raises
    BlockError for an unknown NAME, a missing end marker or a block out of place."""
    out, pos = [], 0
    for m in BEGIN.finditer(text):
        name = m["name"]
        if name not in BLOCKS:
            raise BlockError(f"{path}: unknown generated block {name!r}; known: {', '.join(BLOCKS)}")
        stop = text.find("\n" + end(name) + "\n", m.end() - 1)
        if stop < 0:
            raise BlockError(f"{path}: block {name!r} has no line `{end(name)}`")
        out.append(text[pos:m.end()] + BLOCKS[name](path) + "\n")
        pos = stop + 1
    out.append(text[pos:])
    return "".join(out)


def documents() -> list[Path]:
    """Every document that may hold blocks."""
    return sorted({p for pattern in DOCS for p in ROOT.glob(pattern) if p.is_file()})


def stale_blocks(text: str, path: Path) -> list[str]:
    """The NAMEs of the blocks of ``text`` (the document at ``path``) that ``--write`` would change."""
    return [name for (name, a), (_, b) in zip(_contents(text), _contents(updated(text, path))) if a != b]


def stale() -> list[str]:
    """``"path: NAME"`` of every block of every document that ``--write`` would change."""
    return [f"{path.relative_to(ROOT).as_posix()}: {name}"
            for path in documents() for name in stale_blocks(path.read_text(encoding="utf-8"), path)]


def _contents(text: str) -> list[tuple[str, str]]:
    """``(NAME, content)`` of every block of ``text``."""
    result = []
    for m in BEGIN.finditer(text):
        stop = text.find("\n" + end(m["name"]) + "\n", m.end() - 1)
        result.append((m["name"], text[m.end():stop + 1]))
    return result


def main(argv: list[str]) -> int:
    if argv not in (["--write"], ["--check"]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if argv == ["--check"]:
        problems = stale()
        for p in problems:
            print(f"{p}: stale; run `python docs/game_tables.py --write`", file=sys.stderr)
        return 1 if problems else 0
    for path in documents():
        text = path.read_text(encoding="utf-8")
        new = updated(text, path)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT).as_posix()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
