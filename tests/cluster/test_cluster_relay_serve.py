"""Real ``dingo serve`` processes on loopback, one Redis, one PostgreSQL database:
a table created on one, its players and a spectator connected to all three, the owner
killed (``kill -9``) mid-match: the sockets on the other processes see a pause and play
on with the process that took the table over, and every frame each socket got was built
from its own view. A stopping owner (SIGTERM) hands relayed sockets over at once."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from clusterkit import eventually, over, play
from matchdb import POSTGRES, migrated_database
from serverkit import Server, dingo_serve, join
from sqlalchemy import text
from tablekit import Player, assert_no_leaks, hidden_by_version

from app.db.session import create_engine
from app.db.store import SqlStore
from app.table.options import TableOptions

pytestmark = pytest.mark.postgres

ENV = {"LEASE_SECONDS": "1", "BOT_DELAY_SECONDS": "0", "NEXT_GAME_SECONDS": "600",
       "BOT_PROCESSES": "0", "RECONNECT_GRACE_SECONDS": "30"}


@pytest.fixture(scope="module")
def pg_url(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with migrated_database(POSTGRES, tmp_path_factory.mktemp("db"), postgres_url) as url:
        yield url


def answered_once(player: Player) -> None:
    answered = Counter(f["id"] for f in player.frames
                       if f["type"] in ("ack", "error") and f.get("id"))
    assert not {k: n for k, n in answered.items() if n > 1}


async def test_players_on_three_processes_play_on_after_the_owner_is_killed(
    tmp_path: Path, pg_url: str, redis_url: str,
) -> None:
    env = {**ENV, "REDIS_URL": redis_url}
    async with (dingo_serve(pg_url, tmp_path, **env) as a,
                dingo_serve(pg_url, tmp_path, **env) as b,
                dingo_serve(pg_url, tmp_path, **env) as c):
        servers: dict[str, Server] = {"a": a, "b": b, "c": c}
        async with httpx.AsyncClient(base_url=f"http://{a.base}") as http:
            r = await http.post("/api/tables", json={"games_to_win": 1})
            assert r.status_code == 201, r.text
            table_id, host = r.json()["table_id"], r.json()["host_token"]
        spectator = await join(c.base, table_id, None)
        watching = asyncio.create_task(spectator.read_all())
        # Seat 0 (the host) on the owner, the others on the other two processes.
        on = ["a", "b", "c", "b"]
        players = [await join(servers[name].base, table_id, host if seat == 0 else None)
                   for seat, name in enumerate(on)]
        for seat, player in enumerate(players):
            answer = await player.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
            assert answer["type"] == "ack", answer
        assert (await players[0].intent({"type": "start"}))["type"] == "ack"
        rng = random.Random(2026)
        await play(players, rng, stop_after=12)
        frames_before = len(spectator.frames)

        a.process.kill()  # kill -9 of the owner, mid-game
        await a.process.wait()
        # The sockets on b and c stay open: a pause, then the table again from its heir.
        for player in players[1:]:
            await player.expect("welcome", timeout=10)
            state = await player.next_state(timeout=10)
            assert state["game"] is not None and player.ws.close_code is None
        # The host's socket died with its process: it comes back on c with its token.
        players[0] = await join(c.base, table_id, host)
        await play(players, rng)
        assert over(players[0].state)
        await spectator.ws.close()
        await watching
        assert len(spectator.frames) > frames_before
        assert [f["type"] for f in spectator.frames].count("welcome") == 2

    engine = create_engine(pg_url)
    try:
        stored = await SqlStore(engine).load_table(table_id)
        assert stored is not None
        async with engine.connect() as conn:
            recorded = (await conn.execute(
                text("SELECT count(*) FROM matches WHERE table_id = :t"), {"t": table_id})
            ).scalar_one()
    finally:
        await engine.dispose()
    assert recorded == 1
    seqs = [int(e["seq"]) for e in stored.entries]
    assert seqs == list(range(1, len(seqs) + 1))
    hidden = hidden_by_version(TableOptions.from_dict(stored.options), stored.entries)
    assert assert_no_leaks(spectator.frames, None, hidden) > 20
    for seat, player in enumerate(players):
        assert assert_no_leaks(player.frames, seat, hidden) > 5
        answered_once(player)
        assert not [f for f in player.frames
                    if f["type"] == "error" and f["code"] != "not_now"], seat


async def test_a_stopping_owner_hands_its_relayed_sockets_over_at_once(
    tmp_path: Path, pg_url: str, redis_url: str,
) -> None:
    """SIGTERM: the owner hands the table over (the lease is released, not left to
    expire: 30 s here) and tells the processes holding its sockets, which follow it."""
    env = {**ENV, "REDIS_URL": redis_url, "LEASE_SECONDS": "30"}
    async with (dingo_serve(pg_url, tmp_path, **env) as a,
                dingo_serve(pg_url, tmp_path, **env) as b):
        async with httpx.AsyncClient(base_url=f"http://{a.base}") as http:
            r = await http.post("/api/tables", json={"games_to_win": 1})
            assert r.status_code == 201, r.text
            table_id, host = r.json()["table_id"], r.json()["host_token"]
        players = [await join(b.base, table_id, host if seat == 0 else None)
                   for seat in range(4)]
        for seat, player in enumerate(players):
            answer = await player.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
            assert answer["type"] == "ack", answer
        assert (await players[0].intent({"type": "start"}))["type"] == "ack"
        rng = random.Random(8)
        await play(players, rng, stop_after=5)
        stopped = time.monotonic()
        a.process.send_signal(signal.SIGTERM)
        for player in players:
            await player.expect("welcome", timeout=10)
            await player.next_state()
        assert time.monotonic() - stopped < 5.0
        assert await asyncio.wait_for(a.process.wait(), 10) == 0
        await play(players, rng, stop_after=5)
        for player in players:
            assert player.ws.close_code is None
            answered_once(player)


async def test_every_process_tells_the_owners_presence_and_the_log_when_it_cannot_answer(
    tmp_path: Path, pg_url: str, redis_url: str,
) -> None:
    """``GET /api/tables/{id}`` from a process that does not own the table asks the owner
    (over the relay): a seat and a spectator whose sockets are on B, at a table of A,
    show alike from A, B and C. An owner that cannot answer (paused, killed): the answer
    still comes, from the log, with presence null rather than a guess."""
    env = {**ENV, "REDIS_URL": redis_url, "LEASE_SECONDS": "30"}  # A keeps the table
    async with (dingo_serve(pg_url, tmp_path, **env) as a,
                dingo_serve(pg_url, tmp_path, **env) as b,
                dingo_serve(pg_url, tmp_path, **env) as c, httpx.AsyncClient(timeout=10) as http):
        r = await http.post(f"http://{a.base}/api/tables", json={"bots": [{"seat": 3}]})
        assert r.status_code == 201, r.text
        table_id, host = r.json()["table_id"], r.json()["host_token"]

        async def info(server: Server) -> dict[str, Any]:
            answer = await http.get(f"http://{server.base}/api/tables/{table_id}")
            assert answer.status_code == 200, answer.text
            body: dict[str, Any] = answer.json()
            return body

        async def everywhere() -> list[dict[str, Any]]:
            return [await info(server) for server in (a, b, c)]

        player = await join(b.base, table_id, host)
        assert (await player.intent({"type": "sit", "seat": 0, "name": "Ann"}))["type"] == "ack"
        spectator = await join(b.base, table_id, None)
        answers = await everywhere()
        assert answers[1] == answers[0] and answers[2] == answers[0]
        seats = answers[0]["seats"]
        assert [(s["kind"], s["connected"]) for s in seats] == [
            ("human", True), ("empty", False), ("empty", False), ("bot", True)]
        assert seats[0]["name"] == "Ann" and seats[0]["host"] is True
        assert answers[0]["spectators"] == 1
        # What the seat's socket is shown (from A's table) says the same.
        await player.until(lambda s: s["table"]["spectators"] == 1)
        assert player.state["seats"][0]["connected"] is True

        await spectator.ws.close()
        await player.ws.close()

        async def gone() -> bool:
            answers = await everywhere()
            return all(x["spectators"] == 0 and x["seats"][0]["connected"] is False
                       and x["seats"][0]["back_by"] is not None for x in answers)
        await eventually(gone)

        # The owner paused: B waits for it a short while, then answers from the log.
        os.kill(a.pid, signal.SIGSTOP)
        try:
            asked = time.monotonic()
            paused = await info(b)
            waited = time.monotonic() - asked
        finally:
            os.kill(a.pid, signal.SIGCONT)
        assert waited < 5.0, waited
        assert [(s["name"], s["connected"], s["ready"]) for s in paused["seats"]] == [
            ("Ann", None, False), (None, False, False), (None, False, False),
            ("Dov", True, False)]  # (votes are in the log: known)
        assert paused["spectators"] is None and paused["status"] == "lobby"
        assert (await info(c))["seats"][0]["connected"] is False  # A is back

        # The owner killed: nobody listens on its channel, so C does not even wait.
        a.process.kill()
        await a.process.wait()
        killed = await info(c)
        assert killed["seats"][0]["connected"] is None and killed["spectators"] is None
