"""``kill -9`` of a real ``dingo serve`` in the middle of a hunt loses nothing.

The server runs as its own process on SQLite (and on PostgreSQL with
TEST_DATABASE_URL), applying the migrations itself on its first start. Four
people play over WebSockets; the server is killed right after an action was
acknowledged, started again on the same database, and every seat must find
exactly the view it had. The match is then played out and must appear in the
history with the scores the players saw.
"""

from __future__ import annotations

import os
import random
import signal
from pathlib import Path
from typing import Any

import httpx
from serverkit import dingo_serve, join, seated_table
from tablekit import Player

ROOT = Path(__file__).resolve().parents[2]


def seat_view(state: dict[str, Any]) -> dict[str, Any]:
    """What a seat sees, minus the event log and who is connected right now."""
    return {"v": state["v"], "match": state["match"], "game": state["game"],
            "table": {k: v for k, v in state["table"].items() if k != "seats"}}


async def play_one(players: list[Player], rng: random.Random) -> None:
    """Everyone catches up with the latest version, then the seat to act plays at random."""
    version = max(p.state["v"] for p in players)
    for p in players:
        await p.until(lambda s, v=version: s["v"] >= v)
    to_act = players[0].state["to_act"]
    if players[0].state["game"] is not None and to_act:
        await players[to_act[0]].play_random(rng)
    else:  # between games: everyone is ready for the next
        for p in players:
            await p.intent({"type": "ready"})


async def test_kill_9_mid_hunt_loses_nothing(empty_url: str, tmp_path: Path) -> None:
    rng = random.Random(5)
    async with dingo_serve(empty_url, tmp_path) as server:
        base, pid = server.base, server.pid
        table_id, players, tokens = await seated_table(base, games_to_win=1)
        # Into the hunts, then an acknowledged hunt decision, then the kill.
        while players[0].state["game"]["phase"] != "hunt":
            await play_one(players, rng)
        await play_one(players, rng)
        version = max(p.state["v"] for p in players)
        before = [seat_view(await p.until(lambda s: s["v"] >= version)) for p in players]
        assert before[0]["game"]["phase"] == "hunt"
        os.kill(pid, signal.SIGKILL)

    async with dingo_serve(empty_url, tmp_path) as server:
        base = server.base
        again = [await join(base, table_id, token) for token in tokens]
        assert [seat_view(p.state) for p in again] == before
        while again[0].state["table"]["match_id"] is None:
            await play_one(again, rng)
        final = again[0].state["match"]
        async with httpx.AsyncClient(base_url=f"http://{base}") as http:
            page = (await http.get("/api/matches", params={"table": table_id})).json()
            assert [m["id"] for m in page["items"]] == [again[0].state["table"]["match_id"]]
            detail = (await http.get(f"/api/matches/{page['items'][0]['id']}")).json()
        assert detail["totals"] == final["totals"] and detail["winner"] == final["winner"]
        assert [g["scores"] for g in detail["games"]] == [g["scores"] for g in final["games"]]
        assert [p["name"] for p in detail["players"]] == ["P0", "P1", "P2", "P3"]
        for p in again:
            await p.ws.close()
