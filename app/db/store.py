"""``SqlStore``: the table server's storage port (``app.table.ports.TableStore``) on SQLAlchemy.

Every write goes through one queue to one writer task (group commit). The
writer takes everything queued since its last commit, writes it in a single
transaction and only then resolves each caller's future, so ``append``
returns once its entry is durable while 50 busy tables cost a commit every few
milliseconds instead of one each per action. A single writer also keeps each
table's writes in the order they were made and means SQLite never sees two
writers at once.

If a transaction fails because of one write (a duplicate ``seq``, an entry
that is not JSON...), the batch is split in halves and retried until only the
faulty writes fail; a failure of the database itself (connection lost,
locked) fails the whole batch, since retrying piece by piece would only
stall every table longer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.config import Settings
from app.db.match_record import MatchRows, parse_match_record
from app.db.models import GameRecord, LiveTable, MatchPlayer, MatchRecord, TableLogEntry
from app.db.session import create_engine
from app.db.sqlite_log import SqliteLogWriter
from app.table.ports import StoredTable

log = logging.getLogger(__name__)

_Work = Callable[[AsyncConnection], Awaitable[Any]]


@dataclass(eq=False, slots=True)
class _Write:
    """One queued write: an append's row (batched with neighbouring appends) or other work."""

    future: asyncio.Future[Any]
    row: dict[str, Any] | None = None
    work: _Work | None = None


@dataclass(slots=True)
class StoreStats:
    """Counters for benchmarks and tests: how well writes were grouped."""

    commits: int = 0
    writes: int = 0
    largest_batch: int = 0


_STOP = object()


class StoreClosed(RuntimeError):
    """A write came after ``SqlStore.close``, or the writer stopped before committing it."""


class SqlStore:
    """A ``TableStore`` on a SQLAlchemy async engine (SQLite or PostgreSQL)."""

    def __init__(self, engine: AsyncEngine, *, max_batch: int = 2000,
                 owns_engine: bool = False) -> None:
        self.engine = engine
        self.owns_engine = owns_engine  # close() disposes it
        self.max_batch = max_batch
        self.stats = StoreStats()
        self._queue: asyncio.Queue[_Write | object] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._batch: list[_Write] = []  # taken from the queue, not yet settled
        self._closed = False
        # SQLite files: batches of appends skip the engine (see app.db.sqlite_log).
        self._fast_log = SqliteLogWriter.for_url(engine.url)

    # -- the port ----------------------------------------------------------------

    async def create_table(self, table_id: str, options: dict[str, Any],
                           created_at: datetime) -> None:
        async def work(conn: AsyncConnection) -> None:
            await conn.execute(insert(LiveTable).values(
                id=table_id, options=options, created_at=created_at))

        await self._submit(_Write(self._future(), work=work))

    async def append(self, table_id: str, seq: int, entry: dict[str, Any]) -> None:
        """Return once ``entry`` is committed as the table's ``seq``-th (see the module doc)."""
        row = {"table_id": table_id, "seq": seq, "entry": entry}
        await self._submit(_Write(self._future(), row=row))

    async def finish_match(self, record: dict[str, Any]) -> int:
        """Store a finished match and mark it as its table's last one; return its id.

        The record is checked (shape, and every game replayed through the engine
        to the scores it claims) before anything is written; a ``ValueError``
        names what is wrong. Reporting the same match twice (same table, seed
        and start time, e.g. after a restart) stores it once and returns its id.
        """
        rows = parse_match_record(record)

        async def work(conn: AsyncConnection) -> int:
            return await _insert_match(conn, rows)

        result: int = await self._submit(_Write(self._future(), work=work))
        return result

    async def close_table(self, table_id: str) -> None:
        """Mark the table closed and drop its log: finished matches live in ``matches``."""
        closed_at = datetime.now(UTC)

        async def work(conn: AsyncConnection) -> None:
            await conn.execute(delete(TableLogEntry).where(TableLogEntry.table_id == table_id))
            await conn.execute(update(LiveTable).where(LiveTable.id == table_id)
                               .values(closed_at=closed_at))

        await self._submit(_Write(self._future(), work=work))

    async def unfinished_tables(self) -> list[StoredTable]:
        """Every table not closed, oldest first, with its log in ``seq`` order."""
        async with self.engine.connect() as conn:
            tables = await conn.execute(
                select(LiveTable.id, LiveTable.options, LiveTable.created_at)
                .where(LiveTable.closed_at.is_(None))
                .order_by(LiveTable.created_at, LiveTable.id))
            stored = {t.id: StoredTable(t.id, t.options, t.created_at) for t in tables}
            entries = await conn.execute(
                select(TableLogEntry.table_id, TableLogEntry.seq, TableLogEntry.entry)
                .join(LiveTable, LiveTable.id == TableLogEntry.table_id)
                .where(LiveTable.closed_at.is_(None))
                .order_by(TableLogEntry.table_id, TableLogEntry.seq))
            for e in entries:
                stored[e.table_id].entries.append({**e.entry, "seq": e.seq})
        return list(stored.values())

    async def close(self) -> None:
        """Commit everything already queued, then stop the writer; later writes raise."""
        if self._closed:
            return
        self._closed = True
        if self._writer is not None:
            self._queue.put_nowait(_STOP)
            await asyncio.wait([self._writer])
        if self._fast_log is not None:
            await self._fast_log.close()
        if self.owns_engine:
            await self.engine.dispose()

    # -- the writer ------------------------------------------------------------

    def _future(self) -> asyncio.Future[Any]:
        return asyncio.get_running_loop().create_future()

    async def _submit(self, write: _Write) -> Any:
        if self._closed:
            raise StoreClosed("the store is closed")
        if self._writer is None:
            self._writer = asyncio.create_task(self._run(), name="sql-store-writer")
            self._writer.add_done_callback(self._writer_done)
        self._queue.put_nowait(write)
        return await write.future

    async def _run(self) -> None:
        while True:
            # No waiting for more: whatever queued during the previous commit
            # is the next batch, so batches grow with the load.
            item = await self._queue.get()
            while isinstance(item, _Write):
                self._batch.append(item)
                if len(self._batch) >= self.max_batch or self._queue.empty():
                    break
                item = self._queue.get_nowait()
            if self._batch:
                await self._commit(self._batch)
                self._batch = []
            if item is _STOP:
                return

    def _writer_done(self, task: asyncio.Task[None]) -> None:
        """Release every waiter if the writer ended early (cancelled): none may wait forever."""
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if isinstance(item, _Write):
                self._batch.append(item)
        for w in self._batch:
            _settle(w.future, exc=StoreClosed(
                "the store's writer stopped before this write was known to be durable"))
        self._batch = []

    async def _commit(self, batch: list[_Write]) -> None:
        try:
            if self._fast_log is not None and all(w.row is not None for w in batch):
                await self._fast_log.insert([w.row for w in batch if w.row is not None])
                results: list[Any] = [None] * len(batch)
            else:
                async with self.engine.begin() as conn:
                    results = await _write_batch(conn, batch)
        except Exception as exc:
            if len(batch) == 1 or _database_failure(exc):
                if len(batch) > 1:
                    log.warning("group commit of %d writes failed: %s", len(batch), exc)
                for w in batch:
                    _settle(w.future, exc=exc)
                return
            half = len(batch) // 2
            await self._commit(batch[:half])
            await self._commit(batch[half:])
            return
        self.stats.commits += 1
        self.stats.writes += len(batch)
        self.stats.largest_batch = max(self.stats.largest_batch, len(batch))
        for w, result in zip(batch, results, strict=True):
            _settle(w.future, result=result)


async def _write_batch(conn: AsyncConnection, batch: list[_Write]) -> list[Any]:
    """Apply the writes in order; each run of appends is one multi-row INSERT."""
    results: list[Any] = []
    i = 0
    while i < len(batch):
        if batch[i].row is None:
            work = batch[i].work
            assert work is not None
            results.append(await work(conn))
            i += 1
            continue
        j = i
        while j < len(batch) and batch[j].row is not None:
            j += 1
        await conn.execute(insert(TableLogEntry),
                           [w.row for w in batch[i:j] if w.row is not None])
        results.extend([None] * (j - i))
        i = j
    return results


def _database_failure(exc: Exception) -> bool:
    """True when the database itself failed, not one of the writes."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(exc, OperationalError | InterfaceError | OSError | TimeoutError)


def _settle(future: asyncio.Future[Any], *, result: Any = None,
            exc: BaseException | None = None) -> None:
    if future.done():  # the caller was cancelled; the write stands
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(result)


async def _insert_match(conn: AsyncConnection, rows: MatchRows) -> int:
    m = rows.match
    existing = await conn.scalar(select(MatchRecord.id).where(
        MatchRecord.table_id == m["table_id"], MatchRecord.seed == m["seed"],
        MatchRecord.started_at == m["started_at"]))
    if existing is not None:
        return existing
    match_id: int = (await conn.execute(
        insert(MatchRecord).values(**m).returning(MatchRecord.id))).scalar_one()
    await conn.execute(insert(MatchPlayer), [{**p, "match_id": match_id} for p in rows.players])
    await conn.execute(insert(GameRecord), [{**g, "match_id": match_id} for g in rows.games])
    await conn.execute(update(LiveTable).where(LiveTable.id == m["table_id"])
                       .values(last_match_id=match_id))
    return match_id


def create_store(settings_or_url: Settings | str) -> SqlStore:
    """A store on a new engine for ``DATABASE_URL`` (the app shares its own engine instead)."""
    url = (settings_or_url if isinstance(settings_or_url, str)
           else settings_or_url.database_url)
    return SqlStore(create_engine(url), owns_engine=True)
