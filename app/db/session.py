"""Async engine and session factory built from a database URL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.ext.asyncio import create_async_engine as _create_async_engine


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """Create the app's async engine.

    SQLite gets WAL (readers don't block the writer) and enforced foreign keys
    on every new connection, because SQLite leaves both off by default.
    """
    if not is_sqlite(url):
        kwargs.setdefault("pool_pre_ping", True)
    engine = _create_async_engine(url, **kwargs)
    if is_sqlite(url):
        event.listen(engine.sync_engine, "connect", _sqlite_on_connect)
    return engine


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded objects usable after commit (no implicit reload in async code)."""
    return async_sessionmaker(engine, expire_on_commit=False)
