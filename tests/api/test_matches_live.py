"""From a live table to the history, for every two-seat game: a person plays a whole match
against a bot on a table whose store is the SQL store, and the history then lists the
match, shows it and replays each game to the end the players saw."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from matchdb import SQLITE, migrated_database
from tablekit import TWO_SEAT_GAMES, FakeConn, fast_config, play, wait_until

from app import games
from app.config import Settings
from app.db.store import create_store
from app.main import create_app
from app.table.client import Client
from app.table.manager import TableManager
from app.table.options import TableOptions


@pytest.fixture
async def url(tmp_path: Path) -> AsyncIterator[str]:
    with migrated_database(SQLITE, tmp_path, None) as database:
        yield database


@pytest.mark.parametrize("name", TWO_SEAT_GAMES)
async def test_a_match_played_at_a_table_is_in_the_history(url: str, name: str) -> None:
    spec = games.get(name)
    store = create_store(url)
    manager = TableManager(store, fast_config())
    try:
        table, host = await manager.create(TableOptions.create(
            game=name, bots=((1, spec.bot_order[0]),)))
        conn = FakeConn([])
        client = Client(conn, manager.config.send_queue_size)
        await table.join(client, host)
        await table.submit(client, {"type": "sit", "seat": 0, "name": "Ann"})
        await wait_until(lambda: any(f["type"] == "seated" for f in conn.frames))
        await table.submit(client, {"type": "start"})
        await play(table, {0: (client, conn)}, random.Random(7),
                   lambda: table.match_id is not None)
        assert table.match is not None
        final = table.match.view(None)
        scoreboard = table.match.scoreboard()
        match_id = table.match_id
        await client.stop()
    finally:
        await manager.shutdown()
        await store.close()

    app = create_app(Settings(database_url=url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            page = (await http.get("/api/matches", params={"game": name})).json()
            assert [m["id"] for m in page["items"]] == [match_id]
            item = page["items"][0]
            assert (item["game"], item["game_title"]) == (name, spec.title)
            assert item["standing"] == scoreboard["standing"]
            assert [p["name"] for p in item["players"]] == ["Ann", table.seats[1].name]
            detail = (await http.get(f"/api/matches/{match_id}")).json()
            assert detail["scoreboard"]["rule"] == scoreboard["rule"]
            last = None
            for game in detail["games"]:
                replay = (await http.get(game["replay_url"])).json()
                assert len(replay["steps"]) == len(game["actions"])
                last = replay["steps"][-1]["spectator"]
            assert last == final
