"""SqlStore: group commit, durability, error isolation, restore and finished matches."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from matchdb import play_match_record
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError, StatementError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from app.db.models import GameRecord, LiveTable, MatchPlayer, MatchRecord, TableLogEntry
from app.db.store import SqlStore, StoreClosed, create_store

NOW = datetime(2026, 11, 21, 22, 0, tzinfo=UTC)


@pytest.fixture
async def reader(db_url: str) -> AsyncIterator[AsyncEngine]:
    """A second engine: what it sees was committed, not just written by the store."""
    engine = create_async_engine(db_url)
    yield engine
    await engine.dispose()


async def log_of(engine: AsyncEngine, table_id: str) -> list[tuple[int, dict[str, Any]]]:
    async with engine.connect() as conn:
        rows = await conn.execute(select(TableLogEntry.seq, TableLogEntry.entry)
                                  .where(TableLogEntry.table_id == table_id)
                                  .order_by(TableLogEntry.seq))
        return [(r.seq, r.entry) for r in rows]


async def test_concurrent_appends_from_many_tables_are_durable_in_order_and_grouped(
    store: SqlStore, reader: AsyncEngine
) -> None:
    tables, per_table = 50, 20
    await asyncio.gather(*(store.create_table(f"t{i}", {"n": i}, NOW) for i in range(tables)))

    async def play(i: int) -> None:
        for seq in range(1, per_table + 1):
            await store.append(f"t{i}", seq, {"type": "action", "table": i, "seq": seq})
            if seq % 7 == 0:  # returned, so another connection must already see it
                assert (await log_of(reader, f"t{i}"))[-1][0] == seq

    await asyncio.gather(*(play(i) for i in range(tables)))

    for i in range(tables):
        log = await log_of(reader, f"t{i}")
        assert [seq for seq, _ in log] == list(range(1, per_table + 1))
        assert all(entry == {"type": "action", "table": i, "seq": seq} for seq, entry in log)
    writes = tables * (per_table + 1)
    assert store.stats.writes == writes
    # Group commit: far fewer transactions than writes, and real batches.
    assert store.stats.commits <= writes // 10
    assert store.stats.largest_batch >= tables // 2


async def test_a_failing_write_fails_only_its_own_waiter(
    store: SqlStore, reader: AsyncEngine
) -> None:
    await store.create_table("a", {}, NOW)
    await store.create_table("b", {}, NOW)
    await store.append("a", 1, {"n": 1})

    results = await asyncio.gather(
        store.append("a", 2, {"n": 2}),
        store.append("a", 1, {"n": "duplicate"}),  # seq 1 is taken
        store.append("b", 1, {"n": 1}),
        store.append("nowhere", 1, {"n": 1}),  # no such table
        store.append("b", 2, {"not json": object()}),
        store.append("b", 3, {"n": 3}),
        return_exceptions=True,
    )

    assert results[0] is None and results[2] is None and results[5] is None
    assert isinstance(results[1], IntegrityError)
    assert isinstance(results[3], IntegrityError)
    assert isinstance(results[4], StatementError)
    assert await log_of(reader, "a") == [(1, {"n": 1}), (2, {"n": 2})]
    assert await log_of(reader, "b") == [(1, {"n": 1}), (3, {"n": 3})]
    await store.append("b", 4, {"n": 4})  # the writer carries on
    assert (await log_of(reader, "b"))[-1] == (4, {"n": 4})


async def test_a_database_failure_fails_every_waiter_and_the_writer_survives(
    tmp_path: Any,
) -> None:
    store = create_store(f"sqlite+aiosqlite:///{tmp_path / 'missing-dir' / 'x.db'}")
    try:
        results = await asyncio.gather(*(store.append("t", s, {}) for s in range(1, 6)),
                                       return_exceptions=True)
        assert all(isinstance(r, OperationalError) for r in results), results
        with pytest.raises(OperationalError):
            await store.append("t", 6, {})
    finally:
        await store.close()


async def test_close_commits_what_is_queued_then_refuses_writes(
    db_url: str, reader: AsyncEngine
) -> None:
    store = create_store(db_url)
    await store.create_table("t", {}, NOW)
    pending = [asyncio.create_task(store.append("t", s, {"s": s})) for s in range(1, 31)]
    await asyncio.sleep(0)  # queued, not yet committed
    await store.close()
    assert all(t.done() and t.exception() is None for t in pending)
    assert [seq for seq, _ in await log_of(reader, "t")] == list(range(1, 31))
    with pytest.raises(StoreClosed):
        await store.append("t", 31, {})


async def test_unfinished_tables_round_trip(store: SqlStore) -> None:
    later = NOW + timedelta(minutes=5)
    await store.create_table("old", {"games_to_win": 3, "turn_seconds": None}, NOW)
    await store.create_table("new", {"games_to_win": 5}, later)
    await store.create_table("gone", {}, NOW)
    await asyncio.gather(
        store.append("new", 1, {"type": "sit", "seat": 0, "name": "Ann"}),
        store.append("old", 1, {"type": "sit", "seat": 2, "name": "Émile"}),
        store.append("gone", 1, {"type": "sit", "seat": 1, "name": "Bob"}),
    )
    await store.append("old", 2, {"type": "action", "action": {"seat": 2, "type": "play",
                                                               "cards": ["7C", "7S"]}})
    await store.append("new", 2, {"type": "start", "seed": 2**62})
    await store.close_table("gone")

    tables = await store.unfinished_tables()

    assert [t.table_id for t in tables] == ["old", "new"]
    old, new = tables
    assert old.options == {"games_to_win": 3, "turn_seconds": None}
    assert old.created_at == NOW and old.created_at.tzinfo is not None
    assert new.created_at == later
    assert old.entries == [
        {"type": "sit", "seat": 2, "name": "Émile", "seq": 1},
        {"type": "action", "action": {"seat": 2, "type": "play", "cards": ["7C", "7S"]},
         "seq": 2},
    ]
    assert [e["seq"] for e in new.entries] == [1, 2]
    assert new.entries[1]["seed"] == 2**62


async def test_close_table_drops_its_log(store: SqlStore, reader: AsyncEngine) -> None:
    await store.create_table("t", {}, NOW)
    await store.append("t", 1, {})
    await store.close_table("t")
    assert await log_of(reader, "t") == []
    async with reader.connect() as conn:
        closed_at = await conn.scalar(select(LiveTable.closed_at).where(LiveTable.id == "t"))
    assert closed_at is not None and closed_at.tzinfo is not None


async def test_finish_match_stores_the_record_and_the_table_lives_on(
    store: SqlStore, reader: AsyncEngine
) -> None:
    record = play_match_record(5, table_id="t", games_to_win=2)
    await store.create_table("t", {}, NOW)
    await store.append("t", 1, {"type": "start"})

    match_id = await store.finish_match(record)
    again = await store.finish_match(record)  # e.g. reported again after a restart

    assert again == match_id
    async with reader.connect() as conn:
        match = (await conn.execute(select(MatchRecord).where(MatchRecord.id == match_id))).one()
        players = (await conn.execute(select(MatchPlayer).order_by(MatchPlayer.seat))).all()
        games = (await conn.execute(select(GameRecord).order_by(GameRecord.number))).all()
        last = await conn.scalar(select(LiveTable.last_match_id).where(LiveTable.id == "t"))
        count = await conn.scalar(select(func.count()).select_from(MatchRecord))
    assert count == 1 and last == match_id
    assert match.table_id == "t" and match.seed == 5 and match.winner == record["winner"]
    assert match.ended_at == datetime.fromisoformat(record["ended_at"])
    assert match.game == "dingo" and match.seats == 4
    assert match.scoreboard["game_wins"] == record["game_wins"]
    assert match.scoreboard["totals"] == record["totals"]
    assert match.standing == record["game_wins"]
    assert [(p.seat, p.name, p.name_key, p.is_bot) for p in players] == [
        (0, "Ann", "ann", False), (1, "Bob", "bob", False),
        (2, "Cid", "cid", True), (3, "Dee", "dee", True)]
    assert [(g.number, g.setup, g.actions, g.result, g.winner) for g in games] == [
        (g["number"], {"dealer": g["dealer"], "seed": g["seed"], "hands": g["hands"]},
         g["actions"], {"scores": g["scores"], "tie_break": g["tie_break"]}, g["winner"])
        for g in record["games"]]
    # Finishing a match does not close the table: a rematch may follow.
    assert [t.table_id for t in await store.unfinished_tables()] == ["t"]


async def test_finish_match_refuses_a_record_that_does_not_replay(store: SqlStore) -> None:
    record = play_match_record(6)
    record["games"][0]["scores"] = [s + 1 for s in record["games"][0]["scores"]]
    with pytest.raises(ValueError, match="game 1: records scores"):
        await store.finish_match(record)
    assert store.stats.writes == 0


async def test_waiters_are_released_if_the_writer_is_cancelled(store: SqlStore) -> None:
    appends = [asyncio.create_task(store.append("t", s, {})) for s in range(1, 50)]
    await asyncio.sleep(0)  # all queued; the writer has not started
    assert store._writer is not None
    store._writer.cancel()  # e.g. the loop shutting down without close()
    async with asyncio.timeout(5):
        results = await asyncio.gather(*appends, return_exceptions=True)
    assert all(isinstance(r, StoreClosed) for r in results), results


@pytest.mark.parametrize("game", ["mate", "divide", "bingo"])
async def test_a_match_of_another_game_is_stored_with_its_seat_count(
    store: SqlStore, reader: AsyncEngine, game: str
) -> None:
    from recordkit import game_record

    record = game_record(game, 8, table_id="g")
    match_id = await store.finish_match(record)
    assert await store.finish_match(record) == match_id
    async with reader.connect() as conn:
        match = (await conn.execute(select(MatchRecord).where(MatchRecord.id == match_id))).one()
        players = (await conn.execute(select(MatchPlayer.seat, MatchPlayer.seats)
                                      .order_by(MatchPlayer.seat))).all()
        games = (await conn.execute(select(GameRecord).order_by(GameRecord.number))).all()
    assert (match.game, match.seats, match.winner) == (game, 2, record["winner"])
    assert match.standing == record["standing"] and match.scoreboard == record["scoreboard"]
    assert match.record == record["record"]
    assert [tuple(p) for p in players] == [(0, 2), (1, 2)]
    assert [(g.number, g.setup, g.actions, g.result, g.winner) for g in games] == [
        (g["number"], g["setup"], g["actions"], g["result"], g["winner"])
        for g in record["games"]]


async def test_the_database_checks_seats_against_the_match_seat_count(
    store: SqlStore, db_url: str
) -> None:
    """Seat 2 of a two-seat match, or a row claiming another seat count than its match's,
    is refused by the database itself (the CHECKs and composite foreign keys of 0003)."""
    from recordkit import game_record

    from app.db.session import create_engine

    match_id = await store.finish_match(game_record("mate", 9))
    dingo_id = await store.finish_match(play_match_record(9))
    bad: list[tuple[Any, dict[str, Any]]] = [
        (MatchPlayer, {"match_id": match_id, "seat": 2, "seats": 2, "name": "X",
                       "name_key": "x", "is_bot": False}),
        (MatchPlayer, {"match_id": match_id, "seat": 3, "seats": 4, "name": "X",
                       "name_key": "x", "is_bot": False}),
        (GameRecord, {"match_id": match_id, "number": 99, "seats": 2, "setup": {},
                      "actions": [], "result": None, "winner": 2}),
        (GameRecord, {"match_id": dingo_id, "number": 99, "seats": 2, "setup": {},
                      "actions": [], "result": None, "winner": 1}),
        (MatchRecord, {"game": "mate", "seats": 2, "table_id": "x", "seed": 1, "options": {},
                       "started_at": NOW, "ended_at": NOW, "winner": 2, "standing": [0, 0],
                       "scoreboard": {}}),
        (MatchRecord, {"game": "mate", "seats": 1, "table_id": "y", "seed": 1, "options": {},
                       "started_at": NOW, "ended_at": NOW, "winner": None, "standing": [0],
                       "scoreboard": {}}),
    ]
    writer = create_engine(db_url)  # the app's: foreign keys enforced on SQLite too
    try:
        for model, row in bad:
            with pytest.raises(IntegrityError):
                async with writer.begin() as conn:
                    await conn.execute(model.__table__.insert().values(**row))
    finally:
        await writer.dispose()
    async with store.engine.begin() as conn:  # rows within the seat count are fine
        await conn.execute(MatchRecord.__table__.insert().values(
            game="mate", seats=2, table_id="x", seed=1, options={}, started_at=NOW,
            ended_at=NOW, winner=None, standing=[0, 0], scoreboard={}))
        await conn.execute(GameRecord.__table__.insert().values(
            match_id=dingo_id, number=99, seats=4, setup={}, actions=[], result=None,
            winner=3))
