"""Several processes starting at once (docker-compose replicas, a rolling deploy) all run
`dingo migrate` against one PostgreSQL database: the first migrates, the others wait for
it and find the schema current, and every one of them starts."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from alembic.script import ScriptDirectory
from matchdb import fresh_postgres_database, in_thread
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.db.migrate import alembic_config

pytestmark = pytest.mark.postgres


async def _versions(url: str) -> list[str]:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(text("SELECT version_num FROM alembic_version"))
            return [row[0] for row in rows]
    finally:
        await engine.dispose()


def test_three_processes_migrate_one_empty_database_at_once(postgres_url: str) -> None:
    head = ScriptDirectory.from_config(alembic_config(postgres_url)).get_current_head()
    with fresh_postgres_database(postgres_url, prefix="dingo_race") as url:
        env = {**os.environ, "DATABASE_URL": url}
        env.pop("REDIS_URL", None)
        procs = [subprocess.Popen([sys.executable, "-m", "app.cli", "migrate"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(3)]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0], [err[-2000:] for err in errors]
        assert in_thread(asyncio.run, _versions(url)) == [head]
