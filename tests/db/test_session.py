"""The app's engine turns on what SQLite leaves off by default."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from app.db.session import create_engine, create_sessionmaker


async def test_sqlite_connections_use_wal_and_foreign_keys(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'wal.db'}")
    try:
        async with create_sessionmaker(engine)() as session:
            assert (await session.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
            assert (await session.execute(text("PRAGMA foreign_keys"))).scalar() == 1
    finally:
        await engine.dispose()
