"""The shared Redis client (app.cluster.client): a burst of commands larger than its pool
waits for connections instead of failing (a thousand tables created at once once got
``MaxConnectionsError`` and HTTP 503 from the default pool)."""

from __future__ import annotations

import asyncio

from app.cluster.client import POOL_SIZE, connect


async def test_a_burst_larger_than_the_pool_queues_and_every_command_succeeds(
    redis_url: str, prefix: str,
) -> None:
    client = connect(redis_url)
    try:
        burst = 8 * POOL_SIZE
        results = await asyncio.gather(*(client.incr(f"{prefix}burst") for _ in range(burst)))
        assert sorted(results) == list(range(1, burst + 1))
    finally:
        await client.delete(f"{prefix}burst")
        await client.aclose()
