"""Checking a finished season's deals from its published key (``cardarena season verify``).

Once a season is over its key is published (``Store.revealed_key``); then
:func:`verify_season` checks, as anyone could from the published data:

1. ``SHA-256(key)`` equals the commitment published at the season's creation;
2. every game's stored deal seed equals the seed derived from the key
   (``league.fairness.deal_seed`` of the game's number, or of its rotation group
   in a duplicate season);
3. every done game has a stored replay whose seed is that seed, and the replay
   re-runs to the same chance outcomes, events and scores (``referee.replay.verify``).

Failed games (no result, not rated) have no replay; only their seed is checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from league import fairness
from referee.record import GameRecord
from referee.replay import ReplayMismatch, verify

#: The status of a game with a stored result (``store.GameStatus.DONE``).
DONE = "done"


class SeasonToVerify(Protocol):
    """The season's published fields the check reads (``store.SeasonInfo``)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def commitment(self) -> str | None: ...
    @property
    def config(self) -> Mapping[str, Any]: ...


class DealsSource(Protocol):
    """Where a season's key, deals and replays are read from (``store.Store``)."""

    def revealed_key(self, season_id: int) -> bytes | None:
        """The season's key once published, else None."""
        ...

    def season_progress(self, season_id: int) -> dict[str, int]:
        """Games per status (``"pending"``, ``"running"``, ...)."""
        ...

    def season_deals(self, season_id: int) -> list[tuple[int, int, int, int, str]]:
        """``(game id, number, deal group, stored seed, status)`` of every game, in schedule order."""
        ...

    def get_replay(self, game_id: int) -> GameRecord | None:
        """The stored record of a done game, or None."""
        ...


class CannotVerify(Exception):
    """The season cannot be verified (yet); the message says why, in one line."""


@dataclass
class VerifyReport:
    """What :func:`verify_season` found: ``problems`` names each game that does not match
    and what does not; empty when everything verified."""

    season: str
    key_hex: str
    commitment: str
    commitment_ok: bool = True
    games: int = 0
    seeds_checked: int = 0
    replays_checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the commitment, every seed and every replay verified."""
        return not self.problems

    def lines(self) -> list[str]:
        """The report, one line each."""
        out = [f"season {self.season}: key {self.key_hex}",
               f"commitment {self.commitment}: "
               + ("the SHA-256 of the key matches" if self.commitment_ok else "does NOT match the key")]
        out.append(f"{self.seeds_checked} of {self.games} game seeds derive from the key; "
                   f"{self.replays_checked} replays re-run and verify")
        out += [f"MISMATCH {p}" for p in self.problems]
        out.append("verified: every deal came from the committed key" if self.ok
                   else f"NOT verified: {len(self.problems)} problem(s)")
        return out


def verify_season(store: DealsSource, season: SeasonToVerify) -> VerifyReport:
    """Verify ``season`` from its published key (module docstring). Raises CannotVerify when the
    season has no key (stored before keys) or is not over (its key is not published yet)."""
    if season.commitment is None:
        raise CannotVerify(f"season {season.name!r} was created before seasons had keys: its seed was public "
                           "and there is no commitment to verify")
    key = store.revealed_key(season.id)
    if key is None:
        progress = store.season_progress(season.id)
        left = progress["pending"] + progress["running"]
        raise CannotVerify(f"season {season.name!r} is not over ({left} games still to play): its key is "
                           "published when every game is final; verify it then")
    report = VerifyReport(season.name, key.hex(), season.commitment)
    if fairness.commitment(key) != season.commitment:
        report.commitment_ok = False
        report.problems.append(f"commitment: SHA-256 of the published key is {fairness.commitment(key)}, "
                               f"not the commitment {season.commitment}")
    duplicate = bool(season.config.get("duplicate", False))
    for game_id, number, group, stored, status in store.season_deals(season.id):
        report.games += 1
        name = f"game {number} (id {game_id})"
        expected = fairness.deal_seed(key, number, group, duplicate)
        if stored != expected:
            report.problems.append(f"{name}: stored seed {stored} is not the seed from the key, "
                                   f"{expected} ({fairness.deal_label(number, group, duplicate)})")
        else:
            report.seeds_checked += 1
        if status != DONE:
            continue
        record = store.get_replay(game_id)
        if record is None:
            report.problems.append(f"{name}: done but no replay is stored")
            continue
        if record.seed != expected:
            report.problems.append(f"{name}: the replay's seed {record.seed} is not the seed from the key, {expected}")
            continue
        try:
            verify(record)
        except ReplayMismatch as exc:
            report.problems.append(f"{name}: the replay does not re-run: {exc}")
            continue
        report.replays_checked += 1
    return report
