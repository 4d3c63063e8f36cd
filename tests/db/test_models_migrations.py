"""The migrations build exactly the models' schema from an empty database, on both backends."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect, select, text
from sqlalchemy.exc import StatementError
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.db.migrate import alembic_config, run_migrations
from app.db.models import Base, LiveTable
from app.db.session import create_engine

TABLES = {"live_tables", "table_log", "table_leases", "matches", "match_players", "games"}


def _differences(conn: Connection) -> list[Any]:
    context = MigrationContext.configure(conn, opts={"compare_type": True,
                                                     "compare_server_default": True})
    return list(compare_metadata(context, Base.metadata))


async def _inspect(url: str) -> tuple[set[str], list[Any]]:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            return tables, await conn.run_sync(_differences)
    finally:
        await engine.dispose()


async def test_upgrade_from_empty_matches_the_models_and_downgrade_undoes_it(
    empty_url: str,
) -> None:
    await asyncio.to_thread(run_migrations, empty_url)
    tables, differences = await _inspect(empty_url)
    assert tables == TABLES | {"alembic_version"}
    assert differences == []

    await asyncio.to_thread(command.downgrade, alembic_config(empty_url), "base")
    tables, differences = await _inspect(empty_url)
    assert tables == {"alembic_version"}
    assert differences  # a real comparison: the models' tables are now missing

    await asyncio.to_thread(run_migrations, empty_url)
    assert await _inspect(empty_url) == (TABLES | {"alembic_version"}, [])


async def test_datetimes_come_back_aware_and_in_utc(empty_url: str) -> None:
    await asyncio.to_thread(run_migrations, empty_url)
    engine = create_engine(empty_url)
    paris = timezone(timedelta(hours=1))
    try:
        async with engine.begin() as conn:
            await conn.execute(LiveTable.__table__.insert().values(
                id="t", options={}, created_at=datetime(2026, 11, 22, 0, 30, tzinfo=paris)))
        async with engine.connect() as conn:
            created = await conn.scalar(select(LiveTable.created_at))
        assert created == datetime(2026, 11, 21, 23, 30, tzinfo=UTC)
        assert created.utcoffset() == timedelta(0)
        async with engine.begin() as conn:
            with pytest.raises(StatementError, match="naive datetime"):
                await conn.execute(LiveTable.__table__.insert().values(
                    id="u", options={}, created_at=datetime(2026, 11, 22)))
    finally:
        await engine.dispose()


async def test_sqlite_is_durable_and_waits_for_locks(tmp_path: Path) -> None:
    """The app's SQLite connections: WAL, an fsync per commit, a busy timeout of seconds."""
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'pragmas.db'}")
    try:
        async with engine.connect() as conn:
            pragma = {p: await conn.scalar(text(f"PRAGMA {p}"))
                      for p in ("journal_mode", "synchronous", "busy_timeout")}
    finally:
        await engine.dispose()
    assert pragma["journal_mode"] == "wal"
    assert pragma["synchronous"] == 2  # FULL: the WAL is synced at every commit
    assert pragma["busy_timeout"] >= 5000



async def test_every_downgrade_is_undone_by_upgrading_again(empty_url: str) -> None:
    """Down to each revision and back up to head gives the models' schema again, the player
    search's NOCASE name column included (SQLite rebuilds a table in batch mode, and its
    reflection would drop that collation)."""
    config = alembic_config(empty_url)
    revisions = [r.down_revision or "base"
                 for r in ScriptDirectory.from_config(config).walk_revisions()]
    assert len(revisions) >= 4
    for target in revisions:
        await asyncio.to_thread(run_migrations, empty_url)
        await asyncio.to_thread(command.downgrade, config, str(target))
        await asyncio.to_thread(run_migrations, empty_url)
        assert await _inspect(empty_url) == (TABLES | {"alembic_version"}, []), target
        if empty_url.startswith("sqlite"):
            assert "NOCASE" in await _sqlite_sql(empty_url, "match_players"), target


async def _sqlite_sql(url: str, table: str) -> str:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            return str((await conn.execute(text(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :t"),
                {"t": table})).scalar_one())
    finally:
        await engine.dispose()
