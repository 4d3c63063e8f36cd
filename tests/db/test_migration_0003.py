"""Migration 0003 keeps every match recorded before it: a database at 0002 holding Dingo
matches, upgraded, lists, shows and replays them exactly as the API did before (plus
``game`` and the other keys added with it), on SQLite and PostgreSQL; and a downgrade
gives the old rows back.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from alembic import command
from matchdb import play_match_record
from sqlalchemy import Connection, inspect, select, text
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.config import Settings
from app.db.migrate import alembic_config, run_migrations
from app.games.dingo.frames import replay_game
from app.main import create_app

#: Old matches: one game, several games, and names that repeat.
RECORDS = [
    play_match_record(31, table_id="old-1"),
    play_match_record(32, table_id="old-1", games_to_win=2,
                      names=("Ann", "Ann", "Bob", "Bob")),
    play_match_record(33, table_id="old-2", games_to_win=3),
]


_OLD = sa.MetaData()
_OLD_TABLES = {
    "matches": sa.Table(
        "matches", _OLD, sa.Column("id", sa.Integer), sa.Column("table_id", sa.String),
        sa.Column("seed", sa.BigInteger), sa.Column("options", sa.JSON),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("ended_at", sa.DateTime(timezone=True)), sa.Column("winner", sa.SmallInteger),
        sa.Column("game_wins", sa.JSON), sa.Column("totals", sa.JSON)),
    "match_players": sa.Table(
        "match_players", _OLD, sa.Column("match_id", sa.Integer),
        sa.Column("seat", sa.SmallInteger), sa.Column("name", sa.String),
        sa.Column("name_key", sa.String), sa.Column("is_bot", sa.Boolean)),
    "games": sa.Table(
        "games", _OLD, sa.Column("match_id", sa.Integer), sa.Column("number", sa.SmallInteger),
        sa.Column("dealer", sa.SmallInteger), sa.Column("seed", sa.BigInteger),
        sa.Column("hands", sa.JSON), sa.Column("actions", sa.JSON), sa.Column("scores", sa.JSON),
        sa.Column("winner", sa.SmallInteger), sa.Column("tie_break", sa.String)),
    "live_tables": sa.Table(
        "live_tables", _OLD, sa.Column("id", sa.String), sa.Column("options", sa.JSON),
        sa.Column("created_at", sa.DateTime(timezone=True)),
        sa.Column("last_match_id", sa.Integer)),
}


def _rows_0002(record: dict[str, Any], match_id: int) -> dict[str, list[dict[str, Any]]]:
    """The rows the store of revision 0002 wrote for ``record`` (app/db at 0002)."""
    match = {"id": match_id, "table_id": record["table_id"], "seed": record["seed"],
             "options": record["options"],
             "started_at": datetime.fromisoformat(record["started_at"]).astimezone(UTC),
             "ended_at": datetime.fromisoformat(record["ended_at"]).astimezone(UTC),
             "winner": record["winner"], "game_wins": record["game_wins"],
             "totals": record["totals"]}
    players = [{"match_id": match_id, "seat": p["seat"], "name": p["name"],
                "name_key": p["name"].casefold(), "is_bot": p["bot"]}
               for p in record["players"]]
    games = [{"match_id": match_id, "number": g["number"], "dealer": g["dealer"],
              "seed": g["seed"], "hands": g["hands"], "actions": g["actions"],
              "scores": g["scores"], "winner": g["winner"], "tie_break": g["tie_break"]}
             for g in record["games"]]
    return {"matches": [match], "match_players": players, "games": games}


def _insert_0002(conn: Connection) -> None:
    for match_id, record in enumerate(RECORDS, start=1):
        for table, rows in _rows_0002(record, match_id).items():
            conn.execute(_OLD_TABLES[table].insert(), rows)
    conn.execute(_OLD_TABLES["live_tables"].insert().values(
        id="old-1", options={}, created_at=datetime(2026, 11, 21, tzinfo=UTC), last_match_id=2))
    if conn.dialect.name == "postgresql":  # rows given their ids: the sequence goes on after
        conn.execute(text("SELECT setval('matches_id_seq', (SELECT max(id) FROM matches))"))


async def _run_sync(url: str, fn: Any) -> Any:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.begin() as conn:
            return await conn.run_sync(fn)
    finally:
        await engine.dispose()


@pytest.fixture
async def upgraded(empty_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """The app on a database that held RECORDS at 0002 and was then upgraded to head."""
    await asyncio.to_thread(run_migrations, empty_url, "0002")
    await _run_sync(empty_url, _insert_0002)
    await asyncio.to_thread(run_migrations, empty_url)
    app = create_app(Settings(database_url=empty_url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            client.headers["x-db"] = empty_url
            yield client


def _z(stamp: str) -> str:
    return stamp.replace("+00:00", "Z")


def _old_summary(match_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """What GET /api/matches listed for ``record`` before 0003, with the one key a later
    revision adds to each player (0004: ``strength``, null since it was not kept)."""
    return {"id": match_id, "table_id": record["table_id"],
            "started_at": _z(record["started_at"]), "ended_at": _z(record["ended_at"]),
            "players": [{"seat": p["seat"], "name": p["name"], "bot": p["bot"], "strength": None}
                        for p in record["players"]],
            "game_wins": record["game_wins"], "totals": record["totals"],
            "winner": record["winner"]}


#: What 0005 adds to each game of an old match people played: its advice, to be worked out.
PENDING = {"advice": "pending", "mistakes": None}


def _added(record: dict[str, Any]) -> dict[str, Any]:
    wins = record["options"]["games_to_win"]
    return {"game": "dingo", "game_title": "Dingo", "seats": 4,
            "rule": f"first to win {wins} game{'' if wins == 1 else 's'}",
            "standing": record["game_wins"],
            "standing_unit": {"one": "game won", "other": "games won"},
            "earlier": []}  # added with the seats' holders (migration 0007)


def _holders(record: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """What 0007 adds to each game: who held the seats; none were kept, so the players."""
    return [[{"name": p["name"], "bot": p["bot"], "strength": None, "since": 0}]
            for p in record["players"]]


async def test_old_matches_list_show_and_replay_as_before(
        upgraded: httpx.AsyncClient) -> None:
    page = (await upgraded.get("/api/matches", params={"limit": 100})).json()
    assert page["total"] == len(RECORDS)
    by_id = {m["id"]: m for m in page["items"]}
    for match_id, record in enumerate(RECORDS, start=1):
        assert by_id[match_id] == {**_old_summary(match_id, record), **_added(record)}

    for match_id, record in enumerate(RECORDS, start=1):
        detail = (await upgraded.get(f"/api/matches/{match_id}")).json()
        old = {**_old_summary(match_id, record), "seed": record["seed"],
               "options": record["options"],
               "games": [{**g, "replay_url": f"/api/matches/{match_id}/games/{g['number']}"
                                             "/replay", **PENDING, "holders": _holders(record)}
                         for g in record["games"]]}
        assert detail == {**old, **_added(record)}

        names = [p["name"] for p in record["players"]]
        for game in record["games"]:
            replay = (await upgraded.get(
                f"/api/matches/{match_id}/games/{game['number']}/replay")).json()
            frames = json.loads(json.dumps(replay_game(
                game["hands"], game["dealer"], game["actions"], lambda _, names=names: names)))
            old_replay = {"match_id": match_id, "number": game["number"],
                          "dealer": game["dealer"], "seed": game["seed"],
                          "players": old["players"], **frames}
            assert replay == {**old_replay, "game": "dingo", "game_title": "Dingo",
                              "table_id": record["table_id"],
                              "advice": {"status": "pending", "why": None, "deals": None,
                                         "playouts": None, "decisions": [],
                                         "mistakes": None},
                              "stand_in": [],
                              "holders": _holders(record)}


async def test_search_and_the_game_filter_find_old_matches(
        upgraded: httpx.AsyncClient) -> None:
    async def ids(**params: str) -> list[int]:
        page = (await upgraded.get("/api/matches", params=params)).json()
        return [m["id"] for m in page["items"]]

    assert await ids(table="old-1") == [2, 1]
    assert await ids(player="cid") == [3, 1]
    assert await ids(game="dingo") == [3, 2, 1]
    assert await ids(game="mate") == []
    assert await ids(**{"from": "2026-11-21", "to": "2026-11-21"}) == [3, 2, 1]
    games = (await upgraded.get("/api/matches/games")).json()
    assert games == [{"game": "dingo", "game_title": "Dingo", "matches": 3}]


async def test_new_matches_follow_the_old_ones(upgraded: httpx.AsyncClient) -> None:
    from recordkit import game_record

    from app.db.store import create_store

    store = create_store(upgraded.headers["x-db"])
    try:
        mate = await store.finish_match(game_record("mate", 4))
        dingo = await store.finish_match(play_match_record(34, table_id="old-3"))
    finally:
        await store.close()
    assert (mate, dingo) == (4, 5)
    page = (await upgraded.get("/api/matches", params={"limit": 100})).json()
    assert [m["game"] for m in page["items"]].count("dingo") == 4


def _snapshot(conn: Connection) -> dict[str, Any]:
    """Every row of the three tables, in key order, JSON decoded."""
    def rows(table: str, key: str) -> list[dict[str, Any]]:
        result = conn.execute(text(f"SELECT * FROM {table} ORDER BY {key}"))
        decoded = []
        for row in result.mappings():
            item = {}
            for column, value in row.items():
                if isinstance(value, str) and value[:1] in "[{":
                    value = json.loads(value)
                item[column] = value
            decoded.append(item)
        return decoded
    return {"matches": rows("matches", "id"),
            "match_players": rows("match_players", "match_id, seat"),
            "games": rows("games", "match_id, number"),
            "columns": {t: sorted(c["name"] for c in inspect(conn).get_columns(t))
                        for t in ("matches", "match_players", "games")}}


async def test_downgrade_gives_the_old_rows_back(empty_url: str) -> None:
    await asyncio.to_thread(run_migrations, empty_url, "0002")
    await _run_sync(empty_url, _insert_0002)
    before = await _run_sync(empty_url, _snapshot)
    await asyncio.to_thread(run_migrations, empty_url)
    await asyncio.to_thread(command.downgrade, alembic_config(empty_url), "0002")
    assert await _run_sync(empty_url, _snapshot) == before


async def test_downgrade_refuses_to_drop_matches_of_other_games(empty_url: str) -> None:
    from recordkit import game_record

    from app.db.store import create_store

    await asyncio.to_thread(run_migrations, empty_url)
    store = create_store(empty_url)
    try:
        await store.finish_match(game_record("divide", 2))
    finally:
        await store.close()
    with pytest.raises(RuntimeError, match="1 stored matches are not Dingo matches"):
        await asyncio.to_thread(command.downgrade, alembic_config(empty_url), "0002")

    async def count(conn: Any) -> int:
        return int((await conn.execute(select(text("count(*)")).select_from(
            text("matches")))).scalar_one())
    engine = create_async_engine(empty_url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            assert await count(conn) == 1
    finally:
        await engine.dispose()
