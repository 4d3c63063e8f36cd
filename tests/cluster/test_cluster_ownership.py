"""Table ownership among processes: two ``TableManager``s in this test process (two
process ids) on one PostgreSQL database and one Redis, as two ``dingo serve`` would be.

Create on A, find it from B; A dies (its leases stop being renewed) and B takes the
table over at the same version, with no action lost or doubled and the answers to
intent ids rebuilt; an owner that was paused past its lease is fenced and drops the
table (``CLOSE_MOVED``); a graceful stop hands the tables over at once; Redis away
means ``OwnershipUnavailable`` and dropped tables, and ownership comes back with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import pytest
from clusterkit import RedisProcess, eventually, losing_a_cancel
from matchdb import POSTGRES, empty_all_tables, migrated_database
from redis.asyncio import Redis
from sqlalchemy import select
from tablekit import FakeConn, answer, fast_config

from app.cluster.client import connect
from app.cluster.lease import TableLeases
from app.cluster.ownership import Ownership
from app.cluster.relay import EXPIRY_MARGIN
from app.db.models import MatchRecord
from app.db.store import SqlStore, create_store
from app.table.client import Client
from app.table.manager import (
    CLOSE_MOVED,
    Owner,
    OwnershipUnavailable,
    TableManager,
)
from app.table.options import TableConfig, TableOptions
from app.table.ports import MemoryStore
from app.table.table import Table

pytestmark = pytest.mark.postgres

TTL = 0.4
#: For a test whose table must stay owned across renewals (through B's sweeps, or Redis
#: coming back): a loaded machine once starved a 0.4 s lease there, and the table went.
STEADY_TTL = TTL * 3
BOTS = ((1, "random"), (2, "random"), (3, "random"))


@pytest.fixture(scope="module")
def pg_url(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with migrated_database(POSTGRES, tmp_path_factory.mktemp("db"), postgres_url) as url:
        yield url


class Process:
    """One server process as the tables see it: a manager, its store and Redis client."""

    def __init__(self, manager: TableManager, store: SqlStore, redis: Redis) -> None:
        self.manager, self.store, self.redis = manager, store, redis
        self.clients: list[Client] = []

    @property
    def ownership(self) -> Ownership:
        assert self.manager.ownership is not None
        return self.manager.ownership

    async def join(self, table: Table, token: str | None = None) -> tuple[Client, FakeConn]:
        conn = FakeConn()
        client = Client(conn, self.manager.config.send_queue_size)
        self.clients.append(client)
        await table.join(client, token)
        await eventually(lambda: bool(conn.frames))
        return client, conn

    def kill(self) -> None:
        """What ``kill -9`` leaves for the others: nothing renews this process's leases, nothing
        sweeps; its tables can no longer write (their leases are not held any more)."""
        for task in (self.manager._failover, self.manager._sweeper,
                     self.ownership.keeper._task):
            if task is not None:
                task.cancel()
        self.ownership.keeper._task = None
        self.ownership.keeper.held.clear()
        for table in self.manager.tables.values():
            table.shut(1006, "gone")  # its sockets die with the process

    def pause(self) -> None:
        """SIGSTOP: the keeper stops renewing; the tables think they still own theirs."""
        task = self.ownership.keeper._task
        if task is not None:
            task.cancel()
        self.ownership.keeper._task = None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.manager.shutdown()
        for client in self.clients:
            await client.stop()
        await self.store.close()
        await self.redis.aclose()


Start = Callable[..., Awaitable[Process]]


@pytest.fixture
async def start(pg_url: str, redis_url: str, prefix: str, redis: Redis,
                ) -> AsyncIterator[Start]:
    """Start a "process" (started: recover, then sweeping); all are closed at the end."""
    started: list[Process] = []

    async def start_one(url: str = redis_url, config: TableConfig | None = None,
                        ttl: float = TTL, recover: bool = True) -> Process:
        client = connect(url)
        store = create_store(pg_url)
        manager = TableManager(store, config or fast_config(),
                               ownership=Ownership(TableLeases(client, ttl=ttl, prefix=prefix)))
        process = Process(manager, store, client)
        started.append(process)
        if recover:
            await manager.recover()
        manager.start()
        return process

    yield start_one
    for process in started:
        await process.close()
    # The next test's processes would take this one's tables over (they are orphans).
    await empty_all_tables(pg_url)


async def seated(process: Process, **options: Any) -> tuple[Table, Client, FakeConn, str]:
    """A Dingo table on ``process``: the host in seat 0, bots in 1-3, the match started."""
    table, host = await process.manager.create(TableOptions.create(bots=BOTS, **options))
    client, conn = await process.join(table, host)
    assert (await answer(table, client, conn, {"type": "sit", "seat": 0, "name": "Ann",
                                               "id": "sit"}))["type"] == "ack"
    assert (await answer(table, client, conn, {"type": "start", "id": "go"}))["type"] == "ack"
    return table, client, conn, host


async def play_moves(table: Table, client: Client, conn: FakeConn, moves: int,
                     rng: random.Random, prefix: str = "m") -> list[tuple[dict[str, Any], int]]:
    """Seat 0 plays ``moves`` legal actions (ids ``{prefix}{n}``); (intent, acked version)."""
    acked = []
    for n in range(moves):
        await eventually(lambda: conn.states() and conn.last()["v"] == table.version
                         and 0 in conn.last()["to_act"])
        state = conn.last()
        intent = {**rng.choice(state["game"]["legal"]), "id": f"{prefix}{n}", "v": state["v"]}
        intent.pop("seat", None)
        reply = await answer(table, client, conn, intent)
        assert reply["type"] == "ack", reply
        acked.append((intent, reply["v"]))
    return acked


async def log_of(store: SqlStore, table_id: str) -> list[dict[str, Any]]:
    stored = await store.load_table(table_id)
    assert stored is not None
    return stored.entries


def assert_contiguous(entries: list[dict[str, Any]]) -> None:
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1))


# -- one process: nothing changes ----------------------------------------------------------


async def test_one_process_locate_is_get_and_nothing_is_fenced() -> None:
    store = MemoryStore()
    manager = TableManager(store, fast_config())
    assert manager.clustered is False and isinstance(manager.process_id, str)
    table, _ = await manager.create(TableOptions.create(bots=BOTS))
    assert await manager.locate(table.id) is table
    assert await manager.locate("nosuchid") is None
    assert table.tenure is None and store.epochs == {}
    await manager.shutdown()


# -- several -------------------------------------------------------------------------------


async def test_a_table_created_on_a_is_owned_by_a_and_located_from_b(start: Start) -> None:
    a, b = await start(ttl=STEADY_TTL), await start(ttl=STEADY_TTL)
    assert a.manager.clustered and a.manager.process_id != b.manager.process_id
    table, _host = await a.manager.create(TableOptions.create(bots=BOTS))
    assert table.tenure is not None
    assert await a.manager.locate(table.id) is table
    assert await b.manager.locate(table.id) == Owner(a.manager.process_id)
    assert await b.manager.locate("nosuchtable") is None
    assert b.manager.get(table.id) is None
    # Its public information from B without a relay to ask A: built from the log (B owns
    # nothing of it), presence unknown there (tests/cluster/test_cluster_relay_serve.py
    # asks the owner).
    info = await b.manager.public_info(table.id)
    assert info is not None and info == table.public_info(presence=False)
    assert info["spectators"] is None
    assert table.id not in b.manager.tables
    # Unknown ids leave no lease behind them.
    assert await b.redis.exists(b.ownership.leases.lease_key("nosuchtable")) == 0
    # B's failover sweep leaves A's (renewed) table alone.
    await asyncio.sleep(STEADY_TTL * 2)  # four of B's sweeps
    assert table.id not in b.manager.tables and a.manager.get(table.id) is table


async def test_the_owner_dies_and_another_process_goes_on_from_the_log(start: Start) -> None:
    rng = random.Random(17)
    a, b = await start(), await start()
    table, client, conn, host = await seated(a)
    acked = await play_moves(table, client, conn, 3, rng)
    a.kill()
    died = time.monotonic()
    await asyncio.sleep(0.05)  # a bot's write in flight when A died is durable by now
    version = table.version
    before = await log_of(b.store, table.id)
    assert before[-1]["seq"] == version
    # B's sweep takes the table over once A's lease has run out: within ttl + a sweep.
    await eventually(lambda: table.id in b.manager.tables, timeout=5)
    assert time.monotonic() - died < TTL + b.manager.failover_seconds + 1.0
    taken = b.manager.tables[table.id]
    assert taken is not table and taken.version == version
    assert await a.manager.locate(table.id) == Owner(b.manager.process_id)

    # The player's socket is joined again on B: same seat, same version; a retried id is
    # answered as before, with nothing applied twice.
    client_b, conn_b = await b.join(taken, host)
    welcome = conn_b.last("welcome")
    assert welcome["seat"] == 0 and welcome["v"] == version
    last, last_v = acked[-1]
    retry = await answer(taken, client_b, conn_b, last)
    assert retry == {"type": "ack", "id": last["id"], "v": last_v}
    now = await log_of(b.store, table.id)
    assert now[:len(before)] == before  # the bots play on, but nothing is applied again
    assert [e.get("id") for e in now].count(last["id"]) == 1
    # ...and the game goes on on B, fenced with B's token.
    more = await play_moves(taken, client_b, conn_b, 2, rng, prefix="b")
    after = await log_of(b.store, table.id)
    assert_contiguous(after)
    assert after[:len(before)] == before
    assert {e.get("id") for e in after[len(before):]} >= {i["id"] for i, _ in more}
    ids = [e["id"] for e in after if "id" in e]
    assert len(ids) == len(set(ids))  # no intent stored twice


async def test_a_dead_owners_table_is_taken_by_a_locate_when_its_lease_runs_out(
    start: Start,
) -> None:
    """``lease_ends_in`` tells when a dead owner's table can be had (the relay waits that
    long, then locates): not taken a moment before, taken by that locate (no sweep runs
    on B here), at the version A left it."""
    a, b = await start(ttl=1.5), await start(ttl=1.5)
    assert b.manager._failover is not None
    b.manager._failover.cancel()  # only B's locate may take the table over
    table, _client, _conn, _host = await seated(a)
    a.kill()
    await asyncio.sleep(0.05)  # a bot's write in flight when A died is durable by now
    a_id, b_id = a.manager.process_id, b.manager.process_id
    left = await b.manager.lease_ends_in(table.id, a_id)
    assert left is not None and 0 < left <= 1.5
    assert await b.manager.lease_ends_in(table.id, b_id) is None  # not B's
    assert await b.manager.locate(table.id) == Owner(a.manager.process_id)
    assert table.id not in b.manager.tables
    await asyncio.sleep(left + EXPIRY_MARGIN)
    assert await b.manager.lease_ends_in(table.id, a_id) is None
    taken = await b.manager.locate(table.id)
    assert isinstance(taken, Table) and taken is not table and taken.version == table.version
    assert 0 < (await b.manager.lease_ends_in(table.id, b_id) or 0) <= 1.5  # B's lease now
    assert await b.manager.lease_ends_in(table.id, a_id) is None
    assert await b.manager.lease_ends_in("nosuchtable", a_id) is None


async def test_timers_and_stand_in_bots_resume_after_a_takeover(start: Start) -> None:
    """After a takeover the bots move for their seats and the turn timer plays for a
    person who does not: the table goes on by itself once someone is connected."""
    a, b = await start(), await start()
    table, _client, _conn, _host = await seated(a, turn_seconds=0.3)
    await eventually(lambda: 0 in table.match.to_act() if table.match else False)
    a.kill()
    await eventually(lambda: table.id in b.manager.tables, timeout=5)
    taken = b.manager.tables[table.id]
    version = taken.version
    _, _spectator = await b.join(taken)
    # Nobody in seat 0 acts: its timer runs out, a bot moves for it, the bots go on.
    await eventually(lambda: taken.version > version + 3, timeout=5)
    entries = await log_of(b.store, table.id)
    assert any(e.get("auto") in ("timer", "away") for e in entries[version:])
    assert any(e["kind"] == "action" and e["seat"] != 0 for e in entries[version:])
    assert_contiguous(entries)


async def test_a_paused_owner_that_wakes_up_cannot_write(start: Start) -> None:
    """A stops renewing (SIGSTOP) past its lease; B takes the table. A wakes up with an
    intent in hand: it is not stored, not acknowledged, and A's sockets close 4012."""
    rng = random.Random(5)
    a, b = await start(), await start()
    table, client, conn, _host = await seated(a)
    await play_moves(table, client, conn, 1, rng)
    await eventually(lambda: conn.last()["v"] == table.version and 0 in conn.last()["to_act"])
    a.pause()
    await eventually(lambda: table.id in b.manager.tables, timeout=5)
    version = b.manager.tables[table.id].version
    state = conn.last()
    intent = {**rng.choice(state["game"]["legal"]), "id": "late", "v": state["v"]}
    intent.pop("seat", None)
    await table.submit(client, intent)
    await eventually(lambda: conn.closed is not None)
    assert conn.closed == CLOSE_MOVED
    assert not [f for f in conn.frames if f.get("id") == "late"]  # no ack, no error
    assert table.moved and table.id not in a.manager.tables
    entries = await log_of(b.store, table.id)
    assert entries[-1]["seq"] == version and "late" not in {e.get("id") for e in entries}


async def test_a_write_fenced_by_the_log_drops_the_table_without_an_answer(
    start: Start,
) -> None:
    """The backstop: A proved its lease, then stalled before its append while B took the
    table over; the log refuses A's token (``Fenced``)."""
    rng = random.Random(9)
    a, b = await start(), await start()
    table, client, conn, host = await seated(a)
    await eventually(lambda: conn.last()["v"] == table.version and 0 in conn.last()["to_act"])
    tenure = table.tenure
    assert tenure is not None

    class Stalled:
        fence = tenure.fence

        async def prove(self) -> bool:
            a.pause()  # stalled right after proving: the lease runs out meanwhile
            await eventually(lambda: table.id in b.manager.tables, timeout=5)
            return True

    table.tenure = Stalled()
    state = conn.last()
    intent = {**rng.choice(state["game"]["legal"]), "id": "fenced", "v": state["v"]}
    intent.pop("seat", None)
    await table.submit(client, intent)
    await eventually(lambda: conn.closed is not None)
    assert conn.closed == CLOSE_MOVED
    assert not [f for f in conn.frames if f.get("id") == "fenced"]
    assert table.id not in a.manager.tables
    taken = b.manager.tables[table.id]
    entries = await log_of(b.store, table.id)
    assert entries[-1]["seq"] == taken.version
    assert "fenced" not in {e.get("id") for e in entries}
    # The retried intent, asked of the new owner, is applied there once.
    client_b, conn_b = await b.join(taken, host)
    reply = await answer(taken, client_b, conn_b, {**intent, "v": taken.version})
    assert reply["type"] == "ack"
    ids = [e.get("id") for e in await log_of(b.store, table.id)]
    assert ids.count("fenced") == 1


async def test_a_graceful_stop_hands_the_tables_over_at_once(start: Start) -> None:
    a, b = await start(), await start(ttl=5.0)
    table, _client, conn, _host = await seated(a)
    stopped = time.monotonic()
    await a.manager.shutdown()
    assert conn.closed == CLOSE_MOVED
    version = table.version  # read after the stop: a bot may have moved until then
    # Released, not left to expire: B takes it on the first ask, long before a ttl.
    found = await b.manager.locate(table.id)
    assert isinstance(found, Table) and found.version == version
    assert time.monotonic() - stopped < 1.0
    with pytest.raises(OwnershipUnavailable):
        await a.manager.locate(table.id)  # a stopping server takes nothing over


async def test_a_stop_ends_the_failover_sweep_even_if_the_client_loses_the_cancel(
    start: Start, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shutdown cancels the sweep while it asks Redis, which drops the cancel: the
    sweep ends after that round; it used to sweep on and the shutdown waited for ever."""
    a = await start()
    sweeping = asyncio.Event()
    monkeypatch.setattr(a.ownership, "free", losing_a_cancel(a.ownership.free, sweeping))
    await sweeping.wait()
    stopping = asyncio.create_task(a.manager.shutdown())
    done, _ = await asyncio.wait([stopping], timeout=3)
    if stopping not in done:
        stopping.cancel()
        pytest.fail("the shutdown still waits for the failover sweep")


async def test_a_bot_move_proving_the_lease_when_the_table_is_dropped_is_not_stored(
    start: Start,
) -> None:
    """The table is dropped (its lease lost) while a bot's move waits for Redis to renew
    the lease, and the client loses the cancel that dropping sends, returning the renewal
    Redis had already made: the move ends there. It used to be folded and stored after
    the table had been dropped."""
    a = await start()
    table, host = await a.manager.create(TableOptions.create(bots=((0, "random"), *BOTS)))
    client, conn = await a.join(table, host)  # bots move only while someone is connected
    assert (await answer(table, client, conn, {"type": "start", "id": "go"}))["type"] == "ack"
    tenure = table.tenure
    assert tenure is not None
    proving = asyncio.Event()

    async def renewed() -> bool:
        return True

    class Lossy:
        fence = tenure.fence
        prove = staticmethod(losing_a_cancel(renewed, proving))

    async with table._lock:  # between two moves
        table.tenure = Lossy()
        version = table.version
    await proving.wait()
    table.lose()
    await eventually(lambda: not table._tasks)
    assert table.version == version
    assert (await log_of(a.store, table.id))[-1]["seq"] == version


async def test_recover_takes_only_the_tables_nobody_owns(start: Start) -> None:
    a = await start()
    kept, _ = await a.manager.create(TableOptions.create(bots=BOTS))
    left, _ = await a.manager.create(TableOptions.create(bots=BOTS))
    # A drops ``left`` (its lease handed back) and keeps ``kept``.
    left.lose()
    await eventually(lambda: left.id not in a.manager.tables)
    await eventually(lambda: a.ownership.keeper.held.get(left.id) is None)
    a.manager._failover.cancel()  # or A would take it again
    b = await start(recover=False)
    taken = await b.manager.recover()
    assert left.id in taken and kept.id not in taken
    assert kept.id not in b.manager.tables


async def test_the_idle_sweep_closes_only_tables_this_process_owns(start: Start) -> None:
    a, b = await start(config=fast_config(idle_seconds=0.05)), await start()
    for process in (a, b):
        process.manager._sweeper.cancel()  # the test sweeps A itself
    table, _ = await a.manager.create(TableOptions.create(bots=BOTS))
    a.pause()
    await eventually(lambda: table.id in b.manager.tables, timeout=5)
    await asyncio.sleep(0.1)
    assert await a.manager.close_idle() == [table.id]  # found idle, but not A's to close
    assert table.moved
    assert table.id in await b.store.unfinished_ids()
    # Its owner closes it (fenced with its token) and hands the lease back.
    taken = b.manager.tables[table.id]
    await b.manager.close(taken)
    assert table.id not in await b.store.unfinished_ids()
    assert await b.redis.exists(b.ownership.leases.lease_key(table.id)) == 0


async def test_redis_away_drops_the_tables_and_they_come_back_with_it(
    start: Start, redis_process: RedisProcess,
) -> None:
    rng = random.Random(3)
    a = await start(url=redis_process.url, ttl=STEADY_TTL)
    table, client, conn, host = await seated(a)
    await play_moves(table, client, conn, 1, rng)
    redis_process.kill()
    # Its lease cannot be proved: the table is dropped here, its sockets told it moved.
    await eventually(lambda: conn.closed is not None, timeout=5)
    assert conn.closed == CLOSE_MOVED and table.id not in a.manager.tables
    version = table.version
    assert (await log_of(a.store, table.id))[-1]["seq"] == version
    with pytest.raises(OwnershipUnavailable):
        await a.manager.locate(table.id)
    with pytest.raises(OwnershipUnavailable):
        await a.manager.create(TableOptions.create(bots=BOTS))
    redis_process.start()
    # Redis is back (empty): the table is owned again without a restart, as it was.
    await eventually(lambda: table.id in a.manager.tables, timeout=5)
    again = await a.manager.locate(table.id)
    assert isinstance(again, Table) and again.version == version
    client2, conn2 = await a.join(again, host)
    await play_moves(again, client2, conn2, 1, rng, prefix="again")
    assert_contiguous(await log_of(a.store, table.id))


async def test_a_dead_process_tables_are_shared_by_the_survivors_each_taken_once(
    start: Start,
) -> None:
    a = await start()
    ids = [(await a.manager.create(TableOptions.create(bots=BOTS)))[0].id for _ in range(24)]
    b, c = await start(), await start()
    a.kill()
    died = time.monotonic()
    await eventually(lambda: set(b.manager.tables) | set(c.manager.tables) >= set(ids),
                     timeout=5)
    assert time.monotonic() - died < TTL + 2.0
    assert not set(b.manager.tables) & set(c.manager.tables)
    for survivor in (b, c):
        for table_id in survivor.manager.tables:
            assert await b.manager.locate(table_id) in (
                survivor.manager.tables[table_id], Owner(survivor.manager.process_id))


async def test_a_takeover_refused_by_the_log_acquires_above_its_epoch(start: Start) -> None:
    """Redis lost its counters and a clock went back: the first token B gets is below the
    log's epoch; the claim's ``Fenced`` tells B the epoch to acquire above."""
    a = await start()
    table, _ = await a.manager.create(TableOptions.create(bots=BOTS))
    version = table.version
    await a.manager.shutdown()  # handed back
    far = 2**52
    await a.store.claim(table.id, far)  # a token from a clock far ahead
    b = await start(recover=False)
    found = await b.manager.locate(table.id)
    assert isinstance(found, Table) and found.version == version
    assert found.tenure is not None and found.tenure.fence == far + 1
    assert (await b.ownership.leases.holder(table.id)) == (b.manager.process_id, far + 1)


async def test_a_match_that_ended_as_its_owner_died_is_recorded_once_by_the_next(
    start: Start,
) -> None:
    """A dies between a match's last action (stored) and its record: B takes the table
    over, finds the match over and unrecorded, and records it, once."""
    a, b = await start(), await start()
    table, host = await a.manager.create(TableOptions.create(
        bots=((0, "random"), *BOTS), games_to_win=1))
    blocked = asyncio.Event()

    async def dies_while_recording(record: dict[str, Any]) -> int:
        blocked.set()
        await asyncio.Event().wait()  # never returns: the process is killed here
        raise AssertionError

    a.store.finish_match = dies_while_recording  # type: ignore[method-assign]
    client, conn = await a.join(table, host)
    assert (await answer(table, client, conn, {"type": "start", "id": "go"}))["type"] == "ack"
    await asyncio.wait_for(blocked.wait(), 20)
    a.kill()
    assert table.match is not None and table.match.over and not table.info_recorded
    await eventually(lambda: table.id in b.manager.tables, timeout=5)
    taken = b.manager.tables[table.id]
    assert taken.info_recorded and taken.match_id is not None
    entries = await log_of(b.store, table.id)
    assert_contiguous(entries)
    assert [e["kind"] for e in entries].count("recorded") == 1
    assert entries[-1]["kind"] == "recorded" and entries[-2]["kind"] == "action"
    async with b.store.engine.connect() as db:
        rows = await db.execute(select(MatchRecord.id).where(MatchRecord.table_id == table.id))
        assert list(rows.scalars()) == [taken.match_id]


async def test_a_table_shut_by_a_storage_failure_comes_back_once_the_database_writes(
    start: Start,
) -> None:
    """The database refused a write: the table is shut (1011, not acknowledged) and its
    lease handed back; the failover sweep restores it from its log, no restart needed."""
    rng = random.Random(23)
    a = await start()
    table, client, conn, host = await seated(a)
    await eventually(lambda: conn.last()["v"] == table.version and 0 in conn.last()["to_act"])
    append = a.store.append

    async def fails_once(*args: Any, **kwargs: Any) -> None:
        a.store.append = append  # type: ignore[method-assign]
        raise OSError("the database went away")

    a.store.append = fails_once  # type: ignore[method-assign]
    version = table.version
    state = conn.last()
    intent = {**rng.choice(state["game"]["legal"]), "id": "lost", "v": state["v"]}
    intent.pop("seat", None)
    reply = await answer(table, client, conn, intent)
    assert reply["type"] == "error" and reply["code"] == "unavailable"
    await eventually(lambda: conn.closed is not None)
    assert conn.closed == 1011
    await eventually(lambda: table.id in a.manager.tables
                     and a.manager.tables[table.id] is not table, timeout=5)
    again = a.manager.tables[table.id]
    assert again.version == version
    client2, conn2 = await a.join(again, host)
    assert (await answer(again, client2, conn2, {**intent, "v": again.version}))["type"] == "ack"
