"""Table ownership with real ``dingo serve`` processes on one PostgreSQL and one Redis:
the owner killed (``kill -9``), stopped (SIGTERM) or paused past its lease (SIGSTOP).

Four people play at a table of process A; their sockets are on A. After A is gone
they join again on B with the same tokens: the table is there at the version they
were acknowledged, a retried intent id gets its original answer, and it plays on.
A socket whose process lives on (SIGSTOP) stays open and follows the table
(app/cluster/relay.py; tests/cluster/test_cluster_relay_serve.py).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from matchdb import fresh_postgres_database
from serverkit import Server, catch_up, dingo_serve, drain, join, legal_wire, seated_table
from tablekit import Player
from websockets.exceptions import ConnectionClosed

from app.db.store import create_store
from app.table.manager import CLOSE_MOVED

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg(postgres_url: str) -> Iterator[str]:
    with fresh_postgres_database(postgres_url, "dingo_cluster") as url:
        yield url


def cluster_env(redis_url: str, lease: float) -> dict[str, str]:
    return {"REDIS_URL": redis_url, "LEASE_SECONDS": str(lease), "BOT_PROCESSES": "0",
            "RECONNECT_GRACE_SECONDS": "600", "NEXT_GAME_SECONDS": "600"}


async def act(players: list[Player], rng: random.Random) -> tuple[dict[str, Any], int]:
    """One acknowledged action from whoever may act; (the intent sent, its version)."""
    await catch_up(players)
    for p in players:
        if p.my_turn():
            intent = {**legal_wire(p, rng), "id": p.intent_id(), "v": p.state["v"]}
            await p.send(intent)
            while True:
                answer = await p.recv()
                if answer["type"] in ("ack", "error") and answer.get("id") == intent["id"]:
                    break
            assert answer["type"] == "ack", answer
            await p.until(lambda s, v=answer["v"]: s["v"] >= v)
            return intent, answer["v"]
    raise AssertionError("nobody may act")


async def join_when_owned(server: Server, table_id: str, tokens: list[str | None],
                          timeout: float = 10.0) -> list[Player]:
    """Join on ``server`` as soon as it serves the table (it takes it over by itself)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            first = await join(server.base, table_id, tokens[0])
        except (ConnectionClosed, TimeoutError, AssertionError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)
            continue
        return [first, *[await join(server.base, table_id, t) for t in tokens[1:]]]


async def stored_log(pg: str, table_id: str) -> list[dict[str, Any]]:
    store = create_store(pg)
    try:
        stored = await store.load_table(table_id)
    finally:
        await store.close()
    assert stored is not None
    return stored.entries


def check_log(entries: list[dict[str, Any]]) -> list[str]:
    """Contiguous versions, and no intent id stored twice; the ids."""
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1))
    ids = [e["id"] for e in entries if "id" in e]
    assert len(ids) == len(set(ids)), "an intent was applied twice"
    return ids


async def test_kill_9_of_the_owner_and_the_table_plays_again_on_another_within_5_s(
    pg: str, redis_url: str, tmp_path: Path,
) -> None:
    rng = random.Random(int(os.environ.get("CRASH_SEED", "17")))
    env = cluster_env(redis_url, 1.0)
    async with dingo_serve(pg, tmp_path, **env) as a, dingo_serve(pg, tmp_path, **env) as b:
        table_id, players, tokens = await seated_table(a.base)
        last: tuple[dict[str, Any], int] = ({}, 0)
        for _ in range(rng.randint(3, 12)):
            last = await act(players, rng)
        intent, version = last
        # The table's link and its public information, asked of a process that does not own it.
        async with httpx.AsyncClient(base_url=f"http://{b.base}") as http:
            assert (await http.get(f"/t/{table_id}")).status_code == 200
            info = (await http.get(f"/api/tables/{table_id}")).json()
            assert [s["name"] for s in info["seats"]] == ["P0", "P1", "P2", "P3"]
            assert info["status"] == "playing" and info["url"] == f"/t/{table_id}"
            assert (await http.get("/api/tables/nosuchtable")).status_code == 404
        os.kill(a.pid, signal.SIGKILL)
        killed = time.monotonic()
        await a.process.wait()
        for p in players:
            await drain(p)
        again = await join_when_owned(b, table_id, list(tokens))
        waited = time.monotonic() - killed
        assert waited < 5.0, f"the table played again {waited:.1f} s after the kill"
        assert all(p.state["v"] == version for p in again)
        # The acknowledged action is there once: asked again, it gets its answer.
        seat = next(i for i, p in enumerate(players) if any(
            f.get("id") == intent["id"] for f in p.frames))
        await again[seat].send(intent)
        answer = await again[seat].expect("ack")
        assert answer == {"type": "ack", "id": intent["id"], "v": version}
        for _ in range(3):
            await act(again, rng)
        ids = check_log(await stored_log(pg, table_id))
        assert intent["id"] in ids
        for p in again:
            await p.ws.close()


async def test_sigterm_hands_the_table_over_before_its_lease_would_run_out(
    pg: str, redis_url: str, tmp_path: Path,
) -> None:
    rng = random.Random(3)
    env = cluster_env(redis_url, 10.0)  # a lease left to expire would take 10 s
    async with dingo_serve(pg, tmp_path, **env) as a, dingo_serve(pg, tmp_path, **env) as b:
        table_id, players, tokens = await seated_table(a.base)
        for _ in range(4):
            _, version = await act(players, rng)
        stopped = time.monotonic()
        a.process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(a.process.wait(), 10) == 0
        for p in players:
            assert await drain(p) in (1012, CLOSE_MOVED)
        again = await join_when_owned(b, table_id, list(tokens))
        waited = time.monotonic() - stopped
        assert waited < 5.0, f"handed over after {waited:.1f} s"
        assert all(p.state["v"] == version for p in again)
        await act(again, rng)
        check_log(await stored_log(pg, table_id))
        for p in again:
            await p.ws.close()


async def test_an_owner_paused_past_its_lease_wakes_up_and_does_not_write(
    pg: str, redis_url: str, tmp_path: Path,
) -> None:
    rng = random.Random(11)
    env = cluster_env(redis_url, 1.0)
    async with dingo_serve(pg, tmp_path, **env) as a, dingo_serve(pg, tmp_path, **env) as b:
        table_id, players, _ = await seated_table(a.base)
        for _ in range(3):
            _, version = await act(players, rng)
        await catch_up(players)
        mover = next(p for p in players if p.my_turn())
        os.kill(a.pid, signal.SIGSTOP)
        try:
            # Sent while A sleeps: A reads it when it wakes up, after B took the table.
            late = {**legal_wire(mover, rng), "id": mover.intent_id(), "v": mover.state["v"]}
            await mover.send(late)
            watcher = (await join_when_owned(b, table_id, [None]))[0]
            assert watcher.state["v"] == version
        finally:
            os.kill(a.pid, signal.SIGCONT)
        # A woke up without the lease: its write (if it tried one) was fenced and nothing
        # was answered from A. The socket stays where it is: A's relay follows the table
        # to B and sends the unanswered intent again there, where it is applied, once.
        answer = await mover.expect("ack", timeout=10)
        assert (answer["id"], answer["v"]) == (late["id"], version + 1)
        assert [f["type"] for f in mover.frames].count("welcome") == 2
        assert mover.ws.close_code is None
        assert check_log(await stored_log(pg, table_id)).count(late["id"]) == 1
        await watcher.until(lambda s: s["v"] == version + 1)
        back = mover
        for p in (watcher, back, *players):
            await p.ws.close()
