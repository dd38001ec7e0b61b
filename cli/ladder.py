"""``cardarena ladder``: create, run, list, verify ladders and show their standings (rules §5)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from cli import options
from cli.common import DbOption, console, db_url, err_console, fail, open_db, raise_if_stopped
from cli.progress import OutageLines
from referee.games import names_text

app = typer.Typer(help="Always-on ladders: every active bot of the game takes part; new versions place as new entrants.",
                  no_args_is_help=True, rich_markup_mode=None)

#: Seconds between two health checks of the bots a ladder's open epoch marks down (a paused bot comes back
#: when one answers, rules §5.3); between two refills while games are being played.
PROBE_EVERY_S = 2.0
REFILL_EVERY_S = 0.5


def no_ladder(name: str, db: str | None):  # -> NoReturn
    from store.db import describe_url

    fail(f"no ladder named {name!r} in {describe_url(db_url(db))} (see: cardarena ladder list --db URL)")


@app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="Ladder name (unique among ladders and seasons).")],
    game: Annotated[str, typer.Option(help=f"{names_text()}.")],
    tables: options.Tables = "3,4",
    duplicate: options.Duplicate = False,
    one_per_author: options.OnePerAuthor = False,
    param: options.Param = [],
    deadline: options.Deadline = 1.0,
    time_bank: options.TimeBank = 10.0,
    budget: options.Budget = None,
    suspend_after: options.SuspendAfter = 600.0,
    epoch_games: Annotated[int, typer.Option(
        help="Games after which an epoch closes (its key is published once they are all played) and the next "
             "opens with a new key.")] = 1000,
    epoch_seconds: Annotated[float, typer.Option(help="Seconds after which an epoch closes, whatever its games.")] = 86400.0,
    pending: Annotated[int, typer.Option(help="Games the ladder keeps pending (scheduled ahead of play; a bot's capacity bounds its share).")] = 8,
    db: DbOption = None,
) -> None:
    """Create a ladder and open its first epoch (its commitment is published now). Every active bot
    registered for the game takes part, with no further step; `bot retire` takes one out."""
    from cli.season import parse_ints, parse_params
    from league.competition.ladder import LadderError, create_ladder
    from store import StoreError

    game_spec = options.game_spec(game)  # the game id resolved once: what follows takes the GameSpec
    tc = options.time_control(game_spec, deadline, time_bank, budget)
    store = open_db(db)
    try:
        lid = create_ladder(store, name, game_spec, parse_ints(tables, "--tables"), duplicate=duplicate,
                            params=parse_params(param), time_control=tc, suspend_after_s=suspend_after,
                            epoch_games=epoch_games, epoch_seconds=epoch_seconds, window=pending,
                            one_per_author=one_per_author)
    except (LadderError, StoreError) as exc:
        fail(str(exc), 2)
    ladder = store.ladders.get_ladder(lid)
    entrants = store.ladders.sync_entrants(lid)
    epoch = store.ladders.current_epoch(lid)
    console.print(f"ladder [bold]{escape(name)}[/] created for {ladder.game}: {len(entrants)} entrant(s) now "
                  f"(every active bot registered for {ladder.game}); epoch 1 open", highlight=False)
    console.print(f"deals: secret; epoch 1 commitment {epoch.commitment} (SHA-256 of the epoch key and its chance "
                  "scheme; the key is published when the epoch closes and its games are played: "
                  f"cardarena ladder verify {name})", highlight=False, markup=False)


@dataclass
class Feed:
    """What ``ladder run`` does between games: refill the ladder (``league.competition.ladder.LadderRunner``), pausing
    the bots the open epoch marks down until one answers its health check again (rules §5.3), until
    ``games`` games of this run are final (None: no bound)."""

    store: Any
    ladder_id: int
    games: int | None
    #: the store's URL: the ladder's fit is made in a process of its own that opens it (``workers.refit``);
    #: None (or an in-memory SQLite store): in the refill, when due
    db_url: str | None = None
    runner: Any = None
    start: int = 0
    _paused: dict[int, str] = field(default_factory=dict)
    _next_probe: float = 0.0
    _epoch_seen: int = 0  # the epoch open at the last probe: marks are read from it on
    _next_refill: float = 0.0
    _last_id: int = 0
    _waiting: bool = False
    outages: OutageLines = field(default_factory=OutageLines)
    say: Callable[[str], None] = lambda line: console.print(line, highlight=False, markup=False)

    def __post_init__(self) -> None:
        from league.competition.ladder import LadderRunner

        self.runner = LadderRunner(self.store, self.ladder_id)
        if self.db_url and ":memory:" not in self.db_url and self.db_url.rstrip("/") not in ("sqlite:", "sqlite:/"):
            from workers.refit import ProcessRefitter

            self.runner.refitter = ProcessRefitter(self.db_url, self.ladder_id, self.runner.refit_every,
                                                   self.runner.settings.history_every)
        self.start = self.final()

    def close(self) -> None:
        """Stop the runner's fitting process, if any."""
        self.runner.close()

    def final(self) -> int:
        p = self.store.ladders.ladder_progress(self.ladder_id)
        return p["done"] + p["failed"] + p["not_played"]

    def played(self) -> int:
        """Games of the ladder that became final since this run started."""
        return self.final() - self.start

    def bounded(self) -> bool:
        return self.games is not None and self.played() >= self.games

    def paused(self) -> set[int]:
        """The bots the open epoch marks down that still do not answer (asked every PROBE_EVERY_S)."""
        now = time.monotonic()
        if now < self._next_probe:
            return set(self._paused)
        self._next_probe = now + PROBE_EVERY_S
        # the marks of every epoch opened since the last look (the open one, and any that closed in between),
        # and the bots paused before: a bot down at an epoch's change stays paused in the next epoch until it
        # answers (rules §5.3), instead of being seated there again
        open_now = self.store.ladders.current_epoch(self.ladder_id)
        marked = {**self._paused, **self.runner.marked(since_epoch=self._epoch_seen)}
        if open_now is not None and open_now.epoch is not None:
            self._epoch_seen = open_now.epoch
        if not marked:
            return set()
        from store import SeatBot
        from workers.service import health_cache

        bots = [b for b in (self.store.bots.get_bot(bot_id) for bot_id in marked) if b is not None and b.retired_at is None]
        down = health_cache().problems([SeatBot(0, b.id, b.name, b.endpoint, b.capacity) for b in bots])
        names = {b.id: b.name for b in bots}
        for bot_id in set(self._paused) - set(down):
            name = str(names.get(bot_id, bot_id))
            self._say(self.outages.back(name, f"{name} answers again: back in the ladder"))
        for bot_id in set(down) - set(self._paused):
            name = str(names.get(bot_id, bot_id))
            self._say(self.outages.down(
                name, f"{name} is down ({down[bot_id]}): paused in the ladder until it answers", down[bot_id]))
        self._paused = dict(down)
        return set(down)

    def _say(self, line: str | None) -> None:
        if line is not None:
            self.say(line)

    def summary(self) -> None:
        """At the end of the run: a last look at the bots the ladder marks down (one marked after the last probe is
        said now, not left out of the run's output), then one line per bot that kept going down
        (:class:`cli.progress.OutageLines`)."""
        self._next_probe = 0.0
        self.paused()
        for line in self.outages.summary():
            self.say(line)

    def refill(self, force: bool = False) -> bool:
        """Top the ladder up unless this run's games are reached; False once it adds no more."""
        if self.bounded():
            return False
        now = time.monotonic()
        if force or now >= self._next_refill:
            self._next_refill = now + REFILL_EVERY_S
            result = self.runner.refill(paused=self.paused())
            waiting = result.added == 0 and "no table to seat" in result.note
            if waiting and not self._waiting and not self.store.ladders.ladder_progress(self.ladder_id)["pending"]:
                self.say(f"waiting: {result.note} (a bot registered for the game, or one answering again, joins)")
            self._waiting = waiting
        return True

    def new_pending(self) -> list[int] | None:
        """For the local pool (``workers.local.iter_local``): the pending games not handed out yet, or None
        once the run adds no more."""
        if not self.refill():
            return None
        from store import GameStatus

        games = self.store.ladders.ladder_games(self.ladder_id, after_id=self._last_id, status=[GameStatus.PENDING])
        if games:
            self._last_id = games[-1].id
        return [g.id for g in games]


@dataclass
class LadderScope:
    """A ladder's games for the Celery follower (``workers.follower.FollowScope``): all its epochs, refilled at
    every tick by the :class:`Feed`."""

    store: Any
    ladder_id: int
    feed: Feed

    def pending_attempts(self) -> dict[int, int]:
        return self.store.ladders.pending_attempts(self.ladder_id)

    def progress(self) -> dict[str, int]:
        return self.store.ladders.ladder_progress(self.ladder_id)

    def pending_deferrals(self) -> dict[int, int]:
        return self.store.ladders.pending_deferrals(self.ladder_id)

    def games(self, status, limit: int) -> list:
        out: list = []
        for epoch in self.store.ladders.epochs(self.ladder_id):
            out += self.store.game_reads.list_games(epoch.id, status=status, limit=limit - len(out))
            if len(out) >= limit:
                break
        return out

    def refill(self) -> None:
        self.feed.refill()

    def next_batch(self) -> bool:
        """Nothing pending or running: go on (waiting for entrants if need be) until the run's games are reached."""
        return self.feed.refill(force=True)


@app.command("run")
def run(
    name: Annotated[str, typer.Argument(help="Ladder name.")],
    workers: Annotated[int | None, typer.Option(
        help="Local worker processes (default: one per core), each refereeing CARDARENA_GAMES_PER_PROCESS games at once.",
        min=1)] = None,
    broker: Annotated[str | None, typer.Option(
        help="Run on Celery workers behind this broker (redis://host:6379/0) instead of the local pool.")] = None,
    games: Annotated[int | None, typer.Option(
        help="Stop adding games once this many games of this run are final, and end when the games already "
             "scheduled are played (tests, benchmarks). Default: run until stopped.", min=1)] = None,
    window: Annotated[int, typer.Option(help="With --broker: games kept waiting in the broker queue.", min=1)] = 32,
    stall_timeout: Annotated[float, typer.Option(
        help="With --broker: seconds without progress before giving up and saying which games are stuck.",
        min=1)] = 120.0,
    db: DbOption = None,
) -> None:
    """Run the ladder: keep its games scheduled and played, on the local pool or on Celery workers.

    Long-running: Ctrl-C or SIGTERM stop it cleanly (the games running are released) and a new run
    resumes; several runners of one ladder are safe. Entrants join, change version and leave while it
    runs; a bot that does not answer is paused until it does (rules §5.3)."""
    import shlex

    from cli.progress import open_ended_bar, resumable
    from workers.sweeper import sweep

    store = open_db(db, existing=True)
    ladder = store.ladders.get_ladder_by_name(name)
    if ladder is None:
        no_ladder(name, db)
    feed = Feed(store, ladder.id, games, db_url(db))
    resume = shlex.join(["cardarena", "ladder", "run", name, *(["--db", db] if db else []),
                         *(["--broker", broker] if broker else [])])
    progress_of = lambda: store.ladders.ladder_progress(ladder.id)  # noqa: E731
    description = f"ladder {name}"
    with closing(feed), resumable(progress_of, resume, "the ladder"), open_ended_bar(games) as progress_bar:
        # the games played so far and those in flight: no total to reach without --games (never a "25/25")
        task = progress_bar.add_task(description, total=games, in_flight=0)

        def show() -> None:
            raise_if_stopped()
            played = feed.played()
            in_flight = store.ladders.ladder_progress(ladder.id)["running"]
            progress_bar.update(task, completed=played, total=None if games is None else max(games, played),
                                in_flight=in_flight)

        if broker:
            from workers.celery_app import configure
            from workers.follower import BrokerUnreachable, SeasonFollower, SeasonStuck

            epoch = store.ladders.current_epoch(ladder.id)
            follower = SeasonFollower(store, configure(broker), epoch.id, window=window, stall_s=stall_timeout,
                                      scope=LadderScope(store, ladder.id, feed))
            try:
                follower.check_broker()
                follower.run(lambda _p: show())
            except BrokerUnreachable as exc:
                fail(f"{exc} (is redis-server running there? `cardarena worker` uses the same --broker)")
            except SeasonStuck as exc:
                err_console.print(str(exc).replace("season stuck", "ladder stuck"), highlight=False, markup=False)
                fail(f"ladder {name!r} is stuck (see above)")
        else:
            from config import get_settings
            from workers.local import iter_local

            sweep(store)  # games left running by a run that was killed: pending again once their lease ran out
            for _ in iter_local(db_url(db), [], workers, get_settings().lease_s, on_tick=raise_if_stopped,
                                refill=feed.new_pending):
                show()
        show()
    feed.summary()
    p = store.ladders.ladder_progress(ladder.id)
    console.print(f"{feed.played()} game(s) of ladder {escape(name)} final in this run; in all {p['done']} done, "
                  f"{p['failed']} failed, {p['not_played']} not played, {p['pending']} pending", highlight=False)
    print_standings(store, ladder)


def print_standings(store, ladder) -> None:
    from league.competition.ladder import ladder_standings
    from referee.games import spec

    rows = ladder_standings(store, ladder.id)
    luck = any(r.luck_change is not None for r in rows)
    table = Table(title=f"{escape(ladder.name)} ({ladder.game}) ladder")
    for col in ("#", "bot", "version", "games", "rating [95%]", *(("luck-adjusted [95%]",) if luck else ()), "status"):
        table.add_column(col, justify="left" if col in ("bot", "version", "status") else "right")
    ranked = [r for r in rows if r.best]  # a row per bot not retired: its best version, its others under it
    for i, r in enumerate(ranked, 1):
        table.add_row(str(i), escape(r.name), escape(r.version), str(r.games), _rating(r),
                      *((_luck(r),) if luck else ()), _status(r, ladder) + ("" if r.latest else "; best version"))
        for o in sorted((o for o in rows if o.bot_id == r.bot_id and not o.best), key=lambda o: -o.entrant_id):
            table.add_row("", f"  └ {escape(o.name)}", escape(o.version), str(o.games), _rating(o),
                          *((_luck(o),) if luck else ()), _status(o, ladder) + ("; plays now" if o.latest else ""))
    console.print(table)
    bots = {r.bot_id for r in ranked}
    retired = [r for r in rows if r.bot_id not in bots]
    if retired:
        console.print("Retired (unranked, record kept): " + "; ".join(
            f"{r.label} {_rating(r)} in {r.games} games" for r in retired), highlight=False, markup=False)
    console.print("A bot is ranked by its best version (the best rated that has finished placing); its other versions "
                  "are listed under it.", highlight=False)
    if luck:
        console.print(f"Luck-adjusted: mean {spec(ladder.game).score_unit} change per game less the luck of the cards "
                      "(unbiased), with its 95% interval.", highlight=False)
    for line in ladder_audit_lines(rows):
        console.print(line, highlight=False, markup=False)
    console.print("Games: a bot is seated in no more tables at once than the capacity it declares, so a bot of smaller "
                  "capacity plays fewer games (its rating is not lowered for it, its interval is wider).", highlight=False)
    console.print("Rating: maximum-likelihood Bradley-Terry over the ladder's whole record (Elo scale, 95% interval); "
                  "each bot version is an entrant of its own (rules §5.2).", highlight=False)
    for c in store.compares.list_compares(ladder.id)[:5]:  # version A/B, newest first (rules §5.5)
        console.print(f"A/B #{c.id}: {compare_line(c)}", highlight=False, markup=False)


def ladder_audit_lines(rows) -> list[str]:
    """The integrity audits of a ladder: the luck audit of a game with luck terms (``league.integrity.eprocess``), a
    line per flagged version or one line saying none is; then the collusion screen's flags of the epochs that are
    over (``league.integrity.collusion``, rules §5.6), a line each. Nothing for a game with neither."""
    out = []
    audited = [r for r in rows if r.luck_wealth is not None]
    flagged = [(r, line) for r in audited for line in r.audit if line not in r.collusion]
    if audited and not flagged:
        top = max(audited, key=lambda r: r.luck_wealth / r.luck_bar)
        out.append(f"Luck audit: no version's luck test martingale reached its bar (closest {top.label}: "
                   f"{top.luck_wealth:.3g} of {top.luck_bar:.3g}; anytime-valid, 1% family-wise false-alarm rate "
                   "over the ladder's whole life; docs/fair-play.md, The luck audit).")
    elif flagged:
        out += [f"Luck audit FLAG: {r.label}: {line}" for r, line in flagged] + [
            "Luck audit: a flag means the version won on chance cards nobody had seen far more than chance allows: "
            "it knew them (memory, a leak or a predicted seed) (1% family-wise false-alarm rate over the ladder's "
            "whole life)."]
    teams = [(r, line) for r in rows for line in r.collusion]
    if teams:
        out += [f"Collusion screen FLAG: {r.label}: {line}" for r, line in teams] + [
            "Collusion screen: each epoch is screened once it is over (the k-th at 1% x 6/(pi^2 k^2), so 1% "
            "family-wise over the ladder's whole life); docs/fair-play.md, Colluding bots."]
    return out


def _rating(r) -> str:
    return "-" if r.rating is None else f"{r.rating:.0f} [{r.low:.0f}, {r.high:.0f}]"


def _luck(r) -> str:
    if r.luck_change is None:
        return "-"
    return f"{r.luck_change:+.1f}" if r.luck_low is None else f"{r.luck_change:+.1f} [{r.luck_low:+.1f}, {r.luck_high:+.1f}]"


def _status(r, ladder) -> str:
    if r.status != "active":
        return r.status
    placed = f"placing: {r.games} games" if r.placing else "placed"
    return f"{placed}; paused: not answering" if r.paused else placed


@app.command("standings")
def standings(
    name: Annotated[str, typer.Argument(help="Ladder name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    db: DbOption = None,
) -> None:
    """Print a ladder's standings: each bot not retired, ranked by its best version's rating over the ladder's
    whole record, with its 95% interval, games, luck-adjusted score where the game has an estimator, and placing
    status; its other versions under it; retired bots unranked, their record kept."""
    store = open_db(db, read_only=True)
    ladder = store.ladders.get_ladder_by_name(name)
    if ladder is None:
        no_ladder(name, db)
    if as_json:
        from league.competition.ladder import ladder_standings, standings_json

        epoch = store.ladders.current_epoch(ladder.id)
        rows = ladder_standings(store, ladder.id)
        history = {}
        for point in store.ladders.rating_history(ladder.id):
            history.setdefault(point.entrant_id, []).append(
                {"games": point.games, "played": point.played, "rating": round(point.rating, 1),
                 "sd": round(point.sd, 1)})
        print(json.dumps({"ladder": ladder.name, "game": ladder.game, "config": ladder.config,
                          "progress": store.ladders.ladder_progress(ladder.id),
                          "epoch": {"number": epoch.epoch, "commitment": epoch.commitment} if epoch else None,
                          "standings": [{**row, "history": history.get(row["entrant_id"], [])}
                                        for row in standings_json(rows)],
                          "compares": [c.as_json() for c in store.compares.list_compares(ladder.id)]}, indent=2))
    else:
        print_standings(store, ladder)


@app.command("list")
def list_ladders(db: DbOption = None) -> None:
    """List ladders with their entrants, epoch and games (reads the store; never changes it)."""
    store = open_db(db, read_only=True)
    table = Table("ladder", "game", "bots", "epoch", "done", "pending", "running", "failed", "not played")
    for ladder in store.ladders.list_ladders():
        p = store.ladders.ladder_progress(ladder.id)
        epoch = store.ladders.current_epoch(ladder.id)
        active = sum(1 for e in store.ladders.entrants(ladder.id) if e.active)
        table.add_row(escape(ladder.name), ladder.game, str(active), str(epoch.epoch if epoch else "-"),
                      *(str(p[k]) for k in ("done", "pending", "running", "failed", "not_played")))
    console.print(table)


@app.command("verify")
def verify(
    name: Annotated[str, typer.Argument(help="Ladder name.")],
    head: Annotated[list[str] | None, typer.Option(
        "--head", help="A chain head seen before (64 hex digits, of any epoch: the ladder page or the API); an "
                       "epoch's chain must hold it. Repeat for several, or give a file of them with --heads.")] = None,
    heads: Annotated[Path | None, typer.Option(
        "--heads", help="A file of chain heads seen before, one per line (blank lines and # comments skipped).",
        exists=True, dir_okay=False)] = None,
    api: Annotated[str | None, typer.Option(
        "--api", help="Verify from a dashboard's public JSON API at this address (e.g. http://host:8000) instead of "
                      "the store: anyone can; the rating snapshots are not checked (not all public), no --db.")] = None,
    db: DbOption = None,
) -> None:
    """Check every closed epoch whose games are all played as `season verify` checks a season (the published
    key against its commitment, every seed, replay, result and the chain), that every epoch's chain
    opens with its commitment and the previous epoch's commitment and chain head (an entry of that epoch's
    chain), before any game, that the chain heads seen before (--head) are in the ladder's chains, and that
    the stored rating snapshots are the chained ones. Exit 0 when all verify, 1 otherwise."""
    from cli.season import heads_seen
    from league.competition.ladder import verify_ladder, verify_ladder_chains
    from league.integrity.verify import CannotVerify
    from league.integrity.verify_api import ApiError, ApiLadder, ApiSource

    seen = heads_seen(head, heads)
    if api is not None:
        if db:
            fail("--api verifies from the public API alone, without --db", 2)
        try:
            source = ApiLadder(ApiSource(api), name)
            checks = verify_ladder(None, 0, source)
            chains = verify_ladder_chains(None, 0, seen, source)
        except (ApiError, CannotVerify) as exc:
            fail(str(exc))
        console.print(f"from {api}: the ladder's epochs, each over epoch's key, games, replays and chain",
                      highlight=False, markup=False)
    else:
        store = open_db(db, existing=True)
        ladder = store.ladders.get_ladder_by_name(name)
        if ladder is None:
            no_ladder(name, db)
        checks = verify_ladder(store, ladder.id)
        chains = verify_ladder_chains(store, ladder.id, seen)
    for check in checks:
        console.print(f"epoch {check.epoch} ({check.name}): {check.state}", highlight=False, markup=False)
        for line in check.lines:
            console.print(f"  {line}", highlight=False, markup=False)
    for line in chains.lines:
        console.print(line, highlight=False, markup=False)
    for problem in chains.problems:
        console.print(f"MISMATCH {problem}", highlight=False, markup=False)
    verified = sum(c.state == "verified" for c in checks)
    failed = [c.epoch for c in checks if c.state == "failed"]
    console.print(f"{verified} epoch(s) verified, {len(failed)} failed, "
                  f"{len(checks) - verified - len(failed)} not verifiable yet (open or still playing)", highlight=False)
    if failed or chains.problems:
        raise typer.Exit(1)


# ------------------------------------------------------------------ version A/B (rules §5.5)


def compare_line(c) -> str:
    """One compare in words: the verdict, the games used and the estimate with its 95% interval."""
    estimate = ("no estimate yet (both versions need a result)" if c.difference is None else
                f"candidate - base {c.difference:+.0f} Elo [{c.low:+.0f}, {c.high:+.0f}] (95%)")
    why = f" ({c.state['why']})" if c.state.get("why") else ""
    what = {"running": f"running: {c.games} game(s) so far", "stopped": f"stopped after {c.games} game(s){why}",
            "replaced": f"replaced after {c.games} game(s){why}"}.get(c.status, f"{c.verdict} in {c.games} game(s)")
    if c.against_record:
        return (f"{c.candidate} against the record of {c.base} ({c.state.get('record_games', 0)} game(s)): {what} "
                f"(the candidate's rated games); {estimate}")
    return f"{c.candidate} against {c.base}: {what}; {estimate}"


#: What a compare against a record is, in words (rules §5.5).
RECORD_NOTE = ("against a record: no tables seat both; the answer comes from the ladder's ratings of the two "
               "versions, compared through common opponents over different periods. Opponents may have changed "
               "since the base played, so this is weaker evidence than a live compare (head to head on the same "
               "deals) and a changed field can bias it.")


def print_compare(c) -> None:
    console.print(f"compare #{c.id}: {c.candidate} (candidate) against {c.base} (base), zone +-{c.delta:g} Elo, "
                  f"confidence {c.confidence:.1%}, at most {c.max_games} games"
                  + ("; follows the candidate's next versions" if c.follow else ""), highlight=False, markup=False)
    console.print(compare_line(c), highlight=False, markup=False)
    if c.against_record:
        console.print(RECORD_NOTE, highlight=False, markup=False)


@app.command("compare")
def compare(
    name: Annotated[str, typer.Argument(help="Ladder name.")],
    base: Annotated[str, typer.Argument(
        help="The base entrant: BOT or BOT@VERSION (the version the bot serves now), or BOT@VERSION of a version "
             "no longer played with enough rated games: a compare against its record, from the ladder's ratings.")],
    candidate: Annotated[str, typer.Argument(
        help="The candidate entrant, tested against the base: BOT or BOT@VERSION. An endpoint serves one version at "
             "a time, so the two are two registered bots (mybot serving 1.0, mybot-next serving 1.1).")],
    delta: Annotated[float, typer.Option(
        help="The indifference zone, Elo points: the answer is 'better' or 'worse' by at least this much, or "
             "'within the zone'.")] = 50.0,
    confidence: Annotated[float, typer.Option(
        help="1 - the error rate of each wrong answer (above 0.5, below 1).")] = 0.975,
    max_games: Annotated[int, typer.Option(help="The most games the compare uses; undecided then, it ends "
                                                "'budget'.")] = 5000,
    auto: Annotated[bool, typer.Option(
        "--auto", help="Follow the candidate's bot: each new version it declares (Describe or `bot update "
                       "--version`) starts a compare of that version against the base bot's version of the moment.")
    ] = False,
    new: Annotated[bool, typer.Option("--new", help="Start a new compare even if these two entrants have one.")] = False,
    wait: Annotated[bool, typer.Option(
        "--wait", help="Wait until the compare is decided (`ladder run` plays its games), then print the verdict.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
    db: DbOption = None,
) -> None:
    """Test a new version of a bot against its base on the ladder (rules §5.5): tables seating both, duplicate
    deals where the ladder has them, until the sequential test answers 'better', 'worse' or 'within the zone'.
    A base no longer played (BOT@1.0 after BOT declared 1.1) is compared through its record instead: the
    ladder's ratings of the two, weaker evidence than a live compare.

    Starts the compare (or shows the one these two entrants have); `ladder run` schedules its tables and
    stores the verdict. Compare games are ordinary rated ladder games."""
    from league.competition.compare import CompareError, resolve_entrant, start_compare
    from league.competition.ladder import ladder_fit_and_counts

    store = open_db(db, existing=True)
    ladder = store.ladders.get_ladder_by_name(name)
    if ladder is None:
        no_ladder(name, db)
    try:
        entrants = store.ladders.sync_entrants(ladder.id)
        pair = (resolve_entrant(store, ladder, entrants, base, record=True).id,
                resolve_entrant(store, ladder, entrants, candidate).id)
        have = [c for c in store.compares.list_compares(ladder.id)
                if (c.base_entrant_id, c.candidate_entrant_id) == pair and (c.follow or not auto)]
        if have and not new:
            cid = have[0].id
        else:
            cid = start_compare(store, ladder.id, base, candidate, delta=delta, confidence=confidence,
                                max_games=max_games, follow=auto,
                                fit=lambda: ladder_fit_and_counts(store, ladder.id))
    except CompareError as exc:
        fail(str(exc), 2)
    c = store.compares.get_compare(cid)
    if wait:
        while c.running:
            time.sleep(REFILL_EVERY_S * 2)
            c = store.compares.get_compare(cid)
    if as_json:
        print(json.dumps(c.as_json(), indent=2))
        return
    if have and not new:
        console.print(f"(these two entrants have compare #{c.id} already; --new starts another)", highlight=False,
                      markup=False)
    print_compare(c)
    if c.running and not wait:
        played = ("it has no tables of its own: the candidate plays ordinary tables of" if c.against_record
                  else "its tables are played by")
        console.print(f"{played} `cardarena ladder run {name}`; `cardarena ladder compares {name}` "
                      "lists every compare", highlight=False, markup=False)


@app.command("compares")
def compares(
    name: Annotated[str, typer.Argument(help="Ladder name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    db: DbOption = None,
) -> None:
    """List a ladder's version A/B compares, newest first: the two entrants, the verdict, the games used and
    the estimate of the difference with its 95% interval (rules §5.5)."""
    store = open_db(db, read_only=True)
    ladder = store.ladders.get_ladder_by_name(name)
    if ladder is None:
        no_ladder(name, db)
    rows = store.compares.list_compares(ladder.id)
    if as_json:
        print(json.dumps({"ladder": ladder.name, "compares": [c.as_json() for c in rows]}, indent=2))
        return
    table = Table("#", "candidate", "base", "zone", "verdict", "games", "candidate - base [95%]", "auto",
                  title=f"{escape(ladder.name)}: version A/B")
    for c in rows:
        estimate = "-" if c.difference is None else f"{c.difference:+.0f} [{c.low:+.0f}, {c.high:+.0f}]"
        base = f"{c.base} (its record)" if c.against_record else c.base
        table.add_row(str(c.id), escape(c.candidate), escape(base), f"+-{c.delta:g}", c.verdict, str(c.games),
                      estimate, "yes" if c.follow else "")
    console.print(table)
    if any(c.against_record for c in rows):
        console.print("(its record): " + RECORD_NOTE, highlight=False, markup=False)


@app.command("compare-stop")
def compare_stop(
    name: Annotated[str, typer.Argument(help="Ladder name.")],
    compare_id: Annotated[int, typer.Argument(help="The compare's number (see `ladder compares`).")],
    db: DbOption = None,
) -> None:
    """Stop a running compare (no more tables are scheduled for it) and stop following its candidate's versions."""
    store = open_db(db, existing=True)
    ladder = store.ladders.get_ladder_by_name(name)
    if ladder is None:
        no_ladder(name, db)
    c = store.compares.get_compare(compare_id)
    if c is None or c.ladder_id != ladder.id:
        fail(f"ladder {name!r} has no compare #{compare_id} (see: cardarena ladder compares {name})", 2)
    if not store.compares.stop_compare(compare_id, "stopped by hand"):
        fail(f"compare #{compare_id} is over already ({c.verdict}) and follows no bot", 2)
    console.print(f"compare #{compare_id} stopped; its games stay in the ladder's record", highlight=False, markup=False)
