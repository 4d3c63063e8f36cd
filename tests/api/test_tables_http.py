"""HTTP routes of tables, on a real uvicorn server."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import TypeAdapter
from tablekit import Live, live_server

from app import games
from app.api.schemas import BotKind
from app.site import STATIC_DIR, client_build


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    async for server in live_server(tmp_path):
        yield server


async def test_create_table_with_defaults(live: Live) -> None:
    r = await live.http.post("/api/tables", json={})
    assert r.status_code == 201
    body = r.json()
    assert set(body) == {"table_id", "url", "host_token"}
    assert body["url"] == f"/t/{body['table_id']}"
    assert len(body["table_id"]) >= 11 and len(body["host_token"]) >= 32
    info = (await live.http.get(f"/api/tables/{body['table_id']}")).json()
    assert info["options"] == {"games_to_win": 5, "points_to_win": None,
                               "open_discards": False, "turn_seconds": None}
    assert info["status"] == "lobby" and info["spectators"] == 0 and info["match_id"] is None
    assert [s["kind"] for s in info["seats"]] == ["empty"] * 4
    assert body["host_token"] not in r.text.replace(body["host_token"], "", 1)


async def test_create_table_with_options_and_bots(live: Live) -> None:
    table_id, _ = await live.create(games_to_win=2, points_to_win=50, open_discards=True,
                                    turn_seconds=30,
                                    bots=[{"seat": 1}, {"seat": 3, "kind": "random"}])
    info = (await live.http.get(f"/api/tables/{table_id}")).json()
    assert info["options"] == {"games_to_win": 2, "points_to_win": 50, "open_discards": True,
                               "turn_seconds": 30}
    assert [(s["kind"], s["bot"], s["name"]) for s in info["seats"]] == [
        ("empty", None, None), ("bot", "heuristic", "Bruno"), ("empty", None, None),
        ("bot", "random", "Dov")]
    assert live.store.tables[table_id].options["bots"] == [
        {"seat": 1, "kind": "heuristic"}, {"seat": 3, "kind": "random"}]


async def test_tables_of_every_game_from_the_games_list(live: Live) -> None:
    listed = (await live.http.get("/api/games")).json()
    assert listed[0]["name"] == "dingo"
    assert sorted(g["name"] for g in listed) == games.names()
    for info in listed:
        spec = games.get(info["name"])
        assert info["seats"] == spec.seats and info["stand_in"] == spec.stand_in_bot
        # Every game but Dingo (the home page has its own walk-through) says how it goes.
        assert info["how"] == list(spec.how) and bool(info["how"]) == (spec.name != "dingo")
        assert [o["name"] for o in info["options"]] == [o.name for o in spec.options]
        assert info["bots"] == (await live.http.get(f"/api/bots?game={spec.name}")).json()
        defaults = {o["name"]: o["default"] for o in info["options"]}
        r = await live.http.post("/api/tables", json={
            "game": spec.name, "options": defaults,
            "bots": [{"seat": spec.seats - 1, "kind": info["bots"][0]["kind"]}]})
        assert r.status_code == 201, r.text
        table = (await live.http.get(f"/api/tables/{r.json()['table_id']}")).json()
        assert (table["game"], table["title"]) == (spec.name, spec.title)
        assert table["options"] == {**defaults, "turn_seconds": None}
        assert len(table["seats"]) == spec.seats
        assert table["seats"][-1]["bot"] == info["bots"][0]["kind"]
    missing = await live.http.get("/api/bots?game=chess")
    assert missing.status_code == 404 and missing.json()["detail"]["code"] == "unknown_game"


@pytest.mark.parametrize("body", [
    {"game": "chess"}, {"game": "mate", "games_to_win": 3},
    {"game": "mate", "options": {"deck": 10}}, {"game": "divide", "options": {"deck": 12}},
    {"game": "divide", "bots": [{"seat": 2}]}, {"game": "divide", "bots": [{"seat": 1,
                                                                          "kind": "heuristic"}]},
    {"options": {"games_to_win": 3}, "games_to_win": 3}, {"options": {"games_to_win": 0}},
    {"game": "bingo", "options": {"open_tally": "yes"}},
])
async def test_a_game_refuses_what_it_does_not_have(live: Live, body: dict[str, object]) -> None:
    r = await live.http.post("/api/tables", json=body)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, list) and detail[0]["msg"] and detail[0]["loc"][0] == "body"
    assert live.manager.tables == {}


@pytest.mark.parametrize("body", [
    {"games_to_win": 0}, {"games_to_win": 51}, {"points_to_win": 0}, {"turn_seconds": 2},
    {"bots": [{"seat": 4}]}, {"bots": [{"seat": 1, "kind": "genius"}]},
    {"bots": [{"seat": 1}, {"seat": 1}]}, {"colour": "red"}, {"open_discards": "maybe"},
])
async def test_bad_options_are_refused(live: Live, body: dict[str, object]) -> None:
    r = await live.http.post("/api/tables", json=body)
    assert r.status_code == 422
    assert live.manager.tables == {}


async def test_unknown_table(live: Live) -> None:
    r = await live.http.get("/api/tables/nope")
    assert r.status_code == 404
    assert r.json()["detail"]["code"] == "unknown_table"
    page = await live.http.get("/t/nope")
    assert page.status_code == 404  # a page for people, not JSON
    assert page.headers["content-type"].startswith("text/html")
    assert "This table is not open" in page.text and "/static/js/missing.js" in page.text


async def test_table_page(live: Live) -> None:
    table_id, _ = await live.create()
    r = await live.http.get(f"/t/{table_id}")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    # The page as it is, with the build it belongs to filled in (tests/test_site.py).
    assert r.text == (STATIC_DIR / "table.html").read_text().replace(
        '<meta name="dingo-build" content="">',
        f'<meta name="dingo-build" content="{client_build()}">')


async def test_table_ids_are_random(live: Live) -> None:
    ids = {(await live.create())[0] for _ in range(5)}
    assert len(ids) == 5


def test_every_games_bot_kinds_fit_the_wire() -> None:
    kind = TypeAdapter(BotKind)
    for name in games.names():
        spec = games.get(name)
        assert set(spec.bot_order) == set(spec.bots) and spec.stand_in_bot in spec.bots
        for bot in spec.bots:
            assert kind.validate_python(bot) == bot


@pytest.mark.parametrize("body", [b'{"games_to_win": NaN}', b'{"games_to_win": 1e999}',
                                  b'{"games_to_win": -Infinity}', b'{"points_to_win": Infinity}',
                                  b'{"bots": [{"seat": NaN}]}', b'[NaN, {"a": -1e999}]'])
async def test_nan_or_infinity_in_a_body_is_a_422_that_serialises(live: Live,
                                                                  body: bytes) -> None:
    r = await live.http.post("/api/tables", content=body,
                             headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    inputs = [e.get("input") for e in r.json()["detail"]]
    assert not any(isinstance(i, float) and not math.isfinite(i) for i in inputs), r.text
    assert any(i in ("NaN", "Infinity", "-Infinity") or isinstance(i, list | dict)
               for i in inputs), inputs


@pytest.mark.parametrize("content_type", [
    "text/plain", "application/x-www-form-urlencoded", "application/xml",
    "application/octet-stream", "multipart/form-data; boundary=x", "image/png"])
async def test_a_body_that_is_not_utf8_under_a_non_json_type_is_a_422(live: Live,
                                                                      content_type: str) -> None:
    r = await live.http.post("/api/tables", content=b"\xff\xfe\x00\x80{",
                             headers={"content-type": content_type})
    assert r.status_code == 422, r.text
    assert r.json()["detail"][0]["loc"] == ["body"]


async def test_a_body_nested_below_the_parser_limit_is_a_422(live: Live) -> None:
    deep = b"[" * 900 + b"]" * 900
    r = await live.http.post("/api/tables", content=b'{"bots": ' + deep + b"}",
                             headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    deeper = b"[" * 50_000 + b"]" * 50_000  # past Python's recursion limit: not JSON to it
    r = await live.http.post("/api/tables", content=b'{"bots": ' + deeper + b"}",
                             headers={"content-type": "application/json"})
    assert r.status_code in (400, 422), r.text
