"""Benchmark of the action log: appends per second with group commit.

    python bench/store.py [--tables 50] [--seconds 5] [--url URL] [--compare]

Each table is a closed loop, like a table whose players act the moment the
previous action is announced: append an action entry, wait until it is
durable, append the next. Without ``--url`` it uses a fresh SQLite file in a
temporary directory (WAL, synchronous=FULL: every commit is fsynced).
``--compare`` also runs the same writer with one transaction per append
(``max_batch=1``) to show what grouping buys.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy
from sqlalchemy.engine import make_url

from app.db.migrate import run_migrations
from app.db.session import create_engine
from app.db.store import SqlStore

ENTRY = {"type": "action", "action": {"seat": 2, "type": "play", "cards": ["7C", "7S"]}}


async def run(url: str, tables: int, seconds: float, max_batch: int) -> dict[str, float]:
    store = SqlStore(create_engine(url), max_batch=max_batch, owns_engine=True)
    now = datetime.now(UTC)
    ids = [f"bench-{uuid.uuid4().hex[:8]}" for _ in range(tables)]
    await asyncio.gather(*(store.create_table(table_id, {}, now) for table_id in ids))
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def table(table_id: str) -> None:
        seq = 0
        while time.perf_counter() < deadline:
            seq += 1
            t = time.perf_counter()
            await store.append(table_id, seq, {**ENTRY, "v": seq})
            latencies.append(time.perf_counter() - t)

    cpu, start = time.process_time(), time.perf_counter()
    await asyncio.gather(*(table(table_id) for table_id in ids))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    commits = store.stats.commits - 1  # the create_table batch
    await store.close()
    latencies.sort()
    n = len(latencies)
    return {
        "appends": n,
        "per_second": n / elapsed,
        "commits_per_second": commits / elapsed,
        "mean_batch": n / max(commits, 1),
        "p50_ms": 1000 * latencies[n // 2],
        "p99_ms": 1000 * latencies[min(n - 1, int(n * 0.99))],
        "max_ms": 1000 * latencies[-1],
        "cpu_ms_per_1000": 1000 * cpu / n * 1000,
    }


def report(label: str, r: dict[str, float]) -> str:
    return (f"| {label} | {r['per_second']:,.0f} | {r['commits_per_second']:,.0f} | "
            f"{r['mean_batch']:.1f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | "
            f"{r['max_ms']:.1f} | {r['cpu_ms_per_1000']:.0f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python bench/store.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--url", help="a scratch database URL; its rows are left there "
                        "(default: a fresh SQLite file)")
    parser.add_argument("--compare", action="store_true",
                        help="also run one transaction per append")
    args = parser.parse_args(argv)
    where = (make_url(args.url).render_as_string(hide_password=True) if args.url
             else "SQLite file (WAL, synchronous=FULL)")
    modes = [("group commit", 2000)] + ([("one transaction per append", 1)]
                                        if args.compare else [])
    print(f"{datetime.now(UTC):%Y-%m-%d}, Python {platform.python_version()}, "
          f"SQLAlchemy {sqlalchemy.__version__}, {args.tables} closed-loop tables, "
          f"{args.seconds:g} s per run, {where}")
    print("\n| mode | appends/s | commits/s | appends per commit | p50 ms | p99 ms | "
          "max ms | CPU ms per 1,000 appends |\n|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, max_batch) in enumerate(modes):
            url = args.url or f"sqlite+aiosqlite:///{Path(tmp) / f'bench{i}.db'}"
            run_migrations(url)
            print(report(label, asyncio.run(run(url, args.tables, args.seconds, max_batch))),
                  flush=True)


if __name__ == "__main__":
    main()
