"""The table server's port to storage: an append-only log per table.

A live table is a fold of its log (seats taken, bots added, each accepted
game action, next game, rematch...). ``append`` returns only once the entry
is durable, and the table announces nothing before that, so a crash loses no
announced action; on start the server rebuilds every unfinished table by
replaying its log through the engine. ``app.db`` implements this with
SQLAlchemy; tests use ``MemoryStore``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol


@dataclass
class StoredTable:
    """An unfinished table as storage hands it back for restoring."""

    table_id: str
    options: dict[str, Any]
    created_at: datetime
    entries: list[dict[str, Any]] = field(default_factory=list)  # in seq order


class ServiceUnavailable(RuntimeError):
    """(Several processes.) A service shared by the processes (Redis) cannot be reached,
    so nothing was decided: the caller answers ``service_unavailable`` and the client
    retries. ``app.cluster`` raises its subclasses; the socket layer catches this one
    without importing ``app.cluster``."""


class Fenced(RuntimeError):
    """A fenced write was refused: the table's log has accepted a newer owner's token.

    With several processes, each table's owner holds a lease whose fencing
    token grows with every acquisition (app.cluster.lease). ``epoch`` is the
    highest token the log has seen (None when unknown): the writer has lost
    the table and must stop serving it.
    """

    def __init__(self, table_id: str, fence: int, epoch: int | None) -> None:
        super().__init__(f"table {table_id}: fencing token {fence} is stale "
                         f"(the log is at epoch {epoch}); another process owns the table")
        self.table_id, self.fence, self.epoch = table_id, fence, epoch


class Tenure(Protocol):
    """This process's lease of one table (several processes; ``app.cluster.ownership``).

    A table that has one fences every write with ``fence`` (its lease's token) and
    asks ``prove`` before each: the lease is still this process's (renewed once if
    its local validity ran out). A table without one (one process) writes unfenced.
    """

    @property
    def fence(self) -> int: ...

    async def prove(self) -> bool: ...


class TableStore(Protocol):
    async def create_table(self, table_id: str, options: dict[str, Any],
                           created_at: datetime) -> None: ...

    async def append(self, table_id: str, seq: int, entry: dict[str, Any],
                     fence: int | None = None) -> None:
        """Make ``entry`` (JSON-able, no secrets in clear) durable as the table's ``seq``-th.

        With ``fence`` (the owner's lease token, several processes): written only
        if no larger token has written to or claimed the table, else ``Fenced``;
        the table's epoch becomes ``fence``. Without it: no check, as with one process.
        """

    async def claim(self, table_id: str, fence: int) -> None:
        """Take the table over for the lease with token ``fence`` (before reading its log):
        from now on appends with a smaller token fail. ``Fenced`` if a larger one has come."""

    async def finish_match(self, record: dict[str, Any]) -> int:
        """Store a finished match's record; return its id for ``/api/matches/{id}``.

        The record (JSON-able; datetimes as ISO strings), ``Table.match_record()``::

            {"game": "mate", "seats": 2, "table_id": "k3J9xQ2a", "seed": 123,
             "options": {...the game's options...},
             "players": [{"seat": 0, "name": "Ann", "bot": false, "strength": null},
                         ...one per seat, who held it at the end; a bot's "strength" is
                         the word it was shown with],
             "started_at": "2026-11-21T23:00:00+00:00", "ended_at": "...",
             "games": [{"number": 1, "setup": {...}, "actions": [...],
                        "result": {...} or null, "winner": 1 or null,
                        "stand_in": [steps a bot played for an absent person],
                        "holders": [[{"name", "bot", "strength", "since"}, ...] per seat:
                                    who held it in turn, "since" steps into the game]},
                       ...],
             "scoreboard": {...MatchState.scoreboard()...}, "standing": [per seat],
             "winner": 1 or null, "record": {...MatchState.record()...}}

        What each game puts in ``setup``, ``actions`` and ``result``, and how a record is
        checked before it is stored: ``app/db/match_record.py``.
        """

    async def close_table(self, table_id: str, fence: int | None = None) -> None:
        """The table is gone (idle or closed): it is no longer restored.

        ``fence``: checked as for ``append``; ``Fenced`` leaves the table as it is."""

    async def unfinished_tables(self) -> list[StoredTable]: ...

    async def unfinished_ids(self) -> list[str]:
        """The ids of every table not closed, without their logs (the failover sweep)."""

    async def load_table(self, table_id: str) -> StoredTable | None:
        """One unfinished table and its log (taking it over from another process)."""


class MemoryStore:
    """A ``TableStore`` in memory, for tests and for running without a database."""

    def __init__(self) -> None:
        self.tables: dict[str, StoredTable] = {}
        self.matches: list[dict[str, Any]] = []
        self.epochs: dict[str, int] = {}  # table id -> largest fencing token seen

    async def create_table(self, table_id: str, options: dict[str, Any],
                           created_at: datetime) -> None:
        self.tables[table_id] = StoredTable(table_id, dict(options), created_at)

    async def append(self, table_id: str, seq: int, entry: dict[str, Any],
                     fence: int | None = None) -> None:
        entries = self.tables[table_id].entries
        if fence is not None:
            self._check_fence(table_id, fence)
        if entries and entries[-1]["seq"] >= seq:
            raise ValueError(f"table {table_id}: seq {seq} is not after {entries[-1]['seq']}")
        if fence is not None:
            self.epochs[table_id] = fence
        entries.append({**entry, "seq": seq})

    async def claim(self, table_id: str, fence: int) -> None:
        self._check_fence(table_id, fence)
        self.epochs[table_id] = fence

    def _check_fence(self, table_id: str, fence: int) -> None:
        epoch = self.epochs.get(table_id, 0)
        if epoch > fence:
            raise Fenced(table_id, fence, epoch)

    async def finish_match(self, record: dict[str, Any]) -> int:
        self.matches.append(record)
        return len(self.matches)

    async def close_table(self, table_id: str, fence: int | None = None) -> None:
        if fence is not None:
            self._check_fence(table_id, fence)
            self.epochs[table_id] = fence
        self.tables.pop(table_id, None)

    async def unfinished_tables(self) -> list[StoredTable]:
        return list(self.tables.values())

    async def unfinished_ids(self) -> list[str]:
        return list(self.tables)

    async def load_table(self, table_id: str) -> StoredTable | None:
        return self.tables.get(table_id)
