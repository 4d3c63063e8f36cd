"""SIGTERM: a real ``dingo serve`` closes every socket with 1012, exits 0, and play resumes.

Four seated clients play a few actions on a SQLite file; the seat to act sends
an intent and the server gets SIGTERM right after (the intent is in flight).
Every client socket must be closed with 1012 (docs/protocol.md: reconnect and
``hello`` again), the process must exit with status 0 within a few seconds, an
intent that was acknowledged before the close must survive the restart, and
after a restart on the same file the four clients reconnect with their tokens
at the last version anyone saw (or one past it: uvicorn may close a socket itself
after the intent was stored and before its answer went out), retry the intent
and get its one answer, and play on.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
from pathlib import Path
from typing import Any

import test_crash
from hardeningkit import TWO_SEAT, started
from serverkit import catch_up, dingo_serve, drain, join, legal_wire, seated_table

EXIT_WITHIN = 8.0


async def answered_once(players: list[Any], actor: Any, intent: dict[str, Any],
                        acked: list[int], last_seen: int) -> None:
    """After the restart: the table is at the last version anyone saw, or one past it (the
    server may close a socket, uvicorn sending 1012 itself, after the intent was stored and
    before its answer went out: stored, never announced). The client retries what it never
    got an answer to and gets its one answer: acknowledged or stored unannounced, its
    original answer; not stored, applied now. Either way, once."""
    versions = {p.state["v"] for p in players}
    assert len(versions) == 1, versions
    (version,) = versions
    if acked:  # acknowledged before the close: it survived the restart
        assert version >= acked[0], (version, acked)
    assert version in (last_seen, last_seen + 1), (version, last_seen)
    await actor.send(intent)
    while (answer := await actor.recv()).get("id") != intent["id"]:
        pass
    applied = acked[0] if acked else last_seen + 1
    assert answer == {"type": "ack", "id": intent["id"], "v": applied}, answer
    await actor.send({"type": "sync"})
    synced = await actor.next_state(lambda s: s["events"] == [])
    assert synced["v"] == max(applied, version), (synced["v"], applied, version)


async def test_sigterm_closes_1012_exits_0_and_play_resumes(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("SIGTERM_SEED", "11")))
    db = tmp_path / "sigterm.db"
    env = {"RECONNECT_GRACE_SECONDS": "600", "NEXT_GAME_SECONDS": "600"}
    async with dingo_serve(db, tmp_path, **env) as server:
        table_id, players, tokens = await seated_table(server.base, games_to_win=3)
        acted = 0
        while acted < 6:
            acted += await test_crash.act(players, rng) is not None
        await catch_up(players)
        state = players[0].state
        assert state["game"] is not None and state["to_act"], state
        (actor_seat,) = state["to_act"]
        actor = players[actor_seat]
        before = actor.state["v"]
        intent = {"id": actor.intent_id(), "v": before, **legal_wire(actor, rng)}
        intent_id = intent["id"]
        await actor.send(intent)
        os.kill(server.pid, signal.SIGTERM)  # the intent is in flight
        loop = asyncio.get_running_loop()
        start = loop.time()
        codes = [await drain(p, EXIT_WITHIN) for p in players]
        rc = await asyncio.wait_for(server.process.wait(), EXIT_WITHIN)
        took = loop.time() - start
    assert codes == [1012] * 4, codes
    assert rc == 0, (rc, server.log.read_text()[-2000:])
    answers = [f for f in actor.frames if f.get("id") == intent_id]
    acked = [f["v"] for f in answers if f["type"] == "ack"]
    last_seen = max(f["v"] for p in players for f in p.frames if f["type"] == "state")
    print(f"SIGTERM: closed 1012 x4, rc 0 in {took:.2f}s; in-flight intent answers: "
          f"{[a['type'] for a in answers]}, version before {before}, last seen {last_seen}")

    async with dingo_serve(db, tmp_path, **env) as server:
        players = [await join(server.base, table_id, token) for token in tokens]
        await answered_once(players, players[actor_seat], intent, acked, last_seen)
        more = 0
        while more < 3:  # and the game goes on
            more += await test_crash.act(players, rng) is not None
        for p in players:
            await p.ws.close()


async def test_sigterm_with_a_table_of_every_other_game(tmp_path: Path) -> None:
    """The same for a server holding a table of each two-seat game, an intent in flight at
    each: every socket closed 1012, exit 0, and every table back where its seats last saw
    it (or one past, ``answered_once``), its intent in flight answered once, playing on."""
    rng = random.Random(int(os.environ.get("SIGTERM_SEED", "11")))
    db = tmp_path / "sigterm-games.db"
    env = {"RECONNECT_GRACE_SECONDS": "600", "NEXT_GAME_SECONDS": "600"}
    tables: dict[str, tuple[str, list[str]]] = {}
    acked: dict[str, list[int]] = {}
    async with dingo_serve(db, tmp_path, **env) as server:
        at = {}
        for name in TWO_SEAT:
            table_id, players, tokens = await started(server.base, name)
            tables[name], at[name] = (table_id, tokens), players
            acted = 0
            while acted < 4:
                acted += await test_crash.act_any(players, rng) is not None
            await catch_up(players)
        sent: dict[str, tuple[int, dict[str, Any]]] = {}  # per table: the seat, the intent
        for name, players in at.items():
            seats = players[0].state["to_act"]
            if seats:
                seat = rng.choice(seats)
                actor = players[seat]
                sent[name] = (seat, {"id": actor.intent_id(), "v": actor.state["v"],
                                     **legal_wire(actor, rng)})
                await actor.send(sent[name][1])
        os.kill(server.pid, signal.SIGTERM)
        codes = [await drain(p, EXIT_WITHIN) for players in at.values() for p in players]
        rc = await asyncio.wait_for(server.process.wait(), EXIT_WITHIN)
    assert codes == [1012] * len(codes), codes
    assert rc == 0, (rc, server.log.read_text()[-2000:])
    assert sent, "no intent was in flight"
    last_seen = {}
    for name, players in at.items():
        last_seen[name] = max(f["v"] for p in players for f in p.frames if f["type"] == "state")
        if name in sent:
            seat, intent = sent[name]
            acked[name] = [f["v"] for f in players[seat].frames
                           if f.get("id") == intent["id"] and f["type"] == "ack"]
    async with dingo_serve(db, tmp_path, **env) as server:
        for name, (table_id, tokens) in tables.items():
            players = [await join(server.base, table_id, token) for token in tokens]
            if name in sent:
                seat, intent = sent[name]
                await answered_once(players, players[seat], intent, acked[name],
                                    last_seen[name])
            else:
                assert {p.state["v"] for p in players} == {last_seen[name]}, name
            more = 0
            while more < 2:
                more += await test_crash.act_any(players, rng) is not None
            for p in players:
                await p.ws.close()
