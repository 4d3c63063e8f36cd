"""The real app: tables survive a restart (on a SQLite file) and a storage failure, and
matches reach the history."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
from tablekit import Player, live_server, migrated_sqlite
from websockets.asyncio.client import connect


def steady(state: dict[str, Any]) -> dict[str, Any]:
    """What must survive a restart: everything but the events and who is connected."""
    return {"v": state["v"], "table": state["table"], "match": state["match"],
            "game": state["game"], "names": [s["name"] for s in state["seats"]]}


async def step(players: list[Player], rng: random.Random) -> None:
    """Bring every player up to date, then move the table on by one step."""
    version = max(p.state["v"] for p in players)
    for player in players:
        await player.until(lambda s, v=version: s["v"] >= v)
    state = players[0].state
    to_act = (state["to_act"] or [None])[0]
    if state["table"]["status"] == "between_games":
        for player in players:
            await player.intent({"type": "ready"})
        await players[0].until(lambda s: s["table"]["status"] != "between_games")
    elif to_act is not None and to_act < len(players):
        await players[to_act].play_random(rng)
    elif to_act is not None:
        await players[0].next_state()  # the bot's move


async def test_a_restarted_server_restores_its_tables_and_records_the_match(
        tmp_path: Path) -> None:
    url = await migrated_sqlite(tmp_path / "dingo.db")
    rng = random.Random(12)
    async for live in live_server(tmp_path, real_store=True, database_url=url):
        table_id, host = await live.create(games_to_win=1, bots=[{"seat": 3}])
        players: list[Player] = []
        for seat in range(3):
            player = await live.player(table_id, host if seat == 0 else None)
            assert (await player.intent({"type": "sit", "seat": seat, "name": f"P{seat}"}))[
                "type"] == "ack"
            players.append(player)
        tokens = [host] + [p.token for p in players[1:]]
        await players[0].intent({"type": "start"})
        while players[0].state["v"] < 20:
            await step(players, rng)
        latest = max(p.state["v"] for p in players)
        await players[0].until(lambda s, v=latest: s["v"] >= v)
        while (players[0].state["to_act"] or [None])[0] == 3:
            await players[0].next_state()  # now nothing moves until a person does
        before = players[0].state
    async for live in live_server(tmp_path, real_store=True, database_url=url):
        again = [await live.player(table_id, token) for token in tokens]
        assert steady(again[0].state) == steady(before)
        assert [p.state["game"]["seat"] for p in again] == [0, 1, 2]
        while again[0].state["table"]["match_id"] is None:
            await step(again, rng)
        match_id = again[0].state["table"]["match_id"]
        r = await live.http.get(f"/api/matches/{match_id}")
        assert r.status_code == 200, r.text
        assert [p["name"] for p in r.json()["players"]][:3] == ["P0", "P1", "P2"]


async def test_a_table_shut_by_a_storage_failure_comes_back_without_a_restart(
        tmp_path: Path) -> None:
    """The append fails: the table refuses the intent and closes its sockets (1011). While
    its log cannot be read a new socket is told to retry (1013, ``service_unavailable``),
    ``GET /api/tables/{id}`` answers 503 and the page is served (its socket retries);
    once it can, the table is back
    from its log at its last durable version and plays on."""
    async for live in live_server(tmp_path):
        table_id, host = await live.create(bots=[{"seat": 3}])
        player = await live.player(table_id, host)
        assert (await player.intent({"type": "sit", "seat": 0, "name": "Ann"}))["type"] == "ack"
        durable = player.state["v"]
        live.store.fail_appends = True
        refused = await player.intent({"type": "add_bot", "seat": 1})
        assert refused["code"] == "unavailable"
        assert await player.closed_code() == 1011

        live.store.fail_reads = True
        async with connect(f"ws://{live.base}/ws/{table_id}") as ws:
            error = orjson.loads(await ws.recv())
            assert error["code"] == "service_unavailable"
            await ws.wait_closed()
            assert ws.close_code == 1013
        r = await live.http.get(f"/api/tables/{table_id}")
        assert r.status_code == 503 and r.headers["retry-after"] == "1", r.text
        r = await live.http.get(f"/t/{table_id}")  # the page, whose socket will retry
        assert r.status_code == 200 and "<html" in r.text

        live.store.fail_reads = live.store.fail_appends = False
        again = await live.player(table_id, host)
        assert again.state["v"] == durable
        assert [s["kind"] for s in again.state["seats"]] == ["human", "empty", "empty", "bot"]
        assert (await again.intent({"type": "add_bot", "seat": 1}))["type"] == "ack"
        r = await live.http.get(f"/api/tables/{table_id}")
        assert r.status_code == 200 and r.json()["seats"][1]["kind"] == "bot", r.text
