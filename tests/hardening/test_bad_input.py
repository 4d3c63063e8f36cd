"""Bad input at a live table: thousands of generated and mutated frames change nothing.

A table with four seated people is in the middle of a game. Frames built by
hypothesis (junk JSON, mutated messages, wrong tokens, other seats' numbers,
stale versions of legal moves, binary frames, unicode) are sent from the seat
to act and from a spectator. Each one must be answered with an ``error`` (a
valid ``chat`` or ``sync`` with its usual answer), nothing may be logged at
ERROR, the socket must stay open, and at the end every seat's view is exactly
what it was. Frames over the size limit close the socket with 1009.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient, WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from app.api import ws as ws_module
from app.config import Settings
from app.db.migrate import run_migrations
from app.main import create_app

EXAMPLES = 2000
TYPES = ["hello", "sit", "add_bot", "remove_bot", "start", "discard", "pass", "play", "ready",
         "rematch", "chat", "sync"]


class ErrorLog(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class Live:
    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.sockets: list[Any] = []  # the sessions' context managers
        self.sentinel = 0

    def connect(self, table_id: str, token: str | None) -> WebSocketTestSession:
        ctx = self.client.websocket_connect(f"/ws/{table_id}")
        ws = ctx.__enter__()
        self.sockets.append(ctx)
        ws.send_json({"type": "hello", "token": token})
        assert ws.receive_json()["type"] == "welcome"
        assert ws.receive_json()["type"] == "state"
        return ws


def until(ws: WebSocketTestSession, kind: str, id_: str | None = None) -> list[dict[str, Any]]:
    frames = []
    while True:
        frame = ws.receive_json()
        frames.append(frame)
        if frame["type"] == kind and (id_ is None or frame.get("id") == id_):
            return frames


_views = iter(range(10**9))


def view(ws: WebSocketTestSession) -> dict[str, Any]:
    """The socket's current view: read past whatever was queued, up to a sync's answer."""
    ws.send_json({"type": "sync"})
    mark = f"view{next(_views)}"
    ws.send_json({"type": "ready", "id": mark})
    state = [f for f in until(ws, "error", mark) if f["type"] == "state"][-1]
    return {k: v for k, v in state.items() if k not in ("timer", "events")}


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'bad.db'}"
    run_migrations(url)
    # The bulk sends far more than 20 messages a second: the rate limit has its own test.
    limiter = ws_module.RateLimiter
    monkeypatch.setattr(ws_module, "RateLimiter", lambda: limiter(1e9, 10**9, 10**9))
    app = create_app(Settings(database_url=url, reconnect_grace_seconds=600))
    errors = ErrorLog()
    logging.getLogger().addHandler(errors)
    try:
        with TestClient(app) as client:
            live = Live(client)
            body = client.post("/api/tables", json={"games_to_win": 1}).json()
            table_id, host = body["table_id"], body["host_token"]
            seats, tokens = [], []
            for seat in range(4):
                ws = live.connect(table_id, host if seat == 0 else None)
                ws.send_json({"type": "sit", "seat": seat, "name": f"P{seat}", "id": "s"})
                seated = until(ws, "seated")[-1]
                tokens.append(seated["token"] or host)
                until(ws, "ack")
                seats.append(ws)
            seats[0].send_json({"type": "start", "id": "go"})
            until(seats[0], "ack", "go")
            # The spectator first: its arrival is announced to every seat (the count).
            spectator = live.connect(table_id, None)
            states = [view(ws) for ws in seats]
            actor = states[0]["game"]["to_act"]
            yield {"live": live, "seats": seats, "tokens": tokens, "views": states,
                   "actor": actor, "spectator": spectator, "table_id": table_id,
                   "errors": errors, "app": app}
            for ctx in live.sockets:
                with contextlib.suppress(Exception):
                    ctx.__exit__(None, None, None)
    finally:
        logging.getLogger().removeHandler(errors)


json_leaf = (st.none() | st.booleans() | st.integers() | st.integers(2**63, 2**200)
             | st.integers(-(2**200), -(2**63)) | st.floats(allow_nan=False) | st.text(max_size=40)
             | st.sampled_from(["7H", "AS", "AD", "2D", "", "\u202e", "<script>", "0" * 60]))
json_junk = st.recursive(json_leaf, lambda c: st.lists(c, max_size=4)
                         | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12)

TEMPLATES: dict[str, dict[str, Any]] = {
    "hello": {"type": "hello", "token": "x" * 32},
    "sit": {"type": "sit", "seat": 1, "name": "Zed", "id": "a1"},
    "add_bot": {"type": "add_bot", "seat": 2, "kind": "heuristic", "id": "a2"},
    "remove_bot": {"type": "remove_bot", "seat": 3},
    "start": {"type": "start", "id": "a3"},
    "discard": {"type": "discard", "card": "7H", "id": "a4", "v": 3},
    "pass": {"type": "pass", "card": "KS", "id": "a5", "v": 3},
    "play": {"type": "play", "cards": ["7C", "7S"], "id": "a6", "v": 3},
    "ready": {"type": "ready", "id": "r1"},
    "rematch": {"type": "rematch"},
    "chat": {"type": "chat", "text": "hi"},
    "sync": {"type": "sync"},
}


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    message = dict(TEMPLATES[draw(st.sampled_from(TYPES))])
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["set", "drop", "add"]))
        if action == "drop" and message:
            message.pop(draw(st.sampled_from(sorted(message))))
        elif action == "set" and message:
            message[draw(st.sampled_from(sorted(message)))] = draw(json_junk)
        else:
            key = draw(st.sampled_from(["seat", "token", "v", "id", "cards", "card", "type",
                                        "name", "kind", "__proto__", "text"]))
            message[key] = draw(json_junk | st.integers(0, 3) | st.sampled_from(TYPES))
    return message


@st.composite
def stale_legal(draw: st.DrawFn, legal: list[dict[str, Any]], version: int) -> dict[str, Any]:
    choice = draw(st.sampled_from(legal))
    v = draw(st.integers(-5, version - 1) | st.integers(version + 1, 2**62))
    seat = choice["seat"]
    extra = draw(st.sampled_from([{}, {"seat": (seat + 1) % 4}, {"seat": seat}]))
    return {**{k: x for k, x in choice.items() if k != "seat"}, "id": "L1", "v": v, **extra}


frames = st.one_of(
    mutated().map(lambda m: ("json", m)),
    json_junk.map(lambda m: ("json", m)),
    st.text(max_size=200).map(lambda t: ("text", t)),
    st.binary(max_size=200).map(lambda b: ("bytes", b)),
)


def harmless(message: Any, version: int) -> Any:
    """Keep a generated message from being one that may change the table (the point is junk).

    The current version is never sent (so no move can apply), and ``hello`` always
    carries a token (without one, the socket would become a spectator's).
    """
    if isinstance(message, dict):
        v = message.get("v")
        try:
            if v is not None and float(v) == version:
                message["v"] = version + 1
        except (TypeError, ValueError, OverflowError):
            pass
        if message.get("type") == "hello" and not message.get("token"):
            message["token"] = "not-a-token"
    return message


def test_thousands_of_bad_frames_change_nothing(table: dict[str, Any]) -> None:
    live: Live = table["live"]
    actor_ws = table["seats"][table["actor"]]
    spectator = table["spectator"]
    version = table["views"][0]["v"]
    legal = table["views"][table["actor"]]["game"]["legal"]
    assert legal
    tally: dict[str, int] = {}

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(frame=st.one_of(frames, stale_legal(legal, version).map(lambda m: ("json", m))),
           from_actor=st.booleans())
    def one(frame: tuple[str, Any], from_actor: bool) -> None:
        ws = actor_ws if from_actor else spectator
        kind, payload = frame
        if kind == "json":
            payload = harmless(payload, version)
            text = json.dumps(payload)
        elif kind == "text":
            text = payload
        if kind == "bytes":
            ws.send_bytes(payload)
        else:
            if len(text.encode("utf-8", "surrogatepass")) > 4000:
                return  # the size limit has its own test
            try:
                ws.send_text(text)
            except UnicodeEncodeError:
                return  # a lone surrogate cannot be sent as a text frame at all
        live.sentinel += 1
        sentinel = f"zzsentinel{live.sentinel}"
        ws.send_json({"type": "ready", "id": sentinel})
        got = until(ws, "error", sentinel)
        answers, end = got[:-1], got[-1]
        assert end["code"] in ("not_now", "not_seated") and end["v"] == version, end
        own = payload.get("type") if isinstance(payload, dict) else None
        # Chat lines of the other socket are broadcast to this one too: not answers.
        answers = [a for a in answers if a["type"] != "chat" or own == "chat"]
        assert answers, f"no answer to {frame!r}"
        for answer in answers:
            ok = answer["type"] == "error" or (
                answer["type"] == own and own in ("chat", "state", "sync"))
            ok = ok or (own == "sync" and answer["type"] == "state")
            assert ok, (frame, answer)
            if answer["type"] == "error":
                assert answer["v"] in (None, version), answer
            code = answer.get("code", answer["type"])
            tally[code] = tally.get(code, 0) + 1

    started = time.monotonic()
    one()
    elapsed = time.monotonic() - started
    for ws, before in zip(table["seats"], table["views"], strict=True):
        assert view(ws) == before
    assert not table["errors"].records, [r.getMessage() for r in table["errors"].records]
    # The bulk really reached the interesting refusals.
    for code in ("malformed", "unknown_type", "stale_version", "bad_token", "not_seated"):
        assert tally.get(code, 0) > 0, tally
    print(f"\n{EXAMPLES} examples in {elapsed:.1f} s: {sorted(tally.items())}")


@pytest.mark.parametrize("size", [4097, 10_000, 1_000_000])
def test_a_frame_over_the_size_limit_closes_with_1009(table: dict[str, Any], size: int) -> None:
    live: Live = table["live"]
    ws = live.connect(table["table_id"], None)
    ws.send_text('{"type":"chat","text":"' + "a" * size + '"}')
    assert ws.receive_json()["code"] == "too_large"
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == 1009
    for seat_ws, before in zip(table["seats"], table["views"], strict=True):
        assert view(seat_ws) == before
