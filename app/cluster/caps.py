"""Caps per service, not per process: open sockets per table and per address, and a
token-bucket rate limit, counted in Redis so they hold over every ``dingo serve``.

Why Redis counters (Lua scripts, expiry) and not the ``limits`` package: ``limits``
counts *events in a window* (fixed, moving, sliding) and is good at that, but
two of the three caps here are *gauges*: sockets open now, which go down when a
socket closes and must go down when the process holding it dies without saying
so. Neither is a window, and ``limits`` has no notion of a counter's owner
expiring. A gauge needs "count only the live processes' sockets", which is a
few lines of Lua over a hash per key; the token bucket is a few more, matching
``app.api.ws.RateLimiter``'s semantics (rate, burst) exactly instead of
approximating them with a window. One dependency (``redis``) fewer, and every
check is one atomic round trip.

How a dead process's sockets stop counting: each cap key is a hash
``process id -> open sockets``; a sorted set ``{prefix}caps:alive`` holds each
process's heartbeat deadline (Redis's clock). ``acquire`` sums only the fields
of processes whose deadline has not passed and deletes the others, so a
process killed with ``kill -9`` stops counting ``heartbeat_ttl`` after its last
heartbeat; a graceful ``stop`` removes it at once. A process that was late
beyond ``heartbeat_ttl`` (paused) has lost its counts: its sockets are then
undercounted until they close (the cap errs on the open side, never stuck).
Every hash also expires a day after its last ``acquire``, so keys of tables
nobody joins again do not pile up.

Redis unreachable: every call raises ``RedisUnavailable``; the caller refuses
the socket or message (``service_unavailable``) rather than guessing.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid

from redis.asyncio import Redis

from app.cluster.client import UNREACHABLE, RedisUnavailable
from app.loops import stop_if_cancelled

#: A cap hash lives this long after its last acquire (keys of forgotten tables go).
KEY_TTL_MS = 24 * 3600 * 1000

# KEYS: table hash, address hash, alive zset. ARGV: process, table cap, address cap,
# heartbeat ttl ms, key ttl ms. nil when counted on both, else 'table' or 'address'.
_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), ARGV[1])
local function live_total(key)
    local total = 0
    local fields = redis.call('HGETALL', key)
    for i = 1, #fields, 2 do
        local deadline = redis.call('ZSCORE', KEYS[3], fields[i])
        if deadline and tonumber(deadline) >= now then
            total = total + tonumber(fields[i + 1])
        else
            redis.call('HDEL', key, fields[i])
        end
    end
    return total
end
if live_total(KEYS[1]) >= tonumber(ARGV[2]) then return 'table' end
if live_total(KEYS[2]) >= tonumber(ARGV[3]) then return 'address' end
for i = 1, 2 do
    redis.call('HINCRBY', KEYS[i], ARGV[1], 1)
    redis.call('PEXPIRE', KEYS[i], ARGV[5])
end
return false
"""

# KEYS: table hash, address hash. ARGV: process.
_RELEASE = """
for i = 1, 2 do
    if redis.call('HINCRBY', KEYS[i], ARGV[1], -1) <= 0 then
        redis.call('HDEL', KEYS[i], ARGV[1])
    end
end
return 1
"""

# KEYS: alive zset. ARGV: process, heartbeat ttl ms. Also forgets dead processes.
_HEARTBEAT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1)
return redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
"""

# KEYS: alive zset, cap hash. ARGV: none. Live sockets of the key.
_COUNT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local total = 0
local fields = redis.call('HGETALL', KEYS[2])
for i = 1, #fields, 2 do
    local deadline = redis.call('ZSCORE', KEYS[1], fields[i])
    if deadline and tonumber(deadline) >= now then total = total + tonumber(fields[i + 1]) end
end
return total
"""

# KEYS: bucket hash. ARGV: rate per second, burst, cost. 1 if taken, else 0.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens, ts = tonumber(b[1]), tonumber(b[2])
if not tokens then tokens, ts = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate)
local ok = 0
if tokens >= cost then
    tokens = tokens - cost
    ok = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens),
           'ts', string.format('%.6f', now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return ok
"""


def _unavailable(what: str, exc: BaseException) -> RedisUnavailable:
    return RedisUnavailable(f"Redis unreachable, {what}: {type(exc).__name__}: {exc}")


class ServiceCaps:
    """Open sockets per table and per address over all processes (``ConnectionCaps``'s
    contract, async): ``acquire`` counts the socket on both or on neither.

    ``process`` is this process's id (random by default); ``heartbeat_ttl``
    seconds after its last heartbeat a silent process's sockets stop counting;
    ``start`` sends heartbeats every third of it.
    """

    def __init__(self, redis: Redis, *, per_table: int, per_address: int,
                 prefix: str = "dingo:", process: str | None = None,
                 heartbeat_ttl: float = 15.0) -> None:
        self.redis = redis
        self.per_table, self.per_address = per_table, per_address
        self.prefix = prefix
        self.process = process or uuid.uuid4().hex
        self.heartbeat_ttl = heartbeat_ttl
        self._ttl_ms = max(1, round(heartbeat_ttl * 1000))
        self._acquire = redis.register_script(_ACQUIRE)
        self._release = redis.register_script(_RELEASE)
        self._heartbeat = redis.register_script(_HEARTBEAT)
        self._count = redis.register_script(_COUNT)
        self._task: asyncio.Task[None] | None = None

    @property
    def alive_key(self) -> str:
        return f"{self.prefix}caps:alive"

    def table_key(self, table_id: str) -> str:
        return f"{self.prefix}caps:table:{table_id}"

    def address_key(self, address: str) -> str:
        return f"{self.prefix}caps:address:{address}"

    async def acquire(self, table_id: str, address: str) -> str | None:
        """None if the socket may stay (it is now counted), else "table" or "address"."""
        try:
            over = await self._acquire(
                keys=[self.table_key(table_id), self.address_key(address), self.alive_key],
                args=[self.process, self.per_table, self.per_address, self._ttl_ms, KEY_TTL_MS])
        except UNREACHABLE as exc:
            raise _unavailable("socket not counted", exc) from exc
        return None if over is None else str(over)

    async def release(self, table_id: str, address: str) -> None:
        """The socket closed: count it no more."""
        try:
            await self._release(keys=[self.table_key(table_id), self.address_key(address)],
                                args=[self.process])
        except UNREACHABLE as exc:
            raise _unavailable("socket not released", exc) from exc

    async def counts(self, table_id: str, address: str) -> tuple[int, int]:
        """Live sockets of the table and of the address, over all processes."""
        try:
            table = await self._count(keys=[self.alive_key, self.table_key(table_id)])
            addr = await self._count(keys=[self.alive_key, self.address_key(address)])
        except UNREACHABLE as exc:
            raise _unavailable("counts unknown", exc) from exc
        return int(table), int(addr)

    async def heartbeat(self) -> None:
        try:
            await self._heartbeat(keys=[self.alive_key], args=[self.process, self._ttl_ms])
        except UNREACHABLE as exc:
            raise _unavailable("heartbeat not sent", exc) from exc

    def start(self) -> None:
        """Send heartbeats in the background (a failed one is retried at the next)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._beat(), name="caps-heartbeat")

    async def stop(self) -> None:
        """Graceful stop: no more heartbeats, and this process's sockets stop counting now."""
        if self._task is not None:
            self._task.cancel()
            # Bounded: a command cancelled inside the redis client must not hang a stop.
            await asyncio.wait([self._task], timeout=1.0)
            self._task = None
        try:
            await self.redis.zrem(self.alive_key, self.process)
        except UNREACHABLE as exc:
            raise _unavailable("process not removed (it expires by itself)", exc) from exc

    async def _beat(self) -> None:
        while True:
            with contextlib.suppress(RedisUnavailable):
                await self.heartbeat()
            stop_if_cancelled()
            await asyncio.sleep(self.heartbeat_ttl / 3)


class ServiceRateLimit:
    """A token bucket per key (an address, a seat...) shared by all processes:
    ``rate`` tokens a second up to ``burst``, like ``app.api.ws.RateLimiter``.
    An idle bucket is full again and its key expires."""

    def __init__(self, redis: Redis, *, rate: float, burst: int,
                 prefix: str = "dingo:") -> None:
        if rate <= 0 or burst <= 0:
            raise ValueError("rate and burst must be positive")
        self.redis = redis
        self.rate, self.burst = rate, burst
        self.prefix = prefix
        self._take = redis.register_script(_TAKE)

    def key(self, name: str) -> str:
        return f"{self.prefix}rate:{name}"

    async def take(self, name: str, cost: float = 1.0) -> bool:
        """True if ``cost`` tokens were taken from ``name``'s bucket, False if it is short."""
        try:
            ok = await self._take(keys=[self.key(name)], args=[self.rate, self.burst, cost])
        except UNREACHABLE as exc:
            raise _unavailable("rate not checked", exc) from exc
        return bool(ok)
