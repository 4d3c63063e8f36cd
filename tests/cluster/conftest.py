"""Redis for the cluster tests: the shared server under a key prefix per test, and a
private ``redis-server`` (a free port, nothing on disk) that a test may kill and restart."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from clusterkit import RedisProcess
from redis.asyncio import Redis

from app.cluster.client import connect


@pytest.fixture
def prefix() -> str:
    """Keys of one test: ``test:<random>:``, deleted afterwards."""
    return f"test:{uuid.uuid4().hex[:10]}:"


@pytest.fixture
async def redis(redis_url: str, prefix: str) -> AsyncIterator[Redis]:
    client = connect(redis_url)
    yield client
    keys = [k async for k in client.scan_iter(match=f"{prefix}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


@pytest.fixture
def redis_process(redis_url: str) -> Iterator[RedisProcess]:
    # Asking for redis_url makes the test skip (or fail under CI=true) like the others.
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server not found (apt-get install redis-server)")
    server = RedisProcess(binary)
    server.start()
    yield server
    server.kill()

