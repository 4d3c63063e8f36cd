"""An append that returned survives ``kill -9`` of the server process."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.db.models import TableLogEntry

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import asyncio, sys
from datetime import UTC, datetime
from app.db.store import create_store

async def main(url):
    store = create_store(url)
    await asyncio.gather(*(store.create_table(f"t{i}", {}, datetime.now(UTC)) for i in range(10)))

    async def table(i):
        seq = 0
        while True:
            seq += 1
            await store.append(f"t{i}", seq, {"type": "action", "seq": seq})
            print(f"t{i} {seq}", flush=True)  # told only once durable

    await asyncio.gather(*(table(i) for i in range(10)))

asyncio.run(main(sys.argv[1]))
"""


async def test_acknowledged_appends_survive_kill_9(db_url: str) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CHILD, db_url, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert child.stdout is not None
    acked: dict[str, int] = {}
    try:
        async with asyncio.timeout(60):
            while sum(acked.values()) < 2000:
                line = await child.stdout.readline()
                assert line, (await child.stderr.read()).decode()  # type: ignore[union-attr]
                table_id, seq = line.decode().split()
                acked[table_id] = int(seq)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        await child.communicate()

    engine = create_async_engine(db_url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                select(TableLogEntry.table_id, func.count(), func.max(TableLogEntry.seq))
                .group_by(TableLogEntry.table_id))
            stored = {r[0]: (r[1], r[2]) for r in rows}
    finally:
        await engine.dispose()
    for table_id, seq in acked.items():
        count, last = stored[table_id]
        assert last >= seq, f"{table_id}: acknowledged {seq}, only {last} survived"
        assert count == last  # no gaps
