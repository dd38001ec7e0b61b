"""Verifying a season from the public JSON API alone (``cardarena season verify NAME --api URL``).

:func:`league.integrity.verify.verify_season` reads a :class:`league.integrity.verify.DealsSource`; :class:`ApiSource` is
one over a dashboard's ``/api/v1`` (no database, no organiser): the season (``/seasons``,
``/seasons/{id}``), once it is over its key, every game's stored fields and the ratings
(``/seasons/{id}/verification``), and each done game's record as stored (``/replays/{id}/stored``,
the views and answers as the bytes sent and received). The checks are the organiser's own
(commitment, seeds, statuses, every replay re-run by ``referee.recheck``, results, ratings), and the
season's chain: once the season is over the API serves its entries and each game's bot names and seat
versions, and :meth:`ApiSource.chain_audit` runs ``league.integrity.chain.check_chain`` on them (the links, the
season's head, every game's entry against its stored fields as served, the schedule, the close, and the heads
seen before: ``season verify NAME --api URL --head HASH``). One thing it cannot compare is a game entry's
``replay`` digest (the API serves the record, not the stored bytes); the record itself is re-run.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from league.integrity.chain import SEASON_FIELDS, Entry, SeasonNow, chain_format_of, check_chain, link
from league.integrity.verify import CannotVerify
from referee.record import GameRecord

#: Seconds to wait for one answer of the API.
TIMEOUT_S = 30.0


class ApiError(Exception):
    """The API cannot be read (unreachable, an error status, not JSON); the message says which URL and why."""


@dataclass(frozen=True)
class ApiSeason:
    """A season as ``/api/v1/seasons/{id}`` shows it (``league.integrity.verify.SeasonToVerify``)."""

    id: int
    name: str
    game: str
    params: dict[str, Any]
    time_control: dict[str, Any]
    commitment: str | None
    chance_scheme: str | None
    config: dict[str, Any]
    chain_head: str | None = None
    chain_length: int = 0
    unavailable: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class ApiGame:
    """A game's stored fields as ``/seasons/{id}/verification`` shows them (``league.integrity.verify.StoredGameRow``)."""

    id: int
    number: int
    deal_group: int
    seed: int
    status: str
    reason: str | None
    detail: str | None
    attempts: tuple[tuple[int, str | None, str | None], ...]
    seats: tuple[tuple[int, int, int | None, int | None, int | None, int | None, bool | None], ...]
    replay: bool
    token: str | None = None


@dataclass(frozen=True)
class ApiSuspension:
    """A bot of the season that did not answer at some game start (``league.integrity.verify.Suspension``)."""

    bot_id: int
    name: str
    suspended_at: datetime | None


@dataclass(frozen=True)
class ApiChain:
    """What the chain check found from the API: the season's head and length, each problem, the heads seen
    before found in it, a note (a season from before the chain, or a dashboard that serves no entries)."""

    head: str | None
    length: int
    problems: list[str] = field(default_factory=list)
    heads_seen: int = 0
    note: str | None = None


class ApiSource:
    """A :class:`league.integrity.verify.DealsSource` over the dashboard at ``base_url`` (``http://host:8000``)."""

    def __init__(self, base_url: str, timeout_s: float = TIMEOUT_S) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ApiError(f"--api takes the dashboard's address, e.g. http://127.0.0.1:8000, got {base_url!r}")
        self.base = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self._verification: dict[int, dict[str, Any]] = {}

    def get(self, path: str) -> Any:
        """The JSON at ``/api/v1{path}``; raises ApiError (CannotVerify for a 409: the season is not over)."""
        url = f"{self.base}/api/v1{path}"
        try:
            with urllib.request.urlopen(url, timeout=self.timeout_s) as answer:  # noqa: S310 (http(s) only, above)
                return json.load(answer)
        except urllib.error.HTTPError as exc:
            try:
                detail = json.load(exc).get("detail", "")
            except (ValueError, AttributeError):
                detail = ""
            if exc.code == 409:
                raise CannotVerify(str(detail)) from None
            raise ApiError(f"{url} answered {exc.code}{': ' + str(detail) if detail else ''}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise ApiError(f"cannot read {url}: {getattr(exc, 'reason', exc)}") from None
        except ValueError:
            raise ApiError(f"{url} did not answer JSON (is it a cardarena dashboard?)") from None

    def season_by_name(self, name: str) -> ApiSeason | None:
        """The season named ``name``, or None when the API lists none of that name."""
        found = next((s for s in self.get("/seasons") if s["name"] == name), None)
        if found is None:
            return None
        d = self.get(f"/seasons/{found['id']}")
        return ApiSeason(d["id"], d["name"], d["game"], d["params"], d["time_control"], d.get("commitment"),
                         d.get("chance_scheme"), d["config"], d.get("chain_head"), d.get("chain_length", 0),
                         d.get("unavailable", []))

    def _verify_data(self, season_id: int) -> dict[str, Any]:
        if season_id not in self._verification:
            self._verification[season_id] = self.get(f"/seasons/{season_id}/verification")
        return self._verification[season_id]

    # -- league.integrity.verify.DealsSource ----------------------------------------------------------

    def revealed_key(self, season_id: int) -> bytes | None:
        """The published key; raises CannotVerify (the API's one line) while the season is not over."""
        return bytes.fromhex(self._verify_data(season_id)["key"])

    def season_progress(self, season_id: int) -> dict[str, int]:
        return dict(self.get(f"/seasons/{season_id}")["progress"])

    def stored_games(self, season_id: int) -> Sequence[ApiGame]:
        return [ApiGame(g["id"], g["number"], g["deal_group"], g["seed"], g["status"], g["reason"], g["detail"],
                        tuple(tuple(a) for a in g["attempts"]),  # type: ignore[misc]
                        tuple(tuple(s) for s in g["seats"]), g["replay"], g.get("token"))  # type: ignore[misc]
                for g in self._verify_data(season_id)["games"]]

    def get_replay(self, game_id: int) -> GameRecord | None:
        try:
            return GameRecord.from_json(self.get(f"/replays/{game_id}/stored"))
        except (KeyError, TypeError, ValueError) as exc:
            raise ApiError(f"the stored record of game {game_id} is not a record: {exc}") from None

    def ratings(self, season_id: int) -> dict[int, float]:
        return {int(k): float(v) for k, v in self._verify_data(season_id)["ratings"].items()}

    def season_availability(self, season_id: int) -> Sequence[ApiSuspension]:
        rows = self.get(f"/seasons/{season_id}").get("unavailable", [])
        return [ApiSuspension(r["bot_id"], r["name"],
                              datetime.fromisoformat(r["suspended_at"]) if r.get("suspended_at") else None)
                for r in rows]

    def chain_audit(self, season_id: int, heads: Sequence[str] = ()) -> ApiChain:
        """The chain the API serves checked against the season's stored fields as served (module docstring)."""
        d = self.get(f"/seasons/{season_id}")
        head, length = d.get("chain_head"), d.get("chain_length", 0)
        data = self._verify_data(season_id)
        if "chain" not in data:
            return ApiChain(head, length, [f"chain: the head {h} seen before cannot be checked: this dashboard "
                                           "serves no chain entries" for h in heads],
                            note="not checked: this dashboard serves no chain entries")
        entries = [Entry(e["seq"], e["kind"], e["number"], e["entry"], e["hash"]) for e in data["chain"]]
        version = chain_format_of(entries)
        identities = {int(k): v for k, v in data.get("identities", {}).items()}
        games = self.stored_games(season_id)
        final = [g for g in games if str(g.status) in ("done", "failed", "not_played")]
        rebuilt = {g.number: _game_entry(g, identities.get(g.number, []), version) for g in final}
        statuses: dict[str, int] = {}
        for g in games:
            statuses[str(g.status)] = statuses.get(str(g.status), 0) + 1
        season = {k: d.get(k) for k in SEASON_FIELDS}
        now = SeasonNow(season, rebuilt, {g.number: [s[1] for s in g.seats] for g in games},
                        {g.number: g.deal_group for g in games},
                        {"kind": "close", "games": len(games), "statuses": dict(sorted(statuses.items()))},
                        finished=True)  # the API serves these only once the season is over: its key published
        found = check_chain(entries, now, link, (head, length), heads)
        return ApiChain(head, length, found.problems, found.heads_seen, found.note)


def _game_entry(game: ApiGame, identities: list[list[str | None]], version: int) -> dict[str, Any]:
    """A final game's chain entry from its stored fields as the API serves them, without ``replay`` (the
    stored bytes' digest, not served) and ``served`` (chained only)."""
    entry: dict[str, Any] = {"kind": "game", "number": game.number, "status": str(game.status), "reason": game.reason,
                             "detail": game.detail, "attempts": [list(a) for a in game.attempts],
                             "seats": [list(s[1:]) for s in game.seats]}
    if version >= 2:
        entry["bots"] = [list(i) for i in identities]
    return entry


@dataclass(frozen=True)
class ApiEpoch(ApiSeason):
    """A ladder's epoch as the API shows it: its season, with its number."""

    epoch: int = 0


class ApiLadder:
    """The ladder ``name`` at the dashboard of ``source`` (``league.competition.ladder.LadderSource``, for
    ``ladder verify NAME --api URL``): its epochs (``/ladders/{name}``), each over epoch's chain (its
    verification data); the stored rating snapshots are not all public, so they are not checked from the API."""

    def __init__(self, source: ApiSource, name: str) -> None:
        self.deals = source
        self.name = name
        self._epochs: list[ApiEpoch] | None = None
        self._over: dict[int, bool] = {}

    def epochs(self) -> Sequence[ApiEpoch]:
        if self._epochs is None:
            rows = self.deals.get(f"/ladders/{urllib.parse.quote(self.name, safe='')}?epochs=1000")["epochs"]
            out = []
            for row in sorted(rows, key=lambda r: r["epoch"]):
                d = self.deals.get(f"/seasons/{row['season_id']}")
                out.append(ApiEpoch(d["id"], d["name"], d["game"], d["params"], d["time_control"], d.get("commitment"),
                                    d.get("chance_scheme"), d["config"], d.get("chain_head"), d.get("chain_length", 0),
                                    d.get("unavailable", []), epoch=row["epoch"]))
                self._over[d["id"]] = row.get("key") is not None
            self._epochs = out
        return self._epochs

    def entries(self, season_id: int) -> Sequence[Entry] | None:
        if not self.over(season_id):
            return None
        return [Entry(e["seq"], e["kind"], e["number"], e["entry"], e["hash"])
                for e in self.deals._verify_data(season_id).get("chain", [])]

    def over(self, season_id: int) -> bool:
        self.epochs()
        return self._over.get(season_id, False)

    def snapshots(self) -> None:
        return None
