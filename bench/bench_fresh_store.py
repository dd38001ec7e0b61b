"""A fresh store's cost: an empty database made at head from the models in one step, against every revision run.

Each way, ``--stores`` times over on SQLite (a new file each time) and on PostgreSQL (a new schema each time in a
throwaway database, ``bench.scratch_db``), taking turns: the median CPU of this process (seconds) and wall time of
``store.db.migrate`` on a new engine. The tests open hundreds of fresh stores, in their own processes and in the
commands and workers they start; a new deployment opens one.

    python -m bench.bench_fresh_store --stores 20
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bench.scratch_db import pg_admin_url, throwaway_database
from store import db


def _one(url: str, chain: bool) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of migrating the empty database at ``url`` to head."""
    engine = db.create_store_engine(url)
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        db.migrate(engine, chain=chain)
        return time.process_time() - cpu, time.perf_counter() - wall
    finally:
        engine.dispose()


def _sqlite_urls(folder: Path) -> Iterator[str]:
    while True:
        yield f"sqlite:///{folder / uuid.uuid4().hex}.db"


def _pg_urls(database_url: str) -> Iterator[str]:
    admin = create_engine(database_url, isolation_level="AUTOCOMMIT")
    try:
        while True:
            schema = f"s_{uuid.uuid4().hex[:12]}"
            with admin.connect() as conn:
                conn.execute(text(f"CREATE SCHEMA {schema}"))
            yield make_url(database_url).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
                hide_password=False)
    finally:
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", type=int, default=20, help="fresh stores each way on each database")
    parser.add_argument("--databases", default="sqlite,postgresql")
    args = parser.parse_args()
    from alembic import command  # noqa: F401  imported once before timing: a long-lived process has it already

    names = args.databases.split(",")
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        pg_url = stack.enter_context(throwaway_database(pg_admin_url(), label="fresh")) if "postgresql" in names else ""
        for name in names:
            urls = _sqlite_urls(Path(folder)) if name == "sqlite" else _pg_urls(pg_url)
            for chain in (True, False):  # warm: the first of each way pays for imports
                _one(next(urls), chain)
            timed: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
            for _ in range(args.stores):
                for chain in (True, False):
                    timed[chain].append(_one(next(urls), chain))
            for chain in (True, False):
                cpu = statistics.median(c for c, _ in timed[chain]) * 1000
                wall = statistics.median(w for _, w in timed[chain]) * 1000
                way = "every revision" if chain else "at head at once"
                print(f"{name:10} {way:16} CPU {cpu:6.1f} ms  wall {wall:6.1f} ms  (medians of {args.stores})")


if __name__ == "__main__":
    main()
