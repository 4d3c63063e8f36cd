"""Fenced appends (several processes): a stale lease token cannot write, alone in its batch."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event, select
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from app.db.models import TableLease, TableLogEntry
from app.db.store import SqlStore, create_store
from app.table.ports import Fenced, MemoryStore

NOW = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


@pytest.fixture
async def reader(db_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_async_engine(db_url)
    yield engine
    await engine.dispose()


async def seqs(engine: AsyncEngine, table_id: str) -> list[int]:
    async with engine.connect() as conn:
        rows = await conn.scalars(select(TableLogEntry.seq)
                                  .where(TableLogEntry.table_id == table_id)
                                  .order_by(TableLogEntry.seq))
        return list(rows)


async def epochs(engine: AsyncEngine) -> dict[str, int]:
    async with engine.connect() as conn:
        rows = await conn.execute(select(TableLease.table_id, TableLease.epoch))
        return {r.table_id: r.epoch for r in rows}


async def test_unfenced_appends_never_touch_the_leases(
    store: SqlStore, reader: AsyncEngine
) -> None:
    await store.create_table("t", {}, NOW)
    await asyncio.gather(*(store.append("t", n, {"n": n}) for n in range(1, 6)))
    assert await seqs(reader, "t") == [1, 2, 3, 4, 5]
    assert await epochs(reader) == {}


async def test_a_claim_fences_out_smaller_tokens_only(
    store: SqlStore, reader: AsyncEngine
) -> None:
    await store.create_table("t", {}, NOW)
    await store.append("t", 1, {"n": 1}, fence=3)
    assert await epochs(reader) == {"t": 3}
    await store.claim("t", 5)
    with pytest.raises(Fenced) as refused:
        await store.append("t", 2, {"n": 2}, fence=3)
    assert (refused.value.table_id, refused.value.fence, refused.value.epoch) == ("t", 3, 5)
    assert "fencing token 3 is stale" in str(refused.value)
    with pytest.raises(Fenced):
        await store.claim("t", 4)
    await store.append("t", 2, {"n": 2}, fence=5)
    await store.append("t", 3, {"n": 3}, fence=9)  # a larger token raises the epoch
    with pytest.raises(Fenced):
        await store.append("t", 4, {"n": 4}, fence=5)
    assert await seqs(reader, "t") == [1, 2, 3]
    assert await epochs(reader) == {"t": 9}


async def test_a_fenced_out_write_fails_alone_in_its_batch(
    store: SqlStore, reader: AsyncEngine
) -> None:
    for t in ("a", "b", "c"):
        await store.create_table(t, {}, NOW)
    await store.claim("a", 7)
    commits = store.stats.commits

    results = await asyncio.gather(
        store.append("a", 1, {"n": "late"}, fence=6),  # the old owner, woken up late
        store.append("b", 1, {"n": 1}, fence=2),
        store.append("c", 1, {"n": 1}),
        store.append("a", 1, {"n": "owner"}, fence=7),
        store.append("b", 2, {"n": 2}, fence=2),
        return_exceptions=True,
    )

    assert store.stats.commits == commits + 1  # one transaction for all five
    assert isinstance(results[0], Fenced) and results[0].epoch == 7
    assert results[1:] == [None, None, None, None]
    assert (await seqs(reader, "a"), await seqs(reader, "b"), await seqs(reader, "c")) == (
        [1], [1, 2], [1])
    async with reader.connect() as conn:
        entry = await conn.scalar(select(TableLogEntry.entry).where(TableLogEntry.table_id == "a"))
    assert entry == {"n": "owner"}
    assert await epochs(reader) == {"a": 7, "b": 2}


async def test_a_fenced_write_that_fails_otherwise_leaves_the_epoch(
    store: SqlStore, reader: AsyncEngine
) -> None:
    await store.create_table("t", {}, NOW)
    await store.append("t", 1, {"n": 1}, fence=1)
    results = await asyncio.gather(
        store.append("t", 1, {"n": "duplicate"}, fence=4),  # seq taken: rolled back
        store.append("nowhere", 1, {}, fence=4),
        return_exceptions=True,
    )
    assert all(isinstance(r, Exception) and not isinstance(r, Fenced) for r in results)
    assert await epochs(reader) == {"t": 1}


async def test_a_claim_waits_for_the_old_owners_batch_then_wins(db_url: str) -> None:
    """Two stores are two processes: once ``claim`` returns, the old owner's log is final."""
    old, new = create_store(db_url), create_store(db_url)
    try:
        await old.create_table("t", {}, NOW)
        seq = 0
        refused: list[Fenced] = []

        async def old_owner() -> None:
            nonlocal seq
            while True:
                try:
                    await old.append("t", seq + 1, {"by": "old"}, fence=1)
                except Fenced as exc:
                    refused.append(exc)
                    return
                seq += 1

        writer = asyncio.create_task(old_owner())
        while seq < 5:
            await asyncio.sleep(0.001)
        await new.claim("t", 2)
        stored = await new.unfinished_tables()
        await asyncio.wait_for(writer, 10)
        log: list[dict[str, Any]] = stored[0].entries
        assert [e["seq"] for e in log] == list(range(1, seq + 1))  # nothing after the claim
        assert refused and refused[0].epoch == 2
        await new.append("t", seq + 1, {"by": "new"}, fence=2)
    finally:
        await old.close()
        await new.close()


async def test_memory_store_fences_the_same_way() -> None:
    store = MemoryStore()
    await store.create_table("t", {}, NOW)
    await store.append("t", 1, {}, fence=2)
    await store.claim("t", 3)
    with pytest.raises(Fenced):
        await store.append("t", 2, {}, fence=2)
    with pytest.raises(Fenced):
        await store.claim("t", 2)
    with pytest.raises(ValueError):
        await store.append("t", 1, {}, fence=5)  # seq taken: the epoch stays
    assert store.epochs == {"t": 3}
    await store.append("t", 2, {})  # unfenced: no check, as with one process
    assert [e["seq"] for e in store.tables["t"].entries] == [1, 2]


async def test_an_old_owner_cannot_close_a_table_taken_over(
    store: SqlStore, reader: AsyncEngine
) -> None:
    await store.create_table("t", {}, NOW)
    await store.append("t", 1, {"n": 1}, fence=1)
    await store.claim("t", 2)
    with pytest.raises(Fenced):
        await store.close_table("t", fence=1)  # the old owner's idle sweep
    assert [t.table_id for t in await store.unfinished_tables()] == ["t"]
    assert await seqs(reader, "t") == [1]
    await store.close_table("t", fence=2)
    assert await store.unfinished_tables() == []
    memory = MemoryStore()
    await memory.create_table("t", {}, NOW)
    await memory.claim("t", 2)
    with pytest.raises(Fenced):
        await memory.close_table("t", fence=1)
    await memory.close_table("t", fence=2)
    assert memory.tables == {}


async def test_unfenced_batches_add_no_query_and_fenced_ones_one(store: SqlStore) -> None:
    """The single-process path stays as it was: one INSERT per batch (none through the
    engine on SQLite, whose appends skip it); a fenced batch adds one upsert."""
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    tables = [f"t{i}" for i in range(10)]
    for t in tables:
        await store.create_table(t, {}, NOW)
    event.listen(store.engine.sync_engine, "before_cursor_execute", record)
    try:
        await asyncio.gather(*(store.append(t, 1, {}) for t in tables))
        unfenced, statements[:] = list(statements), []
        await asyncio.gather(*(store.append(t, 2, {}, fence=5) for t in tables))
        fenced = list(statements)
    finally:
        event.remove(store.engine.sync_engine, "before_cursor_execute", record)
    expected = 0 if store.engine.dialect.name == "sqlite" else 1
    assert len(unfenced) == expected
    assert all("table_leases" not in s for s in unfenced)
    assert len(fenced) == 2
    assert sum("table_leases" in s for s in fenced) == 1


async def test_load_table_reads_one_unfinished_table(store: SqlStore) -> None:
    for t in ("t", "u"):
        await store.create_table(t, {"n": t}, NOW)
    for seq in (1, 2, 3):
        await store.append("t", seq, {"n": seq}, fence=1)
    await store.append("u", 1, {"n": 1})
    t = await store.load_table("t")
    assert t is not None and (t.table_id, t.options, t.created_at) == ("t", {"n": "t"}, NOW)
    assert t.entries == [{"n": n, "seq": n} for n in (1, 2, 3)]
    await store.close_table("u")
    assert await store.load_table("u") is None
    assert await store.load_table("nowhere") is None
    memory = MemoryStore()
    await memory.create_table("t", {}, NOW)
    assert (await memory.load_table("t")) is memory.tables["t"]
    assert await memory.load_table("u") is None
