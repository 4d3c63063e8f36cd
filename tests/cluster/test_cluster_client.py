"""The shared Redis client (app.cluster.client): a burst of commands far beyond the
library's default pool of 100 connections succeeds (a thousand tables created at once
once got ``MaxConnectionsError`` and HTTP 503 from it)."""

from __future__ import annotations

import asyncio

from app.cluster.client import POOL_SIZE, connect


async def test_a_burst_of_commands_beyond_the_default_pool_succeeds(
    redis_url: str, prefix: str,
) -> None:
    # A long timeout: 800 connections opened at once on a loaded 2-core machine once
    # took longer than the default 0.5 s to connect, and the pool is what is tested here.
    client = connect(redis_url, timeout=10.0)
    try:
        burst = 8 * 100  # the library's default pool
        assert burst <= POOL_SIZE
        results = await asyncio.gather(*(client.incr(f"{prefix}burst") for _ in range(burst)))
        assert sorted(results) == list(range(1, burst + 1))
    finally:
        await client.delete(f"{prefix}burst")
        await client.aclose()
