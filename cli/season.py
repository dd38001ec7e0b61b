"""``cardarena season`` and ``cardarena standings``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from cli import options
from cli.common import DbOption, console, counts_text, db_url, err_console, fail, no_season, open_db
from league.competition.availability import suspend_after_s
from league.competition.standings import standings_json, standings_of
from referee.games import names_text, spec

app = typer.Typer(help="Create, run and list league seasons.", no_args_is_help=True, rich_markup_mode=None)


def parse_ints(text: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"{what} must be whole numbers separated by commas, got {text!r}", 2)
    if not values:
        fail(f"{what} is empty", 2)
    return values


def parse_params(pairs: list[str]) -> dict[str, object]:
    params: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            fail(f"--param takes NAME=VALUE, got {pair!r}", 2)
        try:
            params[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[key.strip()] = value
    return params


@app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="Season name (unique).")],
    game: Annotated[str, typer.Option(help=f"{names_text()}.")],
    bots: Annotated[str, typer.Option(help="Registered bot names, comma-separated.")],
    tables: options.Tables = "3,4",
    games: Annotated[int, typer.Option(help="Games to schedule (rounded up to whole seat rotations).")] = 100,
    seed: Annotated[int | None, typer.Option(
        help="Make the season reproducible: its key, so the seating and every deal, come from this seed "
             "(anyone who knows it knows the cards). Default: a secret key drawn at random.",
        min=0, max=2**63 - 1)] = None,
    duplicate: options.Duplicate = False,
    one_per_author: options.OnePerAuthor = False,
    param: options.Param = [],
    deadline: options.Deadline = 1.0,
    time_bank: options.TimeBank = 10.0,
    budget: options.Budget = None,
    suspend_after: options.SuspendAfter = 600.0,
    until_settled: Annotated[bool, typer.Option(
        help="A sequential season: play batches of rotation groups until every adjacent pair of the top --top rows "
             "is settled (higher, lower or within --indifference of each other, by sequential ratio tests at "
             "--confidence), or --max-games; "
             "--games is not used.")] = False,
    top: Annotated[int, typer.Option(help="With --until-settled: rows whose order must be settled (at least 2).")] = 3,
    confidence: Annotated[float, typer.Option(
        help="With --until-settled: 1 - the chance that a pair of bots at least --indifference apart is called "
             "within the zone, or two equal bots one above the other (per side).")] = 0.95,
    indifference: Annotated[float, typer.Option(
        help="With --until-settled: the indifference zone, Elo points: bots this far apart are told apart, "
             "equal bots settle within the zone (above 0, at most 1000).")] = 50.0,
    max_games: Annotated[int | None, typer.Option(help="With --until-settled (required): the most games to play.")] = None,
    batch: Annotated[int, typer.Option(help="With --until-settled: rotation groups per batch (one look each).")] = 4,
    if_missing: Annotated[bool, typer.Option(
        "--if-missing", help="If a season of this name exists already (of this game), say so and exit 0 without "
                             "changing it: a script can be run again.")] = False,
    db: DbOption = None,
) -> None:
    """Schedule a season: every game is stored as pending before anything runs (with --until-settled, each batch)."""
    from league.competition.seasons import SeasonError, create_season

    game_spec = options.game_spec(game)  # the game id resolved once: what follows takes the GameSpec
    tc = options.time_control(game_spec, deadline, time_bank, budget)
    rule = settling_rule(until_settled, top, confidence, max_games, indifference)
    store = open_db(db, existing=True)  # its bots are registered there already
    if if_missing and (known := store.seasons.get_season_by_name(name)) is not None:
        if known.game != game:
            fail(f"a season named {name!r} exists already, of {known.game}, not {game}", 2)
        console.print(f"season [bold]{escape(name)}[/] exists already (id {known.id}, {known.state}): nothing changed "
                      "(--if-missing)", highlight=False)
        return
    bot_names, sizes = [b.strip() for b in bots.split(",") if b.strip()], parse_ints(tables, "--tables")
    try:
        if rule is None:
            season_id = create_season(store, name, game_spec, bot_names, sizes, games, seed, duplicate, parse_params(param), tc,
                                      suspend_after_s=suspend_after, one_per_author=one_per_author)
        else:
            from league.competition.sequential import create_sequential_season

            season_id = create_sequential_season(store, name, game_spec, bot_names, sizes, rule, batch, seed,
                                                 duplicate=duplicate, params=parse_params(param), time_control=tc,
                                                 suspend_after_s=suspend_after, one_per_author=one_per_author)
    except SeasonError as exc:
        fail(str(exc), 2)
    progress = store.seasons.season_progress(season_id)
    info = store.seasons.get_season(season_id)
    until = f" (the first batch; until settled, at most {rule.max_games} games)" if rule else ""
    console.print(f"season [bold]{escape(name)}[/] created: {progress['total']} games pending{until}", highlight=False)
    console.print(deals_note(info), highlight=False, markup=False)


def settling_rule(until_settled: bool, top: int, confidence: float, max_games: int | None, indifference: float = 50.0):
    """The stopping rule of ``season create --until-settled`` (None without it); exits 2 with one line for bad values."""
    from league.ratings.settling import SettlingRule

    if not until_settled:
        if max_games is not None:
            fail("--max-games goes with --until-settled (a fixed-length season takes --games)", 2)
        return None
    if max_games is None:
        fail("--until-settled needs --max-games N: the most games the season may play", 2)
    try:
        return SettlingRule(top, confidence, max_games, indifference)
    except ValueError as exc:
        fail(str(exc), 2)


def deals_note(season) -> str:
    """One line on how the season's deals are made: secret with its commitment, or reproducible."""
    if season.commitment is None:
        return "deals: from a public seed (a season from before season keys): not secret, nothing to verify"
    if season.reproducible:
        return (f"deals: REPRODUCIBLE from --seed: anyone who knows the seed knows every card "
                f"(commitment {season.commitment})")
    what = ("SHA-256 of the season key and its chance scheme" if getattr(season, "chance_scheme", None)
            else "SHA-256 of the season key")
    if season.status == "done":
        return (f"deals: secret; commitment {season.commitment} ({what}); the season is over "
                f"and its key is published: cardarena season verify {season.name}")
    return (f"deals: secret; commitment {season.commitment} ({what}, published with the "
            "key when the season is over: cardarena season verify)")


@app.command("run")
def run(
    name: Annotated[str, typer.Argument(help="Season name.")],
    workers: Annotated[int | None, typer.Option(help="Local worker processes (default: one per core), each refereeing CARDARENA_GAMES_PER_PROCESS games at once (default 2).", min=1)] = None,
    broker: Annotated[str | None, typer.Option(
        help="Run on Celery workers behind this broker (redis://host:6379/0) instead of the local pool.")] = None,
    window: Annotated[int, typer.Option(help="With --broker: games kept waiting in the broker queue.", min=1)] = 32,
    stall_timeout: Annotated[float, typer.Option(
        help="With --broker: seconds without progress before giving up and saying which games are stuck.",
        min=1)] = 120.0,
    db: DbOption = None,
) -> None:
    """Run the season's pending games, with a progress bar, then print the standings.

    Without --broker: on the local pool of worker processes. With --broker: enqueue them for
    `cardarena worker` processes (any number, any machine), sweep games whose worker was lost and
    enqueue them again, until the season is done; exit 1 naming the stuck games if it stalls.
    Exit 1 naming the failed games when any game of the season failed (3 voided attempts).
    Ends with `this run: ...; whole season NAME: ...` counted from the store on both runners.
    Ctrl-C or SIGTERM pauses the season (no worker starts its games until a run follows it
    again; games running on Celery workers finish and count), says what the store holds and
    how to resume, and exits 130. A cancelled season is not run (rules §4.11).
    """
    from cli.progress import follow_on_celery, run_pending_locally

    store = open_db(db, existing=True)
    season = store.seasons.get_season_by_name(name)
    if season is None:
        no_season(name, db, store)
    if season.state == "cancelled":
        fail(f"season {name!r} was cancelled ({season.config['cancelled']['reason']}): nothing is played in it "
             "(rules §4.11)")
    before = store.seasons.season_progress(season.id)
    progress = before
    if progress["pending"] + progress["running"] == 0:
        from league.competition.sequential import advance

        advance(store, season.id)  # a sequential season left between two batches: its next batch, or why it stopped
        progress = store.seasons.season_progress(season.id)
    if progress["pending"] + progress["running"] == 0:
        console.print(f"nothing to run: season {escape(name)} is finished ({counts_text(progress)})", highlight=False)
    elif broker:
        from workers.follower import BrokerUnreachable, SeasonStuck

        try:
            progress = follow_on_celery(store, season.id, broker, f"season {name}", window=window,
                                        stall_s=stall_timeout, resume=_resume_command(name, db, broker),
                                        once_connected=lambda: _ready(store, season))
        except BrokerUnreachable as exc:
            fail(f"{exc} (is redis-server running there? `cardarena worker` uses the same --broker)")
        except SeasonStuck as exc:
            err_console.print(str(exc), highlight=False, markup=False)
            fail(f"season {name!r} is stuck (see above)")
        console.print(run_summary(name, before, store.seasons.season_progress(season.id)), highlight=False, markup=False)
    else:
        from league.competition.sequential import status

        _ready(store, season)
        sequential = status(season.config or {}, progress["total"]) is not None  # its batches on the same pool
        outcomes = run_pending_locally(store, season.id, db_url(db), workers, f"season {name}",
                                       resume=_resume_command(name, db, broker), batches=sequential)
        del outcomes  # counted from the store, as the Celery driver does: one vocabulary (rules §4.11)
        console.print(run_summary(name, before, store.seasons.season_progress(season.id)), highlight=False, markup=False)
    failed = store.game_reads.list_games(season.id, status="failed", limit=20)
    for game in failed:
        console.print(f"failed: game {game.number} (id {game.id}): {game.detail}", highlight=False, markup=False)
    print_availability(store, season)
    print_standings(store, season)
    if failed:
        count = store.seasons.season_progress(season.id)["failed"]
        fail(f"season {name!r}: {count} game(s) failed (not rated): "
             + ", ".join(str(g.number) for g in failed) + (", ..." if count > len(failed) else ""))


def run_summary(name: str, before: dict[str, int], after: dict[str, int]) -> str:
    """The last line of ``season run`` on either runner, read from the store: what this run made final
    and the whole season's counts, in one vocabulary (``store.PROGRESS_KEYS``)."""
    final = ("done", "failed", "not_played", "cancelled")
    this_run = {k: after.get(k, 0) - before.get(k, 0) for k in final}
    return (f"this run: {counts_text(this_run)}; whole season {name}: {counts_text(after, all_counts=True)} "
            f"(of {after['total']})")


def _ready(store, season) -> None:
    """Just before a run plays: the bots' check (exit 1 if nothing can be played), then the season is no
    longer paused (its games may be claimed again)."""
    check_bots_answer(store, season)
    store.seasons.set_paused(season.id, False)


def check_bots_answer(store, season) -> None:
    """Before a run: say at once which of the season's bots do not answer their health check;
    exit 1 naming them when no pending game can be played (rules §4.9)."""
    from workers.identity import bots_of
    from workers.service import health_cache, identity_check

    bots, tables = store.seasons.pending_tables(season.id)
    if not tables:
        return
    down = health_cache().problems(list(bots.values()))
    down = {**identity_check().problems(store, bots_of(store, [b for b in bots if b not in down])), **down}
    if not down:
        return
    for bot_id, why in sorted(down.items(), key=lambda item: bots[item[0]].name):
        err_console.print(f"not answering: {bots[bot_id].name} at {bots[bot_id].endpoint}: {why}",
                          highlight=False, markup=False)
    names = ", ".join(sorted(bots[b].name for b in down))
    if all(table & down.keys() for table in tables):
        fail(f"nothing can be played: every pending game of season {season.name!r} has a bot that does not "
             f"answer ({names}); start them and run the season again")
    err_console.print(f"games with {names} are put off until they answer; after "
                      f"{suspend_after_s(season.config):g} s without an answer a bot is suspended from the "
                      "season and its remaining games are not played", highlight=False, markup=False)


def print_availability(store, season) -> None:
    """The season's bots that did not answer at some game start, and the games not played."""
    for a in store.seasons.season_availability(season.id):
        if a.suspended_at is not None:
            state = f"suspended at {a.suspended_at:%Y-%m-%d %H:%M:%S} UTC"
        elif a.unavailable_since is not None:
            state = f"not answering since {a.unavailable_since:%Y-%m-%d %H:%M:%S} UTC"
        else:
            continue  # answering again: nothing to say
        console.print(f"{a.name}: {state} ({a.reason})", highlight=False, markup=False)
    not_played = store.seasons.season_progress(season.id)["not_played"]
    if not_played:
        console.print(f"{not_played} game(s) not played: a bot of their table was suspended (never rated)",
                      highlight=False, markup=False)


def _resume_command(name: str, db: str | None, broker: str | None) -> str:
    """The command that goes on with season ``name`` where it stopped."""
    import shlex

    return shlex.join(["cardarena", "season", "run", name, *(["--db", db] if db else []),
                       *(["--broker", broker] if broker else [])])


def season_json(store, s, base_url: str) -> dict[str, object]:
    """One season as ``season list --json`` prints it: id, name, game, status (``store.season_state``),
    the counts (``store.PROGRESS_KEYS`` and ``total``), the bots suspended, its page and API addresses."""
    from urllib.parse import quote

    path = f"/seasons/{quote(s.name, safe='')}"
    out: dict[str, object] = {
        "id": s.id, "name": s.name, "game": s.game, "status": s.state, "progress": store.seasons.season_progress(s.id),
        "suspended": [a.name for a in store.seasons.season_availability(s.id) if a.suspended_at is not None],
        "deals": "secret" if not s.reproducible else "reproducible" if s.commitment else "public seed",
        "url": base_url.rstrip("/") + path, "api": base_url.rstrip("/") + "/api/v1" + path,
    }
    if s.state == "cancelled":
        out["cancelled"] = s.config["cancelled"]
    return out


@app.command("list")
def list_seasons(
    epochs: Annotated[bool, typer.Option(
        "--epochs", help="List ladders' epochs too (seasons named LADDER:epoch-N; rules §5.1), marked as such.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (a list, one object per season) instead of a table.")] = False,
    url: Annotated[str | None, typer.Option("--url", help=(
        "The dashboard's address, for the pages printed (default: the setting CARDARENA_DASHBOARD_URL, "
        "http://127.0.0.1:8000 unless set; `cardarena server` listens on its port)."), show_default=False)] = None,
    db: DbOption = None,
) -> None:
    """List seasons with their id, status (scheduled, running, paused, done or cancelled), game counts
    (done, failed, not played, cancelled, pending, running) and dashboard page (reads the store; never changes it).
    A ladder's epochs are listed with --epochs only (``cardarena ladder list`` shows the ladders)."""
    from store import PROGRESS_KEYS

    from config import get_settings

    url = url or get_settings().dashboard_url
    store = open_db(db, read_only=True)
    every = store.seasons.list_seasons()
    shown = [s for s in every if epochs or s.ladder_id is None]
    seasons = [season_json(store, s, url) for s in shown]
    if as_json:
        print(json.dumps(seasons, indent=2))
        return
    table = Table("id", "season", "game", "status", *(k.replace("_", " ") for k in PROGRESS_KEYS), "total",
                  "suspended", "deals", "page")
    for column in table.columns:  # a narrow terminal wraps a cell, never cuts an address or a name
        column.overflow = "fold"
    for info, s in zip(shown, seasons, strict=True):
        p = s["progress"]
        name = escape(str(s["name"])) + (f" [dim](ladder epoch {info.epoch})[/]" if info.ladder_id is not None else "")
        table.add_row(str(s["id"]), name, str(s["game"]), str(s["status"]),
                      *(str(p.get(k, 0)) for k in PROGRESS_KEYS), str(p["total"]),
                      escape(", ".join(s["suspended"])) or "-", str(s["deals"]), escape(str(s["url"])))
    console.print(table)
    if hidden := len(every) - len(shown):
        console.print(f"{hidden} ladder epoch(s) not listed: --epochs lists them; cardarena ladder list shows the "
                      "ladders.", highlight=False)
    if any(s["deals"] == "reproducible" for s in seasons):
        console.print("reproducible: the deals come from the organiser's --seed, and anyone who knows the seed "
                      "knows every card.", highlight=False)


@app.command("cancel")
def cancel(
    name: Annotated[str, typer.Argument(help="Season name.")],
    reason: Annotated[str, typer.Option(help="Why, stored with the season and each game cancelled.")] = "cancelled by the organiser",
    db: DbOption = None,
) -> None:
    """Cancel a season (rules §4.11): its pending games are never played (status not played, reason
    cancelled); games running finish and count (a game whose attempt is voided is cancelled too). What
    was played stays rated and the season is over once nothing runs: its key is published and
    `season verify` checks it, cancelled games with their reason."""
    store = open_db(db, existing=True)
    season = store.seasons.get_season_by_name(name)
    if season is None:
        no_season(name, db, store)
    try:
        result = store.games.cancel_season(season.id, reason)
    except ValueError as exc:
        fail(str(exc))
    if result.already:
        console.print(f"season {name} was cancelled already ({season.config['cancelled']['reason']})",
                      highlight=False, markup=False)
        return
    running = (f"; {result.running} game(s) running finish and count" if result.running else "")
    console.print(f"season {name} cancelled: {result.cancelled} pending game(s) will never be played{running}; "
                  f"what was played stays rated (rules §4.11)", highlight=False, markup=False)
    console.print(f"whole season: {counts_text(store.seasons.season_progress(season.id), all_counts=True)}",
                  highlight=False, markup=False)


@app.command("delete")
def delete(
    name: Annotated[str, typer.Argument(help="Season name.")],
    db: DbOption = None,
) -> None:
    """Delete a season none of whose games is final or running (a typo, a season made by mistake):
    it and its schedule are gone. A season with a game played or running is cancelled instead
    (`season cancel`): its record stays."""
    store = open_db(db, existing=True)
    season = store.seasons.get_season_by_name(name)
    if season is None:
        no_season(name, db, store)
    try:
        games = store.seasons.delete_season(season.id)
    except ValueError as exc:
        fail(str(exc))
    console.print(f"season {name} deleted with its {games} pending game(s)", highlight=False, markup=False)


@app.command("verify")
def verify(
    name: Annotated[str, typer.Argument(help="Season name.")],
    head: Annotated[list[str] | None, typer.Option(
        "--head", help="A chain head seen before (64 hex digits, from the season page or the API); the "
                       "chain must extend it. Repeat for several, or give a file of them with --heads.")] = None,
    heads: Annotated[Path | None, typer.Option(
        "--heads", help="A file of chain heads seen before, one per line (blank lines and # comments skipped).",
        exists=True, dir_okay=False)] = None,
    api: Annotated[str | None, typer.Option(
        "--api", help="Verify from a dashboard's public JSON API at this address (e.g. http://host:8000) "
                      "instead of the store: anyone can; the same checks, the chain's too (with --head), no --db.")] = None,
    db: DbOption = None,
) -> None:
    """Check a finished season: the published key and chance scheme against the commitment, every game's
    seed against the key, every replay re-run and every stored field (views, answers, faults, places,
    scores, result rows, ratings, each game's status and its reason) against it, and the season's chain
    of stored records against the rows and the heads seen before. Exit 0 when all verify, 1 otherwise.
    The audits are printed first: a duplicate season's (did a bot do better in the rotations of a deal it had
    already played?), for a game with luck terms the luck audit (did a bot win on unseen cards beyond chance?), and
    for a game with a team-play scorer the collusion screen (did two bots play as a team?); their flags do not
    change the exit status. With --api URL the same checks
    read the public API alone (league.integrity.verify_api), the chain's and --head's included."""
    from league.integrity.verify import CannotVerify, StoreSource, verify_season

    seen = heads_seen(head, heads)
    if api is not None:
        _verify_from_api(name, api, seen, db)
        return
    store = open_db(db, existing=True)
    season = store.seasons.get_season_by_name(name)
    if season is None:
        no_season(name, db, store)
    try:
        report = verify_season(StoreSource(store), season, seen)
    except CannotVerify as exc:
        fail(str(exc))
    try:  # the audits first: the report's verdict stays the last line
        audits = audit_lines(store, season)
    except Exception as exc:  # noqa: BLE001 - a replay the audits cannot read is the report's to name, below
        audits = [f"Audits: not computed ({type(exc).__name__}: {exc}); see the report below."]
    for line in audits:
        console.print(line, highlight=False, markup=False)
    for line in report.lines():
        console.print(line, highlight=False, markup=False)
    if not report.ok:
        raise typer.Exit(1)


def heads_seen(head: list[str] | None, heads: Path | None) -> list[str]:
    """The chain heads of ``--head`` and the ``--heads`` file (blank lines and # comments skipped); exits 1 for one
    that is not 64 hex digits."""
    seen = list(head or [])
    if heads is not None:
        seen += [line.split("#", 1)[0].strip() for line in heads.read_text().splitlines()]
    seen = [h for h in seen if h]
    if bad := [h for h in seen if len(h) != 64 or any(c not in "0123456789abcdefABCDEF" for c in h)]:
        fail(f"a chain head is 64 hex digits, got {bad[0]!r}")
    return seen


def _verify_from_api(name: str, api: str, seen: list[str], db: str | None) -> None:
    """``season verify NAME --api URL [--head HASH]``: the checks of ``league.integrity.verify`` over the public API."""
    from league.integrity.verify import CannotVerify, verify_season
    from league.integrity.verify_api import ApiError, ApiSource

    if db:
        fail("--api verifies from the public API alone, without --db", 2)
    try:
        source = ApiSource(api)
        season = source.season_by_name(name)
        if season is None:
            fail(f"no season named {name!r} at {api} (see: {api.rstrip('/')}/api/v1/seasons)")
        report = verify_season(source, season, seen)
    except ApiError as exc:
        fail(str(exc))
    except CannotVerify as exc:
        fail(str(exc))
    console.print(f"from {api}: the season, its key, every game's stored fields, every replay as stored and the chain",
                  highlight=False, markup=False)
    for line in report.lines():
        console.print(line, highlight=False, markup=False)
    if not report.ok:
        raise typer.Exit(1)


def print_standings(store, season) -> None:
    from referee.games import spec

    season = store.seasons.get_season(season.id) or season  # its status now, after a run
    game_spec = spec(season.game)
    change = f"avg {game_spec.score_unit} change" if game_spec.higher_score_is_better else f"avg {game_spec.score_unit} (lower is better)"
    rows = standings_of(store, season.id)
    luck = any(r.luck_change is not None for r in rows)
    table = Table(title=f"{escape(season.name)} ({season.game})")
    for col in ("#", "bot", "games", "avg place", change, *(("luck-adjusted [95%]",) if luck else ()), "faults", "Elo",
                "ML rating [95%]", "P(>next)", "openskill"):
        words = max(len(w) for w in col.split())  # a narrow terminal squeezes the cells, never a header word or a name
        table.add_column(col, justify="left" if col == "bot" else "right",
                         min_width=max([words, *(len(r.name) for r in rows)]) if col == "bot" else words)
    for i, r in enumerate(rows, 1):
        ml = f"{r.ml_rating:.0f} [{r.ml_low:.0f}, {r.ml_high:.0f}]" if r.ml_rating is not None else "-"
        skill = f"{r.openskill_mu:.1f} ± {r.openskill_sigma:.1f}" if r.openskill_mu is not None else "-"
        table.add_row(str(i), escape(r.name) + (" (suspended)" if r.suspended else ""), str(r.games), f"{r.avg_place:.2f}" if r.avg_place is not None else "-",
                      f"{r.avg_change:+.1f}" if r.avg_change is not None else "-", *((_luck_cell(r),) if luck else ()),
                      f"{r.faults} (retired in {r.retired})" if r.retired else str(r.faults), f"{r.elo:.0f}",
                      ml, f"{r.p_better:.2f}" if r.p_better is not None else "-", skill)
    console.print(table)
    if (line := settling_line(store.seasons.get_season(season.id).config, store.seasons.season_progress(season.id))) is not None:
        console.print(line, highlight=False)
    if luck:
        console.print("Luck-adjusted: mean token change per game less the luck of the turned cards (each bet's result "
                      "minus its expectation over the unturned stack; unbiased), with its 95% interval.", highlight=False)
    console.print(deals_note(season), highlight=False, markup=False)
    for line in audit_lines(store, season, rows):
        console.print(line, highlight=False, markup=False)
    console.print("Ranked by ML rating: maximum-likelihood Bradley-Terry over the whole season (Elo scale), "
                  "95% interval; then by Elo (online, K=32, in schedule order). "
                  "P(>next): probability the bot is really better than the next row's; "
                  "openskill: Plackett-Luce mu ± sigma. Faults: over all its games; (retired in N): games in "
                  "which the bot's seat was retired for too many faults.", highlight=False)


def audit_lines(store, season, rows=None) -> list[str]:
    """The audits of a season: the duplicate audit of a duplicate season (``league.integrity.audit``), the luck
    audit of a game with luck terms (``league.integrity.eprocess``) and the collusion screen of a game with a
    team-play scorer (``league.integrity.collusion``), each a line per flag or one line saying it is clean; nothing
    for a season with none of them."""
    from league.competition.standings import integrity_flags, luck_audits_of
    from league.integrity.collusion import AGAINST, TEAM
    from referee.games import spec

    game = spec(season.game)
    duplicate = bool((season.config or {}).get("duplicate"))
    out: list[str] = []
    if rows is not None:
        flags = {r.name: list(r.audit) for r in rows if r.audit}
        bars = [(r.luck_wealth, r.luck_bar) for r in rows if r.luck_wealth is not None]
    else:
        names = {b.id: b.name for b in store.bots.list_bots()}
        flags = {names.get(bot, str(bot)): lines
                 for bot, lines in integrity_flags(store, season.id, game, names=names).items()}
        bots = store.season_reads.season_results(season.id).names
        audits = luck_audits_of(store, season.id, game, bots)
        for bot, a in audits.items():
            if a.flagged:
                flags.setdefault(names.get(bot, str(bot)), []).append(a.message())
        bars = [(a.max_wealth, 1 / a.alpha) for a in audits.values()]
    lucky = {name: [x for x in lines if x.startswith("luck: ")] for name, lines in flags.items()}
    collusion = {name: [x for x in lines if x.startswith((TEAM, AGAINST))] for name, lines in flags.items()}
    dup = {name: [x for x in lines if not x.startswith(("luck: ", TEAM, AGAINST))] for name, lines in flags.items()}
    if duplicate and not any(dup.values()):
        out.append("Duplicate audit: no bot did better in the rotations of a deal it had already played than in the "
                   "first (tests at a 1% family-wise false-alarm rate; docs/fair-play.md, The duplicate audit).")
    elif duplicate:
        out += [f"Duplicate audit FLAG: {name}: {line}" for name, lines in sorted(dup.items()) for line in lines]
        out.append("Duplicate audit: a flag means the bot's results depend on the earlier rotations of the same deal: "
                   "it remembers the cards (1% family-wise false-alarm rate; docs/fair-play.md, The duplicate audit).")
    if game.luck_terms is not None and bars:
        top = max(w for w, _ in bars)
        if not any(lucky.values()):
            out.append(f"Luck audit: no bot's luck test martingale reached its bar (largest wealth {top:.3g} of "
                       f"{bars[0][1]:.3g}; anytime-valid, 1% family-wise false-alarm rate over the season's whole life; "
                       "docs/fair-play.md, The luck audit).")
        else:
            out += [f"Luck audit FLAG: {name}: {line}" for name, lines in sorted(lucky.items()) for line in lines]
            out.append("Luck audit: a flag means the bot won on chance cards nobody had seen far more than chance "
                       "allows: it knew them (memory, a leak or a predicted seed) (anytime-valid, 1% family-wise "
                       "false-alarm rate; docs/fair-play.md, The luck audit).")
    if game.team_play is None:
        return out
    if not any(collusion.values()):
        return out + ["Collusion screen: no two bots played as a team (each pair's moves against the other's hidden "
                      "cards, 1% family-wise false-alarm rate; docs/fair-play.md, Colluding bots)."]
    return out + [f"Collusion screen FLAG: {name}: {line}" for name, lines in sorted(collusion.items())
                  for line in lines] + [
        "Collusion screen: 'team play' means each bot's moves fit the other's hidden cards, so the two shared their "
        "hands; 'against hidden cards' that the bot's moves went against the other's hidden cards (1% family-wise "
        "false-alarm rate; docs/fair-play.md, Colluding bots)."]


def settling_line(config: dict, progress: dict[str, int]) -> str | None:
    """One line on a sequential season: why it stopped (settled / budget) or where it stands, the games used
    and each top pair's verdict at the last look (higher, lower, within the zone or open)."""
    from league.competition.sequential import settling_json

    info = settling_json(config, progress)
    if info is None:
        return None
    top, conf = info["top"], f"{100 * info['confidence']:g}%"
    zone = f", zone {info['indifference']:g} Elo" if info["indifference"] is not None else ""
    if info["stop"] == "settled":
        why = (f"settled: every adjacent pair of the top {top} rows settled at {conf}{zone} "
               "(higher, lower or within the zone; sequential ratio tests)")
    elif info["stop"] == "budget":
        why = f"stopped at the budget of {info['max_games']} games without settling the top {top} at {conf}{zone}"
    else:
        why = f"until the top {top} rows are settled at {conf}{zone}, at most {info['max_games']} games"
    last = info["looks"][-1] if info["looks"] else None
    measure = "log likelihood ratio" if info["indifference"] is not None else "P"
    seen = (f"; last look after {last['games']} games: weakest top pair {measure} {last['weakest']:.4f}, "
            f"needed {last['threshold']:.4f}" if last and last["weakest"] is not None else "")
    words = {"higher": "above", "lower": "below", "within_zone": "within the zone of", "open": "open against"}
    pairs = [f"{p.get('upper_name') or p['upper']} {words.get(p['verdict'], p['verdict'])} "
             f"{p.get('lower_name') or p['lower']}" for p in info["pairs"] if "upper" in p]
    verdict = f"; top pairs: {', '.join(pairs)}" if pairs else ""
    return (f"Sequential season, {why}: {info['games_used']} games used ({info['games_scheduled']} scheduled)"
            f"{seen}{verdict}.")


def _luck_cell(row) -> str:
    """The luck-adjusted change of a standings row with its 95% interval, or "-"."""
    if row.luck_change is None:
        return "-"
    if row.luck_low is None:
        return f"{row.luck_change:+.1f}"
    return f"{row.luck_change:+.1f} [{row.luck_low:+.1f}, {row.luck_high:+.1f}]"


def standings(
    season: Annotated[str, typer.Option(help="Season name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    db: DbOption = None,
) -> None:
    """Print a season's standings: games, average place, score change (also luck-adjusted, with its 95% interval, for a game with a luck estimator), faults, Elo, ML rating with its 95% interval (the table's order), P(better than next), openskill."""
    store = open_db(db, read_only=True)
    info = store.seasons.get_season_by_name(season)
    if info is None:
        no_season(season, db, store)
    if as_json:
        from league.competition.sequential import settling_json

        progress = store.seasons.season_progress(info.id)
        print(json.dumps({"season": info.name, "game": info.game, "progress": progress,
                          "settling": settling_json(info.config, progress),
                          "reproducible": info.reproducible, "commitment": info.commitment,
                          "standings": standings_json(standings_of(store, info.id))}, indent=2))
    else:
        print_standings(store, info)
