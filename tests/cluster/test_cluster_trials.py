"""Twenty failovers in one match: three real ``dingo serve`` processes, one Redis, one
PostgreSQL database, four players and a spectator spread over the processes.

The owner of the table is killed (``kill -9``; once SIGTERM, mid-hunt) at twenty points of
one match: in the exchange, in a hunt, between games (before, during and after the
votes for the next game) and right after the match's last action. After each, a fresh
process replaces the dead one; sockets on the processes that live on stay open and
follow the table, the others join again with their tokens on a live process. Every
time the table must play again within 5 s, every acknowledged action must be in the
log exactly once (the log's versions contiguous, each acknowledged id once), the
match recorded once, and no frame may carry a card its recipient may not see.
"""

from __future__ import annotations

import asyncio
import random
import re
import signal
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from matchdb import POSTGRES, migrated_database
from serverkit import Server, dingo_serve, join, legal_wire
from sqlalchemy import text
from tablekit import Player, assert_no_leaks, hidden_by_version
from websockets.exceptions import ConnectionClosed

from app.db.session import create_engine
from app.db.store import SqlStore
from app.table.options import TableOptions

pytestmark = pytest.mark.postgres

ENV = {"LEASE_SECONDS": "1", "BOT_DELAY_SECONDS": "0", "NEXT_GAME_SECONDS": "600",
       "BOT_PROCESSES": "0", "RECONNECT_GRACE_SECONDS": "600", "ADVICE_DEALS": "0"}
#: Where the owner dies, in order; "end" is right after the match's last action.
KILLS = ["exchange", "hunt", "between:0", "exchange", "hunt", "between:2", "hunt",
         "exchange", "between:4", "hunt", "exchange", "hunt:sigterm", "between:1", "exchange",
         "hunt", "between:3", "exchange", "hunt", "hunt", "end"]
PLAYS_AGAIN_WITHIN = 5.0


@pytest.fixture
def pg_url(postgres_url: str, tmp_path: Path) -> Iterator[str]:
    with migrated_database(POSTGRES, tmp_path, postgres_url) as url:
        yield url


class Trial:
    """The service (live servers), the table and everyone at it, and what was acked."""

    def __init__(self, stack: AsyncExitStack, pg_url: str, logs: Path, env: dict[str, str],
                 rng: random.Random) -> None:
        self.stack, self.pg_url, self.logs, self.env, self.rng = stack, pg_url, logs, env, rng
        self.servers: list[Server] = []
        self.table_id = ""
        self.tokens: list[str | None] = []
        self.players: list[Player] = []
        self.where: list[Server] = []  # the server each player's socket is on
        self.spectator: Player | None = None
        self.spectator_on: Server | None = None
        self.every_socket: list[tuple[int | None, Player]] = []  # for the leak check
        self.starting: asyncio.Task[Server] | None = None
        self.acked: list[str] = []  # ids of acknowledged game actions

    async def add_server(self) -> Server:
        server = await self.stack.enter_async_context(
            dingo_serve(self.pg_url, self.logs, **self.env))
        self.servers.append(server)
        return server

    def live(self) -> list[Server]:
        return [s for s in self.servers if s.process.returncode is None]

    async def connect(self, server: Server, seat: int | None) -> Player:
        token = self.tokens[seat] if seat is not None else None
        player = await join(server.base, self.table_id, token)
        self.every_socket.append((seat, player))
        return player

    async def log_after(self, version: int) -> list[dict[str, Any]]:
        """The log's entries after ``version`` (what a failing check shows)."""
        engine = create_engine(self.pg_url)
        try:
            stored = await SqlStore(engine).load_table(self.table_id)
        finally:
            await engine.dispose()
        assert stored is not None
        return [e for e in stored.entries if int(e["seq"]) > version]

    async def owner(self) -> Server:
        """The live server holding the table (the only one with it in its memory)."""
        deadline = time.monotonic() + 10
        while True:
            for server in self.live():
                async with httpx.AsyncClient(base_url=f"http://{server.base}") as http:
                    metrics = (await http.get("/metrics")).text
                if re.search(r"^dingo_open_tables 1\.0$", metrics, re.M):
                    return server
            assert time.monotonic() < deadline, "no process owns the table"
            await asyncio.sleep(0.05)

    async def catch_up(self, timeout: float = 10.0) -> int:
        version = max(p.state["v"] for p in self.players)
        for p in [*self.players, *([self.spectator] if self.spectator else [])]:
            await p.until(lambda s, v=version: s["v"] >= v, timeout=timeout)
        return version

    async def move(self) -> dict[str, Any]:
        """One acknowledged step: a game action, or the readies between games."""
        await self.catch_up()
        state = self.players[0].state
        if state["table"]["status"] == "match_over":
            return state
        if state["table"]["status"] == "between_games":
            for p in self.players:
                await self.ready(p)
            return state
        # (In the exchange several seats may act at once: any of them.)
        movers = [p for p in self.players if p.my_turn()]
        assert movers, [(p.state["v"], p.state["table"]["status"], (p.state["to_act"] or [None])[0])
                        for p in self.players]
        mover = movers[0]
        answer = await mover.intent(legal_wire(mover, self.rng), versioned=True)
        assert answer["type"] == "ack", answer
        self.acked.append(answer["id"])
        return mover.state

    async def ready(self, player: Player) -> None:
        answer = await player.intent({"type": "ready"})
        # After a failover a vote may be in the log already (acked again, nothing logged),
        # or the next game already dealt.
        assert answer["type"] == "ack" or answer["code"] == "not_now", answer

    async def play_to(self, target: str) -> None:
        """Play at least one step, then on until the state matches the kill point. Once
        the match is over (it may end before the last kill points), every kill is at its
        end."""
        await self.catch_up()
        if self.players[0].state["table"]["status"] == "match_over":
            return
        await self.move()
        while True:
            state = self.players[0].state
            status = state["table"]["status"]
            if status == "match_over":
                return
            if target.startswith("between"):
                if status == "between_games":
                    votes = int(target.split(":")[1])  # 4: the next game is dealt
                    for p in self.players[:votes]:
                        await self.ready(p)
                    return
            elif status == "playing" and state["game"]["phase"] == target.split(":")[0]:
                return
            await self.move()

    async def fail_over(self, how: signal.Signals) -> float:
        """Stop the owner, bring a new process, put everyone back; seconds until the table
        answered again."""
        if self.starting is not None:  # the process that replaced the last one killed
            await self.starting
        version = await self.catch_up()
        owner = await self.owner()
        stopped = time.monotonic()
        owner.process.send_signal(how)
        await asyncio.wait_for(owner.process.wait(), 20)
        # Its replacement starts while play goes on.
        self.starting = asyncio.create_task(self.add_server())
        for seat, player in enumerate(self.players):
            if self.where[seat] is owner:
                await _gone(player)
                server = self.rng.choice(self.live())
                self.players[seat] = await self.connect(server, seat)
                self.where[seat] = server
        if self.spectator_on is owner:
            assert self.spectator is not None
            await _gone(self.spectator)
            self.spectator_on = self.rng.choice(self.live())
            self.spectator = await self.connect(self.spectator_on, None)
        for player in self.players:
            await player.until(lambda s: s["v"] >= version, timeout=PLAYS_AGAIN_WITHIN)
        # What the log gained meanwhile can only be the table's own doing (the next game
        # dealt once everyone had voted), never an intent applied twice.
        assert all(e["kind"] == "next_game" for e in await self.log_after(version))
        # Playing again: a sync is answered by the new owner at the same version.
        await self.players[0].send({"type": "sync"})
        await self.players[0].next_state(timeout=PLAYS_AGAIN_WITHIN)
        return time.monotonic() - stopped


async def _gone(player: Player) -> None:
    """Read what the socket of a dead process still had, until it is closed."""
    try:
        while True:
            await player.recv(timeout=10)
    except ConnectionClosed:
        return


async def test_twenty_owner_kills_in_one_match_lose_and_double_nothing(
    pg_url: str, redis_url: str, tmp_path: Path,
) -> None:
    rng = random.Random(1717)
    waits: list[float] = []
    async with AsyncExitStack() as stack:
        trial = Trial(stack, pg_url, tmp_path, {**ENV, "REDIS_URL": redis_url}, rng)
        for _ in range(3):
            await trial.add_server()
        a, b, c = trial.servers
        async with httpx.AsyncClient(base_url=f"http://{a.base}") as http:
            r = await http.post("/api/tables", json={"games_to_win": 3})
            assert r.status_code == 201, r.text
            trial.table_id, host = r.json()["table_id"], r.json()["host_token"]
        trial.tokens = [host, None, None, None]
        trial.where = [a, b, c, b]
        for seat, server in enumerate(trial.where):
            player = await trial.connect(server, seat)
            answer = await player.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
            assert answer["type"] == "ack", answer
            if seat:  # the host comes back with the host token
                trial.tokens[seat] = player.token
            trial.players.append(player)
        trial.spectator_on = c
        trial.spectator = await trial.connect(c, None)
        assert (await trial.players[0].intent({"type": "start"}))["type"] == "ack"

        for kill in KILLS:  # (the last one, "end", plays the match to its end)
            await trial.play_to(kill.split(":")[0] if kill.startswith("hunt") else kill)
            how = signal.SIGTERM if kill.endswith("sigterm") else signal.SIGKILL
            waits.append(await trial.fail_over(how))
        if trial.starting is not None:
            await trial.starting
        assert trial.players[0].state["table"]["status"] == "match_over"
        match_id = trial.players[0].state["table"]["match_id"]
        assert match_id is not None
        takeovers = 0
        for server in trial.live():
            async with httpx.AsyncClient(base_url=f"http://{server.base}") as http:
                found = re.search(r"^dingo_table_takeovers_total (\d+)",
                                  (await http.get("/metrics")).text, re.M)
            takeovers += int(found.group(1)) if found else 0
        assert takeovers >= 1
        for _, player in trial.every_socket:
            await player.ws.close()

    assert max(waits) < PLAYS_AGAIN_WITHIN, waits
    engine = create_engine(pg_url)
    try:
        stored = await SqlStore(engine).load_table(trial.table_id)
        async with engine.connect() as conn:
            recorded = (await conn.execute(
                text("SELECT count(*) FROM matches WHERE table_id = :t"),
                {"t": trial.table_id})).scalar_one()
    finally:
        await engine.dispose()
    assert stored is not None
    assert recorded == 1
    seqs = [int(e["seq"]) for e in stored.entries]
    assert seqs == list(range(1, len(seqs) + 1))
    # (The match record after the last action carries that action's intent id too.)
    logged = Counter(e["id"] for e in stored.entries if e.get("id") and e["kind"] != "recorded")
    wrong = {i: logged[i] for i in trial.acked if logged[i] != 1}
    assert not wrong, f"acknowledged actions lost (0) or doubled: {wrong}"
    assert not [i for i, n in logged.items() if n > 1]
    hidden = hidden_by_version(TableOptions.from_dict(stored.options), stored.entries)
    for seat, player in trial.every_socket:
        assert_no_leaks(player.frames, seat, hidden)
