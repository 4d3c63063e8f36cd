"""Whole matches over real WebSockets (uvicorn + the websockets client)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from tablekit import (
    Live,
    Player,
    assert_no_leaks,
    fast_config,
    hidden_by_version,
    live_server,
    wait_until,
)

from app.table.options import TableOptions


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    async for server in live_server(tmp_path):
        yield server


def over(state: dict[str, Any]) -> bool:
    return state["table"]["status"] == "match_over" and state["table"]["match_id"] is not None


async def seat_players(live: Live, table_id: str, host: str, seats: list[int]) -> list[Player]:
    players = []
    for seat in seats:
        player = await live.player(table_id, host if seat == seats[0] else None)
        answer = await player.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
        assert answer["type"] == "ack", answer
        players.append(player)
    return players


async def test_a_full_match_between_four_players_with_a_spectator(live: Live) -> None:
    table_id, host = await live.create(games_to_win=1)
    spectator = await live.player(table_id)
    watching = asyncio.create_task(spectator.read_all())
    players = await seat_players(live, table_id, host, [0, 1, 2, 3])
    assert [p.token is not None for p in players] == [False, True, True, True]
    assert (await players[0].intent({"type": "start"}))["type"] == "ack"
    rng = random.Random(2026)
    entries = live.store.entries(table_id)
    version = players[0].state["v"]
    while not over(players[0].state):
        for player in players:
            state = await player.until(lambda s, v=version: s["v"] >= v)
            # Whatever a player is shown is already durable.
            assert entries[-1]["seq"] >= state["v"]
        state = players[0].state
        if state["table"]["status"] == "between_games":
            for player in players:
                assert (await player.intent({"type": "ready"}))["type"] == "ack"
            version = state["v"] + 1
            continue
        if over(state):
            break
        to_act = (state["to_act"] or [None])[0]
        assert [bool(p.state["game"]["legal"]) for p in players] == [
            s == to_act for s in range(4)]
        version = (await players[to_act].play_random(rng))["v"]
    final = players[0].state
    assert final["match"]["over"] and final["game"]["result"] is not None
    record = live.store.matches[0]
    assert final["table"]["match_id"] == 1 and record["winner"] == final["match"]["winner"]
    assert [p["name"] for p in record["players"]] == ["P0", "P1", "P2", "P3"]
    info = (await live.http.get(f"/api/tables/{table_id}")).json()
    assert info["status"] == "match_over" and info["match_id"] == 1 and info["spectators"] == 1
    await spectator.ws.close()
    await watching
    options = TableOptions.from_dict(live.store.tables[table_id].options)
    hidden = hidden_by_version(options, entries)
    assert assert_no_leaks(spectator.frames, None, hidden) > 28
    for seat, player in enumerate(players):
        assert assert_no_leaks(player.frames, seat, hidden) > 28


async def test_one_player_against_three_bots(live: Live) -> None:
    table_id, host = await live.create(
        games_to_win=1, bots=[{"seat": 1}, {"seat": 2, "kind": "random"}, {"seat": 3}])
    (player,) = await seat_players(live, table_id, host, [0])
    assert (await player.intent({"type": "start"}))["type"] == "ack"
    rng = random.Random(7)
    while not over(player.state):
        if player.my_turn():
            await player.play_random(rng)
        elif player.state["table"]["status"] == "between_games" and not player.state["seats"][
                0]["ready"]:
            assert (await player.intent({"type": "ready"}))["type"] == "ack"
        else:
            await player.next_state()
    record = live.store.matches[0]
    assert [p["bot"] for p in record["players"]] == [False, True, True, True]
    assert sum(len(g["actions"]) for g in record["games"]) >= 28 * len(record["games"])


async def test_reconnecting_mid_hunt_gives_exactly_the_same_view(live: Live) -> None:
    # A match long enough that the player surely gets a hunt decision before it ends.
    table_id, host = await live.create(games_to_win=50, bots=[{"seat": s} for s in (1, 2, 3)])
    (player,) = await seat_players(live, table_id, host, [0])
    await player.intent({"type": "start"})
    rng = random.Random(1)
    while not (player.my_turn() and player.state["game"]["phase"] == "hunt"):
        if player.my_turn():
            await player.play_random(rng)
        elif player.state["table"]["status"] == "between_games":
            await player.intent({"type": "ready"})
        else:
            await player.next_state()
    before = player.state
    await player.ws.close()
    table = live.manager.get(table_id)
    assert table is not None
    await wait_until(lambda: table.seats[0].client is None)
    again = await live.player(table_id, host)
    after = again.state
    assert after["events"] == []
    assert {k: v for k, v in after.items() if k not in ("events", "log")} == {
        k: v for k, v in before.items() if k not in ("events", "log")}
    assert after["game"]["hand"] and after["game"]["phase"] == "hunt"
    # ... and the game log so far: what the first connection was told since the deal.
    seen = [e for f in player.frames if f["type"] == "state" for e in f["events"]]
    dealt = max(i for i, e in enumerate(seen) if e["type"] == "game_start")
    assert after["log"] == seen[dealt:]
    await again.play_random(rng)


async def test_an_absent_player_is_played_for_and_comes_back(tmp_path: Path) -> None:
    async for live in live_server(tmp_path, fast_config(reconnect_grace_seconds=0.05)):
        table_id, host = await live.create(bots=[{"seat": 2}, {"seat": 3}])
        ann, bob = await seat_players(live, table_id, host, [0, 1])
        await ann.intent({"type": "start"})
        await ann.ws.close()
        rng = random.Random(3)

        def covered(state: dict[str, Any]) -> bool:
            return any(e == {"type": "auto_move", "seat": 0, "reason": "away"}
                       for e in state["events"])

        while not any(covered(f) for f in bob.frames if f["type"] == "state"):
            if bob.my_turn():
                await bob.play_random(rng)
            else:
                await bob.next_state()
        assert bob.state["seats"][0]["connected"] is False
        assert bob.state["seats"][0]["away"] is True
        back = await live.player(table_id, host)
        assert back.state["seats"][0]["away"] is False
        assert back.state["seats"][0]["connected"] is True
        seen = await bob.next_state(lambda s: not s["seats"][0]["away"])
        assert seen["seats"][0]["connected"] is True
