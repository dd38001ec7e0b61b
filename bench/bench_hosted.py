"""Hosted bots against the same bot served by its author: decision round trip, cold start, a Celery season,
and the time from ``bot submit`` to playing in a ladder.

Usage: python -m bench.bench_hosted [--parts roundtrip,coldstart,celery,submit] [--games N] [--starts N]
[--season-games N] [--rounds N]

The bot is the Python example (``examples/python``) in both forms: *remote*, ``python examples/python/bot.py
--port 0`` serving on 127.0.0.1 over TCP (what an author runs), and *hosted*, submitted through the Arena's
registry (its entry checks included) and run by the platform in its sandbox (bubblewrap, cgroups: 1 CPU of
quota, 512 MiB), reached through its Unix socket. Every part alternates the two forms within one run (A, B,
A, B ...) on this (shared, noisy) machine, and reports ratios.

- ``roundtrip``: Svara games played by the referee in this process (``referee.play``), seat 0 the bot under
  test, the other seats in-process reference bots; each seed once in each form, in alternating order. The
  per-decision time the referee charges (its ``latency_ms``: request out, answer in), median, mean and p90 of
  each form, and the ratios. *remote* runs on the sandbox's interpreter (``/usr/bin/python3``) with the same SDK
  files, so that only the transport and the sandbox differ; *remote-venv* on this process's Python.
- ``coldstart``: the hosted bot stopped and asked for again ``--starts`` times: seconds from the request to
  a bot that answers its health check (sandbox, Python, grpc, the bot's import, the health call).
- ``celery``: a Svara season of three copies of the bot (tables of 3) on two ``cardarena worker
  --concurrency 1`` processes over a private redis-server, in a fresh SQLite store each time, remote and
  hosted alternated ``--rounds`` times; games per second (the follower's wall time, workers ready before the
  clock starts; the hosted bots' cold starts in each worker process are inside it) and the ratio.
- ``submit``: a ladder of three remote bots runs (``ladder run``); a newcomer's Python bot with a
  requirements file (``six``, the pip cache warmed by one build first) is submitted; seconds until the
  submission is stored, and until its first ladder game is done.

Needs bubblewrap and cgroups (it says so in one line otherwise); ``celery`` needs redis-server.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

from arena.registry import Registry, RegistryConfig
from bench.bench_celery import free_port, start_worker, steady_ms_per_game, stop_workers, wait_ready
from config import get_settings
from hosting.launch import HostingConfig
from hosting.runtime import SANDBOX_PYTHON, runtime_dir
from hosting.sandbox import unavailable
from hosting.supervisor import Supervisor
from league.policy import POLICY
from referee.bots import load_bot
from referee.clients import GrpcBotClient, InProcessBotClient
from referee.games import make_params, spec
from referee.referee import play
from referee.timecontrol import TimeControl
from store import Store, open_store
from store.artifacts import hosted_of
from workers.celery_app import configure
from workers.follower import SeasonFollower

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "python"
PARTS = ("roundtrip", "coldstart", "celery", "submit")


def remote_example(python: str = sys.executable, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """The Python example served over TCP on 127.0.0.1, as its author runs it (with ``python``; ``env``: its
    whole environment, None: this process's)."""
    process = subprocess.Popen([python, str(EXAMPLE / "bot.py"), "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, process_group=0, env=env)
    line = process.stdout.readline() if process.stdout else ""
    if " listening on " not in line:
        raise RuntimeError(f"the example did not start: {line!r}")
    return process, line.split()[-1]


def stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


def decision_ms(client: object, seed: int) -> list[float]:
    """The referee's charged time of each of seat 0's decisions in one Svara game (seats 1, 2: in-process)."""
    game = spec("svara")
    opponents = [InProcessBotClient(load_bot(ref, seed + k).act) for k, ref in enumerate(game.opponents[:2], start=1)]
    record = play(game, make_params("svara", {}), 3, seed, [client, *opponents], TimeControl.for_game(spec("svara")),
                  game_id=f"bench-{seed}")
    return [d.latency_ms for d in record.decisions if d.seat == 0 and d.called]


def roundtrip(registry: Registry, supervisor: Supervisor, games: int) -> None:
    done = registry.submit("rt-hosted", ["svara"], EXAMPLE)
    hosted = GrpcBotClient(supervisor.endpoint(hosted_of(done.bot.endpoint)))  # type: ignore[arg-type]
    # the same bot and the same interpreter and SDK files as the sandbox's, served over TCP; and on this
    # process's own Python (the platform's virtual environment), as an author who runs the platform might
    runtime = runtime_dir(supervisor.config.directory)
    same = remote_example(SANDBOX_PYTHON, {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{runtime}/python"})
    venv = remote_example()
    try:
        clients = {"remote": GrpcBotClient(same[1]), "remote-venv": GrpcBotClient(venv[1]), "hosted": hosted}
        for client in clients.values():
            decision_ms(client, 999)  # warm every channel and bot
        times: dict[str, list[float]] = {form: [] for form in clients}
        for seed in range(games):
            order = list(clients.items())
            for form, client in order if seed % 2 == 0 else reversed(order):
                times[form] += decision_ms(client, seed)
    finally:
        stop(same[0])
        stop(venv[0])
    med = {f: statistics.median(v) for f, v in times.items()}
    mean = {f: statistics.fmean(v) for f, v in times.items()}
    p90 = {f: sorted(v)[int(0.9 * len(v))] for f, v in times.items()}
    for form in times:
        print(f"roundtrip {form}: {len(times[form])} decisions, median {med[form]:.3f} ms, mean {mean[form]:.3f} ms, "
              f"p90 {p90[form]:.3f} ms")
    print(f"roundtrip: hosted/remote (same Python, TCP) median {med['hosted'] / med['remote']:.2f}, mean "
          f"{mean['hosted'] / mean['remote']:.2f}; hosted/remote-venv median {med['hosted'] / med['remote-venv']:.2f}, "
          f"mean {mean['hosted'] / mean['remote-venv']:.2f}")


def coldstart(registry: Registry, supervisor: Supervisor, starts: int) -> None:
    done = registry.submit("cold-hosted", ["svara"], EXAMPLE)
    key = hosted_of(done.bot.endpoint)
    seconds = []
    for _ in range(starts):
        supervisor.stop(key)  # type: ignore[arg-type]
        t0 = time.perf_counter()
        supervisor.endpoint(key)  # type: ignore[arg-type]
        seconds.append(time.perf_counter() - t0)
    print(f"coldstart: {starts} starts of the hosted Python example to a SERVING health answer: median "
          f"{statistics.median(seconds):.2f} s, max {max(seconds):.2f} s, min {min(seconds):.2f} s")


def celery_season(tmp: Path, form: str, broker: str, games: int, k: int, remotes: list[str]) -> tuple[float, float]:
    """One season of three copies of the example on two workers: (games/s, steady ms per game)."""
    db_url = f"sqlite:///{tmp / f'{form}-{k}.db'}"
    store = open_store(db_url, policy=POLICY)
    registry = Registry(store, RegistryConfig.from_settings())
    names = [f"{form}-{i}" for i in range(3)]
    for name, endpoint in zip(names, remotes, strict=True):
        if form == "hosted":
            registry.submit(name, ["svara"], EXAMPLE)
        else:
            registry.register(name, endpoint, ["svara"])
    from league.competition.seasons import create_season

    season_id = create_season(store, "bench", spec("svara"), names, [3], games, 7)
    app = configure(broker)
    workers = [start_worker(broker, db_url, f"{form}{k}-{i}", tmp / f"{form}{k}-{i}.log") for i in range(2)]
    try:
        wait_ready(app, [f"{form}{k}-{i}" for i in range(2)])
        ids = store.seasons.next_pending(season_id, 10**6)
        t0 = time.perf_counter()
        progress = SeasonFollower(store, app, season_id, tick_s=0.05, window=16).run()
        elapsed = time.perf_counter() - t0
        assert progress["done"] == len(ids), progress
        return len(ids) / elapsed, steady_ms_per_game(store, ids)
    finally:
        stop_workers(workers, 20.0)
        store.close()


def celery(tmp: Path, games: int, rounds: int) -> None:
    binary = shutil.which("redis-server")
    if binary is None:
        print("celery: skipped: redis-server is not installed (apt-get install redis-server)")
        return
    port = free_port()
    server = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    broker = f"redis://127.0.0.1:{port}/0"
    remotes = [remote_example() for _ in range(3)]
    try:
        for _ in range(100):
            try:
                redis.Redis(port=port).ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        rates: dict[str, list[tuple[float, float]]] = {"remote": [], "hosted": []}
        for k in range(rounds):
            for form in ("remote", "hosted") if k % 2 == 0 else ("hosted", "remote"):
                rates[form].append(celery_season(tmp, form, broker, games, k, [e for _, e in remotes]))
                print(f"  celery round {k + 1} {form}: {rates[form][-1][0]:.2f} games/s", flush=True)
    finally:
        for process, _ in remotes:
            stop(process)
        server.kill()
        server.wait()
    gps = {f: statistics.fmean(r for r, _ in v) for f, v in rates.items()}
    steady = {f: statistics.fmean(s for _, s in v) for f, v in rates.items()}
    print(f"celery: {games}-game Svara seasons on 2 workers, {rounds} each: remote {gps['remote']:.2f} games/s "
          f"({steady['remote']:.1f} ms/game steady), hosted {gps['hosted']:.2f} games/s ({steady['hosted']:.1f} ms/game "
          f"steady); hosted/remote {gps['hosted'] / gps['remote']:.2f}")


def submit(tmp: Path, store: Store, registry: Registry) -> None:
    from referee.botprocess import start_bot_process

    url = str(store.engine.url)
    remotes = [start_bot_process("points", seed=k) for k in range(3)]
    runner = None
    try:
        for k, process in enumerate(remotes):
            store.bots.register_bot(f"ladder-remote-{k}", process.endpoint, "1", "bench", ["svara"], capacity=8)
        subprocess.run([sys.executable, "-m", "cli.main", "ladder", "create", "bench-ladder", "--game", "svara",
                        "--tables", "3", "--db", url], cwd=REPO, check=True, capture_output=True)
        warm = _with_six(tmp / "warm", "# warm the pip cache\n")
        registry.submit("cache-warmer", ["rummy"], warm)  # not in the svara ladder: it only fills the pip cache
        runner = subprocess.Popen([sys.executable, "-m", "cli.main", "ladder", "run", "bench-ladder", "--workers", "2",
                                   "--db", url], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        newcomer = _with_six(tmp / "newcomer", "# a newcomer\n")
        t0 = time.perf_counter()
        done = registry.submit("newcomer", ["svara"], newcomer)
        stored = time.perf_counter() - t0
        while True:
            seasons = [s for s in store.seasons.list_seasons() if s.name.startswith("bench-ladder:epoch-")]
            if any(g.status == "done" and any(seat.bot_id == done.bot.id for seat in g.seats)
                   for s in seasons for g in store.game_reads.list_games(s.id, limit=10**5)):
                break
            if time.perf_counter() - t0 > 600:
                raise RuntimeError("the newcomer did not play within 600 s")
            time.sleep(0.1)
        playing = time.perf_counter() - t0
    finally:
        if runner is not None:
            runner.send_signal(signal.SIGTERM)
            runner.wait(60)
        for process in remotes:
            process.stop()
    print(f"submit: a Python bot with a requirements file (six, warm pip cache): stored {stored:.1f} s after "
          f"bot submit, its first ladder game done {playing:.1f} s after it")


def _with_six(path: Path, extra: str) -> Path:
    shutil.copytree(EXAMPLE, path)
    with (path / "bot.py").open("a") as handle:
        handle.write(f"{extra}import six\n")
    (path / "requirements.txt").write_text("six==1.17.0\n")
    (path / "cardarena.toml").write_text('[bot]\nserve = "bot:ExampleBot"\nrequirements = "requirements.txt"\n')
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated, of {','.join(PARTS)}")
    parser.add_argument("--games", type=int, default=40, help="roundtrip: games per form")
    parser.add_argument("--starts", type=int, default=10, help="coldstart: starts")
    parser.add_argument("--season-games", type=int, default=150, help="celery: games per season")
    parser.add_argument("--rounds", type=int, default=2, help="celery: seasons per form")
    args = parser.parse_args()
    parts = args.parts.split(",")
    if not set(parts) <= set(PARTS):
        parser.error(f"--parts: choose among {','.join(PARTS)}")
    why = unavailable()
    if why is not None:
        print(f"bench_hosted: {why}")
        return
    with tempfile.TemporaryDirectory(prefix="bench-hosted-", dir="/tmp") as name:
        tmp = Path(name)
        os.chmod(tmp, 0o711)  # the sandbox's user passes through to the hosting directory
        os.environ["CARDARENA_HOSTING_DIR"] = str(tmp / "hosting")
        get_settings.cache_clear()
        store = open_store(f"sqlite:///{tmp / 'bench.db'}", policy=POLICY)
        registry = Registry(store, RegistryConfig.from_settings(), hosting=HostingConfig.from_settings())
        supervisor = Supervisor(store.artifacts, HostingConfig.from_settings())
        try:
            if "roundtrip" in parts:
                roundtrip(registry, supervisor, args.games)
            if "coldstart" in parts:
                coldstart(registry, supervisor, args.starts)
            if "celery" in parts:
                celery(tmp, args.season_games, args.rounds)
            if "submit" in parts:
                submit(tmp, store, registry)
        finally:
            supervisor.close()
            store.close()


if __name__ == "__main__":
    main()
