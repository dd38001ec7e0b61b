"""The links of a season's chain of stored records and the checks of a chain against the season as it is now
(``store.chain`` writes the chain and audits it from the store; ``league.integrity.verify_api`` from the public API).

An entry's hash is ``SHA-256(previous + "\\n" + entry)``, in 64 lowercase hex digits,
``previous`` being the hash of the entry before (64 zeros for a season's first) and
``entry`` the entry's canonical JSON text. Anyone holding the entries can recompute
every hash; anyone who saw a head (the last hash) can check that a later chain
extends it: changing or removing an entry changes every hash after it.

:func:`check_chain` checks a chain's entries (``store.chain`` says what each holds) against the
season as it is now (:class:`SeasonNow`): every entry linked to the one before; the season's head
the last entry's; the season entry's fields the season's; every final game chained once and its
entry its rows now; every game in a schedule entry and as scheduled; every head seen before one
of the entries. From chain format 2 (the season entry's ``chain``), the close: a finished season's
chain ends with one ``close`` entry counting its games, and nothing follows it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: The previous hash of a season's first entry.
GENESIS = "0" * 64
#: The season entry's fields checked against the season now.
SEASON_FIELDS = ("name", "game", "params", "time_control", "commitment", "chance_scheme")
#: Keys of a game entry fixed by the chain but not compared with the rows now: ``served`` (a bot may move
#: or change its author later).
CHAINED_ONLY = ("served",)


def link(previous: str, entry: str) -> str:
    """The hash of ``entry`` (its text) after the entry whose hash is ``previous`` (64 hex digits)."""
    return hashlib.sha256(f"{previous}\n{entry}".encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    """One stored chain entry: its position, kind, game number (None for other kinds), text and hash."""

    seq: int
    kind: str
    number: int | None
    entry: str
    hash: str


@dataclass(frozen=True)
class SeasonNow:
    """The season as it is now, to check its chain against: ``season`` its fields (:data:`SEASON_FIELDS`),
    ``games`` each final game's entry rebuilt from what is stored now (by number; a key it lacks, such as
    ``replay`` where the replay's bytes are not at hand, is not compared), ``seats`` each game's bot ids by
    seat, ``groups`` each game's deal group, ``close`` the close entry the season would have now and
    ``finished`` whether it is finished (done, key public: it takes no new game)."""

    season: Mapping[str, Any]
    games: Mapping[int, Mapping[str, Any]]
    seats: Mapping[int, Sequence[int]]
    groups: Mapping[int, int | None]
    close: Mapping[str, Any]
    finished: bool


@dataclass
class ChainCheck:
    """What :func:`check_chain` found: one line per problem, the heads seen before found in the chain,
    and a note for a season from before the chain."""

    problems: list[str] = field(default_factory=list)
    heads_seen: int = 0
    note: str | None = None


def chain_format_of(entries: Sequence[Entry]) -> int:
    """The chain format its season entry states (1 without one)."""
    if not entries or entries[0].kind != "season":
        return 1
    version = json.loads(entries[0].entry).get("chain", 1)
    return version if isinstance(version, int) else 1


def check_chain(entries: Sequence[Entry], now: SeasonNow, chain_link: Callable[[str, str], str] = link,
                head: tuple[str | None, int] | None = None, heads: Sequence[str] = ()) -> ChainCheck:
    """Check ``entries`` (in order) against the season ``now`` (module docstring); ``head``: the season's
    stated head and length (checked to be the last entry's), ``heads``: hashes of this chain seen before."""
    found = ChainCheck()
    _links(found, entries, chain_link, head)
    _entries(found, now, entries)
    if chain_format_of(entries) >= 2:
        _close(found, entries, now.close, now.finished)
    hashes = {e.hash for e in entries}
    for seen in heads:
        seen = seen.strip().lower()
        if seen in hashes:
            found.heads_seen += 1
        else:
            found.problems.append(f"chain: the head {seen} seen before is not in the season's chain of "
                                  f"{len(entries)} entries: the chain was rewritten after it was shown")
    return found


def _links(found: ChainCheck, entries: Sequence[Entry], chain_link: Callable[[str, str], str],
           head: tuple[str | None, int] | None) -> None:
    previous = GENESIS
    for i, e in enumerate(entries):
        if e.seq != i:
            found.problems.append(f"chain: entry {i} is missing (the next stored is {e.seq})")
            break
        expected = chain_link(previous, e.entry)
        if e.hash != expected:
            found.problems.append(f"chain: entry {e.seq} ({_name(e)}) is not linked: its hash is {e.hash}, "
                                  f"the previous hash and its text give {expected}")
            break
        previous = e.hash
    if entries and head is not None and (head[0] != entries[-1].hash or head[1] != len(entries)):
        found.problems.append(f"chain: the season's head {head[0]} after {head[1]} entries is not its last "
                              f"entry's hash {entries[-1].hash} after {len(entries)}")


def _entries(found: ChainCheck, now: SeasonNow, entries: Sequence[Entry]) -> None:
    listed: dict[int, tuple[int, list[int]]] = {}
    chained: set[int] = set()
    for e in entries:
        entry = json.loads(e.entry)
        if e.kind == "season":
            for key in SEASON_FIELDS:
                if entry.get(key) != now.season.get(key):
                    found.problems.append(f"chain: the season's {key} is now {now.season.get(key)!r}, stored as "
                                          f"{entry.get(key)!r} in entry {e.seq}")
        if e.kind in ("season", "schedule"):
            listed.update({n: (g, b) for n, g, b in entry["games"]})
        elif e.kind == "game":
            number = entry.get("number")
            chained.add(number)
            now_entry = now.games.get(number)
            if now_entry is None:
                found.problems.append(f"game {number}: final in chain entry {e.seq} ({entry['status']}), now "
                                      + ("missing from the store" if number not in now.groups else "not final"))
                continue
            diff = [k for k in sorted(set(entry) | set(now_entry))
                    if k not in CHAINED_ONLY and k in now_entry and entry.get(k) != now_entry.get(k)]
            if diff:
                found.problems.append(f"game {number}: " + "; ".join(
                    f"{k} is now {_short(now_entry.get(k))}, chained as {_short(entry.get(k))} in entry {e.seq}"
                    for k in diff))
    if not entries or entries[0].kind != "season":
        if now.season.get("chance_scheme") is None:  # created before the chain (migration 0007): only later records
            found.note = ("a season from before the chain: its schedule and the records stored before the "
                          "chain are not covered by it")
        else:
            found.problems.append("chain: the season has no season entry: its schedule and records are not covered")
        return
    for number in sorted(set(now.games) - chained):
        found.problems.append(f"game {number}: {now.games[number]['status']} in the store, with no chain entry")
    for number in sorted(set(now.groups) | set(listed)):
        if number not in listed:
            found.problems.append(f"game {number}: in the store, in no schedule entry of the chain")
        elif number not in now.groups:
            found.problems.append(f"game {number}: in the chain's schedule, missing from the store")
        elif listed[number] != (now.groups[number], list(now.seats.get(number, []))):
            found.problems.append(f"game {number}: deal group and bots now {now.groups[number]} "
                                  f"{now.seats.get(number)}, in the chain's schedule {listed[number][0]} "
                                  f"{listed[number][1]}")


def _close(found: ChainCheck, entries: Sequence[Entry], now: Mapping[str, Any], is_finished: bool) -> None:
    """The ``close`` entry (format 2): the last entry of a finished season, with the store's games."""
    closes = [e for e in entries if e.kind == "close"]
    if closes and closes[0] is not entries[-1]:
        after = entries[entries.index(closes[0]) + 1:]
        found.problems.append(
            f"chain: {len(after)} entr{'y' if len(after) == 1 else 'ies'} after the season's close in entry "
            f"{closes[0].seq} ({', '.join(_name(e) for e in after[:5])}): a finished season takes no new game")
    if not closes:
        if is_finished:
            found.problems.append("chain: the season is finished (every game final, its key public), but its "
                                  "chain has no close entry")
        return
    if not is_finished:
        found.problems.append(f"chain: closed in entry {closes[0].seq}, but the season is not finished now "
                              "(a game was re-opened or added after the close)")
    chained = json.loads(closes[-1].entry)
    if (chained.get("games"), chained.get("statuses")) != (now.get("games"), now.get("statuses")):
        found.problems.append(f"chain: the close in entry {closes[-1].seq} counts {chained.get('games')} games "
                              f"{_short(chained.get('statuses'))}; the store has {now.get('games')} "
                              f"{_short(now.get('statuses'))}")


def _name(e: Entry) -> str:
    return f"game {e.number}" if e.number is not None else e.kind


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 160 else text[:157] + "..."
