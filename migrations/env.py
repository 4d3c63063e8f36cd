"""Alembic environment: one async engine, the URL taken from the app settings.

`dingo migrate` passes the URL in `config.attributes["database_url"]`; the
plain `alembic` command falls back to DATABASE_URL via `app.config`.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.config import get_settings
from app.db.models import Base

config = context.config
target_metadata = Base.metadata

#: PostgreSQL advisory lock key held while migrating (any constant shared by all processes).
MIGRATION_LOCK_KEY = 0x64696E676F  # "dingo"


def _database_url() -> str:
    url = config.attributes.get("database_url")
    return str(url) if url else get_settings().database_url


def _configure(**kwargs: object) -> None:
    url = _database_url()
    context.configure(
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things; batch mode rebuilds the table instead.
        render_as_batch=url.startswith("sqlite"),
        compare_type=True,
        **kwargs,  # type: ignore[arg-type]
    )


def _run_with_connection(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Several `dingo serve` processes (docker-compose replicas, a rolling deploy)
            # start at once: the first migrates, the others wait here and then find the
            # schema current. Alembic reads the current revision after this point.
            connection.execute(text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})"))
        context.run_migrations()


async def _run_online() -> None:
    # A plain engine, not app.db.session's: foreign_keys=ON would make the
    # table rebuilds of SQLite batch migrations cascade deletes.
    engine = create_async_engine(_database_url(), poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run_with_connection)
    finally:
        await engine.dispose()


def _run_offline() -> None:
    _configure(url=_database_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    _run_offline()
else:
    asyncio.run(_run_online())
