"""Table leases: one owner per table at a time, each with a fencing token.

A lease is a Redis key ``{prefix}lease:{table_id}`` whose value is
``"<owner> <token>"`` and which expires ``ttl`` after its last renewal.
Acquiring, renewing and releasing are Lua scripts, so each is atomic; renew
and release compare the whole value, so a process whose lease expired (and
maybe went to another) cannot renew or release it: ``LeaseLost``.

Every acquisition gets a new fencing token, larger than every token issued
for that table before: ``max(counter, Redis TIME in µs, at_least) + 1`` from a
per-table counter. The clock term keeps tokens growing even when Redis lost
the counter (a restart without persistence, an expired counter); ``at_least``
is the backstop when a clock went back: a ``Fenced`` error from the store
carries the log's epoch, and acquiring again with ``at_least=epoch`` gets a
token above it. The owner passes its token to every append
(``TableStore.append(..., fence=token)``) and calls ``TableStore.claim`` when
it takes a table over, before reading its log: the database refuses a
smaller token, so an owner that was paused past its lease's expiry and
wakes up cannot write any more (app/db/store.py, docs/cluster.md).

The owner may act only while ``Lease.valid()``: until ``ttl`` minus a margin
for clock drift after the moment it *sent* the acquire or renew, so its view
ends before the key's. If Redis cannot be reached, every call raises
``LeaseUnavailable`` (a ``LeaseLost``): the lease must be treated as lost and
the owner must stop accepting intents for that table.

``LeaseKeeper`` renews a process's leases in the background, reports the
ones lost, and releases them all on a graceful stop (SIGTERM), so another
process can take them over at once instead of waiting for them to expire.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.cluster.client import UNREACHABLE
from app.loops import stop_if_cancelled

log = logging.getLogger(__name__)

#: Share of the ttl an owner's view of its lease gives up to clock drift, plus a constant.
CLOCK_DRIFT = 0.01
DRIFT_CONSTANT = 0.002
#: A fencing counter outlives its table's last acquisition by this long (the clock
#: term of the token covers a counter that is gone).
COUNTER_TTL_MS = 7 * 24 * 3600 * 1000
#: Leases renewed per pipeline (one round trip each).
RENEW_CHUNK = 500
#: A renewal pipeline that failed whole: its leases wait for the next round.
_RENEWAL_FAILED: tuple[type[BaseException], ...] = (*UNREACHABLE, RedisError)

# KEYS: lease, counter. ARGV: owner, ttl ms, at_least, counter ttl ms.
# A lease held by another owner: {0, its value}. Free, or held by this same owner
# (an earlier lease of this process, which stops renewing): a new token.
_ACQUIRE = """
local cur = redis.call('GET', KEYS[1])
if cur and string.sub(cur, 1, string.len(ARGV[1]) + 1) ~= ARGV[1] .. ' ' then
    return {0, cur}
end
local t = redis.call('TIME')
local floor = tonumber(t[1]) * 1000000 + tonumber(t[2])
local least = tonumber(ARGV[3])
if least > floor then floor = least end
local count = tonumber(redis.call('GET', KEYS[2]) or '0')
if count < floor then redis.call('SET', KEYS[2], string.format('%d', floor)) end
local token = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. string.format('%d', token), 'PX', ARGV[2])
return {1, token}
"""

# KEYS: lease. ARGV: value, ttl ms. 1 if renewed, 0 if the lease is not this value.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# KEYS: lease. ARGV: value. 1 if released, 0 if the lease is not this value.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class LeaseLost(Exception):
    """The lease is not (or no longer) this owner's: stop serving the table."""

    def __init__(self, table_id: str, message: str) -> None:
        super().__init__(f"table {table_id}: {message}")
        self.table_id = table_id


class LeaseUnavailable(LeaseLost):
    """Redis could not be reached: the lease cannot be proved, so it counts as lost."""


@dataclass(frozen=True, slots=True)
class Lease:
    """A held lease: the table, its owner, the fencing token and how long it is good for."""

    table_id: str
    owner: str
    token: int
    #: ``time.monotonic()`` after which the owner must not act on it without renewing.
    valid_until: float

    @property
    def value(self) -> str:
        return f"{self.owner} {self.token}"

    def valid(self, now: float | None = None) -> bool:
        return (time.monotonic() if now is None else now) < self.valid_until


class TableLeases:
    """Acquire, renew and release table leases in one Redis, for one owner (a process).

    ``ttl`` is in seconds (tests use 0.3). ``prefix`` namespaces every key
    (one per service, or per test). ``owner`` defaults to a new random id:
    give each process its own.
    """

    def __init__(self, redis: Redis, *, ttl: float = 5.0, prefix: str = "dingo:",
                 owner: str | None = None) -> None:
        if ttl <= 0:
            raise ValueError("the lease ttl must be positive")
        self.redis = redis
        self.ttl = ttl
        self.prefix = prefix
        self.owner = owner or uuid.uuid4().hex
        if " " in self.owner:
            raise ValueError("an owner id has no spaces")
        self._ttl_ms = max(1, round(ttl * 1000))
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    def lease_key(self, table_id: str) -> str:
        # The braces keep both keys of a table in one Redis Cluster slot.
        return f"{self.prefix}lease:{{{table_id}}}"

    def counter_key(self, table_id: str) -> str:
        return f"{self.prefix}fence:{{{table_id}}}"

    def _valid_until(self, sent: float) -> float:
        return sent + self.ttl * (1 - CLOCK_DRIFT) - DRIFT_CONSTANT

    async def acquire(self, table_id: str, *, at_least: int = 0) -> Lease | None:
        """The table's lease with a new fencing token, or None while another owner holds it.

        ``at_least``: the token will be larger (pass ``Fenced.epoch`` after the
        store refused a token). An earlier lease of this same owner is replaced.
        """
        sent = time.monotonic()
        try:
            got, detail = await self._acquire(
                keys=[self.lease_key(table_id), self.counter_key(table_id)],
                args=[self.owner, self._ttl_ms, int(at_least), COUNTER_TTL_MS])
        except UNREACHABLE as exc:
            raise LeaseUnavailable(table_id, f"Redis unreachable, lease not acquired: "
                                             f"{type(exc).__name__}: {exc}") from exc
        if not got:
            return None
        return Lease(table_id, self.owner, int(detail), self._valid_until(sent))

    async def renew(self, lease: Lease) -> Lease:
        """Extend the lease by ``ttl``; ``LeaseLost`` if it is no longer this one
        (``LeaseUnavailable`` if Redis cannot be reached). ``renew_many`` of one."""
        result = (await self.renew_many([lease]))[0]
        if isinstance(result, LeaseLost):
            raise result
        return result

    async def renew_many(self, leases: list[Lease]) -> list[Lease | LeaseLost]:
        """``renew`` for each lease, in one pipeline a chunk: each renewed lease, or the
        ``LeaseLost`` it raised. Redis unreachable (or the pipeline failed whole): a
        ``LeaseUnavailable`` for each lease of that chunk and every later one.

        One round trip per chunk instead of one task and one command per lease: a
        process holding 1,000 tables renewed them as 1,000 concurrent tasks, a burst
        that held its event loop for tens of milliseconds every ``ttl / 3``.
        """
        results: list[Lease | LeaseLost] = []
        for start in range(0, len(leases), RENEW_CHUNK):
            chunk = leases[start:start + RENEW_CHUNK]
            sent = time.monotonic()
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for lease in chunk:
                        await self._renew(keys=[self.lease_key(lease.table_id)],
                                          args=[lease.value, self._ttl_ms], client=pipe)
                    renewed = await pipe.execute(raise_on_error=False)
            except _RENEWAL_FAILED as exc:  # the next round tries again
                results += [LeaseUnavailable(lease.table_id,
                                             f"Redis unreachable, lease not renewed: "
                                             f"{type(exc).__name__}: {exc}")
                            for lease in leases[start:]]
                break
            until = self._valid_until(sent)
            results += [_renewed(lease, answer, until)
                        for lease, answer in zip(chunk, renewed, strict=True)]
        return results

    async def release(self, lease: Lease) -> bool:
        """Give the lease up (graceful stop): True if it was still held, False if not.

        ``LeaseUnavailable`` if Redis cannot be reached (the lease then expires by itself).
        """
        try:
            released = await self._release(keys=[self.lease_key(lease.table_id)],
                                           args=[lease.value])
        except UNREACHABLE as exc:
            raise LeaseUnavailable(lease.table_id, f"Redis unreachable, lease not released: "
                                                   f"{type(exc).__name__}: {exc}") from exc
        return bool(released)

    async def holder(self, table_id: str) -> tuple[str, int] | None:
        """(owner, token) of the table's current lease, or None: where to forward intents."""
        try:
            value = await self.redis.get(self.lease_key(table_id))
        except UNREACHABLE as exc:
            raise LeaseUnavailable(table_id, f"Redis unreachable: {exc}") from exc
        return None if value is None else _owner_and_token(value)

    async def expires_in(self, table_id: str, owner: str) -> float | None:
        """Seconds until ``owner``'s lease of the table runs out unless renewed (Redis's
        own count), or None if ``owner`` does not hold it: when to try to take a dead
        owner's table over."""
        key = self.lease_key(table_id)
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.get(key)
                pipe.pttl(key)
                value, left = await pipe.execute()
        except UNREACHABLE as exc:
            raise LeaseUnavailable(table_id, f"Redis unreachable: {exc}") from exc
        if value is None or _owner_and_token(value)[0] != owner or int(left) < 0:
            return None
        return int(left) / 1000


def _renewed(lease: Lease, answer: object, valid_until: float) -> Lease | LeaseLost:
    """One answer of a pipelined renewal: the lease renewed, or why it is lost."""
    if isinstance(answer, Exception):
        return LeaseLost(lease.table_id, f"renewal failed: {answer!r}")
    if not answer:
        return LeaseLost(lease.table_id, f"lease {lease.token} expired or was taken over")
    return replace(lease, valid_until=valid_until)


def _owner_and_token(value: object) -> tuple[str, int]:
    """A lease key's value, ``"<owner> <token>"``, read."""
    owner, _, token = str(value).rpartition(" ")
    return owner, int(token)


OnLost = Callable[[Lease, LeaseLost], Awaitable[None]]


class LeaseKeeper:
    """Keeps a process's leases: renews each every ``ttl / 3``; reports and drops lost ones.

    ``on_lost(lease, error)`` is awaited once per lost lease (renew refused, or
    Redis unreachable once the lease's validity has run out): the owner must stop
    accepting intents for that table at once. A renewal that finds Redis
    unreachable while the lease is still valid is tried again next round. ``current``
    answers the lease to fence writes with, only while it is valid.
    """

    def __init__(self, leases: TableLeases, on_lost: OnLost) -> None:
        self.leases = leases
        self.on_lost = on_lost
        self.held: dict[str, Lease] = {}
        self._task: asyncio.Task[None] | None = None

    def add(self, lease: Lease) -> None:
        self.held[lease.table_id] = lease

    def current(self, table_id: str) -> Lease | None:
        lease = self.held.get(table_id)
        return lease if lease is not None and lease.valid() else None

    async def confirm(self, table_id: str) -> Lease | None:
        """The table's lease if it is still this process's, else None.

        The held lease while it is valid (no round trip); one whose local validity
        ran out (the event loop stalled, the process was paused) is renewed now:
        still this value in Redis means nobody else got it meanwhile. Refused or
        Redis unreachable: the lease is lost (``on_lost`` is awaited) and None.
        """
        lease = self.held.get(table_id)
        if lease is None:
            return None
        if lease.valid():
            return lease
        try:
            renewed = await self.leases.renew(lease)
        except LeaseLost as exc:
            if self.held.get(table_id) is lease:
                await self._lose(lease, exc)
            return self.current(table_id)
        if self.held.get(table_id) is lease:
            self.held[table_id] = renewed
        return self.current(table_id)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="lease-keeper")

    async def renew_all(self) -> None:
        """One round of renewals (the background task runs this every ``ttl / 3``)."""
        leases = list(self.held.values())
        results = await self.leases.renew_many(leases)
        for lease, result in zip(leases, results, strict=True):
            if self.held.get(lease.table_id) is not lease:
                continue  # released or replaced meanwhile
            if isinstance(result, Lease):
                # Still this lease in Redis when renewed, so nobody else got it, even if
                # its local validity ran out meanwhile (the owner waited, not acted).
                self.held[lease.table_id] = result
                continue
            if isinstance(result, LeaseUnavailable) and lease.valid():
                # Redis away for now: the lease stays good until it runs out (nobody can
                # take it before); the next round tries again. A Redis that lost its keys
                # (restarted) lets another owner in at once, whose claim fences us.
                continue
            await self._lose(lease, result)

    async def release(self, table_id: str) -> bool:
        """Give one table up (handing it over): True if the lease was still held."""
        lease = self.held.pop(table_id, None)
        if lease is None:
            return False
        try:
            return await self.leases.release(lease)
        except LeaseUnavailable:
            return False

    async def stop(self, *, release: bool = True) -> None:
        """Stop renewing; with ``release`` (SIGTERM) give every lease up at once."""
        if self._task is not None:
            self._task.cancel()
            # Bounded: a command cancelled inside the redis client must not hang a stop.
            await asyncio.wait([self._task], timeout=1.0)
            self._task = None
        if release:
            await asyncio.gather(*(self.release(t) for t in list(self.held)))
        self.held.clear()

    async def _lose(self, lease: Lease, error: LeaseLost) -> None:
        self.held.pop(lease.table_id, None)
        log.warning("lease of table %s lost: %s", lease.table_id, error)
        try:
            await self.on_lost(lease, error)
        except Exception:
            log.exception("on_lost failed for table %s", lease.table_id)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.leases.ttl / 3)
            try:
                await self.renew_all()
            except Exception:  # a round that failed must not end the renewals
                log.exception("a round of lease renewals failed")
            stop_if_cancelled()
