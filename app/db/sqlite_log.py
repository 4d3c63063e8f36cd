"""The table log's group commits on SQLite, in one thread hop per commit.

``SqlStore``'s writer commits each batch of appends as one transaction. Through
the async engine (aiosqlite) that transaction is five round trips to
aiosqlite's thread (cursor, executemany, cursor close, commit, and the pool's
rollback on return) plus SQLAlchemy's work around each: about 1 ms of CPU per
commit, and five chances to wait for the GIL while the event loop is busy.
Here the whole transaction (``BEGIN IMMEDIATE``, one ``executemany``,
``COMMIT``) is one call on a dedicated thread with its own ``sqlite3``
connection, set up like the engine's (WAL, foreign keys on) with
``synchronous=FULL`` stated explicitly: about 0.3 ms per commit, most of it the
fsync. Durability is unchanged: ``insert`` returns only after ``COMMIT``
returned, i.e. once the rows are on disk.

Entries are serialised as JSON (with orjson: SQLAlchemy's ``JSON`` type reads
them back as it reads its own ``json.dumps`` text), and failures are raised as
SQLAlchemy's exceptions (``IntegrityError``, ``OperationalError``,
``StatementError``), so ``SqlStore`` treats them exactly as it treats the
engine's. Only file databases qualify: an in-memory SQLite
database exists once per connection, so it stays on the engine.
"""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, StatementError

INSERT = "INSERT INTO table_log (table_id, seq, entry) VALUES (?, ?, ?)"


class SqliteLogWriter:
    """Inserts rows of ``table_log`` in one transaction per call, on its own thread."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="sqlite-log-writer")
        self._conn: sqlite3.Connection | None = None  # used on the executor's thread only

    @classmethod
    def for_url(cls, url: str | URL) -> SqliteLogWriter | None:
        """A writer for a SQLite *file* database, else None (the engine does the work)."""
        u = make_url(url)
        if u.get_backend_name() != "sqlite":
            return None
        path = u.database
        if not path or path == ":memory:" or path.startswith("file:") or u.query:
            return None
        return cls(path)

    async def insert(self, rows: list[dict[str, Any]]) -> None:
        """Commit ``rows`` (``table_id``, ``seq``, ``entry``) as one transaction."""
        params = []
        for row in rows:
            try:
                entry = orjson.dumps(row["entry"]).decode()
            except TypeError as exc:  # orjson.JSONEncodeError included
                raise StatementError(f"({type(exc).__module__}.{type(exc).__name__}) {exc}",
                                     INSERT, None, exc) from exc
            params.append((row["table_id"], row["seq"], entry))
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._write, params)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._close)
        self._executor.shutdown(wait=False)

    # -- on the writer thread -----------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
        except BaseException:
            conn.close()
            raise
        return conn

    def _write(self, params: list[tuple[str, int, str]]) -> None:
        try:
            conn = self._conn
            if conn is None:
                conn = self._conn = self._connect()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(INSERT, params)
                conn.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
        except sqlite3.Error as exc:
            raise DBAPIError.instance(INSERT, params[:1], exc, sqlite3.Error) from exc

    def _rollback(self) -> None:
        conn = self._conn
        if conn is None:
            return
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            # The connection is unusable; open a fresh one for the next commit.
            self._close()

    def _close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()
