"""How long the disk makes a durable commit wait: the floor under any durable server's latency.

    python3 bench/commit_floor.py --rate 500 --seconds 10 --dir /tmp

Commits one ~300-byte row per transaction to a fresh SQLite file in ``--dir``, set up
as the Dingo server's log writer sets up its connection (``app/db/sqlite_log.py``: WAL,
``synchronous=FULL``), at ``--rate`` commits a second, and prints one JSON line: the
percentiles of the time each ``COMMIT`` took, in ms. Nothing else runs in the process,
so these are the disk's (and the kernel's) figures alone: a server that announces an
action only once it is on disk cannot answer its p99 faster than this p99, whatever
its own code costs. ``bench/run.py`` runs it beside the paced scenario, at that
scenario's rate, on the filesystem the server's database lives on.

Standard library only, like ``bench/run.py``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path


def measure(directory: Path, rate: float, seconds: float) -> dict[str, float | int]:
    """Commit ``rate`` times a second for ``seconds``; the commits' percentiles in ms."""
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        conn = sqlite3.connect(Path(tmp) / "floor.db", isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE log (id INTEGER PRIMARY KEY, entry TEXT NOT NULL)")
        entry = "x" * 300
        took: list[float] = []
        interval = 1 / rate
        due = time.perf_counter()
        end = due + seconds
        while due < end:
            pause = due - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            started = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO log (entry) VALUES (?)", (entry,))
            conn.execute("COMMIT")
            took.append(time.perf_counter() - started)
            due += interval
        conn.close()
    took.sort()

    def at(q: float) -> float:
        return round(took[min(len(took) - 1, int(q * len(took)))] * 1000, 3)

    return {"commits": len(took), "rate": rate, "p50_ms": at(0.50), "p95_ms": at(0.95),
            "p99_ms": at(0.99), "max_ms": round(took[-1] * 1000, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rate", type=float, default=500.0, help="commits per second")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()),
                    help="where the database file goes (the filesystem measured)")
    args = ap.parse_args()
    if args.rate <= 0 or args.seconds <= 0:
        ap.error("--rate and --seconds must be positive")
    print(json.dumps(measure(args.dir, args.rate, args.seconds)), flush=True)


if __name__ == "__main__":
    main()
