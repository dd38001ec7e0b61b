"""Keep the protocol wire-compatible: every field and enum value ever published keeps its number and type.

Usage: python proto/wire_lock.py

``proto/wire.lock`` lists, one a line, every field (``Message.field = number type``, with ``repeated``),
every enum value (``Enum.VALUE = number``) and every rpc (``Service/Method = rpc (request) returns (answer)``,
with ``stream``) of ``cardarena.v1``. Running this script appends the lines of new fields, values and rpcs,
and refuses (exit 1, saying which) when a published one changed its number, type or messages, or was
removed, or when a field or value is named after a Python keyword; a test checks the lock against the
protocol. Changing a scalar to ``optional`` keeps the wire encoding and is allowed.
"""

from __future__ import annotations

import keyword
import sys
from pathlib import Path

from google.protobuf.descriptor import FieldDescriptor

LOCK = Path(__file__).resolve().parent / "wire.lock"
_SCALAR = {v: k[len("TYPE_"):].lower() for k, v in vars(FieldDescriptor).items() if k.startswith("TYPE_")}


def entries() -> dict[str, str]:
    """Every field, enum value and rpc of the protocol: its name -> "number type" (a field), "number" (a
    value) or "rpc (request) returns (answer)" (an rpc, named ``Service/Method``)."""
    import importlib

    v1 = Path(__file__).resolve().parent / "cardarena" / "v1"
    modules = [importlib.import_module(f"cardarena.v1.{p.stem}") for p in sorted(v1.glob("*_pb2.py"))]
    out: dict[str, str] = {}
    for module in modules:
        for message in module.DESCRIPTOR.message_types_by_name.values():
            for f in message.fields:
                kind = (f.message_type or f.enum_type).full_name if (f.message_type or f.enum_type) else _SCALAR[f.type]
                out[f"{message.full_name}.{f.name}"] = f"{f.number} {'repeated ' if f.is_repeated else ''}{kind}"
        for enum in module.DESCRIPTOR.enum_types_by_name.values():
            for v in enum.values:
                out[f"{enum.full_name}.{v.name}"] = str(v.number)
        for service in module.DESCRIPTOR.services_by_name.values():
            for m in service.methods:
                out[f"{service.full_name}/{m.name}"] = (
                    f"rpc ({'stream ' if m.client_streaming else ''}{m.input_type.full_name}) returns "
                    f"({'stream ' if m.server_streaming else ''}{m.output_type.full_name})")
    return out


def read_lock(path: Path = LOCK) -> dict[str, str]:
    """The lock file as name -> "number type"; an empty dict when it does not exist."""
    if not path.exists():
        return {}
    pairs = (line.split(" = ", 1) for line in path.read_text().splitlines() if line and not line.startswith("#"))
    return {name: value for name, value in pairs}


def _numbered(name: str) -> bool:
    """Whether a lock entry has a number (a field or an enum value; an rpc, ``Service/Method``, has none)."""
    return "/" not in name


def problems(locked: dict[str, str], current: dict[str, str]) -> list[str]:
    """What breaks compatibility: a published field or value removed, renumbered or retyped, a number reused,
    or a published rpc removed or given other messages."""
    out = []
    for name, value in locked.items():
        if name not in current:
            keep = "reserve its number instead" if _numbered(name) else "keep serving it"
            out.append(f"{name} = {value} was removed ({keep})")
        elif current[name] != value:
            out.append(f"{name} changed from {value} to {current[name]}")
    taken = {(name.rsplit(".", 1)[0], value.split()[0]): name for name, value in locked.items() if _numbered(name)}
    for name, value in current.items():
        owner = taken.get((name.rsplit(".", 1)[0], value.split()[0])) if _numbered(name) else None
        if name not in locked and owner is not None:
            out.append(f"{name} reuses number {value.split()[0]} of {owner}")
    return out


#: Published names that are Python keywords, each with the reason it is kept (none so far).
KEYWORD_NAMES_ALLOWED: dict[str, str] = {}


def keyword_names(current: dict[str, str], allowed: dict[str, str] = KEYWORD_NAMES_ALLOWED) -> list[str]:
    """Fields and enum values named after a Python keyword (``pass``, ``None``): the generated Python
    classes cannot be used with them as attributes (``view.pass`` is a syntax error), so a new one is refused."""
    return [f"{name} is named after the Python keyword {name.rsplit('.', 1)[1]!r}; choose another name"
            for name in current if _numbered(name) and keyword.iskeyword(name.rsplit(".", 1)[1]) and name not in allowed]


def main() -> int:
    locked, current = read_lock(), entries()
    found = problems(locked, current) + keyword_names(current)
    if found:
        print("not wire-compatible or not usable from Python:\n  " + "\n  ".join(found), file=sys.stderr)
        return 1
    added = {name: value for name, value in current.items() if name not in locked}
    lines = [f"{name} = {value}" for name, value in {**locked, **added}.items()]
    LOCK.write_text("# Every published field, enum value and rpc of cardarena.v1 (proto/wire_lock.py); append only.\n"
                    + "\n".join(lines) + "\n")
    print(f"{len(added)} new entries locked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
