"""History of every game: matches of Mate, Divide and Conquer and Bingo beside Dingo's,
listed and filtered by game, shown generically, and replayed through the registry."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from matchdb import POSTGRES, SQLITE, in_thread, migrated_database, play_match_record
from recordkit import game_record
from starlette.testclient import TestClient

from app import games
from app.config import Settings
from app.db.store import create_store
from app.main import create_app

T0 = datetime(2026, 11, 10, 12, 0, tzinfo=UTC)
GAMES = ["mate", "divide", "bingo"]
#: What each game's ``standing`` counts, for one and for more (``standing_unit``).
STANDING_UNITS = {"mate": {"one": "point", "other": "points"},
                  "divide": {"one": "game won", "other": "games won"},
                  "bingo": {"one": "game point", "other": "game points"}}
#: (game, seed): two matches of each other game, then two of Dingo (the second played to
#: POINTS points, not games).
PLAYED = [(g, s) for g in GAMES for s in (11, 12)] + [("dingo", 13), ("dingo", 14)]
POINTS = 20
NAMES = ("Ann", "Bob", "Cid", "Dee")


def _records() -> list[dict[str, Any]]:
    records = []
    for i, (game, seed) in enumerate(PLAYED):
        ended = T0 + timedelta(minutes=i)
        if game == "dingo":
            records.append(play_match_record(seed, table_id=f"tab-{i}", ended_at=ended,
                                             points_to_win=POINTS if seed == 14 else None))
        else:
            records.append(game_record(game, seed, table_id=f"tab-{i}", ended_at=ended,
                                       names=("Ann", "Ann") if i == 2 else NAMES))
    return records


RECORDS = _records()
Stored = list[tuple[int, dict[str, Any]]]


async def _store_all(url: str) -> list[int]:
    store = create_store(url)
    try:
        return [await store.finish_match(r) for r in RECORDS]
    finally:
        await store.close()


@pytest.fixture(scope="module",
                params=[SQLITE, pytest.param(POSTGRES, marks=pytest.mark.postgres)])
def history(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Stored]]:
    server = request.getfixturevalue("postgres_url") if request.param == POSTGRES else None
    with migrated_database(request.param, tmp_path_factory.mktemp("games"), server) as url:
        ids = in_thread(asyncio.run, _store_all(url))
        yield url, list(zip(ids, RECORDS, strict=True))


@pytest.fixture
async def app(history: tuple[str, Stored]) -> AsyncIterator[FastAPI]:
    app = create_app(Settings(database_url=history[0]))
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


@pytest.fixture
def stored(history: tuple[str, Stored]) -> Stored:
    return history[1]


def _of(stored: Stored, game: str) -> list[tuple[int, dict[str, Any]]]:
    return [(i, r) for i, r in stored if r.get("game", "dingo") == game]


async def test_every_match_says_which_game_it_is(client: httpx.AsyncClient,
                                                 stored: Stored) -> None:
    page = (await client.get("/api/matches", params={"limit": 100})).json()
    assert page["total"] == len(PLAYED)
    by_id = {m["id"]: m for m in page["items"]}
    for match_id, record in stored:
        item = by_id[match_id]
        game = record.get("game", "dingo")
        title = "Dingo" if game == "dingo" else games.get(game).title
        assert (item["game"], item["game_title"]) == (game, title)
        if game == "dingo":
            by_points = record["options"]["points_to_win"] == POINTS
            assert item["standing"] == record["totals" if by_points else "game_wins"]
            assert item["standing_unit"] == (
                {"one": "point", "other": "points"} if by_points
                else {"one": "game won", "other": "games won"})
            continue
        assert item["seats"] == 2 and len(item["players"]) == 2
        assert item["winner"] == record["winner"]
        assert item["standing"] == record["scoreboard"]["standing"]
        assert item["standing_unit"] == STANDING_UNITS[game]
        assert item["rule"] == record["scoreboard"]["rule"]
        assert item["game_wins"] == record["scoreboard"].get("game_wins")
        assert item["totals"] == record["scoreboard"].get("totals")


@pytest.mark.parametrize("game", [*GAMES, "dingo"])
async def test_filter_by_game(client: httpx.AsyncClient, stored: Stored, game: str) -> None:
    page = (await client.get("/api/matches", params={"game": game})).json()
    expected = sorted((i for i, _ in _of(stored, game)), reverse=True)
    assert [m["id"] for m in page["items"]] == expected and page["total"] == len(expected)
    both = (await client.get("/api/matches", params={"game": game, "player": "bob"})).json()
    assert [m["id"] for m in both["items"]] == [
        i for i in expected if "Bob" in {p["name"] for p in dict(stored)[i]["players"]}]


@pytest.mark.parametrize("query", ["game=", "game=Mate", "game=a%20b", "game=" + "x" * 33])
async def test_bad_game_filters_are_422(client: httpx.AsyncClient, query: str) -> None:
    assert (await client.get(f"/api/matches?{query}")).status_code == 422


async def test_an_unknown_game_finds_nothing(client: httpx.AsyncClient) -> None:
    page = (await client.get("/api/matches", params={"game": "chess"})).json()
    assert page["total"] == 0 and page["items"] == []


async def _store_retired(url: str) -> int:
    """A Mate match stored as if of a game this server no longer hosts."""
    from sqlalchemy import update

    from app.db.models import MatchRecord

    store = create_store(url)
    try:
        match_id = await store.finish_match(RECORDS[0])
        async with store.engine.begin() as db:
            await db.execute(update(MatchRecord).where(MatchRecord.id == match_id)
                             .values(game="retired"))
        return match_id
    finally:
        await store.close()


def test_a_match_of_a_game_no_longer_hosted_still_lists(tmp_path: Path) -> None:
    """History keeps answering: the row's numbers count games won, and it has no replay."""
    with migrated_database(SQLITE, tmp_path, None) as url:
        match_id = in_thread(asyncio.run, _store_retired(url))
        with TestClient(create_app(Settings(database_url=url))) as client:
            listed = client.get("/api/matches")
            assert listed.status_code == 200, listed.text
            (item,) = listed.json()["items"]
            assert (item["id"], item["game"]) == (match_id, "retired")
            assert item["standing_unit"] == {"one": "game won", "other": "games won"}
            assert client.get(f"/api/matches/{match_id}").status_code == 200
            replay = client.get(f"/api/matches/{match_id}/games/1/replay")
            assert replay.status_code == 404


async def test_the_games_with_matches(client: httpx.AsyncClient) -> None:
    listed = (await client.get("/api/matches/games")).json()
    assert listed == sorted(
        [{"game": g, "game_title": games.get(g).title, "matches": 2} for g in GAMES]
        + [{"game": "dingo", "game_title": "Dingo", "matches": 2}],
        key=lambda c: c["game_title"])


def _fill(text: str, names: list[str]) -> str:
    for seat, name in enumerate(names):
        text = text.replace("{" + str(seat) + "}", name)
    return text


@pytest.mark.parametrize("game", GAMES)
async def test_match_detail_of_another_game(client: httpx.AsyncClient, stored: Stored,
                                            game: str) -> None:
    for match_id, record in _of(stored, game):
        detail = (await client.get(f"/api/matches/{match_id}")).json()
        assert detail["game"] == game and detail["seats"] == 2
        assert detail["seed"] == record["seed"] and detail["options"] == record["options"]
        assert detail["scoreboard"] == json.loads(json.dumps(record["scoreboard"]))
        assert detail["standing"] == record["standing"]
        labels = [p["name"] for p in record["players"]]
        if labels[0] == labels[1]:
            labels = [f"{n} {s + 1}" for s, n in enumerate(labels)]
        assert len(detail["games"]) == len(record["games"])
        for got, want in zip(detail["games"], record["games"], strict=True):
            assert got["number"] == want["number"] and got["winner"] == want["winner"]
            assert got["setup"] == json.loads(json.dumps(want["setup"]))
            assert got["actions"] == json.loads(json.dumps(want["actions"]))
            assert got["result"] == json.loads(json.dumps(want["result"]))
            say = (want["result"] or {}).get("say")
            assert got["say"] == (None if say is None else _fill(say, labels))
            assert got["say"], "every finished game's result is said in words (the page shows it)"
            assert got["replay_url"] == f"/api/matches/{match_id}/games/{want['number']}/replay"


def _rebuild(record: dict[str, Any], number: int) -> list[dict[str, Any]]:
    """Every spectator view of game ``number``, deal first, rebuilt here step by step."""
    spec = games.get(record["game"])
    match = spec.new_match(record["seed"], spec.check_options(record["options"]))
    for game in record["games"][:number - 1]:
        for seat, action in game["actions"]:
            match.apply(seat, action)
        match.start_next_game()
    views = [match.view(None)]
    for seat, action in record["games"][number - 1]["actions"]:
        match.apply(seat, action)
        views.append(match.view(None))
    return json.loads(json.dumps(views))


@pytest.mark.parametrize("game", GAMES)
async def test_replay_of_every_game_of_another_game(client: httpx.AsyncClient,
                                                     stored: Stored, game: str) -> None:
    match_id, record = _of(stored, game)[0]
    for want in record["games"]:
        r = await client.get(f"/api/matches/{match_id}/games/{want['number']}/replay")
        assert r.status_code == 200, r.text
        replay = r.json()
        assert (replay["game"], replay["seats"], replay["number"]) == (game, 2, want["number"])
        assert replay["game_title"] == games.get(game).title
        assert [p["name"] for p in replay["players"]] == [p["name"] for p in record["players"]]
        assert replay["setup"] == json.loads(json.dumps(want["setup"]))
        assert replay["winner"] == want["winner"]
        frames = [replay["deal"], *replay["steps"]]
        labels = [p["name"] for p in replay["players"]]
        if labels[0] == labels[1]:  # two players of one name: their seats tell them apart
            labels = [f"{n} {s + 1}" for s, n in enumerate(labels)]
        assert len(replay["steps"]) == len(want["actions"])
        assert [[s["seat"], s["action"]] for s in replay["steps"]] == json.loads(
            json.dumps(want["actions"]))
        assert [f["spectator"] for f in frames] == _rebuild(record, want["number"])
        for frame in frames:
            assert len(frame["views"]) == 2
            assert [v.get("seat") for v in frame["views"]] == [0, 1]
            assert frame["says"] == [_fill(e["say"], labels) for e in frame["events"]
                                     if e.get("say")]
            for event in frame["events"]:
                assert "type" in event
        # Someone acts at every step, and the last step ends the game.
        assert all(0 <= s["seat"] < 2 for s in replay["steps"])
        last = replay["steps"][-1]["spectator"]
        assert last["to_act"] == [] and last["legal"] == []
        if want["number"] > 1:  # the deal of a later game is announced
            assert replay["deal"]["events"]


async def test_a_game_beyond_the_last_is_404(client: httpx.AsyncClient,
                                             stored: Stored) -> None:
    match_id, record = _of(stored, "mate")[0]
    r = await client.get(f"/api/matches/{match_id}/games/{len(record['games']) + 1}/replay")
    assert r.status_code == 404 and r.json()["detail"]["code"] == "unknown_game"


async def test_pages_of_other_games_answer(client: httpx.AsyncClient, stored: Stored) -> None:
    for game in GAMES:
        match_id, _ = _of(stored, game)[0]
        for path in (f"/matches/{match_id}", f"/matches/{match_id}/games/1"):
            r = await client.get(path)
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
