"""All live tables of this process: create, find, restore after a restart, close when idle.

With several processes (``REDIS_URL`` set, docs/cluster.md) a table lives in one
process at a time, its owner, which holds the table's lease
(``app.cluster.ownership``). Then the manager also:

- acquires the lease of a table it creates before the table is announced;
- ``locate``: a table is here, or owned by another live process (``Owner``), or
  nobody's, and is then taken over here (lease, ``claim``, log, ``Table.restore``);
- sweeps every ``failover_seconds`` for unfinished tables whose lease is free
  (their owner died) and takes them over; ``recover`` at start does one sweep
  instead of restoring every table;
- drops a table whose lease is lost or whose fenced append was refused: its
  sockets close with ``CLOSE_MOVED`` (the socket layer joins them to the new owner);
- on a graceful stop closes every table's sockets with ``CLOSE_MOVED`` and hands
  every lease back at once, so another process takes the tables over.

``REDIS_URL`` unset: none of this; nothing of ``app.cluster`` is imported.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from app.loops import stop_if_cancelled
from app.observability import log_event

from .options import TableConfig, TableOptions
from .ports import Fenced, ServiceUnavailable, StoredTable, TableStore
from .seats import TableError
from .table import CLOSE_MOVED, MOVED_REASON, Table
from .thinking import BotWorkers
from .tokens import new_table_id, new_token

if TYPE_CHECKING:
    from app.cluster.lease import Lease
    from app.cluster.ownership import Ownership
    from app.observability import Metrics

log = logging.getLogger(__name__)

#: Tables one failover sweep takes over at once (reading their logs concurrently).
TAKEOVERS_AT_ONCE = 8

CLOSE_IDLE = 4410
CLOSE_RESTART = 1012
__all__ = ["CLOSE_IDLE", "CLOSE_MOVED", "CLOSE_RESTART", "MOVED_REASON", "Owner",
           "OwnershipUnavailable", "TableManager"]


AskOwner = Callable[[str, str], Awaitable["dict[str, Any] | None"]]


@dataclass(frozen=True, slots=True)
class Owner:
    """(Several processes.) The table lives in another process: the one with this id."""

    process_id: str


class OwnershipUnavailable(ServiceUnavailable):
    """Where a table lives, or its log, cannot be read now (Redis, or the database during
    a takeover or a restore, cannot be reached): answer ``service_unavailable`` and let
    the client retry."""


class TableManager:
    """The live tables of this process (see the module docstring).

    ``process_id``: this process's unique id (its lease owner string with several
    processes). ``clustered``: True when ``ownership`` is given (``REDIS_URL`` set).
    """

    def __init__(self, store: TableStore, config: TableConfig | None = None,
                 metrics: Metrics | None = None, *, ownership: Ownership | None = None,
                 failover_seconds: float | None = None) -> None:
        self.store = store
        self.config = config or TableConfig()
        self.metrics = metrics
        self.bot_workers = BotWorkers(self.config.bot_processes)
        self.tables: dict[str, Table] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.ownership = ownership
        self.clustered = ownership is not None
        self.process_id: str = uuid.uuid4().hex if ownership is None else ownership.process_id
        #: How often (seconds) every process looks for tables nobody owns: half the lease
        #: ttl, at most 1 s, so a table plays again within ttl + this after its owner died.
        self.failover_seconds = failover_seconds or (
            1.0 if ownership is None else min(1.0, ownership.ttl / 2))
        self._failover: asyncio.Task[None] | None = None
        #: Takeovers under way here: one per table, whoever asks.
        self._taking: dict[str, asyncio.Task[Table | Owner | None]] = {}
        #: Tables whose log could not be restored here: not swept again.
        self._broken: set[str] = set()
        self._stopping = False
        self._background: set[asyncio.Task[None]] = set()
        #: (Several processes.) Asks another process for its ``public_info`` of a table
        #: it owns: ``(owner process id, table id)`` -> the dict, or None if no answer
        #: came. Set by the relay (``app.cluster.relay.Relay.ask_info``) while it runs.
        self.ask_owner: AskOwner | None = None
        if ownership is not None:
            ownership.on_lost = self._lease_lost

    async def create(self, options: TableOptions) -> tuple[Table, str]:
        """Open a table; return it and the host token (shown once, to its creator).

        Several processes: the table's lease is acquired first and the log claimed
        with its token, so the table is this process's before anyone hears of it;
        ``OwnershipUnavailable`` (nothing stored) if Redis cannot be reached.
        """
        table_id = new_table_id()
        while table_id in self.tables:
            table_id = new_table_id()
        host_token = new_token()
        created_at = datetime.now(UTC)
        if self.ownership is None:
            await self.store.create_table(table_id, options.to_dict(), created_at)
            table = Table(table_id, options, created_at, self.store, self.config, self.metrics,
                          self.bot_workers)
        else:
            table = await self._create_owned(table_id, options, created_at)
        try:
            await table.open(host_token)
        except BaseException:
            if self.ownership is not None:  # nobody would ever renew or release it
                await self.ownership.release(table_id)
            raise
        self._add(table)
        log_event(log, "table_created", table_id=table_id)
        return table, host_token

    async def _create_owned(self, table_id: str, options: TableOptions,
                            created_at: datetime) -> Table:
        assert self.ownership is not None
        if self._stopping:
            raise OwnershipUnavailable("this server is stopping")
        lease = await self.ownership.acquire(table_id)
        if lease is None:  # a new random id another process holds: practically never
            raise OwnershipUnavailable(f"table id {table_id} is taken; try again")
        try:
            await self.store.create_table(table_id, options.to_dict(), created_at)
            await self.store.claim(table_id, lease.token)
        except BaseException:
            await self.ownership.release_unkept(lease)
            raise
        table = Table(table_id, options, created_at, self.store, self.config, self.metrics,
                      self.bot_workers, self.ownership.keep(lease))
        table.on_moved = self._moved
        return table

    def get(self, table_id: str) -> Table | None:
        """The live table if it is in memory here (with several processes: if this process
        owns it); ``locate`` also brings back one that is only in its log."""
        table = self.tables.get(table_id)
        if table is not None and table.closed:
            # Shut after a storage failure: ``locate`` restores it from its log (or it
            # moved to another process).
            self._remove(table)
            return None
        return table

    async def locate(self, table_id: str) -> Table | Owner | None:
        """Where the table lives: here (the ``Table``), in another process (``Owner``), or
        nowhere (None: no such table, or it is closed).

        One process: ``get``, or a table unfinished in the database that is not in
        memory (shut after a storage failure, or not restored at startup because the
        database could not be read) restored from its log first, as at a restart: only
        what the log holds was ever announced, and the answers to intent ids are rebuilt.
        Several: the table if this process owns it;
        ``Owner(process_id)`` if another process holds its lease; if nobody does and
        the table is unfinished in the database, it is taken over here first (lease,
        ``claim`` with its token, the log, ``Table.restore``: timers and stand-in bots
        go on, answers to intent ids are rebuilt). ``OwnershipUnavailable`` when Redis
        (or, for a takeover, the database) cannot be reached, or this server is
        stopping: the socket layer answers ``service_unavailable``.
        """
        table = self.get(table_id)
        if table is not None:
            return table
        if self._stopping:
            raise OwnershipUnavailable("this server is stopping")
        if self.ownership is None:
            return await self._take_over(table_id)
        holder = await self.ownership.holder(table_id)
        if holder is not None and holder != self.process_id:
            return Owner(holder)
        return await self._take_over(table_id)

    async def lease_ends_in(self, table_id: str, owner: str) -> float | None:
        """(Several processes.) Seconds until process ``owner``'s lease of the table runs
        out unless renewed, None if ``owner`` does not hold it (or with one process). The
        relay waits this long for a dead owner's table before ``locate`` takes it over:
        taking it sooner is never tried, the lease is the guard (``locate`` only acquires
        a free one)."""
        if self.ownership is None:
            return None
        return await self.ownership.expires_in(table_id, owner)

    async def public_info(self, table_id: str) -> dict[str, Any] | None:
        """``Table.public_info`` of a live table wherever it lives, None if there is none.

        Several processes, a table another process owns: that owner's own answer,
        asked through ``ask_owner`` (the relay), so presence is the owner's, counting
        sockets held by every process. If it cannot be asked (no answer within the
        relay's short timeout, or the table left it meanwhile), the answer is folded
        from the log: seats, bots, status, options and votes right, people's presence
        and the spectators null (not known here).

        Never a change that is not stored yet (``Table.stored_info``). A table here
        that closes while read (storage failed, or it moved) is looked for again:
        restored from its log, or where it is now.
        """
        found = await self.locate(table_id)
        if isinstance(found, Table):
            info = await found.stored_info()
            if info is not None:
                return info
            found = await self.locate(table_id)
            if isinstance(found, Table):
                return await found.stored_info()
        if found is None:
            return None
        if self.ask_owner is not None:
            info = await self.ask_owner(found.process_id, table_id)
            if info is not None:
                return info
        stored = await self.store.load_table(table_id)
        if stored is None:
            return None
        return Table.folded(stored, self.store, self.config).public_info(presence=False)

    async def recover(self) -> list[str]:
        """At startup: restore every unfinished table of the store.

        If the store cannot answer (e.g. the database is not migrated yet), the
        server starts without them, says so in the log and ``/readyz`` shows
        the database problem; each table comes back from its log when it is first
        looked for (``locate``).

        Several processes: only the tables nobody owns are taken over here (one
        failover sweep); the others stay with their owners.
        """
        if self.ownership is not None:
            # Renewing already: taking many tables over may last longer than a lease.
            self.ownership.start()
            try:
                return await self.adopt_orphans()
            except Exception as exc:  # the failover sweep tries again every round
                log_event(log, "tables_not_restored", logging.WARNING,
                          error=f"{type(exc).__name__}: {str(exc)[:200]}")
                return []
        try:
            stored = await self.store.unfinished_tables()
        except Exception as exc:
            log_event(log, "tables_not_restored", logging.ERROR,
                      error=f"{type(exc).__name__}: {str(exc)[:200]}")
            return []
        return await self.restore(stored)

    async def restore(self, stored_tables: list[StoredTable]) -> list[str]:
        """Rebuild tables from their logs (at startup); a table whose log fails is skipped."""
        restored = []
        for stored in stored_tables:
            with contextlib.suppress(TableError):  # storage failed: ``locate`` tries later
                table = await self._rebuild(stored)
                if table is not None:
                    restored.append(table.id)
        log_event(log, "tables_restored", count=len(restored))
        return restored

    async def _rebuild(self, stored: StoredTable) -> Table | None:
        """(One process.) ``Table.restore``, and the table is here; None if its log cannot
        be folded (logged, and not tried again: ``_broken``). ``TableError``: storage
        failed while it was restored (recording its match)."""
        try:
            table = await Table.restore(stored, self.store, self.config, self.metrics,
                                        bot_workers=self.bot_workers)
        except TableError:
            raise
        except Exception as exc:
            log_event(log, "table_restore_failed", logging.ERROR, table_id=stored.table_id,
                      error=f"{type(exc).__name__}: {exc}")
            self._broken.add(stored.table_id)
            return None
        self._add(table)
        return table

    async def close(self, table: Table, code: int = CLOSE_IDLE,
                    reason: str = "the table was closed") -> None:
        """Close a table for good: its sockets, its timers, and its log in storage.

        Several processes: only a table this process still owns is closed (the
        closing is fenced with its token); one it lost is dropped here instead.
        """
        tenure = table.tenure
        if tenure is not None and not await tenure.prove():
            table.lose()
            return
        await table.stop(code, reason)
        self._remove(table)
        if tenure is None or self.ownership is None:
            await self.store.close_table(table.id)
        else:
            try:
                await self.store.close_table(table.id, fence=tenure.fence)
            except Fenced as exc:
                log_event(log, "table_close_fenced", logging.WARNING, table_id=table.id,
                          error=str(exc))
                return
            finally:
                await self.ownership.release(table.id, tenure.fence)
        log_event(log, "table_closed", table_id=table.id)

    async def close_idle(self) -> list[str]:
        """Close every table nobody has been connected to for ``idle_seconds``."""
        limit = time.monotonic() - self.config.idle_seconds
        idle = [t for t in self.tables.values()
                if t.idle_since is not None and t.idle_since <= limit]
        for table in idle:
            await self.close(table, reason="the table was idle")
        return [t.id for t in idle]

    def start(self) -> None:
        """Start sweeping idle tables in the background (several processes: also renewing
        leases and sweeping for tables nobody owns)."""
        loop = asyncio.get_running_loop()
        self._sweeper = loop.create_task(self._sweep())
        if self.ownership is not None:
            self.ownership.start()
            self._failover = loop.create_task(self._watch_orphans(), name="failover-sweep")
            # Which process a lease's owner id is (operators, and the failover tests).
            log_event(log, "cluster_process", process_id=self.process_id,
                      lease_seconds=self.ownership.ttl)

    async def shutdown(self) -> None:
        """Stop (server shutdown): sockets close with 1012, logs stay for the restart.

        Several processes: sockets close with ``CLOSE_MOVED`` and every lease is
        handed back at once, so other processes take the tables over now.
        """
        self._stopping = True
        for task in (self._sweeper, self._failover):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for takeover in list(self._taking.values()):
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await takeover
        code, reason = ((CLOSE_RESTART, "the server is restarting") if self.ownership is None
                        else (CLOSE_MOVED, MOVED_REASON))
        for table in list(self.tables.values()):
            await table.stop(code, reason)
            self._remove(table)
            if self.ownership is not None and self.metrics is not None:
                self.metrics.tables_moved.inc()
        if self.ownership is not None:
            await self.ownership.stop(release=True)
            log_event(log, "leases_released")
        for task in list(self._background):
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await task
        self.bot_workers.close()

    # -- several processes ------------------------------------------------------------

    async def adopt_orphans(self) -> list[str]:
        """Take over every unfinished table whose lease nobody holds (its owner died or
        handed it back); the ids taken over. The failover sweep runs this."""
        assert self.ownership is not None
        ids = [t for t in await self.store.unfinished_ids()
               if t not in self.tables and t not in self._broken]
        free = await self.ownership.free(ids)
        # In a random order (processes sweeping at once share a dead one's tables),
        # a few at a time (their logs are read while others are rebuilt).
        random.shuffle(free)
        taken: list[str] = []
        for start in range(0, len(free), TAKEOVERS_AT_ONCE):
            if self._stopping:
                break
            results = await asyncio.gather(
                *(self._take_over(t, known=True) for t in free[start:start + TAKEOVERS_AT_ONCE]),
                return_exceptions=True)
            for table_id, found in zip(free[start:], results, strict=False):
                if isinstance(found, Table):
                    taken.append(found.id)
                elif isinstance(found, OwnershipUnavailable):
                    raise found
                elif isinstance(found, BaseException):
                    if not isinstance(found, Exception):
                        raise found
                    log_event(log, "table_takeover_failed", logging.ERROR, table_id=table_id,
                              error=f"{type(found).__name__}: {str(found)[:200]}")
        if taken:
            log_event(log, "tables_taken_over", count=len(taken))
        return taken

    async def _watch_orphans(self) -> None:
        failing = False  # said once when sweeps start failing, once when they work again
        while True:
            await asyncio.sleep(self.failover_seconds)
            try:
                await self.adopt_orphans()
            except Exception as exc:  # Redis or the database away: next round
                if not failing:
                    log_event(log, "failover_sweep_failed", logging.WARNING,
                              error=f"{type(exc).__name__}: {str(exc)[:200]}")
                failing = True
            else:
                if failing:
                    log_event(log, "failover_sweep_resumed")
                failing = False
            stop_if_cancelled()

    async def _take_over(self, table_id: str, *, known: bool = False) -> Table | Owner | None:
        """One takeover per table at a time, whoever asks (a socket, the sweep).

        ``known``: the table was just listed as unfinished (no need to look it up first).
        """
        task = self._taking.get(table_id)
        if task is None:
            work = (self._restore_table(table_id) if self.ownership is None
                    else self._acquire_table(table_id, known))
            task = asyncio.get_running_loop().create_task(work)
            self._taking[table_id] = task
            task.add_done_callback(lambda _: self._taking.pop(table_id, None))
        return await asyncio.shield(task)

    async def _restore_table(self, table_id: str) -> Table | None:
        """(One process, ``locate``.) Restore an unfinished table from its log."""
        local = self.get(table_id)
        if local is not None or table_id in self._broken:
            return local
        try:
            stored = await self.store.load_table(table_id)
        except Exception as exc:
            log_event(log, "table_unreadable", logging.WARNING, table_id=table_id,
                      error=type(exc).__name__)
            raise OwnershipUnavailable(f"the database could not be read: "
                                       f"{type(exc).__name__}") from exc
        if stored is None:  # no such table, or closed for good
            return None
        try:
            table = await self._rebuild(stored)
        except TableError as exc:  # storage failed again: later
            raise OwnershipUnavailable(f"table {table_id}: {exc}") from exc
        if table is not None:
            log_event(log, "table_restored", table_id=table_id, v=table.version)
        return table

    async def _acquire_table(self, table_id: str, known: bool = False) -> Table | Owner | None:
        """Acquire the lease, claim the log with its token, read it, and restore the table."""
        assert self.ownership is not None
        own = self.ownership
        local = self.get(table_id)
        if local is not None:
            return local
        try:
            # Junk ids must not create leases or fencing rows: is there such a table?
            if not known and await self.store.load_table(table_id) is None:
                return None
        except Exception as exc:
            raise OwnershipUnavailable(f"the database could not be read: "
                                       f"{type(exc).__name__}") from exc
        lease: Lease | None = None
        for _ in range(3):
            lease = await own.acquire(table_id)
            if lease is not None:
                break
            holder = await own.holder(table_id)
            if holder is not None and holder != self.process_id:
                return Owner(holder)
        if lease is None:
            raise OwnershipUnavailable(f"table {table_id}: its lease changes hands; retry")
        try:
            try:
                await self.store.claim(table_id, lease.token)
            except Fenced as exc:
                # The log saw a larger token than Redis issues now (Redis lost its
                # counters and a clock went back): get one above it.
                await own.release_unkept(lease)
                lease = await own.acquire(table_id, at_least=exc.epoch or 0)
                if lease is None:
                    holder = await own.holder(table_id)
                    return None if holder is None else Owner(holder)
                await self.store.claim(table_id, lease.token)
            stored = await self.store.load_table(table_id)
        except BaseException as exc:
            if lease is not None:
                await own.release_unkept(lease)
            if isinstance(exc, OwnershipUnavailable) or not isinstance(exc, Exception):
                raise
            # The database away, or a newer owner's token came first (Fenced): retry.
            raise OwnershipUnavailable(f"table {table_id} could not be taken over: "
                                       f"{type(exc).__name__}") from exc
        if stored is None:  # closed meanwhile
            await own.release_unkept(lease)
            return None
        tenure = own.keep(lease)
        try:
            table = await Table.restore(stored, self.store, self.config, self.metrics,
                                        bot_workers=self.bot_workers, tenure=tenure,
                                        on_moved=self._moved)
        except Exception as exc:
            log_event(log, "table_restore_failed", logging.ERROR, table_id=table_id,
                      error=f"{type(exc).__name__}: {exc}")
            self._broken.add(table_id)
            await own.release(table_id, lease.token)
            return None
        if table.moved:  # lost while it was being restored (e.g. recording its match)
            holder = await own.holder(table_id)
            if holder is None or holder == self.process_id:
                raise OwnershipUnavailable(f"table {table_id} changed hands; retry")
            return Owner(holder)
        self._add(table)
        if self.metrics is not None:
            self.metrics.takeovers.inc()
        log_event(log, "table_taken_over", table_id=table_id, v=table.version,
                  fence=lease.token)
        return table

    def _lease_lost(self, table_id: str, token: int) -> None:
        """The keeper lost a lease (refused, Redis unreachable, ran out): drop the table."""
        table = self.tables.get(table_id)
        if table is not None and table.tenure is not None and table.tenure.fence == token:
            table.lose()  # -> _moved

    def _moved(self, table: Table) -> None:
        """A table of this process found it is not its owner any more: forget it here and
        hand its lease back if this process still holds it (so nobody waits for it)."""
        if self.tables.get(table.id) is table:
            self._remove(table)
            if self.metrics is not None:
                self.metrics.tables_moved.inc()
        if self.ownership is not None and table.tenure is not None:
            task = asyncio.get_running_loop().create_task(
                self.ownership.release(table.id, table.tenure.fence))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _sweep(self) -> None:
        interval = min(60.0, self.config.idle_seconds / 4)
        while True:
            await asyncio.sleep(interval)
            try:
                await self.close_idle()
            except Exception as exc:  # storage trouble: try again next round
                log_event(log, "idle_sweep_failed", logging.ERROR,
                          error=f"{type(exc).__name__}: {exc}")
            stop_if_cancelled()

    def _add(self, table: Table) -> None:
        self.tables[table.id] = table
        if self.metrics is not None:
            self.metrics.open_tables.set(len(self.tables))

    def _remove(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        if self.metrics is not None:
            self.metrics.open_tables.set(len(self.tables))
