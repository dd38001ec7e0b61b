"""Start a new game from the template: ``python -m referee.games.scaffold NAME [--title TITLE]``.

Writes the new game's folder ``referee/games/<field>/`` (its ``SPEC``, rules, codec, reference bots, replay
module, protocol-guide examples, conformance declaration and tests), its protocol file
``proto/cardarena/v1/<field>.proto`` and its rules chapter ``docs/rules/<name>.md``, all from the template
in ``referee/games/_template/`` (a folder that is no package: the registry, pytest and the import contracts
never see it). The template's game is real and tiny (one card each, bet or fold, the highest card wins), so
the new game passes the conformance harness before its rules are changed. Then it prints what is left to do
by hand outside the game's folder: the four lines of ``proto/cardarena/v1/bot.proto`` (with the next free
numbers); the docs' tables of the games, the rules chapter table included, are written by the generators of
``docs/adding-a-game.md``.

``NAME`` is the game's name (``a-game``: lowercase words of letters and digits joined by ``-``, each word
starting with a letter); its protocol field is ``a_game``, its messages ``AGame...``, its enum values
``A_GAME_...``. The chapter is the next free chapter number of ``docs/rules/``. Exit status 2 (with a
message) for a bad or taken name or a file that already exists; nothing is written then.
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

#: The repository root of this checkout (the scaffold writes into it unless ``--root`` says otherwise).
ROOT = Path(__file__).resolve().parents[2]
#: The template, relative to the root: its files' paths are the new files' paths, placeholders filled and
#: ``.tmpl`` dropped (``referee/games/{{field}}/rules.py.tmpl`` -> ``referee/games/a_game/rules.py``).
TEMPLATE = Path("referee/games/_template")
BOT_PROTO = Path("proto/cardarena/v1/bot.proto")
WIRE_LOCK = Path("proto/wire.lock")
RULES = Path("docs/rules")

_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*")
_TITLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 '.,!?&-]{0,39}")
#: Titles whose first vowel is not sounded as one ("a Euchre decision", "a One-card decision").
_SOUNDED_AS_CONSONANT = ("eu", "one", "once", "uni", "uno", "use", "usu", "uti")
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_HEADING = re.compile(r"^#{1,6}[ \t]+(\d+)(?:\.\d+)?[ \t]", re.MULTILINE)


class ScaffoldError(ValueError):
    """A name the new game cannot take, or a file it would overwrite; the message says which."""


@dataclass(frozen=True)
class Names:
    """Every spelling of a new game's name the template uses.

    ``name``: ``a-game`` (CLI, store, API); ``field``: ``a_game`` (protocol field, package);
    ``camel``: ``AGame`` (message prefix); ``upper``: ``A_GAME`` (enum value prefix);
    ``title``: the game's name in prose; ``chapter``: its rules chapter number.
    """

    name: str
    field: str
    camel: str
    upper: str
    title: str
    chapter: int

    def placeholders(self) -> dict[str, str]:
        """The template's placeholders (``{{field}}``, ...) and their values."""
        return {"name": self.name, "field": self.field, "Camel": self.camel, "UPPER": self.upper,
                "title": self.title, "chapter": str(self.chapter)}


def names(name: str, title: str | None, chapter: int) -> Names:
    """The spellings of game ``name``; raises ScaffoldError for a name that cannot be a game's."""
    if not _NAME.fullmatch(name) or len(name) > 24:
        raise ScaffoldError(f"{name!r} is not a game name: lowercase words of letters and digits joined by '-', "
                            "each word starting with a letter, at most 24 characters (e.g. 'high-card')")
    field = name.replace("-", "_")
    if keyword.iskeyword(field) or field in {"conformance", "scaffold"}:
        raise ScaffoldError(f"{name!r} cannot be a game: {field!r} is taken by Python or by referee.games")
    if title is not None and not _TITLE.fullmatch(title):
        raise ScaffoldError(f"{title!r} is not a title: 1 to 40 letters, digits, spaces and ' . , ! ? & -, starting with a "
                            "letter or digit")
    camel = "".join(word.capitalize() for word in name.split("-"))
    return Names(name, field, camel, field.upper(), title or name.replace("-", " ").capitalize(), chapter)


def article(title: str) -> str:
    """The indefinite article before ``title``: "an" before a vowel sound ("an Oh Hell! decision", "an 8-card
    decision"), "a" otherwise ("a High card decision", "a Euchre decision")."""
    lower = title.lower()
    if lower.startswith(_SOUNDED_AS_CONSONANT):
        return "a"
    return "an" if lower[:1] in set("aeiou8") or lower.startswith(("11", "18")) else "a"


def next_chapter(root: Path) -> int:
    """The next free chapter number of the rules (one more than the highest chapter heading of docs/rules/*.md)."""
    found = [int(m[1]) for p in (root / RULES).glob("*.md") for m in _HEADING.finditer(p.read_text(encoding="utf-8"))]
    return max(found, default=0) + 1


def _block(text: str, opening: str) -> str:
    """The body of the ``{ ... }`` block that follows ``opening`` in ``text`` (no nested blocks)."""
    start = text.index(opening) + len(opening)
    return text[start:text.index("}", start)]


def next_numbers(root: Path) -> tuple[int, int]:
    """The next free ``cardarena.v1.Game`` value and the next free number of the ``view``/``action``
    oneof members: one more than any used in bot.proto or ever published in proto/wire.lock."""
    proto = (root / BOT_PROTO).read_text()
    lock = (root / WIRE_LOCK).read_text() if (root / WIRE_LOCK).exists() else ""
    numbers = lambda text: [int(n) for n in re.findall(r"=\s*(\d+)", text)]  # noqa: E731
    enum = numbers(_block(proto, "enum Game {")) + numbers("\n".join(re.findall(r"^cardarena\.v1\.Game\.\w+ = \d+", lock, re.M)))
    members = numbers(_block(proto, "oneof view {")) + numbers(_block(proto, "oneof action {"))
    members += numbers("\n".join(re.findall(r"^cardarena\.v1\.Act(?:Request|Response)\.\w+ = \d+", lock, re.M)))
    return max(enum, default=0) + 1, max(members, default=9) + 1


def protocol_lines(n: Names, enum_value: int, member: int) -> list[tuple[str, str]]:
    """The four lines of bot.proto for the new game, each with where it goes."""
    return [
        ("after the last `import` line", f'import "cardarena/v1/{n.field}.proto";'),
        ("at the end of `enum Game`", f"GAME_{n.upper} = {enum_value};  // {n.title}"),
        ("at the end of `oneof view` (ActRequest)", f"{n.camel}View {n.field} = {member};  // {article(n.title)} {n.title} decision"),
        ("at the end of `oneof action` (ActResponse)", f"{n.camel}Action {n.field} = {member};  // answers {article(n.field)} {n.field} view"),
    ]


def fill(text: str, values: dict[str, str], where: str) -> str:
    """``text`` with every ``{{placeholder}}`` replaced; raises ScaffoldError for an unknown one."""
    def one(m: re.Match[str]) -> str:
        if m[1] not in values:
            raise ScaffoldError(f"{where}: unknown placeholder {m[0]}")
        return values[m[1]]
    return _PLACEHOLDER.sub(one, text)


def plan(root: Path, n: Names) -> dict[Path, str]:
    """The new files (paths relative to ``root``) and their text; raises ScaffoldError when the game's field is
    already in the protocol or one of the files exists."""
    if re.search(rf"\b{n.field}\s*=\s*\d+\s*;", (root / BOT_PROTO).read_text()):
        raise ScaffoldError(f"{n.name!r} is already a game of the protocol ({BOT_PROTO})")
    values, out = n.placeholders(), {}
    for source in sorted((root / TEMPLATE).rglob("*.tmpl")):
        relative = source.relative_to(root / TEMPLATE).as_posix().removesuffix(".tmpl")
        target = Path(fill(relative, values, relative))
        out[target] = fill(source.read_text(encoding="utf-8"), values, relative)
    taken = [str(p) for p in out if (root / p).exists()]
    if taken:
        raise ScaffoldError(f"these files exist already: {', '.join(taken)}")
    return out


def scaffold(name: str, title: str | None = None, root: Path = ROOT) -> tuple[Names, list[Path]]:
    """Write the new game's files under ``root``; return its names and the files written (relative paths).
    Raises ScaffoldError (nothing written) for a bad or taken name or an existing file."""
    n = names(name, title, next_chapter(root))
    files = plan(root, n)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return n, sorted(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.games.scaffold", description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the new game's name, e.g. high-card")
    parser.add_argument("--title", help="its name in prose (default: the name, capitalised, with spaces)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository root (default: this checkout)")
    args = parser.parse_args(argv)
    try:
        enum_value, member = next_numbers(args.root)
        n, written = scaffold(args.name, args.title, args.root)
    except ScaffoldError as error:
        print(error, file=sys.stderr)
        return 2
    print(f"wrote {len(written)} files of {n.name} (rules chapter §{n.chapter}):")
    print("".join(f"  {p}\n" for p in written), end="")
    print(f"\nadd these four lines to {BOT_PROTO.as_posix()}:")
    for where, line in protocol_lines(n, enum_value, member):
        print(f"  {where}:\n    {line}")
    print("\nthen follow docs/adding-a-game.md from step 3 (make proto, the generators, the playthrough, the tests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
