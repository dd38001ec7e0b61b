"""gRPC's C-core log lines stay out of the command's output, and ``python mybot.py`` says where it listens.

gRPC's C core writes INFO lines of its own to stderr (``chttp2_transport.cc ... Got goaway`` when a
peer closes a connection, at moments no test can choose). ``GRPC_TRACE=http`` makes the same
transport log INFO lines on every connection, so a season played with it set shows whether any C-core
INFO line can reach the output: ``botsdk.runtime.configure_grpc`` sets ``GRPC_VERBOSITY=ERROR`` for the
command, its worker processes and its bot processes. The trace also logs a few lines of its own at
ERROR (``parsing.cc ... Stream 5 not found, ignoring WINDOW_UPDATE``, written only while ``http`` is
traced); those are the trace's, not the ones a user's run could print, so only INFO and WARNING lines
count as leaked.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.a_game import GAME

ROOT = Path(__file__).parents[1]

#: A C-core log line below ERROR: ``I1206 09:12:01.123 ... file.cc:12] ...`` (the severity letter first).
_BELOW_ERROR = re.compile(r"^[IW]\d{4} ")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_VERBOSITY"}  # as a user's shell: not set
    return {**env, **extra}


def test_a_season_run_prints_no_grpc_core_log_line(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'q.db'}"
    result = subprocess.run([sys.executable, "-m", "cli.main", "demo", "--games", "6", "--workers", "1", "--db", db],
                            capture_output=True, text=True, timeout=300, cwd=ROOT, env=_env(GRPC_TRACE="http"))
    assert result.returncode == 0, result.stderr
    assert " 0 pending, 0 running in " in result.stdout  # the demo's last line: every game played
    logged = [line for line in (result.stderr + result.stdout).splitlines() if ".cc:" in line or "chttp2" in line]
    leaked = [line for line in logged if _BELOW_ERROR.match(line.lstrip())]
    assert leaked == [], leaked[:3]


#: A bot of GAME as a user writes one (it is never asked to play here: the test is about its first line).
MYBOT = textwrap.dedent(f'''
    import sys
    from botsdk import Bot, serve_forever

    class Cautious(Bot):
        name = "cautious"
        games = ({GAME!r},)

    if __name__ == "__main__":
        serve_forever(Cautious(), port=int(sys.argv[1]))
''')


def test_python_mybot_says_where_it_listens_and_a_busy_port_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(MYBOT)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    first = subprocess.Popen([sys.executable, "mybot.py", str(port)], cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=_env(PYTHONPATH=str(ROOT)))
    try:
        assert first.stdout is not None
        assert first.stdout.readline().strip() == f"bot cautious ({GAME}) listening on 127.0.0.1:{port}"
        second = subprocess.run([sys.executable, "mybot.py", str(port)], cwd=tmp_path, capture_output=True, text=True,
                                timeout=60, env=_env(PYTHONPATH=str(ROOT)))
        assert second.returncode == 1 and second.stdout == ""
        assert second.stderr.splitlines() == [f"cautious: error: cannot serve on 127.0.0.1:{port}: cannot bind "
                                              f"127.0.0.1:{port}: Address already in use"], second.stderr
    finally:
        first.terminate()
        first.wait(10)
