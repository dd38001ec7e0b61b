"""The ladder: an always-on competition that schedules its entrants table by table (rules §5).

A ladder (``cardarena ladder create``) is a game with its parameters, time control, table
sizes and settings; its entrants are the bot versions registered for the game
(``store.ladders``, rules §5.2). Its games are played in epochs, each a season with its
own key and commitment (rules §5.1): :class:`LadderRunner` keeps about ``window`` games
pending, choosing each table with the matchmaker (``league.competition.matchmaking.choose_table``)
from the entrants' current ratings (:func:`ladder_fit`), with the random choices seeded
from the open epoch's key (``league.integrity.fairness.derive``), and appends it to the open epoch
through the store's compare-and-append, so several runners of one ladder are safe.
An epoch is closed, and the next opened, when it has ``epoch_games`` games or is
``epoch_seconds`` old; its key is published once its games are all final.

Like the rest of the league, this module reads and writes only through the store object
it is given (``store.Store``): it imports no store, no service.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from league.competition.availability import SUSPEND_AFTER_S, check_suspend_after
from league.competition.compare import ComparePlanner, plan as plan_compares
from league.competition.entrants import best_entrants, entrant_index, seat_entrants
from league.competition.matchmaking import Entrant, MatchState, choose_table, pair
from league.competition.schedule import rotations
from league.competition.seasons import SEASON_NAME, SeasonError, author_key, game_setup
from league.competition.standings import collusion_games
from league.integrity import fairness
from league.integrity.chain import Entry
from league.ratings.anchor import anchored
from league.ratings.bt_incremental import BTAccumulator
from league.integrity.collusion import FAMILY_ALPHA as COLLUSION_ALPHA, screen_season
from league.integrity.eprocess import LuckAudit, ladder_alpha, luck_audit, units_of
from league.ratings.luck import luck_adjusted_by_bot
from league.ratings.ratings_ml import ANCHOR, PRIOR_SD_ELO, MLRatings
from referee.games import GameSpec
from referee.timecontrol import TimeControl

#: Defaults of a ladder's settings (``ladder create``): games and seconds per epoch, games kept pending,
#: rated games between two snapshots of the ratings (the history), games an entrant places in.
EPOCH_GAMES = 1000
EPOCH_SECONDS = 86400.0
WINDOW = 8
HISTORY_EVERY = 20
PLACEMENT_GAMES = 20
#: A runner fits the ratings again once this many more games are done (``LadderRunner.refit_every``).
REFIT_EVERY = 10
#: The rating of an entrant with no rated game (the fit's anchor, ``league.ratings.ratings_ml``).
START_RATING = 1500.0
_DONE = ("done",)


class LadderError(ValueError):
    """Impossible ladder parameters; the message says which (one line)."""


@dataclass(frozen=True)
class LadderSettings:
    """A ladder's settings, stored as its ``config``: table sizes (chosen among at each table), duplicate
    deals, the epoch's bounds, seconds before a down bot is suspended from an epoch (rules §4.9), games
    kept pending, rated games between two rating snapshots, games of a new entrant's placement, and whether a
    table seats at most one bot per author (``--one-per-author``, ``league.competition.seasons.author_key``)."""

    table_sizes: tuple[int, ...]
    duplicate: bool = False
    epoch_games: int = EPOCH_GAMES
    epoch_seconds: float = EPOCH_SECONDS
    suspend_after_s: float = SUSPEND_AFTER_S
    window: int = WINDOW
    history_every: int = HISTORY_EVERY
    placement_games: int = PLACEMENT_GAMES
    one_per_author: bool = False

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LadderSettings:
        known = {k: v for k, v in config.items() if k in cls.__dataclass_fields__}
        return cls(**{**known, "table_sizes": tuple(config["table_sizes"])})

    def to_config(self) -> dict[str, Any]:
        return {**asdict(self), "table_sizes": list(self.table_sizes)}

    def epoch_config(self) -> dict[str, Any]:
        """The config of an epoch's season: what the workers, the sealing and the audit read of a season."""
        return {"table_sizes": list(self.table_sizes), "duplicate": self.duplicate,
                "suspend_after_s": self.suspend_after_s}


def create_ladder(store, name: str, game_spec: GameSpec, table_sizes: Sequence[int], *, duplicate: bool = False,
                  params: Mapping[str, Any] | None = None, time_control: TimeControl | None = None,
                  suspend_after_s: float = SUSPEND_AFTER_S, epoch_games: int = EPOCH_GAMES,
                  epoch_seconds: float = EPOCH_SECONDS, window: int = WINDOW, one_per_author: bool = False) -> int:
    """Validate and store a ladder of ``game_spec``'s game and open its first epoch (its commitment published
    now); returns its id. Raises LadderError with one line (nothing written) for a bad name, a name taken, bad
    parameters or table sizes, or settings out of range."""
    try:
        game_params = game_setup(game_spec, table_sizes, params)
        check_suspend_after(suspend_after_s)
    except (SeasonError, ValueError) as exc:
        raise LadderError(str(exc)) from None
    if not SEASON_NAME.fullmatch(name) or ":" in name:
        raise LadderError(f"bad ladder name {name!r}: 1 to 80 letters, digits or _ . - starting with a letter or digit")
    if not 1 <= epoch_games <= 1_000_000:
        raise LadderError(f"--epoch-games must be 1 to 1,000,000, not {epoch_games}")
    if not 1 <= epoch_seconds <= 366 * 86400:
        raise LadderError(f"--epoch-seconds must be 1 to {366 * 86400}, not {epoch_seconds:g}")
    if not 1 <= window <= 10_000:
        raise LadderError(f"--pending must be 1 to 10,000, not {window}")
    if store.ladders.get_ladder_by_name(name) is not None or store.seasons.get_season_by_name(name) is not None:
        raise LadderError(f"a ladder or season named {name!r} exists already")
    settings = LadderSettings(tuple(table_sizes), duplicate, epoch_games, float(epoch_seconds), suspend_after_s, window,
                              one_per_author=one_per_author)
    tc = time_control or TimeControl.for_game(game_spec)
    ladder_id = store.ladders.create_ladder(name, game_spec.name, asdict(game_params), tc.to_json(),
                                            settings.to_config())
    store.ladders.open_epoch(ladder_id, 1, fairness.new_key(), settings.epoch_config())
    return ladder_id


def _apart(table: Sequence[int], entrants: Sequence[Entrant]) -> bool:
    """Whether no two entrants of ``table`` (ids) have one author (``Entrant.author``)."""
    author = {e.id: e.author for e in entrants}
    named = [author[e] for e in table if author.get(e) is not None]
    return len(named) == len(set(named))


def epoch_due(settings: LadderSettings, games: int, opened_at: datetime, now: datetime) -> bool:
    """Whether an epoch with ``games`` games, opened at ``opened_at``, is to be closed (rules §5.1)."""
    return games >= settings.epoch_games or (now - opened_at).total_seconds() >= settings.epoch_seconds


def current_epoch(store, ladder, settings: LadderSettings, now: datetime | None = None):
    """The ladder's open epoch (a ``store.SeasonInfo``), after closing it and opening the next if it is due
    (several runners: the store opens each epoch once)."""
    epoch = store.ladders.current_epoch(ladder.id)
    if epoch is None:
        store.ladders.open_epoch(ladder.id, 1, fairness.new_key(), settings.epoch_config())
        return store.ladders.current_epoch(ladder.id)
    games = store.seasons.season_progress(epoch.id)["total"]
    if epoch_due(settings, games, epoch.created_at, now or datetime.now(UTC)):
        store.ladders.open_epoch(ladder.id, epoch.epoch + 1, fairness.new_key(), settings.epoch_config())
        epoch = store.ladders.current_epoch(ladder.id)
    return epoch


# ------------------------------------------------------------------ ratings


#: The fit's checkpoint advances by blocks of this many games of the ladder (by id, every one final).
CHECKPOINT_BLOCK = 1000
#: Games read from the store at a time when the checkpoint catches up.
READ_PAGE = 20_000
_FINAL = frozenset({"done", "failed", "not_played"})  # a game's final statuses (``store.GameStatus``)
_CHECKPOINT_FORMAT = "ladder-fit-1"
#: The ladder's scale is held by the entrants of its first this many done games (``league.ratings.anchor``).
FOUNDER_GAMES = 100


@dataclass
class FitCheckpoint:
    """The ladder's fit as stored (``ladders.fit_checkpoint``, rules §5.4): the Bradley-Terry accumulator
    (``league.ratings.bt_incremental``) of every rated game with an id up to ``through`` (-1: none), keyed by
    entrant id, ``played``, ``{entrant id: done games}`` over the same games, and ``founders``: the entrants
    that played the ladder's first :data:`FOUNDER_GAMES` done games, whose mean rating is the ladder's 1500
    (``league.ratings.anchor``; empty until that many games are done, then every rated entrant's mean is)."""

    acc: BTAccumulator
    played: dict[int, int]
    through: int = -1
    fitted: MLRatings | None = None  # the accumulator's fit, anchored, if made at this look and nothing added since
    founders: tuple[int, ...] = ()

    def to_json(self) -> str:
        return json.dumps({"format": _CHECKPOINT_FORMAT, "bt": json.loads(self.acc.to_json()),
                           "played": sorted(self.played.items()),
                           "founders": list(self.founders)}, separators=(",", ":"))

    @classmethod
    def load(cls, text: str | None, through: int) -> FitCheckpoint:
        """The stored checkpoint, or an empty one when none is stored or it is not of this format."""
        if text:
            try:
                data = json.loads(text)
                if data.get("format") == _CHECKPOINT_FORMAT:
                    # a checkpoint stored before the scale was anchored has none: they are read again
                    return cls(BTAccumulator.from_json(json.dumps(data["bt"])),
                               {int(e): int(n) for e, n in data["played"]}, through,
                               founders=tuple(int(e) for e in data.get("founders", [])))
            except (ValueError, TypeError, KeyError, AttributeError):
                pass
        return cls(BTAccumulator(), {}, -1)

    def add(self, ids: Sequence[int], places: Sequence[int | None]) -> None:
        """Count a done game (entrant of each seat, place of each seat; a game without places is counted, not rated)."""
        for e in ids:
            self.played[e] = self.played.get(e, 0) + 1
        if all(p is not None for p in places):
            self.acc.add(ids, places)


def _rated_tail(store, ladder_id: int) -> tuple[FitCheckpoint, list[tuple[list[int], list[int | None]]]]:
    """The stored checkpoint, moved forward and saved, and the done games after it (entrants, places).

    What the checkpoint holds (rules §5.4): the ladder's games by id up to ``through``, in whole blocks of
    :data:`CHECKPOINT_BLOCK` games, a block taken once all its games and all earlier ones are final (done,
    failed or not played); the blocks found complete at one look are folded in with one fit
    (``BTAccumulator.fit``: their games' share of the sandwich at the ratings after them). So which games it
    holds, its pair sums, its played counts and its ratings are the same whatever order workers finished
    the games in (the sums are exact: halves and whole numbers); its sandwich too while blocks complete
    one at a time (a runner looks far more often than 1,000 games finish); a look that finds several
    blocks complete at once (the first look at a ladder with games, a runner back after a long stop)
    folds them at one fit, which moves the intervals by less than the accumulator's stated tolerance
    (``league.ratings.bt_incremental``). The done games after it (a block not complete yet, or behind a game still
    pending or running) are added to a copy at each look, never stored. Reads only the games after the
    checkpoint (all of them the first time, :data:`READ_PAGE` at a time)."""
    text, through = store.ladders.fit_checkpoint(ladder_id)
    cp = FitCheckpoint.load(text, through)
    by_version, latest = entrant_index(store.ladders.entrants(ladder_id))
    block: list[Any] = []  # the games after the checkpoint, all final, of a block not complete yet
    rest: list[Any] = []  # from the first game not final on
    after, moved = cp.through, False
    while True:
        page = store.ladders.ladder_games(ladder_id, after_id=max(after, 0), limit=READ_PAGE)
        for g in page:
            if rest or g.status not in _FINAL:
                rest.append(g)
                continue
            block.append(g)
            if len(block) == CHECKPOINT_BLOCK:
                by_version, latest = _known_versions(store, ladder_id, block, by_version, latest)
                for b in block:
                    ids = seat_entrants(b.seats, by_version, latest) if b.status == "done" else None
                    if ids is not None:
                        cp.add(ids, [place for _, _, place in b.seats])
                cp.through, block, moved = g.id, [], True
        if len(page) < READ_PAGE:
            break
        after = page[-1].id
    found = False
    if not cp.founders:
        cp.founders, by_version, latest = _founders(store, ladder_id, by_version, latest)
        found = bool(cp.founders)  # stored once found: never read again
    if moved:
        cp.fitted = anchored(cp.acc.fit(), dict.fromkeys(cp.founders, ANCHOR))  # a newcomer moves no one's scale
    if moved or found:
        store.ladders.save_fit_checkpoint(ladder_id, cp.to_json(), cp.through, or_equal=found)
    rest = block + rest
    by_version, latest = _known_versions(store, ladder_id, rest, by_version, latest)
    done = []
    for g in rest:
        ids = seat_entrants(g.seats, by_version, latest) if g.status == "done" else None
        if ids is not None:
            done.append((ids, [place for _, _, place in g.seats]))
    return cp, done


def _founders(store, ladder_id: int, by_version, latest):
    """``(founders, by_version, latest)``: the entrants (ids, increasing) that played the ladder's first
    :data:`FOUNDER_GAMES` done games, ``()`` while fewer are done (the ladder's scale is then the fit's own:
    every rated entrant's mean is 1500), and the entrant index with their versions entered."""
    first = store.ladders.ladder_games(ladder_id, status=["done"], limit=FOUNDER_GAMES)
    if len(first) < FOUNDER_GAMES:
        return (), by_version, latest
    by_version, latest = _known_versions(store, ladder_id, first, by_version, latest)
    founders: set[int] = set()
    for g in first:
        founders.update(seat_entrants(g.seats, by_version, latest) or ())
    return tuple(sorted(founders)), by_version, latest


def _known_versions(store, ladder_id: int, games: Sequence[Any], by_version, latest):
    """Enter the versions the done ``games`` were played by that have no entrant yet; the index again."""
    missing = {(bot, version) for g in games if g.status == "done" for bot, version, _ in g.seats
               if version is not None and (bot, version) not in by_version}
    if not missing:
        return by_version, latest
    store.ladders.add_played_versions(ladder_id, missing)
    return entrant_index(store.ladders.entrants(ladder_id))


def ladder_fit_and_counts(store, ladder_id: int) -> tuple[MLRatings, dict[int, int]]:
    """The ladder's fit (:func:`ladder_fit`) and ``{entrant id: done games}`` (:func:`played_counts`) in one look."""
    cp, done = _rated_tail(store, ladder_id)
    if not done and cp.fitted is not None:
        return cp.fitted, cp.played
    for ids, places in done:
        cp.add(ids, places)
    return anchored(cp.acc.fit(), dict.fromkeys(cp.founders, ANCHOR)), cp.played


def ladder_fit(store, ladder_id: int) -> MLRatings:
    """The ladder's Bradley-Terry ratings over its whole record (rules §5.4): every done game of every
    epoch, each seat rated as the entrant (bot version) that played it (``game_seats.version``), on the
    ladder's anchored scale (``league.ratings.anchor``: the mean rating of the entrants of its first
    :data:`FOUNDER_GAMES` done games is 1500); ``MLRatings.bots`` are entrant ids. The one place the ladder's fit is made: incrementally, from the
    stored checkpoint and the games after it (:func:`_rated_tail`, ``league.ratings.bt_incremental``): the ratings
    are the full fit's (``league.ratings.ratings_ml.fit_bradley_terry``), the intervals within the accumulator's
    stated tolerance of it."""
    return ladder_fit_and_counts(store, ladder_id)[0]


def played_counts(store, ladder_id: int) -> dict[int, int]:
    """``{entrant id: done games}`` of the ladder: from the fit's checkpoint and the games after it."""
    cp, done = _rated_tail(store, ladder_id)
    for ids, _ in done:
        for e in ids:
            cp.played[e] = cp.played.get(e, 0) + 1
    return cp.played


def match_state(store, ladder_id: int, by_version: Mapping[tuple[int, str], int],
                latest: Mapping[int, int]) -> tuple[MatchState, int]:
    """The matchmaker's state of every table the ladder scheduled, and the largest game id it covers, from the
    store's aggregates (``Ladders.match_aggregates``): the same state as recording the tables one by one
    (``MatchState.from_tables``), each seat as its entrant (the version played, or the bot's latest entrant
    before a claim), without reading the games one by one."""
    agg = store.ladders.match_aggregates(ladder_id)
    state = MatchState(games=agg.games)

    def entrant(bot: int, version: str | None) -> int | None:
        return by_version.get((bot, version)) if version is not None else latest.get(bot)

    for bot, version, seat, n, first, last in agg.seats:
        e = entrant(bot, version)
        if e is None:
            continue
        state.played[e] += n
        state.seat_counts.setdefault(e, Counter())[seat] += n
        state.first_seat[e] = min(state.first_seat.get(e, first), first)
        state.last_seat[e] = max(state.last_seat.get(e, last), last)
    for bot_a, version_a, bot_b, version_b, last in agg.pairs:
        a, b = entrant(bot_a, version_a), entrant(bot_b, version_b)
        if a is None or b is None or a == b:
            continue
        key = pair(a, b)
        state.last_met[key] = max(state.last_met.get(key, last), last)
    for (a, b), last in state.last_met.items():  # by entrant too: the matchmaker's fast reading
        state.met.setdefault(a, {})[b] = last
        state.met.setdefault(b, {})[a] = last
        state.met_bits[a] = state.met_bits.get(a, 0) | 1 << b
        state.met_bits[b] = state.met_bits.get(b, 0) | 1 << a
    for a, row in state.met.items():
        state.met_order[a] = sorted((t, b) for b, t in row.items())
    state.met_pairs = len(state.last_met)
    return state, agg.last_id


# ------------------------------------------------------------------ the runner


def _copy_state(state: MatchState) -> MatchState:
    """A copy of ``state`` that :meth:`MatchState.record` may change (its containers copied one level deep:
    a tenth of ``copy.deepcopy``'s time at 100 entrants), its meetings by entrant included (without them the
    matchmaker reads every pair from ``last_met``: 10 ms a table at 100 entrants)."""
    return MatchState(state.games, Counter(state.played), dict(state.last_met),
                      {e: Counter(c) for e, c in state.seat_counts.items()}, dict(state.first_seat),
                      dict(state.last_seat), {e: dict(m) for e, m in state.met.items()}, state.met_pairs,
                      dict(state.met_bits), {e: list(m) for e, m in state.met_order.items()})


@dataclass
class RefillResult:
    """What one refill did: games added to epoch ``epoch`` (0: none, and why in ``note``)."""

    added: int
    epoch: int | None
    note: str = ""


@dataclass(frozen=True)
class LadderFit:
    """A fit of the ladder as its runner uses it: ``ratings`` (:func:`ladder_fit`), ``counts`` ``{entrant id: done
    games}``, and ``mark``, the ``(through, done)`` of ``Ladders.fit_progress`` it was made at."""

    ratings: MLRatings
    counts: dict[int, int]
    mark: tuple[int, int]


def refit_when_due(store, ladder_id: int, mark: tuple[int, int] | None, refit_every: int = REFIT_EVERY,
                   history_every: int = HISTORY_EVERY) -> LadderFit | None:
    """The ladder's fit made again (:func:`ladder_fit_and_counts`) if none was made yet (``mark`` None), the fit's
    checkpoint moved since ``mark``, or ``refit_every`` more games are done; else None. A new fit after
    ``history_every`` more rated games than the last stored snapshot is stored as a rating snapshot (the
    history, rules §5.4). Reads one count when nothing is due (``Ladders.fit_progress``)."""
    through, done = store.ladders.fit_progress(ladder_id)
    if mark is not None and through == mark[0] and abs(done - mark[1]) < refit_every:
        return None
    fit, counts = ladder_fit_and_counts(store, ladder_id)
    rated = fit.games
    last = store.ladders.last_rating_games(ladder_id)
    if rated > 0 and (last < 0 or rated - last >= history_every):
        store.ladders.add_rating_points(ladder_id, rated, {
            e: (counts.get(e, 0), fit.rating[e], fit.sd(e)) for e in fit.bots})
    return LadderFit(fit, dict(counts), (through, done))


class Refitter(Protocol):
    """Makes the ladder's fit away from the refill (``workers.refit.ProcessRefitter``: in a process of its own),
    so that a refill never waits for one: :meth:`request` asks it to look whether a refit is due
    (:func:`refit_when_due` from ``mark``) unless it is looking already, :meth:`poll` returns the newest fit it
    made since the last poll (None: none), :meth:`close` stops it."""

    def request(self, mark: tuple[int, int] | None) -> None: ...

    def poll(self) -> LadderFit | None: ...

    def close(self) -> None: ...


@dataclass
class LadderRunner:
    """Keeps a ladder's pending games topped up (the module docstring). One per running process; its
    :class:`MatchState` follows the store (every runner's tables), so runners may come and go.

    What a refill needs it keeps itself between refills: the match state (built once from the store's
    aggregates, then game by game), the entrants (read again only when a bot or the count of entrants changed),
    the open epoch's key and the latest fit; the rest (the open epoch, the open tables, the marks, the games
    scheduled since) it reads in two statements (``Ladders.refill_view``) before it appends. With a
    ``refitter`` the fit is made away from the refill, which takes the newest one made (only the very first
    is made in the refill); without one, the refill makes it when due (:meth:`fit`)."""

    store: Any
    ladder_id: int
    window: int | None = None
    state: MatchState = field(default_factory=MatchState)
    refit_every: int = REFIT_EVERY
    refitter: Refitter | None = None
    _seen: int = 0
    _fit: MLRatings | None = None
    _counts: dict[int, int] = field(default_factory=dict)
    _mark: tuple[int, int] | None = None
    _rated: dict[int, tuple[float, float]] = field(default_factory=dict)  # the fit's (rating, sd) by entrant
    _key: tuple[int, bytes] | None = None  # the open epoch's id and key
    _entrants: list[Any] | None = None
    _bots: tuple[Any, ...] = ()  # the bots (``Ladders.bot_lines``), read with the entrants
    _signature: tuple[int, tuple[int, int]] | None = None  # the view's entrants and bots when they were read
    _index: tuple[dict[tuple[int, str], int], dict[int, int]] = field(default_factory=lambda: ({}, {}))  # theirs

    def __post_init__(self) -> None:
        ladder = self.store.ladders.get_ladder(self.ladder_id)
        if ladder is None:
            raise LadderError(f"no ladder with id {self.ladder_id}")
        self.ladder = ladder
        self.settings = LadderSettings.from_config(ladder.config)
        if self.window is None:
            self.window = self.settings.window

    def marked(self, since_epoch: int | None = None) -> dict[int, str]:
        """``{bot id: why}`` of the bots the open epoch marks not answering or suspended: paused (rules §5.3)
        until they answer again (the caller probes them and passes those still down to :meth:`refill`).
        ``since_epoch``: the marks of every epoch from that number on instead (``Ladders.marked_since``), so that
        a caller looking every few seconds also sees a bot marked in an epoch that closed since its last look
        (a bot paused when an epoch closes stays paused in the next one until it answers)."""
        if since_epoch is not None:
            return self.store.ladders.marked_since(self.ladder_id, since_epoch)
        epoch = self.store.ladders.current_epoch(self.ladder_id)
        return self.store.ladders.marked_bots(epoch.id) if epoch is not None else {}

    def fit(self) -> MLRatings:
        """The ladder's fit (:func:`ladder_fit`). Without a refitter: made again once ``refit_every`` more
        games are done (or the checkpoint moved), each new fit after ``history_every`` more rated games stored
        as a rating snapshot (:func:`refit_when_due`). With one: the newest fit it made, and it is asked to
        look again; only a runner with no fit yet makes one here."""
        if self.refitter is None or self._fit is None:
            self._take(refit_when_due(self.store, self.ladder_id, self._mark, self.refit_every,
                                      self.settings.history_every))
        else:
            self._take(self.refitter.poll())
            self.refitter.request(self._mark)
        assert self._fit is not None
        return self._fit

    def _take(self, made: LadderFit | None) -> None:
        if made is not None and (self._mark is None or made.mark >= self._mark):
            self._fit, self._counts, self._mark = made.ratings, made.counts, made.mark
            self._rated = {e: (made.ratings.rating[e], made.ratings.sd(e)) for e in made.ratings.bots}

    def close(self) -> None:
        """Stop the refitter, if any."""
        if self.refitter is not None:
            self.refitter.close()

    def _follow(self, games: Sequence[Any], by_version: Mapping[tuple[int, str], int],
                latest: Mapping[int, int]) -> None:
        """Record in the match state the ladder's ``games`` scheduled since the last look (any runner's, by id)."""
        for g in games:
            if g.id <= self._seen:
                continue
            ids = seat_entrants(g.seats, by_version, latest)
            if ids is not None:
                self.state.record(ids)
            self._seen = g.id

    def _entrants_now(self, view: Any) -> list[Any]:
        """The ladder's entrants: those kept while the count of entrants and the bots' signature read in ``view``
        are what they were when they were read; else brought up to date (``Ladders.sync_entrants``: a read unless
        a bot is to enter or leave), with the bots (their authors, for ``--one-per-author``)."""
        signature = (view.entrants, view.bots)
        if self._entrants is None or signature != self._signature:
            self._bots = tuple(self.store.ladders.bot_lines())
            self._entrants = self.store.ladders.sync_entrants(self.ladder_id)
            self._index = entrant_index(self._entrants)
            self._signature = signature
        return self._entrants

    def refill(self, paused: Collection[int] | None = None, now: datetime | None = None) -> RefillResult:
        """Append tables to the open epoch until about ``window`` games are pending (rules §5.3-5.4).

        ``paused``: bot ids not to seat now (down, suspended: the caller's probe; None: every bot the
        open epoch marks). Entrants are brought up to date first (new bots and versions enter, retired
        bots leave), and the epoch is rotated when due; running version A/B compares are looked at, and
        get up to half of the tables added (``league.competition.compare``, rules §5.5). Returns how many games were added (0 when
        enough are pending, fewer entrants than a table have room, or another runner appended first).
        """
        store, settings = self.store, self.settings
        if self._seen == 0 and self.state.games == 0:  # the first look: the match state from the store's aggregates
            by_version, latest = entrant_index(store.ladders.sync_entrants(self.ladder_id))
            self.state, last = match_state(store, self.ladder_id, by_version, latest)
            self._seen = max(last, 0)
            self.fit()  # and the first fit, made here: the later ones come from the refitter, if any
        view = store.ladders.refill_view(self.ladder_id, self._seen, marked=paused is None)
        if view.epoch_id is None or epoch_due(settings, view.epoch_games, view.epoch_opened_at, now or datetime.now(UTC)):
            current_epoch(store, self.ladder, settings, now)  # opens the next (several runners: once)
            view = store.ladders.refill_view(self.ladder_id, self._seen, marked=paused is None)
        entrants = self._entrants_now(view)
        by_version, latest = self._index
        self._follow(view.new_games, by_version, latest)
        epoch_id, count = view.epoch_id, view.epoch_games
        # version A/B: look, then plan (rules §5.5); a compare against a record is answered from the fit
        compares = plan_compares(store, self.ladder_id, entrants, settings,
                                 fit=lambda: (self.fit(), self._counts)) if view.compares else \
            ComparePlanner([], settings.duplicate)
        if paused is None:
            paused = set(view.marked or {})
        # a table waiting for a paused bot holds up neither the window nor its other bots (rules §5.3)
        pending, open_tables = view.open_tables(paused)
        if pending >= self.window:
            return RefillResult(0, view.epoch, "enough games pending")
        self.fit()
        ready = []
        authors = ({b.id: author_key(b.author, b.name) for b in self._bots if b.retired_at is None}
                   if settings.one_per_author else {})
        for e in entrants:
            if not e.active or e.bot_id in paused:
                continue
            room = e.capacity - open_tables.get(e.bot_id, 0)
            if room < 1:
                continue
            rating, sd = self._rated.get(e.id, (START_RATING, PRIOR_SD_ELO))
            ready.append(Entrant(e.id, rating, sd, room, author=authors.get(e.bot_id)))
        bot_of = {e.id: e.bot_id for e in entrants}
        if self._key is None or self._key[0] != epoch_id:
            self._key = (epoch_id, store.seasons.schedule_key(epoch_id))
        key = self._key[1]
        rng = random.Random(fairness.derive(key, f"ladder-table:{count}"))
        # the tables chosen so far are recorded in a copy of the state before the next is chosen (the state follows
        # the store: the next refill records them once appended); a refill of one table copies nothing
        scratch, unrecorded = self.state, []
        games: list[tuple[int, list[int]]] = []
        groups: list[int] = []
        rooms = {e.id: e.room for e in ready}
        while pending + len(games) < self.window:
            if unrecorded:
                scratch = _copy_state(self.state) if scratch is self.state else scratch
                for seats in unrecorded:
                    scratch.record(list(seats))
                unrecorded = []
            candidates = [Entrant(e.id, e.rating, e.sd, rooms[e.id], author=e.author) for e in ready
                          if rooms[e.id] > 0] if games else ready  # the first table: every entrant has its room
            sizes = [s for s in settings.table_sizes if s <= len(candidates)]
            if not sizes:
                break
            table = compares.table(candidates, sizes, scratch, rng)
            if table is not None and settings.one_per_author and not _apart(table, candidates):
                table = None  # a compare's table of one author's bots is not seated (--one-per-author)
            table = table or choose_table(candidates, rng.choice(sizes), scratch, rng)
            if table is None:
                break
            group = count + len(games)
            order_rng = random.Random(fairness.derive(key, f"rotation-order:{group}")) if settings.duplicate else None
            for seats in (rotations(table, order_rng) if settings.duplicate else [tuple(table)]):
                number = count + len(games)
                games.append((fairness.deal_seed(key, number, group if settings.duplicate else number,
                                                 settings.duplicate), [bot_of[e] for e in seats]))
                groups.append(group if settings.duplicate else number)
                unrecorded.append(seats)
            for e in table:
                rooms[e] -= 1
        if not games:
            return RefillResult(0, view.epoch, f"{len(ready)} entrant(s) with room: no table to seat")
        if not store.ladders.append_games(epoch_id, games, count, groups):
            return RefillResult(0, view.epoch, "another runner appended first")
        return RefillResult(len(games), view.epoch)


# ------------------------------------------------------------------ standings


@dataclass(frozen=True)
class LadderRow:
    """An entrant's line in a ladder's standings (rules §5.4): ``rating`` its Bradley-Terry rating over the
    ladder's whole record with its 95% interval ``low``/``high`` (None before a rated game), ``games`` its
    done games, ``placing`` while it has played fewer than the ladder's placement games, ``latest``: the
    bot's latest version, ``best``: the bot's row in the ranking (its best version,
    ``league.competition.entrants.best_entrants``; no version of a retired bot), ``status`` ``active``,
    ``superseded`` or ``retired``; the luck-adjusted change per game with its interval where the game has
    an estimator (``league.ratings.luck``); ``paused``: why the open epoch marks the bot as not answering (paused
    in the ladder until it answers, rules §5.3), else None. Where the game has luck terms (``GameSpec.luck_terms``),
    the luck audit (``league.integrity.eprocess``) over the ladder's whole life: ``luck_wealth`` the largest value so
    far of the entrant's test martingale, ``luck_bar`` the value that flags it (``1/alpha_k``, the k-th version in
    entry order at ``alpha_k = 1% x 6 / (pi^2 k^2)``), ``audit`` the flag's line (empty when clean)."""

    entrant_id: int
    bot_id: int
    name: str
    version: str
    status: str
    latest: bool
    games: int
    placing: bool
    rating: float | None
    low: float | None
    high: float | None
    luck_change: float | None = None
    luck_low: float | None = None
    luck_high: float | None = None
    paused: str | None = None
    best: bool = False
    luck_wealth: float | None = None
    luck_bar: float | None = None
    audit: tuple[str, ...] = ()
    #: the collusion screen's flag lines among ``audit`` (rules §5.6), each starting with its epoch
    collusion: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"


def ladder_standings(store, ladder_id: int, with_luck: bool = True) -> list[LadderRow]:
    """Every entrant's row: the ranking first (``best``: each bot's best version, best rating first, unrated
    last, then by name), then the bots' other versions, then retired bots' versions. Luck-adjusted changes come from the done games' replays (``with_luck=False``: not read).

    ``audit`` holds the version's integrity flags: the luck audit's (a game with luck terms: one test martingale per
    version over the ladder's life, the k-th version entered at ``ladder_alpha(k)``) and, for a game with a team-play
    scorer, the collusion screen's (``league.integrity.collusion.screen_season``) over each epoch once it is over (closed,
    every game final, its key published): the k-th epoch is screened once, at a family level of
    ``ladder_alpha(k, 1%)``, so the levels of all epochs sum to 1% over the ladder's life (rules §5.6). A line of the
    screen starts with ``epoch N:``; its partners are named ``name@version``."""
    from referee.games import spec

    ladder = store.ladders.get_ladder(ladder_id)
    game = spec(ladder.game)  # the stored game id, resolved once
    settings = LadderSettings.from_config(ladder.config)
    fit, counts = ladder_fit_and_counts(store, ladder_id)
    entrants = store.ladders.entrants(ladder_id)
    by_version, latest = entrant_index(entrants)
    epoch = store.ladders.current_epoch(ladder_id)
    marked = store.ladders.marked_bots(epoch.id) if epoch is not None else {}
    luck = {}
    audits: dict[int, LuckAudit] = {}
    teams: dict[int, list[str]] = {}
    screened = game.team_play is not None
    if with_luck and (game.luck is not None or game.luck_terms is not None or screened):
        seats_of = {(g.season_id, g.number): g.seats for g in store.ladders.ladder_games(ladder_id, status=_DONE)}
        records = []
        units = []
        for k, epoch in enumerate(store.ladders.epochs(ladder_id), start=1):
            finished = store.seasons.finished_at(epoch.id) if game.luck_terms is not None else {}
            over = screened and store.seasons.revealed_key(epoch.id) is not None
            epoch_games = []
            for number, _, record in store.replays.season_records(epoch.id):
                seats = seats_of.get((epoch.id, number))
                ids = seat_entrants(seats, by_version, latest) if seats else None
                if ids is not None:
                    records.append((ids, record))
                    if over:
                        epoch_games.append((number, ids, record))
                    if game.luck_terms is not None and number is not None:
                        try:
                            terms = game.luck_terms(record.events, record.num_seats, record.params)
                        except (ValueError, KeyError, TypeError):
                            continue
                        key = len(units) + 1  # the ladder's games are units of their own (no shared deals)
                        units.append((key, -key, finished.get(number), tuple(ids), terms))
            if over:  # a final epoch, screened once at its own level: the levels of all epochs sum to 1%
                names = {e.id: f"{e.name}@{e.version}" for e in entrants}
                screen = screen_season(collusion_games(game, epoch_games), ladder_alpha(k, COLLUSION_ALPHA))
                for eid, lines in screen.messages(names).items():
                    teams.setdefault(eid, []).extend(f"epoch {epoch.epoch}: {line}" for line in lines)
        if game.luck is not None:
            luck = luck_adjusted_by_bot(game, records)
        if game.luck_terms is not None:
            order = sorted(e.id for e in entrants)  # entry order: the k-th version ever entered at alpha_k
            audits = luck_audit(units_of(units), {eid: ladder_alpha(k) for k, eid in enumerate(order, start=1)})
    best = set(best_entrants(entrants, fit.rating, counts, settings.placement_games).values())
    rows = []
    for e in entrants:
        rated = e.id in fit.rating
        low, high = fit.interval(e.id) if rated else (None, None)
        summary = luck.get(e.id)
        rows.append(LadderRow(e.id, e.bot_id, e.name, e.version,
                              "retired" if e.retired_at else "superseded" if e.superseded_at else "active",
                              latest.get(e.bot_id) == e.id, counts.get(e.id, 0),
                              counts.get(e.id, 0) < settings.placement_games,
                              fit.rating[e.id] if rated else None, low, high,
                              summary.mean if summary else None, summary.low if summary else None,
                              summary.high if summary else None,
                              marked.get(e.bot_id) if not (e.retired_at or e.superseded_at) else None,
                              e.id in best,
                              audits[e.id].max_wealth if e.id in audits else None,
                              1.0 / audits[e.id].alpha if e.id in audits else None,
                              ((audits[e.id].message(),) if e.id in audits and audits[e.id].flagged else ())
                              + tuple(teams.get(e.id, ())), tuple(teams.get(e.id, ()))))
    ranked = {r.bot_id for r in rows if r.best}
    rows.sort(key=lambda r: (not r.best, r.bot_id not in ranked, r.rating is None, -(r.rating or 0.0), r.name,
                             r.entrant_id))
    return rows


def standings_json(rows: Sequence[LadderRow]) -> list[dict[str, Any]]:
    """The rows as JSON: ratings to 0.1, luck to 0.01, the luck audit's wealth to 0.001 and its bar to 0.1."""
    out = []
    for r in rows:
        d = asdict(r)
        for k in ("rating", "low", "high"):
            d[k] = None if d[k] is None else round(d[k], 1)
        for k in ("luck_change", "luck_low", "luck_high"):
            d[k] = None if d[k] is None else round(d[k], 2)
        d["luck_wealth"] = None if d["luck_wealth"] is None else round(d["luck_wealth"], 3)
        d["luck_bar"] = None if d["luck_bar"] is None else round(d["luck_bar"], 1)
        d["audit"] = list(d["audit"])
        d["collusion"] = list(d["collusion"])
        out.append(d)
    return out


# ------------------------------------------------------------------ verification


@dataclass
class EpochCheck:
    """One epoch's verification: ``state`` ``verified``, ``failed``, ``open`` (key still secret) or
    ``playing`` (closed, games still to play); ``lines`` what was found."""

    epoch: int
    name: str
    state: str
    lines: list[str] = field(default_factory=list)


_NAME = re.compile(r"^(.*):epoch-(\d+)$")


class LadderSource(Protocol):
    """Where ``ladder verify`` reads a ladder: the store (:class:`StoreLadder`) or the public API
    (``league.integrity.verify_api.ApiLadder``)."""

    #: what the epochs are verified from (``league.integrity.verify.DealsSource``)
    deals: Any

    def epochs(self) -> Sequence[Any]:
        """The ladder's epochs, first to last: seasons (id, name, commitment, chance_scheme, config) with ``epoch``."""
        ...

    def entries(self, season_id: int) -> Sequence[Entry] | None:
        """An epoch's chain entries in order; None where they are not public (an epoch not over, from the API)."""
        ...

    def over(self, season_id: int) -> bool:
        """Whether the epoch's key is published (closed, every game final)."""
        ...

    def snapshots(self) -> Sequence[tuple[int, int, int, float, float]] | None:
        """The ladder's stored rating snapshots ``(entrant id, games, played, rating, sd)``; None where not public."""
        ...


@dataclass(frozen=True)
class StoreLadder:
    """A :class:`LadderSource` over the store."""

    store: Any
    ladder_id: int

    @property
    def deals(self) -> Any:
        from league.integrity.verify import StoreSource
        return StoreSource(self.store)

    def epochs(self) -> Sequence[Any]:
        return self.store.ladders.epochs(self.ladder_id)

    def entries(self, season_id: int) -> Sequence[Entry] | None:
        return self.store.chain.entries(season_id)

    def over(self, season_id: int) -> bool:
        return self.store.seasons.revealed_key(season_id) is not None

    def snapshots(self) -> Sequence[tuple[int, int, int, float, float]] | None:
        return [(p.entrant_id, p.games, p.played, p.rating, p.sd) for p in self.store.ladders.rating_history(self.ladder_id)]


@dataclass
class LadderChecks:
    """What ``ladder verify`` found beyond each epoch: ``problems`` (heads seen before not in any epoch's chain,
    stored rating snapshots that are not the chained ones) and ``lines`` (what was checked)."""

    problems: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def verify_ladder(store, ladder_id: int, source: LadderSource | None = None) -> list[EpochCheck]:
    """Verify every closed epoch whose games are final with the seasons' verification (``league.integrity.verify``:
    the published key against the commitment, every seed, replay, result and the chain), and that each
    epoch's chain opens with its commitment and then the previous epoch's commitment and chain head,
    before any game (rules §5.1), that head being an entry of the previous epoch's chain where it says (so a
    closed epoch's chain rewritten after the next opened is caught). The open epoch and closed ones still
    playing are listed, not verified. ``source``: where to read (default: ``store``; the API's for --api)."""
    from league.integrity.verify import CannotVerify, verify_season

    source = source or StoreLadder(store, ladder_id)
    checks: list[EpochCheck] = []
    previous, previous_entries = None, None
    for epoch in source.epochs():
        check = EpochCheck(epoch.epoch, epoch.name, "open")
        chain = source.entries(epoch.id)
        entries = [json.loads(e.entry) for e in chain[:2]] if chain is not None else None
        problems = []
        if entries is None:
            pass  # not public yet (from the API): listed below as open or playing
        elif len(entries) < 2 or entries[0]["kind"] != "season" or entries[1]["kind"] != "epoch":
            problems.append("its chain does not open with its commitment and the epoch entry")
        else:
            if entries[0].get("commitment") != epoch.commitment:
                problems.append(f"chain entry 0 commits to {entries[0].get('commitment')}, the epoch to "
                                f"{epoch.commitment}")
            before = entries[1].get("previous") or {}
            want = None if previous is None else previous.commitment
            if before.get("commitment") != want:
                problems.append(f"its epoch entry names the previous commitment {before.get('commitment')}, "
                                f"the previous epoch's is {want}")
            problems += _previous_head(before, previous, previous_entries)
        closed = (epoch.config or {}).get("ladder_epoch", {}).get("closed", False)
        if problems:
            check.state, check.lines = "failed", problems
        elif not closed:
            check.lines = [f"open: its commitment {epoch.commitment} is published; its key is shown once it "
                           "closes and its games are final"]
        elif not source.over(epoch.id):
            check.state, check.lines = "playing", ["closed; games still to play: its key is not published yet"]
        else:
            try:
                report = verify_season(source.deals, epoch)
            except CannotVerify as exc:
                check.state, check.lines = "failed", [str(exc)]
            else:
                check.state = "verified" if report.ok else "failed"
                check.lines = report.lines()
        checks.append(check)
        previous, previous_entries = epoch, chain
    return checks


def _previous_head(before: Mapping[str, Any], previous: Any, entries: Sequence[Entry] | None) -> list[str]:
    """The previous epoch's chain head an epoch entry names must be the hash of the previous chain's entry it counts."""
    if previous is None or entries is None or "chain_head" not in before:
        return []
    head, length = before.get("chain_head"), before.get("chain_length") or 0
    if head is None and length == 0:
        return []
    if 0 < length <= len(entries) and entries[length - 1].hash == head:
        return []
    return [f"its epoch entry names epoch {previous.epoch}'s chain head {head} after {length} entries, which is not "
            f"in that epoch's chain of {len(entries)} entries: it was rewritten after this epoch opened"]


def verify_ladder_chains(store, ladder_id: int, heads: Sequence[str] = (),
                         source: LadderSource | None = None) -> LadderChecks:
    """The ladder-wide checks of ``ladder verify``: every chain head seen before (``--head``) is an entry of one of
    the ladder's epoch chains (each epoch names the one before's head, so the newest head seen covers them all),
    and the stored rating snapshots are those the epochs' chains hold (entries of kind ``ratings``): each chained
    point stored as chained, each stored point from the first chained snapshot on chained."""
    source = source or StoreLadder(store, ladder_id)
    found = LadderChecks()
    chains = [source.entries(e.id) for e in source.epochs()]
    hashes = {e.hash for chain in chains if chain is not None for e in chain}
    for seen in heads:
        seen = seen.strip().lower()
        if seen not in hashes:
            found.problems.append(f"chain: the head {seen} seen before is in no epoch's chain of the ladder "
                                  f"({len(hashes)} entries): a chain was rewritten after it was shown")
    if heads:
        found.lines.append(f"{len(heads) - len(found.problems)} of {len(heads)} chain head(s) seen before found")
    chained: dict[tuple[int, int], tuple[int, float, float]] = {}
    for chain in chains:
        for e in chain or ():
            if e.kind == "ratings":
                data = json.loads(e.entry)
                for entrant, played, rating, sd in data["points"]:
                    chained[(entrant, data["games"])] = (played, rating, sd)
    stored = source.snapshots()
    if stored is None:
        found.lines.append("rating snapshots: not checked (not public)")
        return found
    now = {(e, g): (p, r, sd) for e, g, p, r, sd in stored}
    first = min((g for _, g in chained), default=None)
    for key in sorted(set(chained) | set(now)):
        entrant, games = key
        if key not in now:
            found.problems.append(f"ratings: entrant {entrant}'s snapshot after {games} rated games is chained "
                                  f"{chained[key]}, and no longer stored")
        elif key not in chained:
            if first is not None and games >= first:
                found.problems.append(f"ratings: entrant {entrant}'s stored snapshot after {games} rated games "
                                      f"{now[key]} is in no chain entry")
        elif now[key] != chained[key]:
            found.problems.append(f"ratings: entrant {entrant}'s stored snapshot after {games} rated games "
                                  f"(games, rating, sd) is {now[key]}, chained as {chained[key]}")
    before = sum(1 for _, g in now if first is None or g < first)
    found.lines.append(f"rating snapshots: {len(now) - before} stored point(s) checked against the chain"
                       + (f"; {before} from before the chain held them, not checked" if before else ""))
    return found
