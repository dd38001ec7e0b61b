"""Running a season's pending games with a progress bar: on the local pool, or on Celery workers."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from cli.common import console, counts_text, raise_if_stopped

#: Without a terminal, a progress line at least this often, seconds (and at every tenth of the games).
LINE_EVERY_S = 30.0
#: How often a running season's bots' availability is read from the store, seconds.
WATCH_EVERY_S = 1.0


#: A bot's first outages in a run are said as they happen (down, then back); after these, its outages
#: are counted and summed up: every :data:`SUM_UP_EVERY` outages and at the end of the run.
OUTAGES_SAID = 2
SUM_UP_EVERY = 10


@dataclass
class OutageLines:
    """What a run says of a bot that goes down and comes back: a pair of lines (down, back) for each of
    its first :data:`OUTAGES_SAID` outages, then a summary instead, so that a bot that keeps crashing
    is one line every :data:`SUM_UP_EVERY` outages and one at the end of the run (:meth:`summary`),
    not a pair of lines per crash. Names are the bots' names; ``why``: the reason it is down."""

    _outages: dict[str, int] = field(default_factory=dict)
    _last: dict[str, str] = field(default_factory=dict)

    def down(self, name: str, line: str, why: str) -> str | None:
        """The line to say when ``name`` goes down (``line``: the full line for an early outage), or None."""
        n = self._outages[name] = self._outages.get(name, 0) + 1
        self._last[name] = why
        if n <= OUTAGES_SAID:
            return line
        if n == OUTAGES_SAID + 1:
            return (f"{name} is down again ({why}): down {n} times in this run; its further outages are summed up "
                    f"every {SUM_UP_EVERY} and at the end of the run")
        if n % SUM_UP_EVERY == 0:
            return f"{name} keeps going down: {n} times in this run (last: {why})"
        return None

    def back(self, name: str, line: str) -> str | None:
        """The line to say when ``name`` answers again (``line``), or None once its outages are summed up."""
        return line if self._outages.get(name, 0) <= OUTAGES_SAID else None

    def summary(self) -> list[str]:
        """One line per bot whose outages were summed up: how many, and the last reason."""
        return [f"{name} went down {n} times in this run (last: {self._last[name]})"
                for name, n in sorted(self._outages.items()) if n > OUTAGES_SAID]


@dataclass
class AvailabilityWatch:
    """Names the season's bots as they go down, come back or are suspended (rules §4.9), one line
    each, while ``season run`` plays: read from the store (``store.seasons.season_availability``, which
    every worker writes) at most every ``every_s`` seconds, so the local pool and Celery say the
    same. ``suspend_after_s``: the season's setting, said with a bot that goes down."""

    store: object  # store.Store
    season_id: int
    suspend_after_s: float
    every_s: float = WATCH_EVERY_S
    say: Callable[[str], None] = field(default=lambda line: console.print(line, highlight=False, markup=False))
    _states: dict[str, str] = field(default_factory=dict)
    _next: float = 0.0
    outages: OutageLines = field(default_factory=lambda: OutageLines())

    def __post_init__(self) -> None:
        for a in self._read():  # suspended before this run: said with the standings, not again here
            if a.suspended_at is not None:
                self._states[a.name] = "suspended"

    def _read(self) -> list:
        from store import StoreError

        try:
            return list(self.store.seasons.season_availability(self.season_id))  # type: ignore[attr-defined]
        except StoreError:  # looked at again at the next poll
            return []

    def poll(self, force: bool = False) -> None:
        """Read the availability if ``every_s`` has passed (or ``force``) and say what changed."""
        now = time.monotonic()
        if not force and now < self._next:
            return
        self._next = now + self.every_s
        for a in self._read():
            state = "suspended" if a.suspended_at is not None else "down" if a.unavailable_since is not None else "up"
            before = self._states.get(a.name, "up")
            if state == before:
                continue
            self._states[a.name] = state
            if state == "down":
                self._say(self.outages.down(
                    a.name, f"{a.name} is down since {a.unavailable_since:%H:%M:%S} UTC ({a.reason}): its games are "
                    f"deferred until it answers; after {self.suspend_after_s:g} s without an answer it is "
                    "suspended from the season and its remaining games are not played", str(a.reason)))
            elif state == "suspended":
                self.say(f"{a.name} suspended from the season at {a.suspended_at:%H:%M:%S} UTC ({a.reason}): "
                         "its remaining games are not played (never rated)")
            else:
                self._say(self.outages.back(a.name, f"{a.name} answers again: its games are played"))

    def _say(self, line: str | None) -> None:
        if line is not None:
            self.say(line)

    def finish(self) -> None:
        """At the end of the run: a last look, and one line per bot that kept going down."""
        self.poll(force=True)
        for line in self.outages.summary():
            self.say(line)


class LineProgress:
    """Progress for output that is not a terminal (a pipe, a log): a line when a task starts, at
    every tenth of its games (every 10 games without a total) or :data:`LINE_EVERY_S` seconds, and
    when it ends. The calls used here of Rich's ``Progress`` (``add_task``, ``advance``, ``update``),
    whose live bar prints only at the end there.

    A task without a total (``total=None``: a ladder run with no bound) reads ``N games played``,
    never a fraction that looks finished; an ``in_flight`` field (games being played now) is said
    after the count when given."""

    def __init__(self) -> None:
        self._tasks: list[dict] = []

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        for task in self._tasks:
            if task["shown"] != task["completed"]:
                self._line(task)

    def add_task(self, description: str, total: int | None, completed: int = 0, **fields: object) -> int:
        self._tasks.append({"description": description, "total": total, "completed": completed, "shown": None,
                            "started": time.monotonic(), "last": 0.0, "fields": dict(fields)})
        self._line(self._tasks[-1])
        return len(self._tasks) - 1

    def advance(self, task_id: int, advance: int = 1) -> None:
        self.update(task_id, completed=self._tasks[task_id]["completed"] + advance)

    def update(self, task_id: int, completed: int, total: int | None = None, description: str | None = None,
               **fields: object) -> None:
        """Set the games done (and the total, which grows as a sequential season adds batches; None:
        unchanged), the description (None: unchanged) and the task's fields (``in_flight``)."""
        task = self._tasks[task_id]
        task["completed"] = completed
        if description is not None:
            task["description"] = description
        task["fields"].update(fields)
        if total is not None:
            task["total"] = total
        tenth = max(1, (task["total"] or 100) // 10)
        shown = task["shown"] or 0
        if completed // tenth > shown // tenth or completed == task["total"] or \
                time.monotonic() - task["last"] >= LINE_EVERY_S:
            self._line(task)

    def _line(self, task: dict) -> None:
        now = time.monotonic()
        done = (f"{task['completed']} games played" if task["total"] is None
                else f"{task['completed']}/{task['total']} games")
        if "in_flight" in task["fields"]:
            done += f", {task['fields']['in_flight']} in flight"
        console.print(f"{escape(task['description'])}: {done} ({now - task['started']:.0f} s)", highlight=False)
        task["shown"], task["last"] = task["completed"], now


def bar() -> Progress | LineProgress:
    """A progress bar on a terminal, else progress lines (:class:`LineProgress`)."""
    return _bar()


def open_ended_bar(total: int | None) -> Progress | LineProgress:
    """For a run with no end of its own (``ladder run``): the games played so far and those in flight
    (task field ``in_flight``), with a bar only when ``total`` bounds the run; progress lines without a
    terminal (:class:`LineProgress`)."""
    if not console.is_terminal:
        return LineProgress()
    counted = (BarColumn(), MofNCompleteColumn(), TextColumn("games played,")) if total is not None else \
        (TextColumn("{task.completed:.0f} games played,"),)
    return Progress(TextColumn("{task.description}"), *counted, TextColumn("{task.fields[in_flight]} in flight"),
                    TimeElapsedColumn(), console=console, transient=False)


def _bar() -> Progress | LineProgress:
    if not console.is_terminal:
        return LineProgress()
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False)


def final_games(p: dict[str, int]) -> int:
    """Games of a progress dict that are final: done, failed, not played or cancelled."""
    return p["done"] + p["failed"] + p["not_played"] + p.get("cancelled", 0)


def stopped_line(store, season_id: int, resume: str) -> str:
    """What is true after a stop, read from the store: the season's final games (those finished during
    the stop included), the games still running on workers (they finish and count; no worker starts
    another while the season is paused), and the command that resumes it."""
    p = store.seasons.season_progress(season_id)
    running = (f"; {p['running']} game(s) still running on the workers finish and count, no new one starts"
               if p["running"] else "")
    return (f"stopped: {final_games(p)} of {p['total']} games played ({counts_text(p)}){running}; "
            f"the season is paused: run {resume} again to resume it")


@contextmanager
def _resumable(store, season_id: int, resume: str) -> Iterator[None]:
    """On Ctrl-C or SIGTERM: mark the season paused (no worker claims its games until a run follows
    it again, ``store.seasons.set_paused``), say what is true and how to go on (``resume``: the command), and
    stop with :class:`cli.common.Stopped` (exit 130, no further line). Without ``resume`` the
    KeyboardInterrupt propagates."""
    from cli.common import Stopped, is_stop

    try:
        yield
    except BaseException as exc:
        if not resume or not is_stop(exc):
            raise
        store.seasons.set_paused(season_id, True)
        console.print(escape(stopped_line(store, season_id, resume)), highlight=False)
        raise Stopped(130) from None


@contextmanager
def resumable(progress: Callable[[], dict[str, int]], resume: str, what: str) -> Iterator[None]:
    """On Ctrl-C or SIGTERM, say in one line how far ``what`` got (``progress``: its games per status,
    the store's ``PROGRESS_KEYS``) and the command that goes on (``resume``), and stop with
    :class:`cli.common.Stopped` (exit 130, no further line). Without ``resume`` the KeyboardInterrupt
    propagates."""
    from cli.common import Stopped, is_stop

    try:
        yield
    except BaseException as exc:
        if not resume or not is_stop(exc):
            raise
        p = progress()
        console.print(f"stopped: {final_games(p)} of {p['total']} games played ({escape(counts_text(p))}); run "
                      f"[bold]{escape(resume)}[/] again to resume {what}", highlight=False)
        raise Stopped(130) from None


def run_pending_locally(store, season_id: int, db_url: str, processes: int | None, description: str,
                        resume: str = "", batches: bool = False) -> Counter[str]:
    """Run every pending game of the season on the local pool, showing progress over the whole
    season (games played before count as done); returns outcome counts. ``resume``: the command
    that resumes the season, said when stopped by Ctrl-C or SIGTERM (KeyboardInterrupt propagates).
    ``batches``: a sequential season (``season create --until-settled``): each time its games are all final
    it takes its look and adds its next batch (``league.competition.sequential.advance``), which the same
    pool processes play, until it stops (settled, or its budget spent); a pool of new processes for each batch
    spent about a second of CPU a process starting them."""
    from config import get_settings
    from league.competition.sequential import advance
    from workers.local import iter_local
    from workers.sweeper import sweep

    sweep(store)  # games left running by a run that was killed: pending again once their lease ran out
    pending = store.seasons.next_pending(season_id, limit=10**9)
    first = store.seasons.season_progress(season_id)
    outcomes: Counter[str] = Counter()
    watch = _watch(store, season_id)
    with _resumable(store, season_id, resume), _bar() as bar:
        task = bar.add_task(description, total=first["total"], completed=final_games(first))
        def tick() -> None:
            raise_if_stopped()
            watch.poll()

        def next_batch() -> list[int] | None:
            """The next batch's games once this one's are all final; until then its pending games (those not handed
            out yet: a game a run killed earlier held, pending again once the sweeper released it); None once the
            season stopped."""
            progress = store.seasons.season_progress(season_id)
            if progress["pending"] + progress["running"]:
                return store.seasons.next_pending(season_id, limit=10**9) if progress["pending"] else []
            settling = advance(store, season_id)
            if settling is None or settling.stop is not None:
                return None
            now = store.seasons.season_progress(season_id)
            bar.update(task, completed=final_games(now), total=now["total"],
                       description=f"{description}, to {settling.games} games")
            return store.seasons.next_pending(season_id, limit=10**9)

        for result in iter_local(db_url, pending, processes, get_settings().lease_s, on_tick=tick,
                                 refill=next_batch if batches else None):
            raise_if_stopped()
            outcomes[result.outcome.value] += 1
            bar.advance(task)
        watch.finish()
    return outcomes


def _watch(store, season_id: int) -> AvailabilityWatch:  # store: store.Store
    """The availability watch of a season run, with the season's suspension setting."""
    from league.competition.availability import suspend_after_s

    season = store.seasons.get_season(season_id)
    return AvailabilityWatch(store, season_id, suspend_after_s(season.config if season else None))


def follow_on_celery(store, season_id: int, broker_url: str, description: str, *, window: int = 32,
                     stall_s: float = 120.0, resume: str = "",
                     once_connected: Callable[[], None] | None = None) -> dict[str, int]:
    """Enqueue the season's pending games on ``broker_url`` and follow them to the end with a
    progress bar (done + failed of all games); returns the final progress.

    Raises workers.follower.BrokerUnreachable at once if the broker does not answer at the
    start, and workers.follower.SeasonStuck when nothing moved for ``stall_s`` seconds.
    ``resume`` as for :func:`run_pending_locally`.
    """
    from workers.celery_app import configure
    from workers.follower import SeasonFollower

    follower = SeasonFollower(store, configure(broker_url), season_id, window=window, stall_s=stall_s)
    follower.check_broker()
    if once_connected is not None:  # e.g. the bots' health checks, after the broker's
        once_connected()
    first = store.seasons.season_progress(season_id)
    watch = _watch(store, season_id)

    def progress(p: dict[str, int]) -> None:
        raise_if_stopped()
        bar.update(task, total=p["total"], completed=final_games(p))
        watch.poll()

    with _resumable(store, season_id, resume), _bar() as bar:
        task = bar.add_task(description, total=first["total"], completed=final_games(first))
        final = follower.run(progress)
        watch.finish()
        return final
