"""The WebSocket endpoint ``/ws/{table_id}``: frames in, table calls out.

This layer only turns frames into validated messages (size cap, rate limit,
JSON, the pydantic union) and hands them to the table; the table answers and
builds everything a client receives. An invalid frame is answered with an
error and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol
from urllib.parse import urlsplit

import orjson
from fastapi import APIRouter, WebSocket
from pydantic import ValidationError

from app.api.schemas import (
    CLIENT_MESSAGE,
    CLIENT_TYPES,
    GAME_ACTION,
    Chat,
    ClientMessage,
    GameAction,
    Hello,
    Ping,
    Sync,
)
from app.config import Settings
from app.observability import Metrics
from app.table import messages
from app.table.client import Client
from app.table.manager import OwnershipUnavailable, TableManager
from app.table.ports import ServiceUnavailable
from app.table.table import Table

if TYPE_CHECKING:  # the relay (app.cluster) is imported only when REDIS_URL is set
    from app.cluster.relay import Relay

router = APIRouter()

CLOSE_POLICY = 1008
CLOSE_TOO_LARGE = 1009
CLOSE_UNKNOWN_TABLE = 4404
#: "Try again later" (RFC 6455): a service the processes share, or the database, cannot be
#: reached.
CLOSE_TRY_AGAIN = 1013
#: Sustained messages per second a connection may send, and the burst above it: far
#: above what a person (or a bot answering at once, as in the load benchmark) sends.
RATE_PER_SECOND = 50.0
RATE_BURST = 100
#: Refused messages (decaying at the same rate) after which a flood is disconnected.
FLOOD_STRIKES = 400
CLOSE_FLUSH_SECONDS = 2.0
_INTENT_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,40}")
#: A page's liveness probe (docs/protocol.md, "A socket can die without closing"): the
#: exact text, answered by the process that holds the socket, before any table is asked.
_PING = '{"type":"ping"}'
_PONG = messages.encode({"type": "pong"})


class SocketConnection:
    """``app.table.client.Connection`` over a Starlette WebSocket (text frames)."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket

    async def send_bytes(self, data: bytes) -> None:
        await self.websocket.send_text(data.decode())

    async def close(self, code: int, reason: str) -> None:
        await self.websocket.close(code, reason)


class RateLimiter:
    """A token bucket per connection.

    ``check`` answers None (go ahead), "limited" (refuse and say so), "quiet"
    (refuse without answering: the client was told less than a second ago, and
    answering every message of a flood would only amplify it) or "flood".
    """

    def __init__(self, rate: float = RATE_PER_SECOND, burst: int = RATE_BURST,
                 flood: int = FLOOD_STRIKES) -> None:
        self.rate, self.burst, self.flood = rate, burst, flood
        self.tokens = float(burst)
        self.strikes = 0.0
        self.last = self.warned = time.monotonic() - 1.0

    def check(self) -> str | None:
        now = time.monotonic()
        elapsed, self.last = now - self.last, now
        self.tokens = min(self.burst, self.tokens + elapsed * self.rate)
        self.strikes = max(0.0, self.strikes - elapsed * self.rate)
        if self.tokens >= 1:
            self.tokens -= 1
            return None
        self.strikes += 1
        if self.strikes > self.flood:
            return "flood"
        if now - self.warned < 1.0:
            return "quiet"
        self.warned = now
        return "limited"


class Caps(Protocol):
    """Open sockets per table and per client address, each with a ceiling: this
    process's ``ConnectionCaps``, or ``app.cluster.caps.ServiceCaps`` over every process
    of the service (``REDIS_URL``; set up in ``app.main``'s lifespan)."""

    async def acquire(self, table_id: str, address: str) -> str | None: ...

    async def release(self, table_id: str, address: str) -> None: ...


class ConnectionCaps:
    """``Caps`` counted in this process (one server: the whole service).

    One per app (``app.state``); the event loop is single-threaded, so a plain
    counter is enough. ``acquire`` either counts the socket on both or on neither.
    """

    def __init__(self, per_table: int, per_address: int) -> None:
        self.per_table, self.per_address = per_table, per_address
        self.tables: dict[str, int] = {}
        self.addresses: dict[str, int] = {}

    async def acquire(self, table_id: str, address: str) -> str | None:
        """None if the socket may stay (and is now counted), else why not."""
        if self.tables.get(table_id, 0) >= self.per_table:
            return "table"
        if self.addresses.get(address, 0) >= self.per_address:
            return "address"
        self.tables[table_id] = self.tables.get(table_id, 0) + 1
        self.addresses[address] = self.addresses.get(address, 0) + 1
        return None

    async def release(self, table_id: str, address: str) -> None:
        for counts, key in ((self.tables, table_id), (self.addresses, address)):
            left = counts.get(key, 0) - 1
            if left > 0:
                counts[key] = left
            else:
                counts.pop(key, None)


def connection_caps(websocket: WebSocket, settings: Settings) -> Caps:
    caps: Caps | None = getattr(websocket.app.state, "connection_caps", None)
    if caps is None:
        caps = ConnectionCaps(settings.max_connections_per_table,
                              settings.max_connections_per_address)
        websocket.app.state.connection_caps = caps
    return caps


def origin_allowed(websocket: WebSocket, allowed: list[str]) -> bool:
    """Browsers send ``Origin``: accept our own host and the configured origins only.

    An ``Origin`` that is not a URL at all (``http://[``) is as foreign as any other:
    refused, never an error.
    """
    origin = websocket.headers.get("origin")
    if origin is None:
        return True  # not a browser; tokens still guard every seat
    if origin.rstrip("/") in allowed:
        return True
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:  # urlsplit refuses unbalanced IPv6 brackets and the like
        return False
    return bool(netloc) and netloc == websocket.headers.get("host")


async def table_socket(websocket: WebSocket) -> None:
    table_id: str = websocket.path_params["table_id"]
    settings: Settings = websocket.app.state.settings
    if not origin_allowed(websocket, settings.allowed_origins):
        await websocket.close(CLOSE_POLICY, "origin not allowed")
        return
    manager: TableManager = websocket.app.state.tables
    metrics: Metrics = websocket.app.state.metrics
    await websocket.accept()
    metrics.connections.inc()
    client = Client(SocketConnection(websocket), manager.config.send_queue_size)
    caps = connection_caps(websocket, settings)
    address = websocket.client.host if websocket.client else "?"
    try:
        over = await caps.acquire(table_id, address)
    except ServiceUnavailable:  # several processes, and the shared counts are out of reach
        over = "unavailable"
    if over is not None:
        try:
            if over == "unavailable":
                _refuse(client, metrics, "service_unavailable",
                        "the server cannot count connections right now; retry shortly")
                client.close(CLOSE_TRY_AGAIN, "service unavailable")
            else:
                _refuse(client, metrics, "too_many_connections",
                        f"too many connections to this {over}; close one and retry")
                client.close(CLOSE_POLICY, "too many connections")
            await client.wait_closed(CLOSE_FLUSH_SECONDS)
        finally:
            await client.stop()
            metrics.connections.dec()
        return
    relay: Relay | None = getattr(websocket.app.state, "relay", None)
    if relay is not None:
        # Several processes (REDIS_URL): the table may be owned by another one.
        try:
            await relay.serve(websocket, table_id)
        finally:
            await _release(caps, table_id, address)
            await client.stop()
            metrics.connections.dec()
        return
    table = None
    try:
        try:
            found = await manager.locate(table_id)  # one process: a Table or None
            table = found if isinstance(found, Table) else None
        except OwnershipUnavailable:  # its log cannot be read now (the reason is logged)
            _refuse(client, metrics, "service_unavailable",
                    "the table cannot be reached right now; retry shortly")
            client.close(CLOSE_TRY_AGAIN, "service unavailable")
            await client.wait_closed(CLOSE_FLUSH_SECONDS)
            return
        if table is None:
            _refuse(client, metrics, "unknown_table", "no live table has this id")
            client.close(CLOSE_UNKNOWN_TABLE, "unknown table")
            await client.wait_closed(CLOSE_FLUSH_SECONDS)
            return
        reader = asyncio.current_task()
        assert reader is not None
        # A peer that stopped reading is cut off by its Client (4008), but its socket may
        # never report a disconnect (its TCP window stays full). Stop reading it as soon
        # as the reader is idle, so the seat leaves (and a bot covers it after the grace)
        # instead of hanging on the stuck socket. Never interrupt a frame being handled.
        client.on_abort = lambda: reader.cancel() if client.reading else None
        await read_socket(websocket, LocalRoute(table, client, metrics), settings, metrics)
    finally:
        await _release(caps, table_id, address)
        if table is not None:
            await table.leave(client)
        await client.stop()
        metrics.connections.dec()


async def _release(caps: Caps, table_id: str, address: str) -> None:
    """Count a closed socket no more. Shared counts out of reach: nothing to do, since
    a process's counts stop counting by themselves once its heartbeats stop reaching
    Redis (``app.cluster.caps``), and a restarted Redis starts from zero."""
    with contextlib.suppress(ServiceUnavailable):
        await caps.release(table_id, address)


# A plain Starlette route rather than @router.websocket: FastAPI's dependency machinery
# around a WebSocket endpoint (its AsyncExitStacks and scope bookkeeping, alive as long
# as the socket) costs about 5 KB per open connection, and this endpoint takes no
# dependencies. Measured with uvicorn and 2,000 idle sockets: 33.4 -> 28.2 KB each.
router.add_websocket_route("/ws/{table_id}", table_socket)


class Route(Protocol):
    """Where a socket's frames go: ``client`` answers refusals and is the one whose
    ``aborted``/``reading`` the reader keeps; ``handle`` takes one frame that passed the
    size and rate checks."""

    @property
    def client(self) -> Client: ...

    async def handle(self, raw: str | bytes) -> None: ...


class LocalRoute:
    """Frames of a socket at a table of this process: straight to ``handle_frame``."""

    __slots__ = ("client", "metrics", "table")

    def __init__(self, table: Table, client: Client, metrics: Metrics) -> None:
        self.table, self.client, self.metrics = table, client, metrics

    async def handle(self, raw: str | bytes) -> None:
        await handle_frame(raw, self.table, self.client, self.metrics)


async def read_socket(websocket: WebSocket, route: Route, settings: Settings,
                      metrics: Metrics) -> None:
    """Read the socket until the peer leaves or its client is cut off (``on_abort``
    cancels this task while it waits for a frame: that cancellation ends here)."""
    reader = asyncio.current_task()
    assert reader is not None
    try:
        await _read(websocket, route, settings, metrics)
    except asyncio.CancelledError:
        if not route.client.aborted or reader.uncancel():
            raise


async def _read(websocket: WebSocket, route: Route, settings: Settings,
                metrics: Metrics) -> None:
    limiter = RateLimiter()
    while not route.client.aborted:
        client = route.client
        client.reading = True
        try:
            frame = await websocket.receive()
        finally:
            client.reading = False
        if frame["type"] == "websocket.disconnect":
            return
        client = route.client
        text: str | None = frame.get("text")
        raw: str | bytes = text if text is not None else frame.get("bytes") or b""
        size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
        if size > settings.max_message_bytes:
            _refuse(client, metrics, "too_large",
                    f"a message has at most {settings.max_message_bytes} bytes")
            client.close(CLOSE_TOO_LARGE, "message too large")
            await client.wait_closed(CLOSE_FLUSH_SECONDS)
            return
        verdict = limiter.check()
        if verdict == "flood":
            _refuse(client, metrics, "rate_limited", "message flood: disconnected")
            client.close(CLOSE_POLICY, "message flood")
            await client.wait_closed(CLOSE_FLUSH_SECONDS)
            return
        if verdict is not None:
            if verdict == "limited":
                _refuse(client, metrics, "rate_limited", "too many messages; slow down")
            continue
        if raw == _PING:  # (a busy table, or one moving between processes, must not delay it)
            client.send(_PONG)
            continue
        await route.handle(raw)
        # Frames already buffered come back without a pause: let the writers send the
        # answers before reading on, so a quick burst does not fill the send queue.
        await asyncio.sleep(0)


async def handle_frame(raw: str | bytes, table: Table, client: Client, metrics: Metrics) -> None:
    """One frame of a socket at ``table``, whichever process holds the socket: the same
    for a local socket and one relayed from another process (``app.cluster.relay``)."""
    parsed = _parse(raw, table.game.actions)
    if isinstance(parsed, Refusal):
        _refuse(client, metrics, parsed.code, parsed.message, parsed.intent_id)
        return
    message, intent_id = parsed
    if isinstance(message, Ping):  # (written otherwise than the read loop's _PING)
        client.send(_PONG)
    elif isinstance(message, Hello):
        await table.join(client, message.token)
    elif not client.joined:
        _refuse(client, metrics, "hello_first", "the first message must be hello", intent_id)
    elif isinstance(message, Chat):
        await table.chat(client, message.text)
    elif isinstance(message, Sync):
        await table.sync(client)
    else:
        await table.submit(client, message.model_dump())


class Refusal(NamedTuple):
    """Why a frame is not a message: the error to answer it with."""

    code: str
    message: str
    intent_id: str | None = None


def _parse(raw: str | bytes, game_types: frozenset[str] = frozenset()
           ) -> tuple[ClientMessage | GameAction, str | None] | Refusal:
    """A frame as a validated client message (and its id), or the refusal to answer.

    ``game_types``: the action types of the table's game, parsed as ``GameAction``.

    Nothing in a refusal is built from the frame's content except a well-formed id
    and the first characters of a string ``type``: any shape, depth or size of JSON
    (within the frame cap) is answered, never echoed or turned into text whole.
    """
    if not isinstance(raw, str):
        return Refusal("malformed", "messages are text frames (UTF-8 JSON), not binary")
    try:
        data: Any = orjson.loads(raw)
    except orjson.JSONDecodeError:  # also nesting deeper than orjson's limit (1024)
        return Refusal("malformed", "a message is one JSON object")
    if not isinstance(data, dict):
        return Refusal("malformed", "a message is one JSON object")
    intent_id = _echo_id(data.get("id"))
    kind = data.get("type")
    if not isinstance(kind, str):
        return Refusal("unknown_type", f"type must be a string, not {_json_type(kind)}",
                       intent_id)
    if kind not in CLIENT_TYPES and kind not in game_types:
        return Refusal("unknown_type", f"unknown message type {kind[:20]!r}", intent_id)
    try:
        message: ClientMessage | GameAction = (
            CLIENT_MESSAGE if kind in CLIENT_TYPES else GAME_ACTION).validate_python(data)
    except ValidationError as e:
        first = e.errors(include_url=False, include_input=False, include_context=False)[0]
        where = ".".join(str(part)[:40] for part in first["loc"][1:]) or "message"
        return Refusal("malformed", f"{kind}: {where}: {first['msg'][:200]}", intent_id)
    return message, intent_id


def _json_type(value: object) -> str:
    """The JSON type of a decoded value, in words (never the value itself)."""
    if value is None:
        return "null"
    for kind, name in ((bool, "a boolean"), (int, "a number"), (float, "a number"),
                       (list, "an array"), (dict, "an object")):
        if isinstance(value, kind):
            return name
    return "a value of another type"


def _echo_id(value: object) -> str | None:
    """The id to echo in an error, if it is a well-formed one (never echo junk): the
    ``IntentId`` pattern, checked without pydantic (this runs for every message)."""
    if type(value) is str and _INTENT_ID_PATTERN.fullmatch(value):
        return value
    return None


def _refuse(client: Client, metrics: Metrics, code: str, message: str,
            intent_id: str | None = None) -> None:
    metrics.record_error(code)
    client.send(messages.error(code, message, intent_id))
