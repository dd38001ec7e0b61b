"""A hostile bot that reads every public surface while it plays: can it name a stack card before it is turned?

The cheater is the ``odds`` bot plus one trick. At each of its bets (rules §1.5) it reads
everything a bot or a spectator can reach: every GET route of the dashboard's JSON API
(seasons, fairness and the published commitment, standings, crosstables, bots, games,
replays and the live view of running games), the dashboard's pages, the Arena gRPC
service's public calls, and every view its own seat was sent. It keeps every integer and
every 64-hex-digit string it finds and tries each as:

- the deal seed of its game;
- the ``--seed`` of a reproducible season (``league.integrity.fairness.key_from_seed``), whose key
  gives the game's deal seed (``league.integrity.fairness.deal_seed``);
- a season key (the commitment and any published key among them).

A key's deal seeds need the game's number, which the game id its requests carry does not tell
(``league.integrity.fairness.game_token``, opaque): the cheater tries each key on every season and
number found, and takes the key's seed only when it derives its game's id (the id and the seeds
come from one key).

A deal seed is tried with the platform's own chance code (``referee.chance.Chance``, under
each of its schemes, answering the chance request the Slippery Sam rules make): it *fits*
when its shuffles reproduce the first-dealer cards of the game, the seat's hand at the seat's
place in the deal, and the stack cards turned so far in the deal. Then the cheater knows the
next stack card and bets the most it may when its hand beats it, the least when not.
Otherwise it bets as the ``odds`` bot, and names, for the record, the card the best partial
fit puts next (the first card of its stack it has not seen), or an unseen card at random.

Two Slippery Sam seasons are played in one store against the same bots (the cheater, its
honest twin, a second ``odds`` and ``random``):

- **blind**: the cheater has only the public surfaces. The figure is the number of named
  cards that were the card turned, against chance: under "it knows nothing", the bet with
  ``u`` unseen cards (52 less its hand, the turned and the shot cards of the deal) names the
  right card with probability ``1/u``, so the hits are a sum of independent Bernoulli(1/u)
  variables (Poisson-binomial). The test is the exact one-sided tail P(hits >= observed);
  the bench fails when it is below ``ALPHA`` (0.001: a false alarm in one run in 1,000).
- **keyed** (the positive control): the same cheater is also handed the season's key. It
  must name at least ``NAMED_MIN`` (99%) of the stack cards before they are turned and win
  by at least ``MARGIN`` tokens a game more than its honest twin; otherwise the cheater is
  blind and the blind figure means nothing, and the bench fails.

Exits 1 naming each check that failed; prints, for each season, the bets, those in which the
cheater found a seed that fits, the named cards that were right against the number expected
by chance with the tail probability, and the cheater's and its twin's token change per game.

    python -m bench.bench_fair_play [--games 120] [--leak] [--json FILE]

``--leak`` hands the cheater the blind season's key too: the bench must then fail (the
negative test has power). ``referee/games/slippery_sam/tests/test_slippery_sam_fair_play_bench.py`` runs a short version.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from botsdk.bot import Context
from cardarena.v1 import slippery_sam_pb2 as pb
from league.integrity import fairness
from referee.chance import SCHEMES, Chance
from referee.games.slippery_sam.bots import OddsBot
from referee.games.slippery_sam.rules import PACK, SlipperySamParams, SlipperySamRules, beats

API_ENV = "CARDARENA_BENCH_API"
ARENA_ENV = "CARDARENA_BENCH_ARENA"
#: Where the cheater records each bet, one JSON line per bet.
LOG_ENV = "CARDARENA_BENCH_LOG"
#: A JSON file ``{season id: key hex}``: the keys handed to the cheater (the positive control).
KEYS_ENV = "CARDARENA_BENCH_KEYS"

#: The blind cheater fails the bench when its hits are this improbable under chance (one-sided).
ALPHA = 0.001
#: The keyed cheater must name at least this share of the stack cards before they are turned.
NAMED_MIN = 0.99
#: ... and win at least this many tokens a game more than its honest twin (starting tokens: 300).
MARGIN = 100.0
#: Seconds a reading of the public surfaces is used for before the next bet reads them again.
REFRESH_S = 1.0

#: The chance request of Slippery Sam (a shuffle of the pack), as the rules make it.
_RULES = SlipperySamRules(SlipperySamParams(), 3)
REQUEST = _RULES.step(_RULES.new_state())
_INT = re.compile(r"(?<![\w.])\d{6,19}(?![\w.])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{64}(?![0-9A-Fa-f])")
_FINAL = ("done", "failed", "not_played")
_SEED_LIMIT = fairness.SEED_LIMIT


# -- what the public surfaces show -------------------------------------------------------------


@dataclass
class Found:
    """Integers and 64-hex-digit strings (lowercase) found in what was read."""

    ints: set[int] = field(default_factory=set)
    hexes: set[str] = field(default_factory=set)

    def add(self, other: Found) -> None:
        self.ints |= other.ints
        self.hexes |= other.hexes


def harvest(text: str) -> Found:
    """Every integer of a JSON document (also inside strings, 6+ digits) and every 64-hex string of ``text``;
    for text that is not JSON (a page), every run of 6 to 19 digits."""
    found = Found(hexes={h.lower() for h in _HEX.findall(text)})
    try:
        _walk(json.loads(text), found)
    except ValueError:
        found.ints |= {int(x) for x in _INT.findall(text)}
    return found


def _walk(value: Any, found: Found) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        found.ints.add(value)
    elif isinstance(value, str):
        found.ints |= {int(x) for x in _INT.findall(value)}
    elif isinstance(value, dict):
        for v in value.values():
            _walk(v, found)
    elif isinstance(value, list):
        for v in value:
            _walk(v, found)


class PublicReader:
    """Reads every public surface (dashboard JSON API and pages, Arena gRPC), thread-safe.

    A game's pages are read once it is final (done, failed, not played) and not sealed, and kept;
    everything else is read again when the last reading is older than :data:`REFRESH_S`."""

    def __init__(self, api: str, arena: str) -> None:
        self.api, self.arena = api, arena
        self._lock = threading.Lock()
        self._kept: dict[str, Found] = {}
        self._found = Found()
        self._games: dict[int, int] = {}  # season id -> games listed
        self._read_at = -math.inf
        self._pool = ThreadPoolExecutor(8)

    def read(self) -> Found:
        """Everything found so far (a copy), read again first if the last reading is old."""
        with self._lock:
            if time.monotonic() - self._read_at > REFRESH_S:
                self._read_at = time.monotonic()
                self._refresh()
            return Found(set(self._found.ints), set(self._found.hexes))

    def seasons(self) -> dict[int, int]:
        """``{season id: games it lists}`` of the seasons found so far."""
        with self._lock:
            return dict(self._games)

    def _text(self, path: str) -> str:
        try:
            with urllib.request.urlopen(self.api + path, timeout=10) as answer:
                return answer.read().decode()
        except urllib.error.HTTPError as err:  # a 403/404/409 is an answer too
            return err.read().decode(errors="replace")
        except OSError:
            return ""

    def _json(self, path: str) -> Any:
        try:
            return json.loads(self._text(path))
        except ValueError:
            return None

    def _refresh(self) -> None:
        seasons = self._json("/api/v1/seasons") or []
        bots = self._json("/api/v1/bots?limit=1000") or []
        sids = [s["id"] for s in seasons if isinstance(s, dict)]
        bids = [b["id"] for b in bots if isinstance(b, dict)]
        paths = ["/openapi.json", "/api/v1/seasons", "/api/v1/bots?limit=1000", "/", "/api", "/bots", "/games",
                 "/api/v1/games?limit=1000"]
        games: list[dict[str, Any]] = []
        for sid in sids:
            paths += [f"/api/v1/seasons/{sid}", f"/api/v1/seasons/{sid}/fairness", f"/api/v1/seasons/{sid}/standings",
                      f"/api/v1/seasons/{sid}/crosstable", f"/api/v1/games?season_id={sid}&limit=1000",
                      f"/seasons/{sid}", f"/seasons/{sid}/fairness", f"/games?season_id={sid}"]
            paths += [p for b in bids for p in (f"/api/v1/bots/{b}?season_id={sid}",
                                                f"/api/v1/bots/{b}/ratings?season_id={sid}", f"/bots/{b}?season_id={sid}")]
            listed = [g for g in self._json(f"/api/v1/games?season_id={sid}&limit=1000") or [] if isinstance(g, dict)]
            self._games[sid] = max(self._games.get(sid, 0), len(listed))
            games += listed
        paths += [p for b in bids for p in (f"/api/v1/bots/{b}", f"/bots/{b}")]
        kept: list[str] = []
        for game in games:
            gid = game["id"]
            game_paths = [f"/api/v1/games/{gid}", f"/api/v1/replays/{gid}", f"/api/v1/replays/{gid}/download",
                          f"/games/{gid}"]
            if game.get("status") in _FINAL and not game.get("sealed"):
                kept += [p for p in game_paths if p not in self._kept]
            elif game.get("status") == "running":  # the live view
                paths += game_paths
        for path, text in zip(paths + kept, self._pool.map(self._text, paths + kept), strict=True):
            found = harvest(text)
            if path in kept:
                self._kept[path] = found
            self._found.add(found)
        for arena_text in self._arena([s.get("name", "") for s in seasons if isinstance(s, dict)]):
            self._found.add(harvest(arena_text))

    def _arena(self, names: list[str]) -> list[str]:
        """The Arena's public answers (ListBots, GetStandings of each season) as JSON texts."""
        if not self.arena:
            return []
        import grpc
        from google.protobuf.json_format import MessageToJson

        from cardarena.v1 import arena_pb2, arena_pb2_grpc

        out = []
        with grpc.insecure_channel(self.arena) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            calls = [lambda: stub.ListBots(arena_pb2.ListBotsRequest(include_retired=True), timeout=10)]
            calls += [lambda n=n: stub.GetStandings(arena_pb2.GetStandingsRequest(season=n), timeout=30) for n in names]
            for call in calls:
                try:
                    out.append(MessageToJson(call()))
                except grpc.RpcError:
                    continue
        return out


# -- a deal seed against what the seat sees ------------------------------------------------------


def shuffles(seed: int, scheme: str, count: int) -> list[list[str]]:
    """The first ``count`` shuffles the referee makes in a Slippery Sam game of ``seed`` under ``scheme``
    (``referee.chance``): the first-dealer deal (rules §1.2), then one per deal (rules §1.4)."""
    chance = Chance(seed, scheme)
    return [chance.answer(REQUEST) for _ in range(count)]


def deal_number(view: pb.SlipperySamView) -> int:
    """The current deal's number among the game's deals (1 the first; the first-dealer deal is 0), counted from
    the settled bets (rules §1.5): a deal's players bet once each in order from the dealer's left, so a new
    deal begins where the dealer changes or the order starts again."""
    n = len(view.tokens)
    deals, last = 0, (-1, n)
    for bet in view.bets:
        place = (bet.seat - bet.dealer) % n
        if bet.dealer != last[0] or place <= last[1]:
            deals += 1
        last = (bet.dealer, place)
    return deals if view.turned else deals + 1


def players(view: pb.SlipperySamView) -> list[int]:
    """The seats dealt in the current deal, in betting order (rules §1.4): every seat but the dealer that was
    not out when it was dealt (one that went out at a bet of this deal was)."""
    n = len(view.tokens)
    this_deal = {b.seat for b in view.bets[len(view.bets) - len(view.turned):]} if view.turned else set()
    return [s for s in ((view.dealer + k) % n for k in range(1, n)) if not view.out[s] or s in this_deal]


def stack_of(order: Sequence[str], view: pb.SlipperySamView, seat: int) -> list[str] | None:
    """The stack of the deal ``order`` (a shuffle, top first) if it deals ``seat`` its hand and turned the
    stack cards turned so far (rules §1.4-1.5); else None."""
    dealt = players(view)
    if seat not in dealt:
        return None
    k, i = len(dealt), dealt.index(seat)
    if tuple(order[i:3 * k:k]) != tuple(view.hand):
        return None
    stack = list(order[3 * k:])
    return stack if stack[:len(view.turned)] == list(view.turned) else None


def next_card(seed: int, scheme: str, view: pb.SlipperySamView, seat: int) -> str | None:
    """The stack card turned at this bet if the game's deal seed is ``seed`` under ``scheme``: the deal
    numbered :func:`deal_number` (or one either side of it) must fit what ``seat`` saw (:func:`stack_of`);
    else None."""
    deal = deal_number(view)
    orders = shuffles(seed, scheme, deal + 2)
    for d in (deal, deal - 1, deal + 1):
        stack = stack_of(orders[d], view, seat) if d >= 1 else None
        if stack is not None:
            return stack[len(view.turned)]
    return None


def partial_fit(order: Sequence[str], view: pb.SlipperySamView, seat: int) -> int:
    """How many of the seat's hand and the turned cards ``order`` puts where the seat saw them."""
    dealt = players(view)
    if seat not in dealt:
        return 0
    k, i = len(dealt), dealt.index(seat)
    hand = sum(a == b for a, b in zip(order[i:3 * k:k], view.hand, strict=False))
    return hand + sum(a == b for a, b in zip(order[3 * k:], view.turned, strict=False))


def seen_cards(view: pb.SlipperySamView) -> set[str]:
    """The cards of the current deal the seat has seen: its hand, the turned and the shot cards (rules §1.7)."""
    seen = set(view.hand) | set(view.turned)
    for shot in view.shots:
        seen.update(shot.cards)
    return seen


# -- the cheater ---------------------------------------------------------------------------------


@dataclass
class GameKnowledge:
    """What the cheater worked out about one game: the (seed, scheme) tried, those whose first-dealer
    cards fit with where each came from, and the one that fits everything."""

    tried: set[tuple[int, str]] = field(default_factory=set)
    first_fits: dict[tuple[int, str], str] = field(default_factory=dict)
    found: tuple[int, str, str] | None = None
    #: ``(key, season id, number, source)`` once a key derives the game's id
    where: tuple[bytes, int, int, str] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


class Cheater(OddsBot):
    """The odds bot that tries everything the public surfaces show as its game's seed (module docstring)."""

    name = "cheater"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.reader = PublicReader(os.environ.get(API_ENV, ""), os.environ.get(ARENA_ENV, ""))
        self.knowledge: dict[str, GameKnowledge] = {}
        self.own_views = Found()  # every integer of every view this seat was sent
        self._lock = threading.Lock()
        self._season_keys: dict[int, bytes] = {}
        self._index: dict[str, tuple[bytes, int, int, str]] = {}  # game id -> (key, season id, number, source)
        self._indexed: dict[tuple[bytes, int], int] = {}  # (key, season id) -> numbers indexed

    def slippery_sam(self, view: pb.SlipperySamView, ctx: Context) -> pb.SlipperySamAction:
        honest = super().slippery_sam(view, ctx)
        from google.protobuf.json_format import MessageToJson

        with self._lock:
            self.own_views.add(harvest(MessageToJson(view)))
            game = self.knowledge.setdefault(ctx.game_id, GameKnowledge())
        if view.decision != pb.SLIPPERY_SAM_DECISION_BET or not self.reader.api:
            return honest
        with game.lock:
            card, source = self._next_card(game, ctx.game_id, view, ctx)
        seen = seen_cards(view)
        named = card
        if named is None:
            named = self._guess(game, view, ctx.seat, seen) or ctx.rng.choice(sorted(set(PACK) - seen))
        self._log({"season": game.where[1] if game.where else None, "game": ctx.game_id, "hand": sorted(view.hand), "turned": list(view.turned),
                   "named": named, "knew": card is not None, "source": source, "unseen": len(PACK) - len(seen),
                   "tried": len(game.tried)})
        if card is None:
            return honest
        return pb.SlipperySamAction(amount=view.max_amount if beats(list(view.hand), card) else view.min_amount)

    def _seeds(self, game: GameKnowledge, game_id: str, found: Found) -> dict[int, str]:
        """Every deal seed the game could have, given what was found: ``{seed: source}``. A key's seeds are tried
        only for the key that derives the game's id (:meth:`_locate`): the id and the seeds come from one key, so
        a key that derives no id of the seasons found is not the game's."""
        seeds = {n: "public" for n in found.ints if 0 <= n < _SEED_LIMIT}
        keys = {bytes.fromhex(h): "public" for h in found.hexes}
        keys |= {fairness.key_from_seed(n): "public" for n in seeds}
        self._load_handed_keys()
        keys |= {key: "key" for key in self._season_keys.values()}
        if game.where is None:
            game.where = self._locate(game_id, keys)
        if game.where is not None:
            key, _, number, source = game.where
            for duplicate in (False, True):
                seeds[fairness.deal_seed(key, number, number, duplicate)] = source
        return seeds

    def _locate(self, game_id: str, keys: dict[bytes, str]) -> tuple[bytes, int, int, str] | None:
        """``(key, season id, number, where the key came from)`` of the game whose bots are sent ``game_id``: the id
        is opaque (``league.integrity.fairness.game_token``), so only its season's key places it. Every key is tried
        with every season found (public or handed) and every number up to the games the season lists (1,000 for a
        season only handed), once: the ids are kept in an index shared by the games."""
        seasons = self.reader.seasons()
        for sid in self._season_keys:
            seasons.setdefault(sid, 0)
        with self._lock:
            for key, source in keys.items():
                for sid, count in seasons.items():
                    done, bound = self._indexed.get((key, sid), 0), count or 1000
                    for number in range(done, bound):
                        token = fairness.game_token(key, sid, number)
                        if source == "key" or token not in self._index:  # a handed key names its source first
                            self._index[token] = (key, sid, number, source)
                    self._indexed[(key, sid)] = max(done, bound)
            return self._index.get(game_id)

    def _load_handed_keys(self) -> None:
        path = os.environ.get(KEYS_ENV)
        if path and os.path.exists(path):
            keys = json.loads(Path(path).read_text())
            self._season_keys.update({int(s): bytes.fromhex(k) for s, k in keys.items()})

    def _next_card(self, game: GameKnowledge, game_id: str, view: pb.SlipperySamView,
                   ctx: Context) -> tuple[str | None, str | None]:
        """The next stack card and where the seed came from, if a seed fits what the seat saw."""
        if game.found is None:
            found = self.reader.read()
            with self._lock:
                found.add(self.own_views)
            first = list(view.first_dealer_cards)
            for seed, source in self._seeds(game, game_id, found).items():
                for scheme in SCHEMES:
                    if (seed, scheme) in game.tried:
                        continue
                    game.tried.add((seed, scheme))
                    if shuffles(seed, scheme, 1)[0][:len(first)] == first:
                        game.first_fits[(seed, scheme)] = source
            for (seed, scheme), source in sorted(game.first_fits.items(), key=lambda kv: kv[1] != "key"):
                if next_card(seed, scheme, view, ctx.seat) is not None:
                    game.found = (seed, scheme, source)
                    break
        if game.found is None:
            return None, None
        seed, scheme, source = game.found
        return next_card(seed, scheme, view, ctx.seat), source

    def _guess(self, game: GameKnowledge, view: pb.SlipperySamView, seat: int, seen: set[str]) -> str | None:
        """The first unseen card of the stack of the candidate that fits best, if any fits the first-dealer cards."""
        deal = deal_number(view)
        best: tuple[int, list[str]] | None = None
        for seed, scheme in sorted(game.first_fits)[:50]:
            order = shuffles(seed, scheme, deal + 1)[deal]
            score = partial_fit(order, view, seat)
            if best is None or score > best[0]:
                best = (score, order[3 * len(players(view)) + len(view.turned):])
        return next((c for c in best[1] if c not in seen), None) if best else None

    @staticmethod
    def _log(entry: dict[str, Any]) -> None:
        path = os.environ.get(LOG_ENV)
        if path:
            with open(path, "a") as out:
                out.write(json.dumps(entry) + "\n")


# -- the figures -----------------------------------------------------------------------------------


def upper_tail(probabilities: Iterable[float], hits: int) -> float:
    """P(X >= hits) for X a sum of independent Bernoulli(p) over ``probabilities`` (Poisson-binomial), exact."""
    if hits <= 0:
        return 1.0
    dist = [1.0] + [0.0] * hits  # dist[j]: P(X == j) for j < hits; dist[hits]: P(X >= hits)
    for p in probabilities:
        top = dist[hits] + dist[hits - 1] * p
        for j in range(hits - 1, 0, -1):
            dist[j] = dist[j] * (1 - p) + dist[j - 1] * p
        dist[0] *= 1 - p
        dist[hits] = top
    return min(1.0, max(0.0, dist[hits]))


@dataclass(frozen=True)
class SeasonFigures:
    """One season's figures: the cheater's bets, those in which a seed fit, the named cards that were
    right, the hits expected by chance (the sum of 1/unseen) and their tail probability, and the token
    change per game of the cheater and its honest twin; ``tried``: the (deal seed, chance scheme) pairs
    tried, summed over its games."""

    name: str
    bets: int
    knew: int
    right: int
    expected: float
    p_value: float
    cheater: list[int]
    honest: list[int]
    tried: int = 0
    #: bets of an attempt that was played again (voided by a platform failure, or its lease lost): no stored
    #: game holds their hand and turned cards, so the card turned is unknown and they are left out of the figures
    unstored: int = 0
    #: the first few stored bets whose named card was not the card turned, as ``game hand turned: named / turned``
    misses: tuple[str, ...] = ()

    @property
    def margin(self) -> float:
        """The cheater's mean token change per game less its honest twin's."""
        return _mean(self.cheater) - _mean(self.honest)

    def welch_t(self) -> float:
        """Welch's t of the cheater's token change per game against its twin's (0 with fewer than 2 games each)."""
        a, b = self.cheater, self.honest
        if len(a) < 2 or len(b) < 2:
            return 0.0
        se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
        return self.margin / se if se else math.inf


def _mean(xs: Sequence[int]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def figures(name: str, entries: list[dict[str, Any]], turned: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str],
            cheater: list[int], honest: list[int]) -> SeasonFigures:
    """``entries``: the cheater's log lines of the season; ``turned``: the card turned at each bet (``next_cards``).
    A bet no stored game holds (an attempt played again) is counted in ``unstored`` and nowhere else."""
    tried: dict[str, int] = {}
    for e in entries:
        tried[e["game"]] = max(tried.get(e["game"], 0), e.get("tried", 0))
    card = {id(e): turned.get((e["game"], tuple(e["hand"]), tuple(e["turned"]))) for e in entries}
    stored = [e for e in entries if card[id(e)] is not None]
    right = sum(card[id(e)] == e["named"] for e in stored)
    misses = tuple(f"{e['game'][:12]} {' '.join(e['hand'])} [{' '.join(e['turned'])}]: {e['named']} / {card[id(e)]}"
                   for e in stored if card[id(e)] != e["named"])[:5]
    probabilities = [1 / e["unseen"] for e in stored]
    return SeasonFigures(name, len(stored), sum(e["knew"] for e in stored), right, sum(probabilities),
                         upper_tail(probabilities, right), cheater, honest, sum(tried.values()),
                         len(entries) - len(stored), misses)


def verdict(blind: SeasonFigures, keyed: SeasonFigures) -> list[str]:
    """The checks that failed, each in a line (none: the bench passes)."""
    failed = []
    if blind.bets == 0 or keyed.bets == 0:
        failed.append(f"the cheater bet {blind.bets} times blind and {keyed.bets} times keyed: nothing measured")
    if keyed.bets and keyed.right < NAMED_MIN * keyed.bets:
        failed.append(f"positive control: handed the key, the cheater named {keyed.right} of {keyed.bets} stack cards "
                      f"before they were turned (needs {NAMED_MIN:.0%}): it cannot see a leak; missed (game, hand, "
                      f"turned before: named / turned): {'; '.join(keyed.misses)}")
    if keyed.margin < MARGIN:
        failed.append(f"positive control: handed the key, the cheater won {keyed.margin:+.1f} tokens a game more than "
                      f"its honest twin (needs {MARGIN:+.0f})")
    if blind.p_value < ALPHA:
        failed.append(f"blind, the cheater named {blind.right} of {blind.bets} cards right, {blind.expected:.1f} "
                      f"expected by chance: P = {blind.p_value:.2g} < {ALPHA}: the public surfaces leak the cards")
    return failed


def turned_at_bets(events: Iterable[dict[str, Any]]) -> dict[tuple[tuple[str, ...], tuple[str, ...]], str]:
    """From a game's recorded events: (a bettor's sorted hand, the cards turned before his bet) -> the card turned."""
    out: dict[tuple[tuple[str, ...], tuple[str, ...]], str] = {}
    hands: dict[int, tuple[str, ...]] = {}
    turned: list[str] = []
    for event in events:
        kind, data = event["kind"], event["data"]
        if kind == "deal":
            hands, turned = {}, []
        elif kind == "hand":
            hands[data["seat"]] = tuple(sorted(data["cards"]))
        elif kind == "turn":
            out[(hands.get(data["seat"], ()), tuple(turned))] = data["card"]
            turned.append(data["card"])
    return out


def next_cards(store: Any, season_id: int) -> dict[tuple[str, tuple[str, ...], tuple[str, ...]], str]:
    """From the stored replays: (game id, a bettor's sorted hand, the cards turned before his bet) -> the card turned."""
    out: dict[tuple[str, tuple[str, ...], tuple[str, ...]], str] = {}
    for game in store.game_reads.list_games(season_id, limit=10**6):
        record = store.replays.get_replay(game.id)
        if record is not None:
            out |= {(record.game_id, *key): card for key, card in turned_at_bets(record.events).items()}
    return out


def changes(store: Any, season_id: int, bot: str) -> list[int]:
    """The bot's token change in each done game of the season it played."""
    return [seat.change for game in store.game_reads.list_games(season_id, limit=10**6) for seat in game.seats
            if seat.bot_name == bot and seat.change is not None]


# -- the run -----------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, env=env, check=False)


def _report(f: SeasonFigures) -> None:
    print(f"{f.name:5}: the cheater tried {f.tried:,} (deal seed, chance scheme) pairs and "
          f"bet {f.bets} times; a seed fit what it saw in {f.knew}; the card it named was "
          f"the card turned in {f.right} ({f.expected:.1f} expected by chance, P(>= {f.right}) = {f.p_value:.3g}); "
          f"tokens a game: cheater {_mean(f.cheater):+.1f} in {len(f.cheater)} games, honest twin "
          f"{_mean(f.honest):+.1f} in {len(f.honest)} (difference {f.margin:+.1f}, Welch t {f.welch_t():.1f})"
          + (f"; {f.unstored} bets of attempts played again left out" if f.unstored else ""))


def main(argv: list[str] | None = None) -> int:
    """Run both seasons, print the figures and return 1 if a check failed (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=120, help="games of each season (default 120)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--leak", action="store_true", help="hand the cheater the blind season's key too")
    parser.add_argument("--json", type=Path, help="also write the figures and the failed checks to this file")
    args = parser.parse_args(argv)

    from cli.demo import register_or_update
    from league.policy import POLICY
    from referee.botprocess import start_bot_process
    from referee.clients import GrpcBotClient
    from store import open_store

    work = Path(tempfile.mkdtemp(prefix="fairplay-"))
    db = f"sqlite:///{work / 'store.db'}"
    port, arena_port = _free_port(), _free_port()
    log, keys = work / "cheater.jsonl", work / "keys.json"
    shared = {API_ENV: f"http://127.0.0.1:{port}", ARENA_ENV: f"127.0.0.1:{arena_port}", LOG_ENV: str(log),
              KEYS_ENV: str(keys)}
    env = {**os.environ, **shared, "CARDARENA_DB_URL": db}
    os.environ.update(shared)  # the bot processes inherit them
    store = open_store(db, policy=POLICY)
    server = subprocess.Popen([sys.executable, "-m", "cli.main", "server", "--port", str(port), "--grpc-port",
                               str(arena_port), "--db", db], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bots = [start_bot_process("bench.bench_fair_play:Cheater"), start_bot_process("odds"),
            start_bot_process("odds", 1), start_bot_process("random", 1)]
    try:
        names = [register_or_update(store, n, b.endpoint, GrpcBotClient(b.endpoint).describe())
                 for n, b in zip(("cheater", "honest", "odds", "random"), bots, strict=True)]
        for _ in range(150):  # the dashboard answers
            try:
                urllib.request.urlopen(shared[API_ENV] + "/api/v1/seasons", timeout=2).close()
                break
            except OSError:
                time.sleep(0.2)
        ids = {}
        for name in ("blind", "keyed"):
            made = _cli("season", "create", name, "--game", "slippery-sam", "--bots", ",".join(names), "--tables",
                        "3,4", "--games", str(args.games), "--deadline", "5", "--time-bank", "60", "--db", db, env=env)
            if made.returncode:
                raise SystemExit(made.stderr)
            ids[name] = store.seasons.get_season_by_name(name).id  # type: ignore[union-attr]
        handed = ("keyed", "blind") if args.leak else ("keyed",)
        keys.write_text(json.dumps({ids[n]: store.seasons.schedule_key(ids[n]).hex() for n in handed}))
        entries: dict[int, list[dict[str, Any]]] = {}
        results = {}
        for name in ("blind", "keyed"):
            started = time.monotonic()
            ran = _cli("season", "run", name, "--db", db, "--workers", str(args.workers), env=env)
            if ran.returncode:
                raise SystemExit(f"season run {name} failed:\n{ran.stdout[-3000:]}\n{ran.stderr[-3000:]}")
            print(f"season {name}: {args.games} games in {time.monotonic() - started:.0f} s")
        # the cheater's bets by season: the organiser places each game id (opaque to the bots) by its key
        season_of = {fairness.game_token(store.seasons.schedule_key(sid), sid, g.number): sid for sid in ids.values()
                     for g in store.game_reads.list_games(sid, limit=10**6)}
        for line in log.read_text().splitlines() if log.exists() else []:
            entry = json.loads(line)
            entries.setdefault(season_of.get(entry["game"], -1), []).append(entry)
        for name in ("blind", "keyed"):
            sid = ids[name]
            results[name] = figures(name, entries.get(sid, []), next_cards(store, sid), changes(store, sid, "cheater"),
                                    changes(store, sid, "honest"))
            _report(results[name])
        failed = verdict(results["blind"], results["keyed"])
        for line in failed:
            print(f"FAILED: {line}")
        if not failed:
            print(f"passed: handed the key the cheater names >= {NAMED_MIN:.0%} of the cards and wins by >= "
                  f"{MARGIN:.0f} tokens a game; without it, it names them at chance level (P >= {ALPHA})")
        if args.json:
            args.json.write_text(json.dumps({**{n: {**asdict(f), "margin": f.margin, "welch_t": f.welch_t()}
                                                for n, f in results.items()}, "failed": failed}, indent=1))
        return 1 if failed else 0
    finally:
        for bot in bots:
            bot.stop()
        server.terminate()
        server.wait(10)
        store.close()


# Only when run: the cheater's bot process is spawned and imports this module again.
if __name__ == "__main__":
    sys.exit(main())
