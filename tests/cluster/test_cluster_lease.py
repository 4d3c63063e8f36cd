"""Table leases on a real Redis: one owner at a time, expiry, takeover with a larger
fencing token, renew/release by a former owner refused, graceful handover, Redis gone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import pytest
from clusterkit import RedisProcess, eventually, losing_a_cancel
from redis.asyncio import Redis

from app.cluster.client import connect
from app.cluster.lease import Lease, LeaseKeeper, LeaseLost, LeaseUnavailable, TableLeases

TTL = 0.3


@pytest.fixture
async def make_leases(redis_url: str, prefix: str,
                      redis: Redis) -> AsyncIterator[Callable[..., TableLeases]]:
    """Each call is another process: its own client and owner id, the same Redis and prefix."""
    clients: list[Redis] = []

    def make(ttl: float = TTL, url: str = redis_url) -> TableLeases:
        client = connect(url)
        clients.append(client)
        return TableLeases(client, ttl=ttl, prefix=prefix)

    yield make
    for client in clients:
        await client.aclose()


async def test_two_competing_owners_one_wins(make_leases: Callable[..., TableLeases]) -> None:
    a, b = make_leases(ttl=30), make_leases(ttl=30)
    for round_ in range(20):
        table = f"t{round_}"
        got = await asyncio.gather(a.acquire(table), b.acquire(table))
        winners = [lease for lease in got if lease is not None]
        assert len(winners) == 1, got
        winner = winners[0]
        assert winner.valid()
        assert await a.holder(table) == (winner.owner, winner.token)
        loser = b if winner.owner == a.owner else a
        assert await loser.acquire(table) is None
        assert await (b if loser is a else a).renew(winner)


async def test_a_non_holder_can_neither_renew_nor_release(
    make_leases: Callable[..., TableLeases],
) -> None:
    a, b = make_leases(ttl=30), make_leases(ttl=30)
    lease = await a.acquire("t")
    assert lease is not None
    forged = Lease("t", b.owner, lease.token, lease.valid_until)
    with pytest.raises(LeaseLost):
        await b.renew(forged)
    assert await b.release(forged) is False
    older = Lease("t", a.owner, lease.token - 1, lease.valid_until)  # an earlier token of a's
    with pytest.raises(LeaseLost):
        await a.renew(older)
    assert await a.release(older) is False
    assert await b.holder("t") == (a.owner, lease.token)
    assert await a.release(lease) is True
    assert await b.holder("t") is None
    assert await a.release(lease) is False  # twice: it is gone


async def test_an_expired_lease_goes_to_the_next_owner_with_a_larger_token(
    make_leases: Callable[..., TableLeases],
) -> None:
    a, b = make_leases(), make_leases()
    first = await a.acquire("t")
    assert first is not None
    assert await b.acquire("t") is None
    # a is paused: it renews nothing. Its own view runs out no later than the key.
    await eventually(lambda: not first.valid())
    taken: list[Lease] = []

    async def b_takes_it() -> bool:
        lease = await b.acquire("t")
        if lease is not None:
            taken.append(lease)
        return lease is not None

    await eventually(b_takes_it)
    second = taken[0]
    assert second.token > first.token
    assert time.monotonic() >= first.valid_until  # never two valid leases at once
    # a wakes up: its lease is gone for good.
    with pytest.raises(LeaseLost) as lost:
        await a.renew(first)
    assert not isinstance(lost.value, LeaseUnavailable)
    assert await a.release(first) is False
    assert await a.holder("t") == (b.owner, second.token)


async def test_tokens_strictly_increase_and_honour_at_least(
    make_leases: Callable[..., TableLeases], redis: Redis,
) -> None:
    a, b = make_leases(ttl=30), make_leases(ttl=30)
    tokens = []
    for i in range(30):
        leases = a if i % 2 else b
        lease = await leases.acquire("t")
        assert lease is not None
        tokens.append(lease.token)
        assert await leases.release(lease)
    assert tokens == sorted(set(tokens))
    assert tokens[0] > 1_700_000_000 * 10**6  # the clock term: µs since 1970
    # The counter is lost (a Redis restart without persistence): still larger.
    await redis.delete(a.counter_key("t"))
    lease = await a.acquire("t")
    assert lease is not None and lease.token > tokens[-1]
    await a.release(lease)
    # A store that refused a token hands its epoch back: the next token is above it.
    epoch = tokens[-1] + 10**12
    lease = await b.acquire("t", at_least=epoch)
    assert lease is not None and lease.token == epoch + 1  # exact: no float rounding


async def test_the_same_owner_acquiring_again_replaces_its_earlier_lease(
    make_leases: Callable[..., TableLeases],
) -> None:
    a = make_leases(ttl=30)
    first = await a.acquire("t")
    second = await a.acquire("t")
    assert first is not None and second is not None and second.token > first.token
    with pytest.raises(LeaseLost):
        await a.renew(first)
    assert await a.renew(second)


async def test_renew_many_renews_in_chunks_and_says_which_are_lost(
    make_leases: Callable[..., TableLeases], redis: Redis, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One pipeline a chunk (3 here): each lease renewed or its own ``LeaseLost``, in order,
    across chunks; a renewed lease is good for another ttl from the renewal."""
    monkeypatch.setattr("app.cluster.lease.RENEW_CHUNK", 3)
    a, b = make_leases(ttl=30), make_leases(ttl=30)
    leases = []
    for n in range(7):
        lease = await a.acquire(f"t{n}")
        assert lease is not None
        leases.append(lease)
    await redis.delete(a.lease_key("t1"))  # expired
    taken = await b.acquire("t1")
    assert taken is not None
    forged = Lease("t4", b.owner, leases[4].token, leases[4].valid_until)
    asked = [*leases[:4], forged, *leases[5:]]
    started = time.monotonic()
    results = await a.renew_many(asked)
    assert [type(r) for r in results] == [Lease, LeaseLost, Lease, Lease, LeaseLost, Lease, Lease]
    for lease, result in zip(asked, results, strict=True):
        if isinstance(result, Lease):
            assert (result.table_id, result.token) == (lease.table_id, lease.token)
            assert result.valid_until >= started + 29
        else:
            assert result.table_id == lease.table_id and not isinstance(result, LeaseUnavailable)
    assert await a.holder("t1") == (b.owner, taken.token)  # a's renewal took nothing back
    assert await a.holder("t4") == (a.owner, leases[4].token)
    assert await a.renew_many([]) == []


async def test_the_keeper_renews_reports_a_lost_lease_and_hands_over_on_stop(
    make_leases: Callable[..., TableLeases], redis: Redis,
) -> None:
    a, b = make_leases(), make_leases()
    lost: list[tuple[str, LeaseLost]] = []

    async def on_lost(lease: Lease, error: LeaseLost) -> None:
        lost.append((lease.table_id, error))

    keeper = LeaseKeeper(a, on_lost)
    for table in ("kept", "stolen"):
        lease = await a.acquire(table)
        assert lease is not None
        keeper.add(lease)
    keeper.start()
    try:
        # Kept past several ttls: nobody else can take it.
        deadline = time.monotonic() + 4 * TTL
        while time.monotonic() < deadline:
            assert await b.acquire("kept") is None
            await asyncio.sleep(TTL / 4)
        assert keeper.current("kept") is not None
        # The key vanishes (Redis restarted without persistence) and b takes the table.
        await redis.delete(a.lease_key("stolen"))
        stolen = await b.acquire("stolen")
        assert stolen is not None
        await eventually(lambda: bool(lost))
        assert lost[0][0] == "stolen" and not isinstance(lost[0][1], LeaseUnavailable)
        assert keeper.current("stolen") is None
        assert keeper.current("kept") is not None
    finally:
        await keeper.stop(release=True)  # SIGTERM: hand over at once
    assert await b.acquire("kept") is not None  # no waiting for the expiry
    assert [t for t, _ in lost] == ["stolen"]


async def keeping(leases: TableLeases, table_id: str) -> LeaseKeeper:
    """A keeper holding ``table_id``'s lease, which it must never lose."""
    async def never_lost(lease: Lease, error: LeaseLost) -> None:
        raise AssertionError(f"lost {lease.table_id}: {error}")

    keeper = LeaseKeeper(leases, never_lost)
    lease = await leases.acquire(table_id)
    assert lease is not None
    keeper.add(lease)
    return keeper


async def test_the_keeper_goes_on_after_a_round_that_failed(
    make_leases: Callable[..., TableLeases], monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, b = make_leases(), make_leases()
    keeper = await keeping(a, "t")
    rounds = 0
    renew_many = a.renew_many

    async def failing_once(leases: list[Lease]) -> list[Lease | LeaseLost]:
        nonlocal rounds
        rounds += 1
        if rounds == 1:
            raise RuntimeError("a bug in one round")
        return await renew_many(leases)

    monkeypatch.setattr(a, "renew_many", failing_once)
    keeper.start()
    try:
        await eventually(lambda: rounds >= 3)
        # Renewed by the rounds after the failed one: still nobody else's, past its ttl.
        await asyncio.sleep(TTL)
        assert await b.acquire("t") is None
        assert keeper.current("t") is not None
    finally:
        await keeper.stop()


async def test_a_stopped_keeper_renews_no_more_even_if_the_client_loses_the_cancel(
    make_leases: Callable[..., TableLeases], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Stopped during a renewal whose client drops the cancel: the keeper ends after that
    round; it used to go on renewing, so nobody could take its tables over."""
    a, b = make_leases(), make_leases()
    keeper = await keeping(a, "t")
    renewing = asyncio.Event()
    monkeypatch.setattr(a, "renew_many", losing_a_cancel(a.renew_many, renewing))
    keeper.start()
    task = keeper._task
    assert task is not None
    await renewing.wait()
    await keeper.stop(release=False)  # not handed back: it must run out by itself
    assert task.done()

    async def taken() -> bool:
        return await b.acquire("t") is not None

    await eventually(taken, timeout=3 * TTL)


async def test_redis_unreachable_means_lost_and_service_resumes_when_it_returns(
    make_leases: Callable[..., TableLeases], redis_process: RedisProcess,
) -> None:
    a = make_leases(url=redis_process.url)
    lost: list[LeaseLost] = []

    async def on_lost(lease: Lease, error: LeaseLost) -> None:
        lost.append(error)

    keeper = LeaseKeeper(a, on_lost)
    before = await a.acquire("t")
    assert before is not None
    keeper.add(before)
    keeper.start()
    try:
        redis_process.kill()
        await eventually(lambda: bool(lost))
        assert isinstance(lost[0], LeaseUnavailable)
        assert keeper.current("t") is None
        with pytest.raises(LeaseUnavailable):
            await a.acquire("t")
        with pytest.raises(LeaseUnavailable):
            await a.renew(before)
        assert [type(r) for r in await a.renew_many([before, before])] == [LeaseUnavailable] * 2
        with pytest.raises(LeaseUnavailable):
            await a.release(before)

        redis_process.start()  # empty: no leases, no counters, no scripts
        after = await a.acquire("t")  # the same client, no restart of ours
        assert after is not None and after.token > before.token
        keeper.add(after)
        await asyncio.sleep(2 * TTL)
        assert keeper.current("t") is not None
        assert len(lost) == 1
    finally:
        await keeper.stop()
