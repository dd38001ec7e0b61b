"""`cardarena ladder compare` end to end on real gRPC reference bots and the local pool (rules §5.5): one
bot served twice under two names comes out "within the zone", a strong bot against a weak one "better",
on a duplicate ladder whose compare tables are played as sealed rotation groups."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from league.policy import POLICY
from referee.botprocess import start_bot_process
from store import open_store
from tests.a_game import GAME, QUICK, STRONG, param_arg
from tests.workers.conftest import REPO, register


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env={"COLUMNS": "250", "PATH": ""})


def test_ladder_compare_answers_within_the_zone_and_better(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ab.db'}"
    procs = [start_bot_process(name, seed) for name, seed in ((STRONG, 0), (STRONG, 1), ("random", 2), ("random", 3))]
    run = None
    try:
        store = open_store(db, policy=POLICY)
        best, twin, weak, _ = register(store, procs)  # STRONG-0, STRONG-1 (the same bot again), random-2, random-3
        made = cli("ladder", "create", "lad", "--game", GAME, "--tables", "3", "--duplicate",
                   *param_arg(QUICK), "--pending", "12", "--db", db)
        assert made.returncode == 0, made.stderr + made.stdout
        bad = cli("ladder", "compare", "lad", f"{best}@9.9", twin, "--db", db)
        assert bad.returncode == 2 and f"serves version {store.bots.get_bot_by_name(best).version} now, not 9.9" in bad.stderr
        version = store.bots.get_bot_by_name(twin).version
        for base, candidate in ((best, f"{twin}@{version}"), (weak, best)):
            started = cli("ladder", "compare", "lad", base, candidate, "--delta", "150", "--confidence", "0.99",
                          "--max-games", "600",
                          "--db", db)
            assert started.returncode == 0 and "running: 0 game(s) so far" in started.stdout, started.stderr
        lid = store.ladders.get_ladder_by_name("lad").id
        log = (tmp_path / "run.log").open("w")
        run = subprocess.Popen([sys.executable, "-m", "cli.main", "ladder", "run", "lad", "--workers", "2",
                                "--games", "3000", "--db", db], cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 240
        while any(c.running for c in store.compares.list_compares(lid)):
            assert time.monotonic() < deadline and run.poll() is None, (tmp_path / "run.log").read_text()
            time.sleep(0.5)
        run.send_signal(signal.SIGTERM)
        assert run.wait(60) in (0, 130, 143), (tmp_path / "run.log").read_text()
    finally:
        if run is not None and run.poll() is None:
            run.kill()
        for p in procs:
            p.stop()
    same = cli("ladder", "compare", "lad", best, twin, "--db", db)
    assert same.returncode == 0 and f"{twin}@{version} against {best}@" in same.stdout, same.stderr
    assert ": within the zone in " in same.stdout and "candidate - base" in same.stdout, same.stdout
    listed = json.loads(cli("ladder", "compares", "lad", "--json", "--db", db).stdout)["compares"]
    verdicts = {(c["base"].split("@")[0], c["candidate"].split("@")[0]): c for c in listed}
    assert verdicts[(best, twin)]["status"] == "within_zone"
    strong = verdicts[(weak, best)]
    assert strong["status"] == "better" and strong["difference"] > 0 and 0 < strong["games"] < 600, strong
    # the compare's games were played as whole rotation groups of one deal each
    for c in store.compares.list_compares(lid):
        games = store.compares.compare_games(lid, (c.base_bot_id, c.candidate_bot_id), c.after_game)
        groups: dict[tuple[int, int], list[int]] = {}
        for g in games:
            groups.setdefault((g.season_id, g.deal_group), []).append(store.game_reads.get_game(g.id).seed)
        assert all(len(seeds) == 3 and len(set(seeds)) == 1 for seeds in groups.values())
        assert c.games <= sum(g.status.value == "done" for g in games)
    standings = json.loads(cli("ladder", "standings", "lad", "--json", "--db", db).stdout)
    assert {c["verdict"] for c in standings["compares"]} == {"within the zone", "better"}
    over = cli("ladder", "compare-stop", "lad", str(strong["id"]), "--db", db)
    assert over.returncode == 2 and "is over already (better)" in over.stderr, over.stderr
