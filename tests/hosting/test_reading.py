"""Reading what a hosted bot must not see: the store's file and its URL, the worker's environment, a season
key, ``/proc`` of other processes, another bot's files.

The hostile bot knows the worker's paths and pid (a white-box attacker: they are handed to it in its
source), tries each directly and through ``/proc``, then reads every file it can see outside ``/usr`` and
the kernel's own trees. Nothing it reports may hold any of the secrets, and the processes it can see must
all be its own.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest
from referee.games import spec
from sqlalchemy import select

from hosting.launch import HostingConfig
from hosting.supervisor import Supervisor
from league.competition.seasons import create_season
from store import Store
from store.models import Season
from tests.a_game import GAME
from tests.hosting.conftest import bot_dir, hostile_dir, report, store_bot

ATTACK = '''
def attack():
    import os, json
    targets = {targets!r}
    out = {{"read": {{}}, "env": dict(os.environ), "pids": {{}}, "seen": {{}}}}
    for path in targets:
        try:
            with open(path, "rb") as handle:
                out["read"][path] = handle.read(4096).decode("latin-1")
        except Exception as exc:
            out["read"][path] = "ERROR " + type(exc).__name__
        try:
            out["read"][path + " (listdir)"] = os.listdir(path)
        except Exception as exc:
            pass
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                out["pids"][pid] = open(f"/proc/{{pid}}/cmdline", "rb").read().decode("latin-1")
                out["read"][f"/proc/{{pid}}/environ"] = open(f"/proc/{{pid}}/environ", "rb").read().decode("latin-1")
            except Exception as exc:
                out["pids"].setdefault(pid, "ERROR " + type(exc).__name__)
    for top in os.listdir("/"):
        if top in ("usr", "proc", "sys", "dev", "bin", "lib", "lib64", "sbin", "lib32"):
            continue
        for folder, dirs, files in os.walk("/" + top):
            for name in files:
                path = os.path.join(folder, name)
                try:
                    with open(path, "rb") as handle:
                        out["seen"][path] = handle.read(2048).decode("latin-1")
                except Exception as exc:
                    out["seen"][path] = "ERROR " + type(exc).__name__
    return out
'''


def test_a_hosted_bot_reads_no_store_no_key_no_environment_no_other_process_no_other_bot(
        tmp_path: Path, store: Store, config: HostingConfig, supervisor: Supervisor,
        monkeypatch: pytest.MonkeyPatch) -> None:
    store_path = tmp_path / "store.db"
    url_secret = f"postgresql+psycopg://cardarena:{secrets.token_hex(12)}@db.internal/cardarena"
    env_secret = secrets.token_hex(16)
    monkeypatch.setenv("CARDARENA_DB_URL", url_secret)  # the worker's environment holds its store's URL
    monkeypatch.setenv("CARDARENA_TEST_SECRET", env_secret)
    # a season: its secret key is in the store
    store.bots.register_bot("a", "127.0.0.1:1", "1", "x", [GAME])
    store.bots.register_bot("b", "127.0.0.1:2", "1", "x", [GAME])
    store.bots.register_bot("c", "127.0.0.1:3", "1", "x", [GAME])
    season_id = create_season(store, "secret-season", spec(GAME), ["a", "b", "c"], [3], 3)
    with store.db.read() as s:
        season_key = s.scalar(select(Season.deal_key).where(Season.id == season_id))
    assert season_key
    # another hosted bot, running, with a secret file in its artifact
    other_secret = secrets.token_hex(16)
    other = store_bot(store, bot_dir(tmp_path, f"from botsdk import Bot\nclass Hostile(Bot):\n    games = ({GAME!r},)\n",
                                     files={"secret.txt": other_secret}), config)
    supervisor.endpoint(other)
    other_files = config.directory / "artifacts" / other.sha256
    assert (other_files / "secret.txt").read_text() == other_secret
    worker = os.getpid()
    denied = [str(store_path), str(store_path.parent), f"/proc/{worker}/environ", f"/proc/{worker}/cmdline",
              f"/proc/{worker}/mem", f"/proc/{worker}/root{store_path}", str(other_files / "secret.txt"),
              str(config.directory / "artifacts"), str(config.directory), f"/proc/{worker}/root{other_files}/secret.txt",
              "/etc/shadow", "/etc/passwd", "/root"]
    own = ["/proc/1/environ", "/proc/self/environ"]  # the sandbox's own: readable, and holding nothing of the worker's
    sha = store_bot(store, hostile_dir(tmp_path, ATTACK.format(targets=denied + own)), config)

    found = report(supervisor, sha)

    everything = repr(found)
    for secret in (url_secret, env_secret, season_key, other_secret):
        assert secret not in everything, f"the hosted bot read a secret: {secret[:20]}..."
    assert not any(k.startswith("CARDARENA_") and k not in ("CARDARENA_SOCKET",) for k in found["env"]), found["env"]
    for path in denied:
        assert found["read"][path].startswith("ERROR"), f"{path} was readable: {found['read'][path][:80]!r}"
    # every process it sees is its own: the sandbox's init, its python, nothing of the worker's
    own = {pid: cmd for pid, cmd in found["pids"].items() if not cmd.startswith("ERROR")}
    assert len(own) <= 3, own
    assert all("bwrap" in cmd or "botsdk.hosted" in cmd for cmd in own.values()), own
    # the files it can see outside /usr are its own artifact, the runtime, and /etc's loader cache
    outside = [p for p in found["seen"] if not p.startswith(("/bot/code/", "/opt/cardarena/", "/etc/", "/tmp/"))]
    assert outside == [], outside
