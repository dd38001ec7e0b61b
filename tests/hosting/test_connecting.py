"""Connecting anywhere from a hosted bot: Redis, PostgreSQL, the Arena, loopback ports, the machine's own
address, an abstract Unix socket, outside addresses, names.

The test listens itself on 127.0.0.1, on every address of the machine and on an abstract Unix socket,
starts the Arena on loopback, and counts what reaches it; the hostile bot, handed every address, tries
TCP, UDP and a name lookup to each, and reports what its network holds. Nothing may connect, and its
network namespace must hold a loopback device only.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.registry import Registry, RegistryConfig
from arena.service import start_arena_server
from hosting.launch import HostingConfig
from hosting.supervisor import Supervisor
from store import Store
from tests.hosting.conftest import hostile_dir, report, store_bot

ATTACK = '''
def attack():
    import socket
    out = {{"tcp": {{}}, "udp": {{}}, "names": {{}}, "abstract": None, "interfaces": socket.if_nameindex()}}
    for host, port in {targets!r}:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.settimeout(2)
                s.connect((host, port))
                out["tcp"][f"{{host}}:{{port}}"] = "CONNECTED"
        except Exception as exc:
            out["tcp"][f"{{host}}:{{port}}"] = type(exc).__name__ + " " + str(exc)
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.settimeout(1)
                s.sendto(b"x", (host, port))
                out["udp"][f"{{host}}:{{port}}"] = "SENT"
        except Exception as exc:
            out["udp"][f"{{host}}:{{port}}"] = type(exc).__name__ + " " + str(exc)
    for name in ("pypi.org", "localhost", "example.com"):
        try:
            out["names"][name] = socket.getaddrinfo(name, 443)
        except Exception as exc:
            out["names"][name] = "ERROR " + type(exc).__name__
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect({abstract!r})
            out["abstract"] = "CONNECTED"
    except Exception as exc:
        out["abstract"] = type(exc).__name__ + " " + str(exc)
    return out
'''


class Listener:
    """A TCP (or abstract Unix) listener that counts the connections it accepts."""

    def __init__(self, family: int, address: object) -> None:
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.bind(address)
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


def machine_addresses() -> list[str]:
    """This machine's own non-loopback IPv4 addresses (the one a default route leaves from, and its name's)."""
    found = set()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: it only picks the source address
            found.add(probe.getsockname()[0])
        except OSError:
            pass
    try:
        found.update(info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET))
    except OSError:
        pass
    return sorted(a for a in found if not a.startswith("127."))


@pytest.fixture
def listeners() -> Iterator[list[Listener]]:
    made = [Listener(socket.AF_INET, ("127.0.0.1", 0)), Listener(socket.AF_INET, ("0.0.0.0", 0)),
            Listener(socket.AF_UNIX, b"\0cardarena-test-" + str(threading.get_ident()).encode())]
    yield made
    for listener in made:
        listener.close()


def test_a_hosted_bot_connects_nowhere(tmp_path: Path, store: Store, config: HostingConfig, supervisor: Supervisor,
                                       listeners: list[Listener]) -> None:
    arena, arena_port = start_arena_server("unused://", "127.0.0.1", 0,
                                           registry=Registry(store, RegistryConfig.from_settings()))
    try:
        loopback, anywhere, abstract = listeners
        own = machine_addresses()
        targets = [("127.0.0.1", 6379), ("127.0.0.1", 5432), ("127.0.0.1", arena_port),
                   ("127.0.0.1", loopback.sock.getsockname()[1]), ("127.0.0.1", anywhere.sock.getsockname()[1]),
                   ("::1", 6379), ("1.1.1.1", 53), ("8.8.8.8", 443), ("169.254.169.254", 80),
                   *[(a, anywhere.sock.getsockname()[1]) for a in own], *[(a, 5432) for a in own]]
        sha = store_bot(store, hostile_dir(tmp_path, ATTACK.format(targets=targets,
                                                                   abstract=abstract.sock.getsockname())), config)

        found = report(supervisor, sha)

        assert [name for _, name in found["interfaces"]] == ["lo"], found["interfaces"]
        assert not [t for t, r in found["tcp"].items() if r == "CONNECTED"], found["tcp"]
        assert found["abstract"] != "CONNECTED"
        assert all(not isinstance(r, list) or all(a[4][0] in ("127.0.0.1", "::1") for a in r)
                   for r in found["names"].values()), found["names"]  # no resolver: only /etc/hosts-less loopback
        assert [listener.accepted for listener in listeners] == [0, 0, 0]
        # the control: the same attack run by the worker itself reaches the test's listeners
        scope: dict[str, object] = {}
        exec(ATTACK.format(targets=targets[3:5], abstract=abstract.sock.getsockname()), scope)
        unsandboxed = scope["attack"]()  # type: ignore[operator]
        assert list(unsandboxed["tcp"].values()) == ["CONNECTED", "CONNECTED"] and unsandboxed["abstract"] == "CONNECTED"
        # UDP has no connection: a datagram "sent" went to the sandbox's own loopback or nowhere
        assert all(r != "SENT" for t, r in found["udp"].items() if not t.startswith(("127.", "::1"))), found["udp"]
    finally:
        arena.stop(0)
