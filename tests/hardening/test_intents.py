"""Duplicate and stale intents over real WebSockets: applied once, answered alike, resync works.

The in-process tests run at a table of every registered game (Dingo's four seats, the
others' two; a simultaneous decision's seats both may act); the kill -9 retry is Dingo's
here, and every other game's in test_crash.py.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hardeningkit import GAMES, next_actor, started
from serverkit import catch_up, dingo_serve, drain, join, seated_table
from tablekit import Live, Player, live_server


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    async for server in live_server(tmp_path):
        yield server


def actions_logged(live: Live, table_id: str) -> int:
    return sum(1 for e in live.store.entries(table_id) if e["kind"] == "action")


async def answers(player: Player, intent_id: str, count: int) -> list[dict[str, Any]]:
    got = []
    while len(got) < count:
        frame = await player.recv()
        if frame["type"] in ("ack", "error") and frame["id"] == intent_id:
            got.append(frame)
    return got


async def start(live: Live, name: str) -> tuple[str, list[Player], list[str]]:
    """A started table of ``name``, a person in every seat (Dingo: one game to win)."""
    if name == "dingo":
        return await live.started(games_to_win=1)
    return await started(live.base, name, live.players)


def legal_wire(player: Player, rng: random.Random) -> dict[str, Any]:
    choice = rng.choice(player.state["game"]["legal"])
    return {k: v for k, v in choice.items() if k != "seat"}


@pytest.mark.parametrize("name", GAMES)
async def test_the_same_intent_sent_2_to_10_times_is_applied_once(live: Live, name: str) -> None:
    table_id, players, _ = await start(live, name)
    rng = random.Random(4)
    for repeats in range(2, 11):
        actor = await next_actor(players, rng)
        v0 = players[0].state["v"]
        before = actions_logged(live, table_id)
        intent = {**legal_wire(actor, rng), "id": f"dup{repeats}", "v": v0}
        raw = orjson.dumps(intent).decode()
        await asyncio.gather(*(actor.ws.send(raw) for _ in range(repeats)))  # back to back
        got = await answers(actor, intent["id"], repeats)
        assert got == [{"type": "ack", "id": intent["id"], "v": v0 + 1}] * repeats
        # Later (after the table moved on) the same id still gets the original answer.
        for p in players:
            await p.until(lambda s, v=v0: s["v"] >= v + 1)
        await actor.send(intent)
        assert await answers(actor, intent["id"], 1) == got[:1]
        assert actions_logged(live, table_id) == before + 1
        await asyncio.sleep(0.02)
        # Nothing else arrives but what the table did by itself: when the action ended a
        # deal, the next one starts at once here (next_game_seconds=0), and that is all.
        after = [e for e in live.store.entries(table_id) if e["seq"] > v0 + 1]
        assert [e["kind"] for e in after] in ([], ["next_game"]), after
        last = v0 + 1 + len(after)
        for p in players:
            await p.until(lambda s, v=last: s["v"] >= v)
        await asyncio.sleep(0.02)
        assert all(p.state["v"] == last for p in players)


@pytest.mark.parametrize("name", GAMES)
async def test_the_same_intent_from_two_sockets_of_one_seat_is_applied_once(
        live: Live, name: str) -> None:
    table_id, players, tokens = await start(live, name)
    rng = random.Random(8)
    for round_ in range(4):
        first = await next_actor(players, rng)
        seat = players.index(first)
        v0 = players[0].state["v"]
        before = actions_logged(live, table_id)
        intent = {**legal_wire(first, rng), "id": f"tab{round_}", "v": v0}
        # A second tab says hello with the same token while the first sends the intent.
        second_task = asyncio.create_task(live.player(table_id, tokens[seat]))
        await first.send(intent)
        second = await second_task
        second._n = 100 + round_ * 10
        await second.send(intent)
        got = await answers(second, intent["id"], 1)
        assert got == [{"type": "ack", "id": intent["id"], "v": v0 + 1}]
        assert await first.closed_code() == 4001  # replaced, cleanly
        assert [f for f in first.frames if f["type"] == "error"] == []
        assert actions_logged(live, table_id) == before + 1
        players[seat] = second
        for p in players:
            await p.until(lambda s, v=v0: s["v"] >= v + 1)
        assert all(p.state["v"] == v0 + 1 for p in players)
        # No leave/join noise: the seat stayed connected in everyone's view.
        assert all(s["connected"] for p in players for s in p.state["seats"])


@pytest.mark.parametrize("name", GAMES)
async def test_a_stale_intent_is_refused_and_the_client_resyncs(live: Live, name: str) -> None:
    table_id, players, _ = await start(live, name)
    rng = random.Random(3)
    v = (await (await next_actor(players, rng)).play_random(rng))["v"]
    actor = await next_actor(players, rng)
    v = players[0].state["v"]
    before = actions_logged(live, table_id)
    # Under a simultaneous decision the other seat's commitment (at v - 1) leaves this
    # seat's decision standing: an action from v - 1 is in time (tests/table).
    late = v - 2 if name == "divide" else v - 1
    for old in (late, v - 5, 0, v + 1, 10**9):
        answer = await actor.intent({**legal_wire(actor, rng), "v": old})
        assert answer["type"] == "error" and answer["code"] == "stale_version", answer
        assert answer["v"] == v
    assert actions_logged(live, table_id) == before
    await actor.send({"type": "sync"})
    synced = await actor.next_state(lambda s: s["events"] == [])
    assert synced["v"] == v
    assert (await actor.play_random(rng))["v"] == v + 1


async def raw_answer(player: Player, intent_id: str) -> dict[str, Any]:
    """The next ack or error for ``intent_id`` (an ack in the sender's delta as the ``ack``
    message it stands for: its id and version)."""
    while True:
        frame = await player.recv()
        if frame["type"] in ("ack", "error") and frame.get("id") == intent_id:
            return frame


async def test_a_retried_intent_after_kill_9_gets_its_original_answer(tmp_path: Path) -> None:
    """``dingo serve`` killed right after an ack: after a restart, the same intent (same id,
    same ``v``) gets the same answer again, and the table does not move."""
    db = tmp_path / "retry.db"
    env = {"RECONNECT_GRACE_SECONDS": "600", "NEXT_GAME_SECONDS": "600"}
    rng = random.Random(21)
    async with dingo_serve(db, tmp_path, **env) as server:
        table_id, players, tokens = await seated_table(server.base, games_to_win=3)
        for _ in range(5):
            await catch_up(players)
            actor = players[(players[0].state["to_act"] or [None])[0]]
            await actor.play_random(rng)
        await catch_up(players)
        seat = (players[0].state["to_act"] or [None])[0]
        actor = players[seat]
        intent = {**legal_wire(actor, rng), "id": "kill1", "v": actor.state["v"]}
        await actor.send(intent)
        original = await raw_answer(actor, "kill1")
        assert original == {"type": "ack", "id": "kill1", "v": intent["v"] + 1}
        os.kill(server.pid, signal.SIGKILL)
        await server.process.wait()
        for p in players:
            await drain(p)
        host_frames = [f for f in players[0].frames if f["type"] in ("ack", "error")]
    async with dingo_serve(db, tmp_path, **env) as server:
        again = [await join(server.base, table_id, token) for token in tokens]
        version = intent["v"] + 1
        assert all(p.state["v"] == version for p in again)
        await again[seat].send(intent)
        assert await raw_answer(again[seat], "kill1") == original
        # The seated host's sit and start, sent by seated_table, too.
        for first, kind in zip(host_frames[:2], ("sit", "start"), strict=True):
            intent_id = first["id"]
            assert first["type"] == "ack"
            await again[0].send({"type": kind, "id": intent_id, "seat": 0, "name": "P0"}
                                if kind == "sit" else {"type": kind, "id": intent_id})
            assert await raw_answer(again[0], intent_id) == first
        await again[seat].send({"type": "sync"})
        synced = await again[seat].next_state(lambda s: s["events"] == [])
        assert synced["v"] == version  # not applied again
        for p in again:
            await p.ws.close()
    # dingo_serve checks the server's log on the way out (serverkit.log_problems).
