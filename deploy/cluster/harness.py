"""Hosts as Linux network namespaces on one bridge, and the deploy guide's commands started on them.

:class:`Cluster` makes each host a network namespace with its own address (``SUBNET``) joined to
one bridge by a veth pair; :meth:`Cluster.cut` and :meth:`Cluster.restore` take a host's link down
and up (its processes keep running, as on a machine whose network is lost). The bridge itself has
an address (``ADMIN``) so that the process that built the cluster can read the store and the
broker, as an operator's machine would. Nothing is routed off the machine: there is no default
route in any namespace.

:func:`start_deployment` starts on the hosts the parts of ``deploy/README.md``: a redis-server on
the broker host, a private PostgreSQL cluster (``initdb``/``pg_ctl``, run as the ``postgres``
user) on the store host, the server on the organiser host, the bots on the bot host (registered
through the server's Arena), and a worker on each worker host, each with the command the guide's
cluster block gives (:mod:`deploy.cluster.guide`). Each host has a hosting directory of its own (the
server's runs submissions' entry checks, a worker's runs hosted bots), under the cluster's work directory.

Everything started is stopped by :meth:`Cluster.down` (process groups killed, namespaces and
bridge deleted), which is safe to call twice and after a partial start. Needs root and ``ip``;
:func:`unavailable` says why a machine cannot build a cluster.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from deploy.cluster.guide import command_for

REPO = Path(__file__).resolve().parents[2]
#: The hosts' network: 10.231.0.0/24; the bridge (the operator's side) is .1.
SUBNET = "10.231.0"
ADMIN = f"{SUBNET}.1"
#: Host name -> last byte of its address.
HOSTS = {"broker": 2, "store": 3, "worker-a": 4, "worker-b": 5, "bots": 6, "organiser": 7}
#: The bots served on the bot host: (command's BOT, registered name, port, seed). The last is the
#: example bot of examples/python (capacity 4).
BOTS = (("odds", "odds-a", 50061, 1), ("random", "random-b", 50062, 2), ("odds", "odds-c", 50063, 3),
        ("examples.python.bot:ExampleBot", "example-d", 50064, 4))
PG_PORT = 5432
#: PostgreSQL's idle_in_transaction_session_timeout on the store host, ms (deploy/README.md, "The store's
#: PostgreSQL must end sessions left idle in a transaction"): a worker host cut off between two statements of a transaction leaves its
#: session holding row locks (the season's, its bots') until TCP gives up, hours later, and every
#: claim and the sweeper wait behind them; the server ends such a session after this.
IDLE_IN_TRANSACTION_MS = 3000
REDIS_PORT = 6379


class ClusterUnavailable(RuntimeError):
    """This machine cannot build a cluster; ``str(e)`` says why in one line."""


def unavailable() -> str | None:
    """Why a cluster cannot be built here (one line), or None if it can."""
    if os.geteuid() != 0:
        return "the cluster needs root (network namespaces: ip netns)"
    if shutil.which("ip") is None:
        return "the cluster needs iproute2's ip (apt-get install iproute2)"
    if shutil.which("nsenter") is None:
        return "the cluster needs util-linux's nsenter (apt-get install util-linux)"
    for tool in ("redis-server", "initdb", "pg_ctl"):
        if shutil.which(tool) is None and not _pg_binary(tool):
            return f"the cluster needs {tool} on PATH (redis-server, and PostgreSQL's initdb and pg_ctl)"
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "the cluster needs a 'postgres' user to run PostgreSQL's initdb as (it refuses root)"
    probe = f"ca-probe-{os.getpid()}"
    done = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if done.returncode != 0:
        return f"ip netns add fails here: {done.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _pg_binary(tool: str) -> str | None:
    """PostgreSQL's ``tool`` on PATH or in Debian's versioned directory (newest first)."""
    found = shutil.which(tool)
    if found:
        return found
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{tool}"), reverse=True):
        return str(candidate)
    return None


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


@dataclass
class Host:
    """One host: its namespace, its address, the root side of its veth pair."""

    name: str
    netns: str
    veth: str
    addr: str


@dataclass
class Proc:
    """A process started on a host, its log, and the role it plays."""

    host: str
    role: str
    process: subprocess.Popen[bytes]
    log: Path

    def alive(self) -> bool:
        return self.process.poll() is None


@dataclass
class Cluster:
    """The hosts of one cluster; :meth:`up` builds them, :meth:`down` removes everything."""

    workdir: Path
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:4])
    hosts: dict[str, Host] = field(default_factory=dict)
    procs: list[Proc] = field(default_factory=list)
    bridge: str = ""
    pgdata: Path | None = None

    def up(self) -> Cluster:
        """Create the bridge and a namespace per host of HOSTS. Raises ClusterUnavailable."""
        reason = unavailable()
        if reason:
            raise ClusterUnavailable(reason)
        self.bridge = f"cab{self.tag}"
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{ADMIN}/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for name, last in HOSTS.items():
            host = Host(name, f"ca{self.tag}-{name}", f"ca{self.tag}{last}", f"{SUBNET}.{last}")
            _ip("netns", "add", host.netns)
            self.hosts[name] = host
            _ip("link", "add", host.veth, "type", "veth", "peer", "name", f"{host.veth}p")
            _ip("link", "set", f"{host.veth}p", "netns", host.netns)
            _ip("link", "set", host.veth, "master", self.bridge)
            _ip("link", "set", host.veth, "up")
            _ip("-n", host.netns, "link", "set", f"{host.veth}p", "name", "eth0")
            _ip("-n", host.netns, "addr", "add", f"{host.addr}/24", "dev", "eth0")
            _ip("-n", host.netns, "link", "set", "eth0", "up")
            _ip("-n", host.netns, "link", "set", "lo", "up")
        return self

    def addr(self, host: str) -> str:
        return self.hosts[host].addr

    def cut(self, host: str) -> None:
        """Take ``host``'s link down: its processes run on, nothing reaches it or leaves it."""
        _ip("link", "set", self.hosts[host].veth, "down")

    def restore(self, host: str) -> None:
        """Bring ``host``'s link up again."""
        _ip("link", "set", self.hosts[host].veth, "up")

    def _enter(self, host: str, user: str | None) -> list[str]:
        """The argv prefix that runs a command on ``host``: ``nsenter --net`` joins only the host's network
        namespace (``ip netns exec`` would also remount /sys, which some container runtimes refuse and which
        hides the machine's cgroup mounts from the processes that run hosted bots' sandboxes)."""
        prefix = ["nsenter", f"--net=/run/netns/{self.hosts[host].netns}", "--"]
        return [*prefix, "runuser", "-u", user, "--"] if user else prefix

    def start(self, host: str, role: str, argv: list[str], env: dict[str, str] | None = None,
              user: str | None = None) -> Proc:
        """Start ``argv`` on ``host`` (in its network namespace, a session of its own, in the repository), its
        output to a log under the workdir."""
        log = self.workdir / f"{host}-{role}-{len(self.procs)}.log"
        with log.open("wb") as out:
            process = subprocess.Popen([*self._enter(host, user), *argv], cwd=REPO, env={**os.environ, **(env or {})},
                                       stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        proc = Proc(host, role, process, log)
        self.procs.append(proc)
        return proc

    def run(self, host: str, argv: list[str], env: dict[str, str] | None = None, timeout_s: float = 120,
            user: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` on ``host`` to its end; returns it (output captured, not checked)."""
        return subprocess.run([*self._enter(host, user), *argv], cwd=REPO, env={**os.environ, **(env or {})},
                              capture_output=True, text=True, timeout=timeout_s)

    def stop(self, proc: Proc, sig: int = signal.SIGKILL) -> None:
        """Signal ``proc``'s whole process group and wait for it."""
        try:
            os.killpg(proc.process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.process.pid, signal.SIGKILL)
            proc.process.wait(10)

    def down(self) -> None:
        """Stop every process, PostgreSQL included, and delete the namespaces and the bridge.
        Safe after a partial :meth:`up` and when called twice."""
        for proc in reversed(self.procs):
            if proc.alive():
                self.stop(proc)
        self.procs.clear()
        if self.pgdata is not None and (self.pgdata / "postmaster.pid").exists():
            subprocess.run(["runuser", "-u", "postgres", "--", _pg_binary("pg_ctl") or "pg_ctl", "-D",
                            str(self.pgdata), "-m", "immediate", "-w", "stop"], capture_output=True, timeout=60)
        for host in self.hosts.values():
            _ip("netns", "del", host.netns, check=False)
            _ip("link", "del", host.veth, check=False)
        self.hosts.clear()
        if self.bridge:
            _ip("link", "del", self.bridge, check=False)
            self.bridge = ""

    def __enter__(self) -> Cluster:
        return self.up()

    def __exit__(self, *exc: object) -> None:
        self.down()


def wait_port(addr: str, port: int, timeout_s: float = 60.0, what: str = "", proc: Proc | None = None) -> None:
    """Wait until ``addr:port`` accepts a TCP connection (from the operator's side). Raises RuntimeError naming
    ``what``, and when ``proc`` (the process that should listen) is given, whether it exited and its log's end."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((addr, port), timeout=0.5):
                return
        except OSError:
            if proc is not None and not proc.alive():
                break
            time.sleep(0.1)
    message = f"{what or f'{addr}:{port}'} did not listen within {timeout_s:.0f} s"
    if proc is not None:
        state = "running" if proc.alive() else f"exited with {proc.process.returncode}"
        tail = proc.log.read_bytes()[-1500:].decode(errors="replace") if proc.log.exists() else ""
        message += f" (the process is {state}; its log ends: {tail!r})"
    raise RuntimeError(message)


@dataclass
class Deployment:
    """The started deployment: the cluster, its URLs (as the hosts dial them), bot names, processes by role."""

    cluster: Cluster
    db_url: str
    broker_url: str
    bots: list[str]
    workers: dict[str, Proc]
    lease_s: float

    def env(self) -> dict[str, str]:
        """The CARDARENA_* environment of every cardarena process (deploy/README.md)."""
        return {"CARDARENA_DB_URL": self.db_url, "CARDARENA_BROKER_URL": self.broker_url,
                "CARDARENA_LEASE_S": f"{self.lease_s:g}"}

    def host_env(self, host: str) -> dict[str, str]:
        """:meth:`env` and the host's own hosting directory: each host caches and runs hosted bots on its own
        disk, as separate machines do (deploy/README.md, "Workers that host bots")."""
        return {**self.env(), "CARDARENA_HOSTING_DIR": str(self.cluster.workdir / "hosting" / host)}

    def cardarena(self, role: str, values: dict[str, str]) -> list[str]:
        """The guide's command for ``role``, its ``cardarena`` the one installed beside this Python."""
        argv = command_for(role, {**values, **self.env()})
        if argv[0] == "cardarena":
            argv[0] = str(Path(sys.executable).parent / "cardarena")
        return argv

    def start_worker(self, host: str, concurrency: int = 2, extra_env: dict[str, str] | None = None) -> Proc:
        """Start the guide's worker on ``host`` (``extra_env`` added to its environment, e.g. a clock
        shifted by libfaketime) and wait until it consumes. Raises RuntimeError."""
        argv = self.cardarena("worker", {"CONCURRENCY": str(concurrency), "WORKER_NAME": f"{host}@cluster"})
        proc = self.cluster.start(host, "worker", argv, {**self.host_env(host), **(extra_env or {})})
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if b" ready." in proc.log.read_bytes():
                self.workers[host] = proc
                return proc
            if not proc.alive():
                break
            time.sleep(0.2)
        raise RuntimeError(f"worker on {host} did not become ready:\n{proc.log.read_text(errors='replace')[-2000:]}")

    def season_create(self, name: str, games: int, suspend_after_s: float = 600.0, deadline_s: float = 1.0,
                      time_bank_s: float = 10.0) -> None:
        """Create a season of every bot with the guide's command, on the organiser host (the time control:
        ``deadline_s`` a decision, ``time_bank_s`` a seat's bank, rules §4.1). Raises RuntimeError."""
        argv = self.cardarena("season create", {"SEASON": name, "BOTS": ",".join(self.bots), "GAMES": str(games),
                                                "SUSPEND_AFTER": f"{suspend_after_s:g}", "DEADLINE": f"{deadline_s:g}",
                                                "TIME_BANK": f"{time_bank_s:g}"})
        done = self.cluster.run("organiser", argv, self.env())
        if done.returncode != 0:
            raise RuntimeError(f"season create failed: {done.stdout[-1500:]}{done.stderr[-1500:]}")

    def season_run(self, name: str, stall_timeout_s: float = 120.0) -> Proc:
        """Start the guide's ``season run`` on the organiser host; returns it running."""
        argv = self.cardarena("season run", {"SEASON": name, "STALL_TIMEOUT": f"{stall_timeout_s:g}"})
        return self.cluster.start("organiser", "season-run", argv, self.env())

    def ladder_create(self, name: str, epoch_games: int, suspend_after_s: float = 600.0) -> None:
        """Create a ladder of slippery-sam with the guide's command, on the organiser host: every bot
        registered for the game is an entrant (docs/organising.md, "Ladders"). Raises RuntimeError."""
        argv = self.cardarena("ladder create", {"LADDER": name, "EPOCH_GAMES": str(epoch_games),
                                                "SUSPEND_AFTER": f"{suspend_after_s:g}"})
        done = self.cluster.run("organiser", argv, self.env())
        if done.returncode != 0:
            raise RuntimeError(f"ladder create failed: {done.stdout[-1500:]}{done.stderr[-1500:]}")

    def ladder_run(self, name: str, games: int, stall_timeout_s: float = 120.0) -> Proc:
        """Start the guide's ``ladder run --broker`` on the organiser host, ending once ``games`` games
        of the run are final; returns it running."""
        argv = self.cardarena("ladder run", {"LADDER": name, "GAMES": str(games),
                                             "STALL_TIMEOUT": f"{stall_timeout_s:g}"})
        return self.cluster.start("organiser", "ladder-run", argv, self.env())

    def submit(self, name: str, path: Path) -> subprocess.CompletedProcess[str]:
        """The guide's ``bot submit`` of the folder ``path`` as the hosted bot ``name``, from the organiser host."""
        argv = self.cardarena("submit", {"NAME": name, "BOT_PATH": str(path), "SERVER_ADDR": self.cluster.addr("organiser")})
        return self.cluster.run("organiser", argv, self.env(), timeout_s=300)

    def ladder(self, role: str, name: str) -> subprocess.CompletedProcess[str]:
        """Run the guide's ``ladder standings`` or ``ladder verify`` on the organiser host to its end."""
        return self.cluster.run("organiser", self.cardarena(role, {"LADDER": name}), self.env())


def _start_store(cluster: Cluster) -> str:
    """A private PostgreSQL cluster on the store host (database ``arena``, user ``arena``, trust from
    the cluster's network); returns its URL. Raises RuntimeError."""
    initdb, pg_ctl = _pg_binary("initdb"), _pg_binary("pg_ctl")
    pgdata = cluster.workdir / "pgdata"
    pgdata.mkdir()
    os.chown(pgdata, pwd.getpwnam("postgres").pw_uid, pwd.getpwnam("postgres").pw_gid)
    os.chmod(cluster.workdir, 0o755)
    done = subprocess.run(["runuser", "-u", "postgres", "--", str(initdb), "-D", str(pgdata), "-U", "arena",
                           "--auth=trust", "-E", "UTF8"], capture_output=True, text=True, timeout=180)
    if done.returncode != 0:
        raise RuntimeError(f"initdb failed: {done.stderr[-1500:]}")
    with (pgdata / "pg_hba.conf").open("a") as hba:
        hba.write(f"host all all {SUBNET}.0/24 trust\n")
    cluster.pgdata = pgdata
    addr = cluster.addr("store")
    done = cluster.run("store", [str(pg_ctl), "-D", str(pgdata), "-w", "-l", str(pgdata / "server.log"), "-o",
                                 f"-c listen_addresses={addr} -p {PG_PORT} -k {pgdata} -c fsync=off "
                                 f"-c max_connections=200 -c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_MS}", "start"], user="postgres", timeout_s=120)
    if done.returncode != 0:
        raise RuntimeError(f"pg_ctl start failed: {done.stdout[-1000:]}{done.stderr[-1000:]}")
    import psycopg  # the store's own driver

    with psycopg.connect(host=addr, port=PG_PORT, user="arena", dbname="postgres", autocommit=True) as conn:
        conn.execute("CREATE DATABASE arena")
    return f"postgresql+psycopg://arena@{addr}:{PG_PORT}/arena"


def start_deployment(cluster: Cluster, lease_s: float = 10.0, worker_hosts: tuple[str, ...] = ("worker-a", "worker-b"),
                     concurrency: int = 2) -> Deployment:
    """Start every part of the guide on ``cluster`` (see the module docstring); returns the Deployment.
    Raises RuntimeError naming the part that did not start."""
    broker_addr = cluster.addr("broker")
    redis = cluster.start("broker", "redis", command_for("broker", {"BROKER_ADDR": broker_addr}))
    wait_port(broker_addr, REDIS_PORT, what="redis-server on the broker host", proc=redis)
    db_url = _start_store(cluster)
    dep = Deployment(cluster, db_url, f"redis://{broker_addr}:{REDIS_PORT}/0", [], {}, lease_s)
    server_addr = cluster.addr("organiser")
    server = cluster.start("organiser", "server", dep.cardarena("server", {"SERVER_ADDR": server_addr}),
                           dep.host_env("organiser"))
    wait_port(server_addr, 50050, 120, "the server's Arena on the organiser host", proc=server)
    bot_addr = cluster.addr("bots")
    bot_procs = []
    for bot, name, port, seed in BOTS:
        values = {"BOT": bot, "BOT_ADDR": bot_addr, "BOT_PORT": str(port), "SEED": str(seed)}
        bot_procs.append(cluster.start("bots", f"bot-{name}", dep.cardarena("bot", values), {"PYTHONPATH": str(REPO)}))
    for (bot, name, port, seed), proc in zip(BOTS, bot_procs):
        wait_port(bot_addr, port, 60, f"bot {name} on the bot host", proc=proc)
        argv = dep.cardarena("register", {"NAME": name, "BOT_ADDR": bot_addr, "BOT_PORT": str(port),
                                          "SERVER_ADDR": server_addr})
        done = cluster.run("bots", argv, timeout_s=180)
        if done.returncode != 0:
            raise RuntimeError(f"bot register {name} failed: {done.stdout[-1500:]}{done.stderr[-1500:]}")
        dep.bots.append(name)
    for host in worker_hosts:
        dep.start_worker(host, concurrency)
    return dep


def new_workdir() -> Path:
    """A temporary directory for one cluster's logs and PostgreSQL data (readable by the postgres user)."""
    path = Path(tempfile.mkdtemp(prefix="cardarena-cluster-"))
    path.chmod(0o755)
    return path
