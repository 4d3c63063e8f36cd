"""A seat that changed hands during a match: the history finds and names everyone who
played, each game and each replay step credited to whoever held the seat then."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from matchdb import POSTGRES, SQLITE, in_thread, migrated_database
from recordkit import dingo_record, game_record, hand_over

from app.config import Settings
from app.db.advice import pending_games
from app.db.session import create_engine
from app.db.store import create_store
from app.main import create_app

BOB, BRUNO = "Bob", "Bruno"


def _second_step_of(record: dict[str, Any], seat: int) -> int:
    """How many steps of game 1 came before ``seat``'s second action (Bob leaves then)."""
    actions = record["games"][0]["actions"]
    mine = [i for i, a in enumerate(actions)
            if (a["seat"] if isinstance(a, dict) else a[0]) == seat]
    return mine[1]


def _records() -> list[dict[str, Any]]:
    dingo = dingo_record(21, games_to_win=2)
    bingo = game_record("bingo", 8, names=("Ann", BOB), bots=(False, False))
    return [hand_over(r, 1, 1, _second_step_of(r, 1), BRUNO) for r in (dingo, bingo)]


RECORDS = _records()


@pytest.fixture(scope="module",
                params=[SQLITE, pytest.param(POSTGRES, marks=pytest.mark.postgres)])
def history(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[int]]]:
    server = request.getfixturevalue("postgres_url") if request.param == POSTGRES else None
    with migrated_database(request.param, tmp_path_factory.mktemp("holders"), server) as url:
        async def store_all() -> list[int]:
            store = create_store(url)
            try:
                return [await store.finish_match(r) for r in RECORDS]
            finally:
                await store.close()
        yield url, in_thread(asyncio.run, store_all())


@pytest.fixture
async def client(history: tuple[str, list[int]]) -> AsyncIterator[httpx.AsyncClient]:
    app: FastAPI = create_app(Settings(database_url=history[0]))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            yield c


async def test_a_player_who_left_is_found_and_named_beside_the_seat_s_last_holder(
        client: httpx.AsyncClient, history: tuple[str, list[int]]) -> None:
    page = (await client.get("/api/matches", params={"player": "bob"})).json()
    assert sorted(m["id"] for m in page["items"]) == sorted(history[1])
    for item in page["items"]:
        assert item["players"][1] == {"seat": 1, "name": BRUNO, "bot": True,
                                      "strength": "easy"}
        assert item["earlier"] == [{"seat": 1, "name": BOB, "bot": False, "strength": None}]
    assert (await client.get("/api/matches", params={"player": "bruno"})).json()["total"] == 2


@pytest.mark.parametrize("index", [0, 1])
async def test_each_game_says_who_held_each_seat(client: httpx.AsyncClient,
                                                 history: tuple[str, list[int]],
                                                 index: int) -> None:
    record = RECORDS[index]
    detail = (await client.get(f"/api/matches/{history[1][index]}")).json()
    assert [g["holders"] for g in detail["games"]] == [g["holders"] for g in record["games"]]
    first = detail["games"][0]["holders"][1]
    assert [(h["name"], h["since"]) for h in first] == [
        (BOB, 0), (BRUNO, _second_step_of(record, 1))]


async def test_a_dingo_replay_names_who_played_each_step(
        client: httpx.AsyncClient, history: tuple[str, list[int]]) -> None:
    left = _second_step_of(RECORDS[0], 1)
    replay = (await client.get(f"/api/matches/{history[1][0]}/games/1/replay")).json()
    assert replay["holders"][1][1] == {"name": BRUNO, "bot": True, "strength": "easy",
                                       "since": left}
    seat_1 = [s for s in replay["steps"] if s["action"]["seat"] == 1]
    assert seat_1[0]["index"] <= left < seat_1[1]["index"]
    assert BOB in seat_1[0]["text"] and BRUNO not in seat_1[0]["text"]
    assert all(BRUNO in s["text"] and BOB not in s["text"] for s in seat_1[1:])
    # The next game: the bot's from the deal.
    later = (await client.get(f"/api/matches/{history[1][0]}/games/2/replay")).json()
    assert all(BOB not in s["text"] for s in later["steps"])


async def test_a_replay_of_another_game_names_who_played_each_step(
        client: httpx.AsyncClient, history: tuple[str, list[int]]) -> None:
    left = _second_step_of(RECORDS[1], 1)
    replay = (await client.get(f"/api/matches/{history[1][1]}/games/1/replay")).json()
    before = " ".join(say for s in replay["steps"][:left] for say in s["says"])
    after = " ".join(say for s in replay["steps"][left:] for say in s["says"])
    assert BOB in before and BRUNO not in before
    assert BRUNO in after and BOB not in after
    assert BOB not in (replay["say"] or "")


async def test_the_advice_judges_only_the_steps_the_person_played(
        history: tuple[str, list[int]]) -> None:
    engine = create_engine(history[0])
    try:
        pending = await pending_games(engine, 100)
    finally:
        await engine.dispose()
    record = RECORDS[0]
    first = next(g for g in pending if g.match_id == history[1][0] and g.number == 1)
    left = _second_step_of(record, 1)
    bruno = [i for i, a in enumerate(record["games"][0]["actions"], start=1)
             if a["seat"] == 1 and i > left]
    assert first.people == [0, 1] and first.stand_in == bruno
    later = next(g for g in pending if g.match_id == history[1][0] and g.number == 2)
    assert later.people == [0] and later.stand_in == []
