"""Lease and log together on PostgreSQL: an owner paused past its lease wakes up, and the
store refuses its write while the same batch's other tables commit."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import pytest
from clusterkit import eventually
from matchdb import POSTGRES, migrated_database
from redis.asyncio import Redis
from sqlalchemy import select
from sqlalchemy.ext.asyncio import create_async_engine

from app.cluster.client import connect
from app.cluster.lease import Lease, LeaseLost, TableLeases
from app.db.models import TableLogEntry
from app.db.store import SqlStore, create_store
from app.table.ports import Fenced

NOW = datetime(2026, 11, 23, 8, 30, tzinfo=UTC)
TTL = 0.3

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def pg_url(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with migrated_database(POSTGRES, tmp_path_factory.mktemp("db"), postgres_url) as url:
        yield url


@pytest.fixture
async def two_processes(pg_url: str, redis_url: str, prefix: str, redis: Redis,
                        ) -> AsyncIterator[tuple[tuple[TableLeases, SqlStore], ...]]:
    clients = [connect(redis_url), connect(redis_url)]
    stores = [create_store(pg_url), create_store(pg_url)]
    yield tuple((TableLeases(c, ttl=TTL, prefix=prefix), s)
                for c, s in zip(clients, stores, strict=True))
    for c in clients:
        await c.aclose()
    for s in stores:
        await s.close()


async def seqs_by_table(url: str, tables: list[str]) -> dict[str, list[int]]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(select(TableLogEntry.table_id, TableLogEntry.seq)
                                      .where(TableLogEntry.table_id.in_(tables))
                                      .order_by(TableLogEntry.table_id, TableLogEntry.seq))
            out: dict[str, list[int]] = {t: [] for t in tables}
            for r in rows:
                out[r.table_id].append(r.seq)
            return out
    finally:
        await engine.dispose()


async def test_a_late_writer_is_refused_and_its_batch_commits_the_rest(
    two_processes: tuple[tuple[TableLeases, SqlStore], ...], pg_url: str,
) -> None:
    (leases_a, store_a), (leases_b, store_b) = two_processes
    ids = [f"late-{n}-{leases_a.owner[:6]}" for n in range(3)]
    shared, *others = ids
    # Process a owns three tables and writes to each under its token.
    owned: dict[str, Lease] = {}
    for table in ids:
        await store_a.create_table(table, {}, NOW)
        lease = await leases_a.acquire(table)
        assert lease is not None
        await store_a.claim(table, lease.token)
        await store_a.append(table, 1, {"by": "a"}, fence=lease.token)
        owned[table] = lease
    # a is paused (SIGSTOP) past its lease of `shared`; it renews the others meanwhile.
    stale = owned[shared]
    taken: list[Lease] = []

    async def b_takes_over() -> bool:
        for table in others:
            owned[table] = await leases_a.renew(owned[table])
        lease = await leases_b.acquire(shared)
        if lease is not None:
            taken.append(lease)
        return lease is not None

    await eventually(b_takes_over)
    new = taken[0]
    assert new.token > stale.token
    await store_b.claim(shared, new.token)  # the takeover, before reading the log
    restored = await store_b.load_table(shared)
    assert restored is not None and [e["seq"] for e in restored.entries] == [1]
    await store_b.append(shared, 2, {"by": "b"}, fence=new.token)

    # a wakes up and writes everything it had in hand: one group-committed batch.
    commits = store_a.stats.commits
    results = await asyncio.gather(
        store_a.append(shared, 2, {"by": "a, late"}, fence=stale.token),
        *(store_a.append(t, 2, {"by": "a"}, fence=owned[t].token) for t in others),
        return_exceptions=True,
    )
    assert store_a.stats.commits == commits + 1
    assert isinstance(results[0], Fenced)
    assert results[0].epoch == new.token and results[0].fence == stale.token
    assert results[1:] == [None] * len(others)
    with pytest.raises(LeaseLost):
        await leases_a.renew(stale)

    assert await seqs_by_table(pg_url, ids) == {t: [1, 2] for t in ids}
    after = await store_b.load_table(shared)
    assert after is not None
    assert [e["by"] for e in after.entries] == ["a", "b"]  # not a's late entry


async def test_after_a_redis_restart_a_refused_token_acquires_above_the_epoch(
    two_processes: tuple[tuple[TableLeases, SqlStore], ...], redis: Redis,
) -> None:
    """Redis lost everything and (worst case) the clock went back: the log's epoch is
    above any token Redis would issue now; ``Fenced.epoch`` gets the owner past it."""
    (leases_a, store_a), (leases_b, store_b) = two_processes
    table = f"restart-{leases_a.owner[:6]}"
    await store_a.create_table(table, {}, NOW)
    far_future = 2**52  # a token from a clock far ahead of Redis's
    await store_a.claim(table, far_future)
    lease = await leases_b.acquire(table)
    assert lease is not None and lease.token < far_future
    with pytest.raises(Fenced) as refused:
        await store_b.claim(table, lease.token)
    assert refused.value.epoch == far_future
    await leases_b.release(lease)
    again = await leases_b.acquire(table, at_least=refused.value.epoch)
    assert again is not None and again.token == far_future + 1
    await store_b.claim(table, again.token)
    await store_b.append(table, 1, {"by": "b"}, fence=again.token)
    with pytest.raises(Fenced):
        await store_a.append(table, 1, {"by": "a"}, fence=far_future)
