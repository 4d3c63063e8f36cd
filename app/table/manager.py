"""All live tables of this process: create, find, restore after a restart, close when idle."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from app.observability import log_event

from .options import TableConfig, TableOptions
from .ports import StoredTable, TableStore
from .table import Table
from .thinking import BotWorkers
from .tokens import new_table_id, new_token

if TYPE_CHECKING:
    from app.observability import Metrics

log = logging.getLogger(__name__)

CLOSE_IDLE = 4410
CLOSE_RESTART = 1012


class TableManager:
    def __init__(self, store: TableStore, config: TableConfig | None = None,
                 metrics: Metrics | None = None) -> None:
        self.store = store
        self.config = config or TableConfig()
        self.metrics = metrics
        self.bot_workers = BotWorkers(self.config.bot_processes)
        self.tables: dict[str, Table] = {}
        self._sweeper: asyncio.Task[None] | None = None

    async def create(self, options: TableOptions) -> tuple[Table, str]:
        """Open a table; return it and the host token (shown once, to its creator)."""
        table_id = new_table_id()
        while table_id in self.tables:
            table_id = new_table_id()
        host_token = new_token()
        created_at = datetime.now(UTC)
        await self.store.create_table(table_id, options.to_dict(), created_at)
        table = Table(table_id, options, created_at, self.store, self.config, self.metrics,
                      self.bot_workers)
        await table.open(host_token)
        self._add(table)
        log_event(log, "table_created", table_id=table_id)
        return table, host_token

    def get(self, table_id: str) -> Table | None:
        table = self.tables.get(table_id)
        if table is not None and table.closed:
            # Shut after a storage failure: it comes back from its log on restart.
            self._remove(table)
            return None
        return table

    async def recover(self) -> list[str]:
        """At startup: restore every unfinished table of the store.

        If the store cannot answer (e.g. the database is not migrated yet), the
        server starts without them, says so in the log and ``/readyz`` shows
        the database problem; the tables stay stored for the next start.
        """
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
            try:
                table = await Table.restore(stored, self.store, self.config, self.metrics)
            except Exception as exc:
                log_event(log, "table_restore_failed", logging.ERROR, table_id=stored.table_id,
                          error=f"{type(exc).__name__}: {exc}")
                continue
            self._add(table)
            restored.append(table.id)
        log_event(log, "tables_restored", count=len(restored))
        return restored

    async def close(self, table: Table, code: int = CLOSE_IDLE,
                    reason: str = "the table was closed") -> None:
        """Close a table for good: its sockets, its timers, and its log in storage."""
        await table.stop(code, reason)
        self._remove(table)
        await self.store.close_table(table.id)
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
        """Start sweeping idle tables in the background."""
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def shutdown(self) -> None:
        """Stop (server shutdown): sockets close with 1012, logs stay for the restart."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for table in list(self.tables.values()):
            await table.stop(CLOSE_RESTART, "the server is restarting")
            self._remove(table)
        self.bot_workers.close()

    async def _sweep(self) -> None:
        interval = min(60.0, self.config.idle_seconds / 4)
        while True:
            await asyncio.sleep(interval)
            try:
                await self.close_idle()
            except Exception as exc:  # storage trouble: try again next round
                log_event(log, "idle_sweep_failed", logging.ERROR,
                          error=f"{type(exc).__name__}: {exc}")

    def _add(self, table: Table) -> None:
        self.tables[table.id] = table
        if self.metrics is not None:
            self.metrics.open_tables.set(len(self.tables))

    def _remove(self, table: Table) -> None:
        self.tables.pop(table.id, None)
        if self.metrics is not None:
            self.metrics.open_tables.set(len(self.tables))
