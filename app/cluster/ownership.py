"""Which tables this process owns, among several processes (``REDIS_URL`` set).

``Ownership`` is the lease side of ``TableManager`` in a cluster: it acquires a
table's lease (``app.cluster.lease``) before the table is created here or taken
over, keeps every held lease renewed (``LeaseKeeper``), tells the manager when one
is lost (``on_lost``: renewal refused, Redis unreachable, the lease ran out), says
who holds a table (``holder``) and which of a list of tables nobody holds
(``free``, for the failover sweep), and hands every lease back on a graceful stop.

Each table it owns gets a ``TableTenure`` (``app.table.ports.Tenure``): the
fencing token the table passes to every append, and ``prove()``, asked before
every write: the lease is still held and valid (or renewed now). The database
is the last word: an owner that was paused past its lease and wakes up is
refused by the fenced append (``Fenced``) even if it thinks it still holds it.

Redis unreachable: ``OwnershipUnavailable`` from every call that needs Redis to
answer; the keeper reports each held lease lost, so the manager drops those
tables (their sockets close with ``CLOSE_MOVED``) and nobody's intent is
accepted until some process can prove it owns the table again.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

from app.cluster.client import UNREACHABLE
from app.cluster.lease import Lease, LeaseKeeper, LeaseLost, LeaseUnavailable, TableLeases
from app.table.manager import OwnershipUnavailable

log = logging.getLogger(__name__)

#: Lease keys asked about in one pipeline by ``free``.
FREE_CHUNK = 500

OnLost = Callable[[str, int], None]


class TableTenure:
    """This process's lease of one table, for the table to fence and prove its writes with."""

    __slots__ = ("_keeper", "fence", "table_id")

    def __init__(self, keeper: LeaseKeeper, lease: Lease) -> None:
        self._keeper = keeper
        self.table_id = lease.table_id
        self.fence = lease.token

    async def prove(self) -> bool:
        """True while this token's lease is held: valid, or renewed now (one round trip)."""
        lease = await self._keeper.confirm(self.table_id)
        return lease is not None and lease.token == self.fence


class Ownership:
    """The leases of one process; ``process_id`` is its lease owner string."""

    def __init__(self, leases: TableLeases) -> None:
        self.leases = leases
        self.keeper = LeaseKeeper(leases, self._lost)
        #: ``(table_id, token)`` of every lease lost; set by ``TableManager``.
        self.on_lost: OnLost | None = None

    @property
    def process_id(self) -> str:
        return self.leases.owner

    @property
    def ttl(self) -> float:
        return self.leases.ttl

    def start(self) -> None:
        """Start renewing held leases in the background."""
        self.keeper.start()

    async def stop(self, *, release: bool = True) -> None:
        """Stop renewing; with ``release`` hand every lease back at once (graceful stop)."""
        await self.keeper.stop(release=release)

    async def acquire(self, table_id: str, *, at_least: int = 0) -> Lease | None:
        """The table's lease (not yet kept: see ``keep``), or None if another process holds it."""
        try:
            return await self.leases.acquire(table_id, at_least=at_least)
        except LeaseUnavailable as exc:
            raise OwnershipUnavailable(str(exc)) from exc

    def keep(self, lease: Lease) -> TableTenure:
        """Renew this lease from now on; the table's tenure under it."""
        self.keeper.add(lease)
        return TableTenure(self.keeper, lease)

    async def release(self, table_id: str, token: int | None = None) -> None:
        """Give the table's lease up (best effort: a lease not released expires).

        ``token``: only if the held lease is still that one (a newer one is kept).
        """
        held = self.keeper.held.get(table_id)
        if held is None or (token is not None and held.token != token):
            return
        await self.keeper.release(table_id)

    async def release_unkept(self, lease: Lease) -> None:
        """Give up a lease acquired but never kept (a takeover or create that failed)."""
        with contextlib.suppress(LeaseUnavailable):  # it expires by itself
            await self.leases.release(lease)

    async def holder(self, table_id: str) -> str | None:
        """The process id holding the table's lease, or None if nobody does."""
        try:
            held = await self.leases.holder(table_id)
        except LeaseLost as exc:
            raise OwnershipUnavailable(str(exc)) from exc
        return None if held is None else held[0]

    async def expires_in(self, table_id: str, owner: str) -> float | None:
        """Seconds until ``owner``'s lease of the table runs out unless renewed; None if
        ``owner`` does not hold it."""
        try:
            return await self.leases.expires_in(table_id, owner)
        except LeaseLost as exc:
            raise OwnershipUnavailable(str(exc)) from exc

    async def free(self, table_ids: list[str]) -> list[str]:
        """Those of ``table_ids`` whose lease nobody holds (one pipelined EXISTS per chunk)."""
        free: list[str] = []
        for start in range(0, len(table_ids), FREE_CHUNK):
            chunk = table_ids[start:start + FREE_CHUNK]
            try:
                async with self.leases.redis.pipeline(transaction=False) as pipe:
                    for table_id in chunk:
                        pipe.exists(self.leases.lease_key(table_id))
                    held = await pipe.execute()
            except UNREACHABLE as exc:
                raise OwnershipUnavailable(
                    f"Redis unreachable: {type(exc).__name__}: {exc}") from exc
            free += [t for t, h in zip(chunk, held, strict=True) if not h]
        return free

    async def _lost(self, lease: Lease, error: LeaseLost) -> None:
        if self.on_lost is not None:
            self.on_lost(lease.table_id, lease.token)
