"""Classes of hostile HTTP, generated in process: no 5xx, every 4xx is JSON.

The inputs fuzzing found (tests/hardening/test_hostile_http.py) are examples of
two classes, generated here by hypothesis against the real app under
Starlette's TestClient (a migrated SQLite file; server exceptions are raised,
so a 500 fails the test twice over):

- ``Origin`` headers of any printable ASCII (brackets, colons, slashes, ``null``,
  schemes and hosts cut anywhere) on the WebSocket handshake: refused before the
  socket opens, or accepted when it is the server's own; never an error;
- bodies of ``POST /api/tables``: JSON with NaN, infinities, huge numbers, deep
  nesting and random content, bytes that are not UTF-8, under random content
  types: never a 5xx, and every 4xx body is valid JSON.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hardeningkit import ErrorLog, server_recursion_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app.config import Settings
from app.db.migrate import run_migrations
from app.main import create_app

ORIGIN_EXAMPLES = 400
BODY_EXAMPLES = 600


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fuzz.db'}"
    run_migrations(url)
    errors = ErrorLog()
    logging.getLogger().addHandler(errors)
    try:
        with TestClient(create_app(Settings(database_url=url))) as c:
            yield c
        assert not errors.records, [r.getMessage() for r in errors.records]
    finally:
        logging.getLogger().removeHandler(errors)


printable = st.characters(min_codepoint=0x20, max_codepoint=0x7E)
origin_parts = st.sampled_from(["http://", "https://", "ws://", "://", "[", "]", "[::1", "::1]",
                                ":", "/", "testserver", "null", "%", "@", "?", "#", ":80",
                                "evil.example", "[v1.x]", "\\", " "])
#: A URL whose host part is made of brackets, colons and the like: often one that
#: ``urlsplit`` cannot read at all (the class of ``http://[``: HTTP 500 before the fix).
host_pieces = st.sampled_from(["[", "]", "[::1", "::1]", "[::1]", ":", "[v1.x]", "x", "1", "%",
                               "@", "testserver"]) | st.text(printable, max_size=3)
bracketed = st.tuples(st.sampled_from(["http://", "https://", "ws://", "//", ""]),
                      st.lists(host_pieces, min_size=1, max_size=5).map("".join),
                      st.sampled_from(["", "/", ":80", "?q", "#f", "/x]"])).map("".join)
origins = st.one_of(
    st.just("http://testserver"),  # the server's own: accepted
    st.text(printable, max_size=60),
    st.lists(origin_parts | st.text(printable, max_size=5), max_size=8).map("".join),
    bracketed,
)


def unparsable(origin: str) -> bool:
    try:
        urlsplit(origin)
    except ValueError:
        return True
    return False


def test_generated_origin_headers_never_give_an_error(client: TestClient) -> None:
    table_id = client.post("/api/tables", json={}).json()["table_id"]
    seen = {"refused": 0, "accepted": 0, "not a URL": 0}

    @settings(max_examples=ORIGIN_EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(origin=origins)
    @server_recursion_limit()
    def one(origin: str) -> None:
        try:
            with client.websocket_connect(f"/ws/{table_id}", headers={"origin": origin}) as ws:
                ws.send_json({"type": "hello", "token": None})
                assert ws.receive_json()["type"] == "welcome"
                seen["accepted"] += 1
        except WebSocketDisconnect as refused:
            # Closed before accept: a server answers the handshake with HTTP 403.
            assert refused.code == 1008, (origin, refused.code)
            seen["refused"] += 1
            seen["not a URL"] += unparsable(origin)

    one()
    r = client.get("/healthz")
    assert r.status_code < 500
    assert seen["refused"] > ORIGIN_EXAMPLES // 2 and seen["accepted"] > 0, seen
    assert seen["not a URL"] >= ORIGIN_EXAMPLES // 20, seen  # the class is really tried
    print(f"\n{ORIGIN_EXAMPLES} origins: {seen}")


huge = st.integers(2**63, 2**400) | st.integers(-(2**400), -(2**63))
odd_numbers = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e-999",
                               "-0", "0.0", "1E400", "123456789" * 30])
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | huge | st.floats()
    | st.text(st.characters(codec="utf-8"), max_size=30),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(
        st.sampled_from(["games_to_win", "points_to_win", "open_discards", "turn_seconds",
                         "bots", "seat", "kind"]) | st.text(max_size=6), c, max_size=5),
    max_leaves=15)
FIELDS = ["games_to_win", "points_to_win", "open_discards", "turn_seconds", "bots"]


def dumps(value: object) -> str:
    """JSON as Python writes it: NaN and infinities as the bare words JSON lacks."""
    return json.dumps(value, allow_nan=True)


@st.composite
def body(draw: st.DrawFn) -> bytes:
    shape = draw(st.sampled_from(["object", "any", "odd", "deep", "bytes", "text"]))
    if shape == "object":  # the create options, each field any value
        fields = draw(st.lists(st.sampled_from(FIELDS), unique=True, max_size=5))
        return dumps({f: draw(json_value) for f in fields}).encode()
    if shape == "any":
        return dumps(draw(json_value)).encode()
    if shape == "odd":  # numbers JSON cannot hold, spelled out in a field
        field = draw(st.sampled_from(FIELDS))
        number = draw(odd_numbers)
        inner = draw(st.sampled_from(["{}", '[{}]', '[{"seat": {}}]', '{"x": {}}']))
        value = inner.replace("{}", number, 1) if field == "bots" else number
        return f'{{"{field}": {value}}}'.encode()
    if shape == "deep":
        depth = draw(st.integers(1, 3000) | st.integers(800, 1100))
        opener = draw(st.sampled_from(["[", '{"bots":', '{"a":', "[1,"]))
        closer = "]" if opener.startswith("[") else "}"
        core = draw(odd_numbers | st.just("0"))
        return ('{"bots":' + opener * depth + core + closer * depth + "}").encode()
    if shape == "bytes":
        return draw(st.binary(max_size=300))
    return draw(st.text(st.characters(codec="utf-8"), max_size=200)).encode()


content_types = st.sampled_from([
    "application/json", "application/json; charset=latin-1", "text/plain", "text/json",
    "application/x-www-form-urlencoded", "application/xml", "application/octet-stream",
    "multipart/form-data; boundary=x", "multipart/form-data", "image/png", "",
    "application/vnd.api+json", "application/json; charset=utf-16"]) | st.text(printable,
                                                                             max_size=30)


def test_generated_bodies_for_a_new_table_never_give_a_5xx(client: TestClient) -> None:
    statuses: dict[int, int] = {}

    @settings(max_examples=BODY_EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(content=body(), content_type=content_types)
    @server_recursion_limit()
    def one(content: bytes, content_type: str) -> None:
        r = client.post("/api/tables", content=content,
                        headers={"content-type": content_type})
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        assert r.status_code < 500, (content[:200], content_type, r.text[:500])
        if 400 <= r.status_code < 500:
            r.json()  # valid JSON, whatever the input held
            json.loads(r.content, parse_constant=_no_constants)

    one()
    assert statuses.get(422, 0) > BODY_EXAMPLES // 4, statuses
    print(f"\n{BODY_EXAMPLES} bodies: {sorted(statuses.items())}")


def _no_constants(word: str) -> None:
    raise AssertionError(f"a 4xx body holds {word}, which is not JSON")
