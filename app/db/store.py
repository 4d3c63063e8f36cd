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
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from app.config import Settings
from app.db.match_record import MatchRows, parse_match_record
from app.db.models import (
    GameRecord,
    LiveTable,
    MatchPlayer,
    MatchRecord,
    TableLease,
    TableLogEntry,
)
from app.db.session import create_engine
from app.db.sqlite_log import SqliteLogWriter
from app.table.ports import Fenced, StoredTable

log = logging.getLogger(__name__)

_Work = Callable[[AsyncConnection], Awaitable[Any]]


@dataclass(eq=False, slots=True)
class _Write:
    """One queued write: an append's row (batched with neighbouring appends) or other work."""

    future: asyncio.Future[Any]
    row: dict[str, Any] | None = None
    work: _Work | None = None
    fence: int | None = None  # an append's lease token (several processes), see _check_fences


@dataclass(frozen=True, slots=True)
class _Refused:
    """A write of a batch that fails alone while the rest of the batch commits."""

    exc: Exception


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

    async def append(self, table_id: str, seq: int, entry: dict[str, Any],
                     fence: int | None = None) -> None:
        """Return once ``entry`` is committed as the table's ``seq``-th (see the module doc).

        ``fence`` (several processes, docs/cluster.md): the writer's lease token.
        The entry is written only if ``table_leases.epoch`` is at most ``fence``,
        and the epoch becomes ``fence``, in the same transaction; else ``Fenced``,
        and only this write fails, not the rest of its batch. ``None``: no check
        and no extra query (one process).
        """
        row = {"table_id": table_id, "seq": seq, "entry": entry}
        if fence is None:
            await self._submit(_Write(self._future(), row=row))
        else:
            await self._submit(_Write(self._future(), row=row, fence=fence))

    async def claim(self, table_id: str, fence: int) -> None:
        """Take a table over for the lease with token ``fence``: raise its epoch to it.

        A new owner calls this after acquiring the lease and before reading the
        log: once it returns, every append with a smaller token fails (``Fenced``),
        so the log it then reads is final for the old owner. ``Fenced`` if the
        epoch is already above ``fence`` (a newer owner came first).
        """
        async def work(conn: AsyncConnection) -> None:
            refused = await _check_fences(conn, {table_id: fence})
            if table_id in refused:
                raise refused[table_id]

        await self._submit(_Write(self._future(), work=work))

    async def finish_match(self, record: dict[str, Any]) -> int:
        """Store a finished match and mark it as its table's last one; return its id.

        The record, of any game (``app.db.match_record``), is checked (shape, and
        every game replayed through its rules to the result it claims) before
        anything is written; a ``ValueError`` names what is wrong. Reporting the
        same match twice (same table, seed and start time, e.g. after a restart)
        stores it once and returns its id.
        """
        rows = parse_match_record(record)

        async def work(conn: AsyncConnection) -> int:
            return await _insert_match(conn, rows)

        result: int = await self._submit(_Write(self._future(), work=work))
        return result

    async def close_table(self, table_id: str, fence: int | None = None) -> None:
        """Mark the table closed and drop its log: finished matches live in ``matches``.

        ``fence``: as for ``append`` (an old owner's idle sweep must not close a
        table another process has taken over): ``Fenced``, and nothing changes.
        """
        closed_at = datetime.now(UTC)

        async def work(conn: AsyncConnection) -> None:
            if fence is not None:
                refused = await _check_fences(conn, {table_id: fence})
                if refused:
                    raise refused[table_id]
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

    async def unfinished_ids(self) -> list[str]:
        """The ids of every table not closed (several processes sweep these for orphans)."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(LiveTable.id).where(LiveTable.closed_at.is_(None)))
            return list(rows.scalars())

    async def load_table(self, table_id: str) -> StoredTable | None:
        """One unfinished table with its log in ``seq`` order (a takeover, after ``claim``);
        None if there is no such table or it is closed."""
        async with self.engine.connect() as conn:
            t = (await conn.execute(
                select(LiveTable.id, LiveTable.options, LiveTable.created_at)
                .where(LiveTable.id == table_id, LiveTable.closed_at.is_(None)))).first()
            if t is None:
                return None
            stored = StoredTable(t.id, t.options, t.created_at)
            entries = await conn.execute(
                select(TableLogEntry.seq, TableLogEntry.entry)
                .where(TableLogEntry.table_id == table_id).order_by(TableLogEntry.seq))
            stored.entries = [{**e.entry, "seq": e.seq} for e in entries]
        return stored

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
            if self._fast_log is not None and all(
                    w.row is not None and w.fence is None for w in batch):
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
            if isinstance(result, _Refused):
                _settle(w.future, exc=result.exc)
            else:
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
        fenced = False
        while j < len(batch) and batch[j].row is not None:
            fenced = fenced or batch[j].fence is not None
            j += 1
        if not fenced:
            await conn.execute(insert(TableLogEntry),
                               [w.row for w in batch[i:j] if w.row is not None])
            results.extend([None] * (j - i))
        else:
            results.extend(await _insert_fenced(conn, batch[i:j]))
        i = j
    return results


async def _insert_fenced(conn: AsyncConnection, run: list[_Write]) -> list[Any]:
    """Insert a run of appends of which some are fenced; a stale token fails its write alone.

    Per table, the largest token in the run raises the stored epoch (one
    upsert for all tables); a write whose token is below the resulting epoch
    gets a ``Fenced`` result instead of being inserted.
    """
    fences: dict[str, int] = {}
    for w in run:
        if w.fence is not None and w.row is not None:
            table_id = w.row["table_id"]
            fences[table_id] = max(w.fence, fences.get(table_id, w.fence))
    refused = await _check_fences(conn, fences)
    results: list[Any] = []
    rows = []
    for w in run:
        assert w.row is not None
        table_id = w.row["table_id"]
        if w.fence is not None and (table_id in refused or w.fence < fences[table_id]):
            epoch = refused[table_id].epoch if table_id in refused else fences[table_id]
            results.append(_Refused(Fenced(table_id, w.fence, epoch)))
        else:
            rows.append(w.row)
            results.append(None)
    if rows:
        await conn.execute(insert(TableLogEntry), rows)
    return results


@functools.cache
def _raise_epochs(dialect: str) -> Any:
    """The upsert of ``_check_fences``, one statement per dialect for the whole process.

    Run with a list of rows (an executemany, which SQLAlchemy sends as one multi-row
    statement with ``RETURNING``), its compiled form is cached; built with ``.values()``
    for each batch it was compiled again for every batch size, 6% of a busy process.
    """
    upsert = (pg_insert if dialect == "postgresql" else sqlite_insert)(TableLease)
    return upsert.on_conflict_do_update(
        index_elements=[TableLease.table_id], set_={"epoch": upsert.excluded.epoch},
        where=TableLease.epoch <= upsert.excluded.epoch,
    ).returning(TableLease.table_id)


async def _check_fences(conn: AsyncConnection, fences: dict[str, int]) -> dict[str, Fenced]:
    """Raise each table's epoch to its fence where it is not above it; return the refusals.

    One ``INSERT .. ON CONFLICT DO UPDATE .. WHERE epoch <= fence RETURNING``
    (PostgreSQL and SQLite): the updated rows stay locked until the commit, so
    a concurrent claim with a larger token waits for this transaction and then
    wins; rows not returned are the tables whose epoch is already larger.
    Tables are taken in id order so two processes' batches never deadlock.
    """
    if not fences:
        return {}
    values = [{"table_id": t, "epoch": fences[t]} for t in sorted(fences)]
    accepted = set((await conn.execute(_raise_epochs(conn.dialect.name), values)).scalars())
    if len(accepted) == len(fences):
        return {}
    stale = [t for t in fences if t not in accepted]
    epochs = {r.table_id: r.epoch for r in await conn.execute(
        select(TableLease.table_id, TableLease.epoch).where(TableLease.table_id.in_(stale)))}
    return {t: Fenced(t, fences[t], epochs.get(t)) for t in stale}


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
