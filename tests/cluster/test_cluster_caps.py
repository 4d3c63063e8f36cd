"""Service-wide caps on a real Redis: connection caps and the rate limit hold over two
processes (two limiter instances), and a dead process's sockets stop counting."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
from clusterkit import RedisProcess, eventually, losing_a_cancel
from redis.asyncio import Redis

from app.cluster.caps import ServiceCaps, ServiceRateLimit
from app.cluster.client import RedisUnavailable, connect


@pytest.fixture
async def make_client(redis_url: str, redis: Redis) -> AsyncIterator[Callable[..., Redis]]:
    clients: list[Redis] = []

    def make(url: str = redis_url) -> Redis:
        clients.append(connect(url))
        return clients[-1]

    yield make
    for client in clients:
        await client.aclose()


async def test_connection_caps_hold_across_processes(
    make_client: Callable[..., Redis], prefix: str,
) -> None:
    a, b = (ServiceCaps(make_client(), per_table=3, per_address=4, prefix=prefix)
            for _ in range(2))
    assert await a.acquire("t1", "1.2.3.4") is None
    assert await b.acquire("t1", "5.6.7.8") is None
    assert await a.acquire("t1", "1.2.3.4") is None
    assert await b.acquire("t1", "9.9.9.9") == "table"  # 3 on t1, over both processes
    assert await a.counts("t1", "1.2.3.4") == (3, 2)
    assert await b.acquire("t2", "1.2.3.4") is None
    assert await b.acquire("t3", "1.2.3.4") is None
    assert await a.acquire("t4", "1.2.3.4") == "address"  # 4 for 1.2.3.4, over both
    assert await b.counts("t4", "1.2.3.4") == (0, 4)  # refused: counted on neither
    await b.release("t1", "5.6.7.8")
    assert await a.acquire("t1", "9.9.9.9") is None
    await a.release("t2", "1.2.3.4")
    assert await b.acquire("t4", "1.2.3.4") is None


async def test_concurrent_acquires_never_exceed_the_cap(
    make_client: Callable[..., Redis], prefix: str,
) -> None:
    procs = [ServiceCaps(make_client(), per_table=5, per_address=100, prefix=prefix)
             for _ in range(2)]
    answers = await asyncio.gather(*(procs[i % 2].acquire("t", f"10.0.0.{i}")
                                     for i in range(40)))
    assert answers.count(None) == 5
    assert set(answers) == {None, "table"}
    assert (await procs[0].counts("t", "10.0.0.0"))[0] == 5


async def test_a_dead_process_stops_counting_after_its_heartbeat_expires(
    make_client: Callable[..., Redis], prefix: str,
) -> None:
    dead = ServiceCaps(make_client(), per_table=3, per_address=3, prefix=prefix,
                       heartbeat_ttl=0.3)
    live = ServiceCaps(make_client(), per_table=3, per_address=3, prefix=prefix)
    for _ in range(3):
        assert await dead.acquire("t", "1.1.1.1") is None
    assert await live.acquire("t", "2.2.2.2") == "table"
    assert await live.acquire("u", "1.1.1.1") == "address"
    # `dead` is killed: no release, no heartbeat. Its three sockets stop counting.

    async def admitted() -> bool:
        return await live.acquire("t", "2.2.2.2") is None

    await eventually(admitted)
    assert await live.acquire("u", "1.1.1.1") is None
    assert await live.counts("t", "1.1.1.1") == (1, 1)


async def test_heartbeats_keep_a_process_counted_and_stop_frees_it_at_once(
    make_client: Callable[..., Redis], prefix: str,
) -> None:
    kept = ServiceCaps(make_client(), per_table=2, per_address=10, prefix=prefix,
                       heartbeat_ttl=0.3)
    other = ServiceCaps(make_client(), per_table=2, per_address=10, prefix=prefix)
    kept.start()
    try:
        assert await kept.acquire("t", "a") is None
        assert await kept.acquire("t", "b") is None
        for _ in range(10):  # a second: over three heartbeat ttls
            assert await other.acquire("t", "c") == "table"
            await asyncio.sleep(0.1)
    finally:
        await kept.stop()  # SIGTERM
    assert await other.acquire("t", "c") is None


async def test_a_stopped_heartbeat_beats_no_more_even_if_the_client_loses_the_cancel(
    make_client: Callable[..., Redis], prefix: str, redis: Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Stopped during a heartbeat whose client drops the cancel: the process leaves the
    living and stays out; its heartbeats used to go on and count it alive again."""
    kept = ServiceCaps(make_client(), per_table=2, per_address=10, prefix=prefix,
                       heartbeat_ttl=0.3)
    beating = asyncio.Event()
    monkeypatch.setattr(kept, "heartbeat", losing_a_cancel(kept.heartbeat, beating))
    kept.start()
    await beating.wait()
    await kept.stop()
    for _ in range(6):  # two heartbeat intervals
        assert await redis.zscore(kept.alive_key, kept.process) is None
        await asyncio.sleep(0.1)


async def test_the_rate_limit_is_one_bucket_over_processes(
    make_client: Callable[..., Redis], prefix: str,
) -> None:
    # A token every 100 s: nothing refills during the test.
    a, b = (ServiceRateLimit(make_client(), rate=0.01, burst=6, prefix=prefix)
            for _ in range(2))
    taken = [await (a if i % 2 else b).take("1.2.3.4") for i in range(9)]
    assert taken == [True] * 6 + [False] * 3  # the burst, over both processes
    assert await a.take("5.6.7.8")  # another key, another bucket
    assert not await a.take("9.9.9.9", cost=7)  # more than the burst: never


async def test_a_bucket_refills_at_its_rate_and_an_idle_one_expires(
    make_client: Callable[..., Redis], prefix: str,
) -> None:
    a, b = (ServiceRateLimit(make_client(), rate=5.0, burst=2, prefix=prefix)
            for _ in range(2))
    while await a.take("k"):  # empty it (it may refill a little meanwhile)
        pass

    async def refilled() -> bool:
        return await b.take("k")

    await eventually(refilled)
    ttl = await a.redis.pttl(a.key("k"))
    assert 0 < ttl <= 2 / 5 * 1000 + 1000


async def test_redis_unreachable_is_said_not_guessed(
    make_client: Callable[..., Redis], prefix: str, redis_process: RedisProcess,
) -> None:
    client = make_client(redis_process.url)
    caps = ServiceCaps(client, per_table=2, per_address=2, prefix=prefix)
    rate = ServiceRateLimit(client, rate=1.0, burst=1, prefix=prefix)
    assert await caps.acquire("t", "a") is None
    redis_process.kill()
    with pytest.raises(RedisUnavailable):
        await caps.acquire("t", "a")
    with pytest.raises(RedisUnavailable):
        await caps.release("t", "a")
    with pytest.raises(RedisUnavailable):
        await rate.take("a")
    redis_process.start()  # empty
    assert await caps.acquire("t", "a") is None
    assert await rate.take("a")
