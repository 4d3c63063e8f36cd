"""The advice after a game is worked out in the background, stored once, and shown with the
match and its replays; games that get none say why."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from matchdb import POSTGRES, SQLITE, migrated_database, play_match_record
from recordkit import game_record

from app.advisor import Advisor
from app.config import Settings
from app.db.match_record import from_legacy
from app.db.session import create_engine
from app.db.store import create_store
from app.main import create_app
from app.table.thinking import BotWorkers


@pytest.fixture(params=[SQLITE, pytest.param(POSTGRES, marks=pytest.mark.postgres)])
async def url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    server = request.getfixturevalue("postgres_url") if request.param == POSTGRES else None
    with migrated_database(request.param, tmp_path, server) as url:
        yield url


async def _store(url: str, *records: dict[str, Any]) -> list[int]:
    store = create_store(url)
    try:
        return [await store.finish_match(r) for r in records]
    finally:
        await store.close()


async def _get(url: str, path: str) -> Any:
    app = create_app(Settings(database_url=url))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            r = await client.get(path)
            assert r.status_code == 200, r.text
            return r.json()


async def test_advice_is_worked_out_in_the_background_and_shown(url: str) -> None:
    person, bots, mate = await _store(
        url,
        play_match_record(41, bots=(True, False, True, True), games_to_win=2),
        play_match_record(42, bots=(True, True, True, True)),
        game_record("mate", 43))
    # Before the worker: the person's games wait, the others get none and say why.
    detail = await _get(url, f"/api/matches/{person}")
    assert {g["advice"] for g in detail["games"]} == {"pending"}
    assert all(g["mistakes"] is None for g in detail["games"])
    replay = await _get(url, f"/api/matches/{person}/games/1/replay")
    assert replay["advice"]["status"] == "pending" and replay["advice"]["decisions"] == []
    alone = await _get(url, f"/api/matches/{bots}/games/1/replay")
    assert alone["advice"] == {"status": "none", "why": "played by bots only", "deals": None,
                               "playouts": None, "decisions": [], "mistakes": None}

    engine = create_engine(url)
    try:
        advisor = Advisor(engine, BotWorkers(0), deals=2, playouts=1)
        done = await advisor.work()
        assert done == len(detail["games"])  # only the person's match was waiting
        assert await advisor.work() == 0  # stored once
    finally:
        await engine.dispose()

    detail = await _get(url, f"/api/matches/{person}")
    assert {g["advice"] for g in detail["games"]} == {"ready"}
    for game in detail["games"]:
        replay = await _get(url, game["replay_url"])
        advice = replay["advice"]
        assert advice["status"] == "ready" and (advice["deals"], advice["playouts"]) == (2, 1)
        assert advice["decisions"], "the person had choices to make"
        assert {d["seat"] for d in advice["decisions"]} == {1}
        steps = {s["index"]: s for s in replay["steps"]}
        for d in advice["decisions"]:
            assert steps[d["index"]]["action"] == d["played"]
        assert game["mistakes"] == advice["mistakes"]
        assert advice["mistakes"][1] == sum(d["mistake"] for d in advice["decisions"])
    other = await _get(url, f"/api/matches/{mate}")
    assert other["game"] == "mate"


async def test_steps_a_stand_in_played_are_shown_and_not_judged(url: str) -> None:
    record = from_legacy(play_match_record(46, bots=(False, True, True, True)))
    ann = [i for i, a in enumerate(record["games"][0]["actions"], start=1) if a["seat"] == 0]
    record["games"][0]["stand_in"] = ann[:2]  # Ann was away for her first two choices
    (match_id,) = await _store(url, record)
    engine = create_engine(url)
    try:
        await Advisor(engine, BotWorkers(0), deals=1, playouts=1).work()
    finally:
        await engine.dispose()
    replay = await _get(url, f"/api/matches/{match_id}/games/1/replay")
    assert replay["stand_in"] == ann[:2]
    assert [d["index"] for d in replay["advice"]["decisions"]] == ann[2:]


async def test_a_game_whose_advice_fails_is_not_tried_again(url: str, monkeypatch:
                                                             pytest.MonkeyPatch) -> None:
    (match_id,) = await _store(url, play_match_record(44, bots=(False, True, True, True)))

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("no such card")

    monkeypatch.setattr("app.advisor.advise_game", broken)
    engine = create_engine(url)
    try:
        advisor = Advisor(engine, BotWorkers(0), deals=2, playouts=1)
        assert await advisor.work() == 1
        assert await advisor.work() == 0
    finally:
        await engine.dispose()
    replay = await _get(url, f"/api/matches/{match_id}/games/1/replay")
    assert replay["advice"]["status"] == "none"
    assert replay["advice"]["why"] == "the advice could not be worked out"


async def test_the_server_works_it_out_by_itself(url: str, monkeypatch: pytest.MonkeyPatch
                                                 ) -> None:
    """With ADVICE_DEALS set, the app's own background worker does it (no one asks)."""
    (match_id,) = await _store(url, play_match_record(45, bots=(False, True, True, True)))
    monkeypatch.setenv("ADVICE_DEALS", "1")
    app = create_app(Settings(database_url=url, bot_processes=0))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            for _ in range(600):
                detail = (await client.get(f"/api/matches/{match_id}")).json()
                if detail["games"][0]["advice"] == "ready":
                    break
                await asyncio.sleep(0.05)
            assert detail["games"][0]["advice"] == "ready"
