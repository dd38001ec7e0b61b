"""The deploy guide's cluster commands: read from ``deploy/README.md``, so the harness runs what the guide says.

The guide holds fenced blocks between ``<!-- cluster commands: begin -->`` and
``<!-- cluster commands: end -->`` (one for the deployment and its season, one for the organiser's
ladder); in them, each ``# cluster: ROLE`` line names the role of the command on the next line
(``broker``, ``server``, ``bot``, ``register``, ``worker``, ``season create``, ``season run``,
``ladder create``, ``ladder run``, ``ladder standings``, ``ladder verify``, ``submit``), and ``$NAME``
placeholders are filled in per host. A role given twice is an error.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache
from pathlib import Path
from string import Template

GUIDE = Path(__file__).resolve().parents[1] / "README.md"
BEGIN, END = "<!-- cluster commands: begin -->", "<!-- cluster commands: end -->"


class GuideError(ValueError):
    """The guide's cluster block is missing, malformed, or lacks a role or a value; one line."""


@lru_cache(maxsize=1)
def commands(path: Path = GUIDE) -> dict[str, str]:
    """``{role: command line}`` of the guide's cluster blocks, all of them. Raises GuideError."""
    text = path.read_text()
    if BEGIN not in text or END not in text:
        raise GuideError(f"{path.name} has no cluster block ({BEGIN} ... {END})")
    blocks = [part.split(END, 1)[0] for part in text.split(BEGIN)[1:]]
    found: dict[str, str] = {}
    role = None
    for line in "\n".join(blocks).splitlines():
        line = line.strip()
        if not line or line.startswith("```"):
            continue
        match = re.fullmatch(r"# cluster: (.+)", line)
        if match:
            role = match.group(1).strip()
        elif role is None:
            raise GuideError(f"{path.name}: a cluster command with no '# cluster: ROLE' line above it: {line}")
        elif role in found:
            raise GuideError(f"{path.name}: the cluster role '{role}' is given twice")
        else:
            found[role], role = line, None
    return found


def command_for(role: str, values: dict[str, str]) -> list[str]:
    """The guide's command for ``role`` as an argv, its ``$NAME``s replaced from ``values``. Raises GuideError."""
    try:
        line = commands()[role]
    except KeyError:
        raise GuideError(f"the guide has no '# cluster: {role}' command") from None
    try:
        return shlex.split(Template(line).substitute(values))
    except KeyError as exc:
        raise GuideError(f"no value for {exc} in the guide's '{role}' command") from None
