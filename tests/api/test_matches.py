"""History API over a real database: search and pages, one match, a game's replay, 404s."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote_from_bytes

import httpx
import pytest
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from matchdb import POSTGRES, SQLITE, in_thread, migrated_database, play_match_record
from starlette.testclient import TestClient

from app.config import Settings
from app.db.store import SqlStore, create_store
from app.game import Game, parse_card
from app.main import create_app

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
NAMES = [
    ("Ann", "Bob", "Cid", "Dee"),
    ("anna", "Émile", "Bot 1", "Bot 2"),
    ("Joan", "Bob", "100%_x", "Zed"),
    ("ÉMILIE", "Kai", "Lu", "Mo"),
    ("Bob", "Cid", "Dee", "Eve"),
]


def _records() -> list[dict[str, Any]]:
    records = []
    for i in range(25):
        table = "tab-A" if i < 10 else ("tab-B" if i % 2 == 0 else "tab-C")
        # The last two end at the same moment: the later id comes first.
        ended = T0 + timedelta(minutes=min(i, 23))
        records.append(play_match_record(
            1000 + i, table_id=table, names=NAMES[i % 5], ended_at=ended,
            games_to_win=3 if i == 7 else 1))
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
    """A database holding RECORDS, once per module and backend (the tests only read)."""
    server = request.getfixturevalue("postgres_url") if request.param == POSTGRES else None
    with migrated_database(request.param, tmp_path_factory.mktemp("history"), server) as url:
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


def newest_first(stored: Stored) -> list[int]:
    return [i for i, r in sorted(stored, key=lambda s: (s[1]["ended_at"], s[0]), reverse=True)]


async def test_list_is_newest_first_and_paginated(client: httpx.AsyncClient,
                                                  stored: Stored) -> None:
    expected = newest_first(stored)
    seen: list[int] = []
    offset: int | None = 0
    while offset is not None:
        r = await client.get("/api/matches", params={"limit": 10, "offset": offset})
        assert r.status_code == 200, r.text
        page = r.json()
        assert page["total"] == 25 and page["limit"] == 10 and page["offset"] == offset
        seen += [m["id"] for m in page["items"]]
        offset = page["next_offset"]
    assert seen == expected
    default = (await client.get("/api/matches")).json()
    assert [m["id"] for m in default["items"]] == expected[:20]
    assert default["next_offset"] == 20


async def test_summary_fields(client: httpx.AsyncClient, stored: Stored) -> None:
    match_id, record = stored[7]
    item = next(m for m in (await client.get("/api/matches?table=tab-A")).json()["items"]
                if m["id"] == match_id)
    assert item == {
        "id": match_id, "table_id": "tab-A",
        "started_at": record["started_at"].replace("+00:00", "Z"),
        "ended_at": record["ended_at"].replace("+00:00", "Z"),
        "players": [{"seat": p["seat"], "name": p["name"], "bot": p["bot"],
                     "strength": p.get("strength")} for p in record["players"]],
        "game_wins": record["game_wins"], "totals": record["totals"],
        "winner": record["winner"],
        # Added when other games came: which game, and what decided the match.
        "game": "dingo", "game_title": "Dingo", "seats": 4,
        "rule": "first to win 3 games", "standing": record["game_wins"],
        "standing_unit": {"one": "game won", "other": "games won"},
        # Added with the seats' holders: nobody else held a seat in this match.
        "earlier": [],
    }


@pytest.mark.parametrize(("player", "names"), [
    ("an", {"Ann", "anna"}),  # a prefix, any case: not Joan
    ("ANN", {"Ann", "anna"}),
    ("anna", {"anna"}),
    ("émil", {"Émile", "ÉMILIE"}),  # beyond ASCII too
    ("  bob ", {"Bob"}),
    ("100%", {"100%_x"}),  # % and _ are plain characters
    ("%", set()),
    ("_", set()),
    ("bot 1", {"Bot 1"}),
    ("zz", set()),
])
async def test_filter_by_player_name_prefix(client: httpx.AsyncClient, stored: Stored,
                                            player: str, names: set[str]) -> None:
    page = (await client.get("/api/matches", params={"player": player, "limit": 100})).json()
    expected = [i for i in newest_first(stored)
                if names & {p["name"] for p in dict(stored)[i]["players"]}]
    assert [m["id"] for m in page["items"]] == expected
    assert page["total"] == len(expected)


async def test_filter_by_table_and_player_with_pages(client: httpx.AsyncClient,
                                                     stored: Stored) -> None:
    expected = [i for i in newest_first(stored) if dict(stored)[i]["table_id"] == "tab-B"
                and "Bob" in {p["name"] for p in dict(stored)[i]["players"]}]
    assert len(expected) > 2
    first = (await client.get("/api/matches", params={"table": "tab-B", "player": "bob",
                                                      "limit": 2})).json()
    assert first["total"] == len(expected) and first["next_offset"] == 2
    rest = (await client.get("/api/matches", params={"table": "tab-B", "player": "bob",
                                                     "limit": 100, "offset": 2})).json()
    assert [m["id"] for m in first["items"] + rest["items"]] == expected
    assert rest["next_offset"] is None
    assert (await client.get("/api/matches?table=tab")).json()["total"] == 0  # exact only


def _words(record: dict[str, Any]) -> list[str]:
    """Every word of every player's name, folded as the search folds them."""
    return [word.casefold() for p in record["players"] for word in p["name"].split()]


@pytest.mark.parametrize(("player", "terms"), [
    ("Ann Bob", ["ann", "bob"]),
    ("bob   CID dee", ["bob", "cid", "dee"]),
    ("bob eve", ["bob", "eve"]),
    ("émil kai", ["émil", "kai"]),
    ("bob 100%", ["bob", "100%"]),  # % is a plain character in every word
    ("bob %", []),
    ("ann zed", []),
])
async def test_several_names_find_matches_with_all_of_them(
        client: httpx.AsyncClient, stored: Stored, player: str, terms: list[str]) -> None:
    page = (await client.get("/api/matches", params={"player": player, "limit": 100})).json()
    expected = [i for i in newest_first(stored) if terms
                and all(any(w.startswith(t) for w in _words(dict(stored)[i])) for t in terms)]
    assert [m["id"] for m in page["items"]] == expected
    assert page["total"] == len(expected)
    if terms:
        assert expected, "the case should find something"
        # Fewer names find at least as many matches.
        one = (await client.get("/api/matches", params={"player": terms[0]})).json()
        assert one["total"] > len(expected) or len(terms) == 1


@pytest.mark.parametrize("table", [
    "tab-A", "  tab-A ", "http://test/t/tab-A", "https://dingo.example/t/tab-A?x=1#seat",
    "dingo.example/t/tab-A/", " http://127.0.0.1:8000/t/tab-A ",
])
async def test_a_pasted_table_link_or_code_finds_its_matches(client: httpx.AsyncClient,
                                                             stored: Stored, table: str) -> None:
    page = (await client.get("/api/matches", params={"table": table, "limit": 100})).json()
    expected = [i for i in newest_first(stored) if dict(stored)[i]["table_id"] == "tab-A"]
    assert len(expected) == 10
    assert [m["id"] for m in page["items"]] == expected
    other = (await client.get("/api/matches", params={"table": "http://test/t/tab-Z"})).json()
    assert other["total"] == 0 and other["items"] == []


@pytest.mark.parametrize(("dates", "count"), [
    ({"from": "2026-11-01"}, 25),
    ({"to": "2026-11-01"}, 25),  # the whole last day is in
    ({"from": "2026-11-01", "to": "2026-11-01"}, 25),
    ({"from": "2026-10-01", "to": "2026-10-31"}, 0),
    ({"from": "2026-11-02"}, 0),
    ({"to": "2026-10-31"}, 0),
    ({"from": "2026-11-02", "to": "2026-11-01"}, 0),  # backwards: nothing, not an error
    ({"to": "9999-12-31"}, 25),
    # The searcher's days: they ended at about 12:00 UTC on 2026-11-01, which is 02:00 on
    # the 2nd at UTC+14 and 22:00 on 31 October at UTC-14.
    ({"from": "2026-11-02", "to": "2026-11-02", "tz": "840"}, 25),
    ({"from": "2026-11-01", "to": "2026-11-01", "tz": "840"}, 0),
    ({"from": "2026-10-31", "to": "2026-10-31", "tz": "-840"}, 25),
    ({"to": "2026-10-31", "tz": "-840"}, 25),
    ({"from": "2026-11-01", "tz": "-840"}, 0),
    ({"from": "0001-01-01", "tz": "840"}, 25),  # (before the first instant there is)
])
async def test_date_range(client: httpx.AsyncClient, dates: dict[str, str], count: int) -> None:
    r = await client.get("/api/matches", params={**dates, "limit": 100})
    assert r.status_code == 200, r.text
    assert r.json()["total"] == count and len(r.json()["items"]) == count


async def test_date_bounds_in_the_repository(app: FastAPI, stored: Stored) -> None:
    """``ended_from`` is included and ``ended_before`` excluded, to the second."""
    from app.db import repository

    async with app.state.db_sessionmaker() as session:
        page = await repository.list_matches(
            session, ended_from=T0 + timedelta(minutes=5),
            ended_before=T0 + timedelta(minutes=9), player="bob", limit=100)
    expected = [i for i in newest_first(stored)
                if T0 + timedelta(minutes=5) <= datetime.fromisoformat(dict(stored)[i]["ended_at"])
                < T0 + timedelta(minutes=9) and "bob" in _words(dict(stored)[i])]
    assert expected and [m.id for m in page.matches] == expected and page.total == len(expected)


@pytest.mark.parametrize("params", [
    {"offset": 25}, {"offset": 1000}, {"offset": 2**31 - 1},
    {"offset": 40, "player": "bob"}, {"offset": 3, "table": "tab-A", "limit": 10},
])
async def test_paging_past_the_end_is_an_empty_page_with_the_same_total(
        client: httpx.AsyncClient, params: dict[str, Any]) -> None:
    filters = {k: v for k, v in params.items() if k in ("player", "table")}
    total = (await client.get("/api/matches", params=filters)).json()["total"]
    page = (await client.get("/api/matches", params=params)).json()
    assert total > 0 and page["total"] == total and page["offset"] == params["offset"]
    if params["offset"] >= total:
        assert page["items"] == [] and page["next_offset"] is None
    else:
        assert page["items"] and page["offset"] + len(page["items"]) <= total


@pytest.mark.parametrize("query", [
    "limit=0", "limit=101", "offset=-1", "limit=x", "player=", "player=%20%20", "table=",
    "player=" + "a" * 201, "table=%20", "player=%00", "player=%00%20%01", "from=2026-13-01",
    "to=yesterday", "from=1", "to=0", "from=2026-02-30", "to=2026-1-01", "from=%202026-01-01",
    "tz=841", "tz=-841", "tz=1.5", "tz=utc",
])
async def test_bad_list_parameters_are_422(client: httpx.AsyncClient, query: str) -> None:
    r = await client.get(f"/api/matches?{query}")
    assert r.status_code == 422, r.text


@pytest.mark.parametrize(("query", "same_as"), [
    ("player=bob%00", "player=bob"), ("player=bob%00cid", "player=bob+cid"),
    ("player=%01ann%1f", "player=ann"),
    ("table=%00", "table=nothing"), ("table=tab-A%00", "table=nothing"),
    ("table=http://x/t/%00", "table=nothing"),
])
async def test_a_control_character_in_a_search_is_a_space_or_names_no_table(
        client: httpx.AsyncClient, query: str, same_as: str) -> None:
    """No name or table code holds one; PostgreSQL could not even compare a NUL (it was
    HTTP 500 there)."""
    r = await client.get(f"/api/matches?{query}")
    assert r.status_code == 200, r.text
    assert r.json() == (await client.get(f"/api/matches?{same_as}")).json()


def test_generated_history_queries_never_give_a_5xx(history: tuple[str, Stored]) -> None:
    """Every list parameter at once, each any text or raw bytes (NUL, control characters,
    invalid UTF-8, LIKE wildcards, huge numbers), on both backends: never a 5xx, a 4xx is
    JSON, and a page never contradicts its total."""
    seen: dict[int, int] = {}
    app = create_app(Settings(database_url=history[0]))
    with TestClient(app) as web:

        @settings(max_examples=QUERY_EXAMPLES, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(query=st.fixed_dictionaries({}, optional=QUERY_FIELDS)
               | st.sampled_from(["player", "table"]).flatmap(junk_search))
        def one(query: dict[str, bytes]) -> None:
            encoded = "&".join(f"{k}={quote_from_bytes(v)}" for k, v in query.items())
            r = web.get(f"/api/matches?{encoded}")
            seen[r.status_code] = seen.get(r.status_code, 0) + 1
            assert r.status_code < 500, (encoded, r.text[:300])
            body = r.json()
            if r.status_code == 200:
                assert len(body["items"]) <= body["limit"] and body["offset"] + len(
                    body["items"]) <= max(body["total"], body["offset"])

        one()
    assert seen.get(200, 0) > QUERY_EXAMPLES // 4 and seen.get(422, 0) > 0, seen
    print(f"\n{QUERY_EXAMPLES} history queries: {sorted(seen.items())}")


QUERY_EXAMPLES = 300
junk = st.one_of(
    st.text(st.characters(codec="utf-8"), max_size=30).map(str.encode),
    st.binary(max_size=30),
    st.sampled_from([b"\x00", b"bob\x00", b"\x00\x01", b"1e999", b"NaN", b"-1", b"2147483648"]),
)
#: Well-formed values of each list parameter, so that a junk search reaches the database.
WELL_FORMED = {
    "player": st.sampled_from([b"ann bob", b"100%", b"_", b"\\", b"\xc3\x89mile"]),
    "table": st.sampled_from([b"tab-A", b"http://x/t/tab-A", b"/t/", b"tab-A\x00"]),
    "game": st.sampled_from([b"dingo", b"mate", b"nope"]),
    "from": st.sampled_from([b"2026-11-01", b"0001-01-01"]),
    "to": st.sampled_from([b"2026-11-01", b"9999-12-31"]),
    "limit": st.integers(1, 100).map(lambda n: str(n).encode()),
    "offset": st.integers(0, 30).map(lambda n: str(n).encode()),
}
QUERY_FIELDS = {name: value | junk for name, value in WELL_FORMED.items()}


def junk_search(field: str) -> st.SearchStrategy[dict[str, bytes]]:
    """A search of junk in ``field``, every other parameter well-formed or left out."""
    return st.fixed_dictionaries({field: junk}, optional={
        name: value for name, value in WELL_FORMED.items() if name != field})


async def test_match_detail(client: httpx.AsyncClient, stored: Stored) -> None:
    match_id, record = stored[7]  # three games won
    r = await client.get(f"/api/matches/{match_id}")
    assert r.status_code == 200, r.text
    detail = r.json()
    assert detail["seed"] == record["seed"] and detail["options"] == record["options"]
    assert detail["game_wins"] == record["game_wins"] and max(detail["game_wins"]) == 3
    assert detail["totals"] == record["totals"] and detail["winner"] == record["winner"]
    assert [p["name"] for p in detail["players"]] == list(NAMES[7 % 5])
    assert [p["strength"] for p in detail["players"]] == [None, None, "hard", None]
    assert len(detail["games"]) == len(record["games"]) >= 3
    for game, want in zip(detail["games"], record["games"], strict=True):
        # People played it: its advice is waiting for the background worker (off here).
        assert game == {**want, "replay_url":
                        f"/api/matches/{match_id}/games/{want['number']}/replay",
                        "advice": "pending", "mistakes": None,
                        # A record without holders: the match's players held the seats.
                        "holders": [[{"name": p["name"], "bot": p["bot"],
                                      "strength": p.get("strength"), "since": 0}]
                                    for p in record["players"]]}


def _all_cards(frame: dict[str, Any]) -> list[str]:
    cards = [c for hand in frame["hands"] for c in hand] + frame["discards"]
    cards += frame["rabbits"] + frame["dead_rabbits"]
    cards += [c for pile in frame["score_piles"] + frame["penalty_piles"] for c in pile]
    hunt = frame["hunt"]
    if hunt is not None:
        cards += [c for play in hunt["plays"] for c in play["cards"]]
        if hunt["rank"] != "A":
            cards.append(hunt["rabbit"])
    return cards


async def test_replay_of_every_game_of_a_match(client: httpx.AsyncClient,
                                                stored: Stored) -> None:
    match_id, record = stored[7]
    for game in record["games"]:
        r = await client.get(f"/api/matches/{match_id}/games/{game['number']}/replay")
        assert r.status_code == 200, r.text
        replay = r.json()
        engine = Game([[parse_card(c) for c in h] for h in game["hands"]], game["dealer"])
        assert replay["deal"]["hands"] == [engine.hand(s) for s in range(4)]
        assert replay["deal"]["dealer"] == game["dealer"]
        assert [p["name"] for p in replay["players"]] == list(NAMES[7 % 5])
        assert [s["action"] for s in replay["steps"]] == game["actions"]

        previous = replay["deal"]
        gained = [0, 0, 0, 0]
        for step in replay["steps"]:
            cards = _all_cards(step)
            assert len(cards) == 52 and len(set(cards)) == 52, step["index"]
            action = step["action"]
            played = [action["card"]] if "card" in action else action["cards"]
            assert all(c in previous["hands"][action["seat"]] for c in played)
            assert not any(c in step["hands"][action["seat"]] for c in played)
            for event in step["events"]:
                if event["type"] == "pass":
                    assert event["card"] == action["card"]
                    assert action["card"] in step["hands"][event["to"]]
                if event["type"] == "discard":
                    assert event["card"] == action["card"] == step["discards"][-1]
            for change in step["score_changes"]:
                gained = [g + p for g, p in zip(gained, change["points"], strict=True)]
                assert change["explanation"]
            assert step["scores"] == gained
            previous = step
        assert sum(len(s["score_changes"]) for s in replay["steps"]) == 13  # 2 up to ace
        assert replay["steps"][-1]["scores"] == game["scores"] == replay["result"]["scores"]
        assert replay["result"]["winner"] == game["winner"]
        assert replay["steps"][-1]["to_act"] is None


@pytest.mark.parametrize(("path", "code"), [
    ("/api/matches/999999", "unknown_match"),
    ("/api/matches/999999/games/1/replay", "unknown_match"),
])
async def test_unknown_match_is_404(client: httpx.AsyncClient, path: str, code: str) -> None:
    r = await client.get(path)
    assert r.status_code == 404
    assert r.json()["detail"]["code"] == code
    assert "999999" in r.json()["detail"]["message"]


async def test_unknown_game_is_404(client: httpx.AsyncClient, stored: Stored) -> None:
    match_id, record = stored[0]
    r = await client.get(f"/api/matches/{match_id}/games/{len(record['games']) + 1}/replay")
    assert r.status_code == 404
    assert r.json()["detail"] == {"code": "unknown_game", "message":
                                  f"match {match_id} has no game {len(record['games']) + 1}"}


@pytest.mark.parametrize("path", [
    "/api/matches/abc", "/api/matches/0", "/api/matches/99999999999",
    "/api/matches/1/games/0/replay", "/api/matches/1/games/x/replay",
    "/api/matches/1/games/40000/replay",
])
async def test_bad_ids_are_422(client: httpx.AsyncClient, path: str) -> None:
    assert (await client.get(path)).status_code == 422


async def test_the_app_opens_a_sql_store_on_its_engine(app: FastAPI) -> None:
    assert isinstance(app.state.store, SqlStore)
    assert app.state.store.engine is app.state.db_engine
