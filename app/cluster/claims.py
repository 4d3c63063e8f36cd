"""Background work that one process of the service should do, not every one of them.

Every process polls the database for finished games still waiting for their advice, and
every one of them would work the same games out (``app.advisor``: the first stored wins,
so the others only burn CPU). ``WorkClaims.claim`` lets one process take a piece of work:
a Redis key set only if absent, which expires, so work a process took and never finished
(it died) is free again after ``ttl`` seconds.
"""

from __future__ import annotations

from redis.asyncio import Redis

#: Seconds a claim holds: longer than working out one game's advice in a worker at low CPU
#: priority on a busy server, short enough that a game whose process died is not left long.
CLAIM_SECONDS = 300.0


class WorkClaims:
    def __init__(self, redis: Redis, process: str, *, ttl: float = CLAIM_SECONDS,
                 prefix: str = "dingo:") -> None:
        self.redis = redis
        self.process = process
        self.ttl = ttl
        self.prefix = prefix

    async def claim(self, kind: str, key: str) -> bool:
        """Whether this process takes piece ``key`` of work ``kind`` (no other one has it)."""
        taken = await self.redis.set(f"{self.prefix}claim:{kind}:{key}", self.process,
                                     nx=True, px=int(self.ttl * 1000))
        return bool(taken)

    async def advice(self, match_id: int, number: int) -> bool:
        """``claim`` for the advice of game ``number`` of match ``match_id`` (``Advisor``)."""
        return await self.claim("advice", f"{match_id}:{number}")
