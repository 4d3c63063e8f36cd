"""A socket may land on any process: forward its frames to the table's owner and the
owner's messages back, over Redis pub/sub (the lichess lila <-> lila-ws pattern).

Two roles, both in every process (docs/cluster.md, "Forwarding"):

- **Holder** (the process with the browser's socket): checks size and rate as
  for any socket (``app.api.ws.read_socket``), then sends each frame as it is to
  the owner, and puts what the owner sends back on the socket's ``Client`` (its
  bounded queue, as a local table would). It remembers the socket's last valid
  ``hello`` (and the token a ``seated`` gave it), so that when the table moves
  (the owner closes the session with ``CLOSE_MOVED``, says it has no such
  session, or stops answering) it locates the table again and replays that
  ``hello`` to the new owner: the client sees a pause, then a full ``state``.
- **Owner**: keeps per relayed socket a ``Client`` whose connection publishes the
  bytes the table built for that recipient (from its own view, exactly what a
  local socket would get) to the holder's channel, and runs the socket's frames
  through ``app.api.ws.handle_frame``, in order, in a task of its own (the
  listener never waits for a table).

Wire: each process subscribes to ``{prefix}relay:{process_id}``. A message is a
batch: the sender's process id, ``\\n``, then records ``kind (1 byte) | socket id
(u64) | length (u32) | payload`` (``_HEAD``). Everything one process sends
another in one event-loop turn goes in one PUBLISH, from one writer task, so
records keep their order. Kinds: to the owner ``O`` open (payload: table id),
``F`` a text frame, ``B`` a binary frame, ``G`` the socket is gone, ``P`` ping;
to the holder ``D`` a message, ``C`` close (u16 code + reason), ``M`` no such
session here (locate the table again), ``Q`` pong. Between any two processes,
for ``GET /api/tables/{id}`` on a process that does not own the table: ``I`` asks
for the table's public info (payload: table id; the id field numbers the
question), ``J`` answers it (the JSON once durable, or nothing: not here) (``Relay.ask_info``).

Liveness: a holder pings every owner it relays to each ``PING_INTERVAL``; a
peer not heard from for ``SILENT_AFTER`` (or whose channel has no subscriber:
PUBLISH answers 0, at once after a ``kill -9``) is gone: a holder locates its
sockets' tables again, an owner makes that holder's seats leave (grace and
stand-in bots as for a dropped socket). A lost or repeated message is harmless:
versions make the client resync on a gap (docs/protocol.md), intents are
retried by id.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import re
import struct
import time
from collections import deque
from collections.abc import Awaitable
from typing import Any

import orjson
from fastapi import WebSocket
from redis.asyncio import Redis

from app.api.schemas import Hello
from app.api.ws import (
    CLOSE_FLUSH_SECONDS,
    CLOSE_POLICY,
    CLOSE_UNKNOWN_TABLE,
    Refusal,
    SocketConnection,
    _parse,
    _refuse,
    handle_frame,
    read_socket,
)
from app.cluster.client import UNREACHABLE, RedisUnavailable, connect
from app.cluster.lease import LeaseUnavailable
from app.config import Settings
from app.loops import stop_if_cancelled
from app.observability import Metrics
from app.table.client import Client
from app.table.manager import CLOSE_MOVED, OwnershipUnavailable, TableManager
from app.table.table import Table

log = logging.getLogger(__name__)

#: Something failed that retrying will not mend: the browser reconnects.
CLOSE_UNAVAILABLE = 1011
#: The owner process is restarting (``app.table.manager.CLOSE_RESTART``): for a socket
#: held by another process, the table moves, the socket stays.
CLOSE_RESTART = 1012

#: Seconds between pings to each owner a holder relays to (and the sweep of silent peers).
PING_INTERVAL = 0.5
#: A peer not heard from for this long is gone.
SILENT_AFTER = 2.0
#: A gone peer with no sockets or sessions here is forgotten after this long (every
#: restart of a process is a new peer): far past any lease it held (``LEASE_SECONDS`` is
#: 60 s at most), so no table's lease can still name it.
FORGET_AFTER = 600.0
#: Bytes waiting for one destination before the owner's senders wait (their ``Client``
#: queues fill meanwhile, so a stuck path cuts its clients off, as a slow socket does).
MAX_PENDING_BYTES = 1 << 20
#: Frames of one relayed socket waiting at its owner (the holder's rate limit keeps
#: this far off); beyond, the socket is closed as a flood.
MAX_INBOX = 256
#: Intents of one socket kept until answered, to send again after a move.
MAX_UNANSWERED = 16
#: Locating a table again: the first retry after this, doubling up to ``RETRY_MAX``.
RETRY_MIN, RETRY_MAX = 0.05, 0.5
#: Locating a dead owner's table again this long after Redis says its lease runs out
#: (Redis counts expiry in milliseconds).
EXPIRY_MARGIN = 0.01
#: Seconds an HTTP request waits for the owner's public info of a table before it is
#: answered from the log instead (a live owner answers within milliseconds; a killed
#: one is known at once, PUBLISH finding nobody; only a stuck one costs this).
INFO_TIMEOUT = 0.5

_HEAD = struct.Struct("!cQI")
_CODE = struct.Struct("!H")
OPEN, FRAME, BINARY, GONE, PING = b"O", b"F", b"B", b"G", b"P"
DATA, CLOSE, MISSING, PONG = b"D", b"C", b"M", b"Q"
INFO, INFO_ANSWER = b"I", b"J"
_SEATED = b'{"type":"seated"'
_INTENT_ID = re.compile(r'"id"\s*:\s*"([A-Za-z0-9_-]{1,40})"')
_DELTA = b'{"type":"delta"'
_ANSWERS = (b'{"type":"ack"', b'{"type":"error"', _DELTA)


def _unavailable(exc: BaseException) -> bool:
    """Who owns the table cannot be told now: say ``service_unavailable`` and retry."""
    return isinstance(exc, (OwnershipUnavailable, RedisUnavailable, LeaseUnavailable,
                            *UNREACHABLE))


def encode_batch(source: str, records: list[tuple[bytes, int, bytes]]) -> bytes:
    """One PUBLISH payload (tests and the writer): ``source\\n`` and the records."""
    parts = [source.encode(), b"\n"]
    for kind, sid, payload in records:
        parts += (_HEAD.pack(kind, sid, len(payload)), payload)
    return b"".join(parts)


def decode_batch(data: bytes) -> tuple[str, list[tuple[bytes, int, bytes]]]:
    """The sender and records of a batch; ``ValueError`` if it is cut short."""
    newline = data.index(b"\n")
    source = data[:newline].decode()
    view = memoryview(data)
    records = []
    at, end = newline + 1, len(data)
    while at < end:
        kind, sid, size = _HEAD.unpack_from(view, at)
        at += _HEAD.size
        if at + size > end:
            raise ValueError("a relay batch was cut short")
        records.append((kind, sid, bytes(view[at:at + size])))
        at += size
    return source, records


class Relay:
    """This process's end of the forwarding: one per app, ``start``ed in the lifespan."""

    def __init__(self, redis_url: str, tables: TableManager, metrics: Metrics, settings: Settings,
                 *, prefix: str = "dingo:") -> None:
        self.tables = tables
        self.metrics = metrics
        self.settings = settings
        self.process_id = tables.process_id
        self.prefix = prefix
        self.channel = self.channel_of(self.process_id)
        self._header = self.process_id.encode() + b"\n"
        self.redis: Redis = connect(redis_url, decode=False)
        # Its own connection, never timing out on a quiet channel.
        self._sub_redis: Redis = connect(redis_url, decode=False, socket_timeout=None)
        self.subscribed = asyncio.Event()
        # -- holder side: relayed sockets by session id, and the session ids per owner
        self.sockets: dict[int, RelayedSocket] = {}
        self.by_owner: dict[str, set[int]] = {}
        self.held: set[RelayedSocket] = set()
        self._sids = itertools.count(1)
        # -- owner side: sessions by (holder, session id), and the ids per holder
        self.sessions: dict[tuple[str, int], RemoteSession] = {}
        self.by_holder: dict[str, set[int]] = {}
        # -- questions for other processes' public info of a table: (owner, answer) by id
        self._asked: dict[int, tuple[str, asyncio.Future[dict[str, Any] | None]]] = {}
        # -- peers: when each was last heard from; those known gone
        self.heard: dict[str, float] = {}
        self.gone: set[str] = set()
        #: Set when a peer known gone is heard from again (``hear_from``).
        self._back: dict[str, asyncio.Event] = {}
        # -- the outgoing batches
        self._pending: dict[str, list[bytes]] = {}
        self._pending_bytes: dict[str, int] = {}
        self._drained: asyncio.Future[None] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        #: Answers to ``ask_info`` waiting for their table's append (``_info``).
        self._answering: set[asyncio.Task[None]] = set()
        self._stopped = False
        self.closing = False
        metrics.relayed_sockets.set_function(lambda: len(self.sockets))
        metrics.relay_sessions.set_function(lambda: len(self.sessions))

    def channel_of(self, process_id: str) -> str:
        return f"{self.prefix}relay:{process_id}"

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self, timeout: float = 2.0) -> None:
        """Subscribe (waiting up to ``timeout`` s for it) and start the sweeps."""
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen(), name="relay-listen"),
                       loop.create_task(self._sweep(), name="relay-sweep")]
        self.tables.ask_owner = self.ask_info
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.subscribed.wait(), timeout)

    def begin_stop(self) -> None:
        """This process is stopping (before its tables are handed over): its sockets
        close (1012: the browser reconnects, to another process) instead of following
        their tables; relayed sessions still get their tables' last messages."""
        self.closing = True
        for socket in list(self.held):
            socket.shutdown()

    async def stop(self) -> None:
        """After the tables were handed over: their owners are told this process's
        sockets are gone, what is queued goes out, the connections close."""
        self.begin_stop()
        self.tables.ask_owner = None
        for _, answer in self._asked.values():
            if not answer.done():
                answer.set_result(None)
        for (holder, sid), session in list(self.sessions.items()):
            self._post(holder, MISSING, sid)
            session.drop()
        if self._writer is not None:
            await asyncio.wait([self._writer], timeout=1.0)
        self._stopped = True  # nothing more is sent (the clients are closing)
        tasks = [*self._tasks, *self._answering]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=1.0)
        for client in (self.redis, self._sub_redis):
            with contextlib.suppress(Exception):
                await client.aclose()

    # -- holder side --------------------------------------------------------------------

    async def serve(self, websocket: WebSocket, table_id: str) -> None:
        """Run one browser socket (accepted and counted by ``app.api.ws``) to its end."""
        socket = RelayedSocket(self, websocket, table_id)
        self.held.add(socket)
        try:
            await socket.run()
        finally:
            self.held.discard(socket)
            await socket.end()

    def open_session(self, socket: RelayedSocket, owner: str) -> int:
        sid = next(self._sids)
        self.sockets[sid] = socket
        sids = self.by_owner.get(owner)
        if not sids:
            sids = self.by_owner[owner] = set()
            self.heard[owner] = max(self.heard.get(owner, 0.0), time.monotonic())
        sids.add(sid)
        self._post(owner, OPEN, sid, socket.table_id.encode())
        return sid

    def close_session(self, sid: int, owner: str) -> None:
        """The socket left this session (gone, or moving on): the owner lets it go."""
        if self.sockets.pop(sid, None) is None:
            return
        sids = self.by_owner.get(owner)
        if sids is not None:
            sids.discard(sid)
        self._post(owner, GONE, sid)

    def forward(self, owner: str, sid: int, raw: str | bytes) -> None:
        if isinstance(raw, str):
            self._post(owner, FRAME, sid, raw.encode("utf-8", "surrogatepass"))
        else:
            self._post(owner, BINARY, sid, raw)

    def ping(self, peer: str) -> None:
        self._post(peer, PING, 0)

    async def hear_from(self, peer: str, timeout: float) -> None:
        """Wait until ``peer``, known gone, is heard from again, ``timeout`` s at most."""
        back = self._back.get(peer)
        if back is None:
            back = self._back[peer] = asyncio.Event()
            self.heard.setdefault(peer, time.monotonic())  # (forgotten in time: _sweep_once)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(back.wait(), timeout)

    def _owner_gone(self, owner: str) -> None:
        """The owner stopped answering: every socket relayed to it locates its table again."""
        self.gone.add(owner)
        self.heard.setdefault(owner, time.monotonic())  # (forgotten in time: _sweep_once)
        for sid in self.by_owner.pop(owner, set()):
            socket = self.sockets.get(sid)
            if socket is not None:
                socket.client.close(CLOSE_MOVED, "the table's process is gone")

    # -- public info of a table another process owns -----------------------------------

    async def ask_info(self, owner: str, table_id: str) -> dict[str, Any] | None:
        """The owner's ``Table.stored_info()`` of its table, or None if it does not answer
        within ``INFO_TIMEOUT`` (gone, stuck, Redis away) or no longer has the table.

        Why ask, rather than have owners keep presence in Redis: presence (who is
        connected, away, ready, how many watch) changes with every socket, on any
        process, and only the owner sees it all (relayed sockets join its table like
        local ones). A copy in Redis would be written on every change, expire with a
        dead owner, be rewritten after each takeover, and could still be stale when
        read; asking costs one round trip on the relay channels that already exist,
        only when someone asks, and the answer is exactly what the owner gives its
        own requests (one function builds both). A killed owner is known at once
        (PUBLISH finds no subscriber), so the caller's fallback comes without waiting.
        """
        qid = next(self._sids)
        answer: asyncio.Future[dict[str, Any] | None] = (
            asyncio.get_running_loop().create_future())
        self._asked[qid] = (owner, answer)
        self._post(owner, INFO, qid, table_id.encode())
        try:
            return await asyncio.wait_for(answer, INFO_TIMEOUT)
        except TimeoutError:
            return None
        finally:
            self._asked.pop(qid, None)

    def _info(self, asker: str, qid: int, table_id: str) -> None:
        """Another process asks for the public info of a table: answered if it is here,
        once what its table has folded is stored (``Table.stored_info``; a task, so the
        listener reads on meanwhile)."""
        table = self.tables.get(table_id)
        if table is None:
            self._post(asker, INFO_ANSWER, qid, b"")
            return
        task = asyncio.get_running_loop().create_task(self._answer_info(asker, qid, table))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    async def _answer_info(self, asker: str, qid: int, table: Table) -> None:
        """Empty if the table closed meanwhile, or its append is still out when the asker
        stops waiting (``INFO_TIMEOUT``): the asker then folds the (durable) log."""
        info = None
        try:
            info = await asyncio.wait_for(table.stored_info(), INFO_TIMEOUT)
        except TimeoutError:
            pass
        except Exception:
            log.exception("relay: the public info of table %s failed", table.id)
        self._post(asker, INFO_ANSWER, qid, b"" if info is None else orjson.dumps(info))

    def _answered(self, source: str, qid: int, payload: bytes) -> None:
        asked = self._asked.get(qid)
        if asked is None or asked[0] != source or asked[1].done():
            return  # late, or not ours
        info = orjson.loads(payload) if payload else None
        asked[1].set_result(info if isinstance(info, dict) else None)

    def _unanswered(self, peer: str) -> None:
        """``peer`` cannot answer (gone, or this relay stops): its questions get None now."""
        for owner, answer in list(self._asked.values()):
            if owner == peer and not answer.done():
                answer.set_result(None)

    # -- owner side ---------------------------------------------------------------------

    def _open(self, holder: str, sid: int, table_id: str) -> None:
        table = self.tables.get(table_id)
        if table is None or table.closed:
            self._post(holder, MISSING, sid)
            return
        session = RemoteSession(self, holder, sid, table)
        self.sessions[holder, sid] = session
        self.by_holder.setdefault(holder, set()).add(sid)

    def _frame(self, holder: str, sid: int, raw: str | bytes) -> None:
        session = self.sessions.get((holder, sid))
        if session is None or session.table.closed:
            if session is not None:
                session.drop()
            self._post(holder, MISSING, sid)
            return
        session.push(raw)

    def forget(self, session: RemoteSession) -> None:
        key = (session.holder, session.sid)
        if self.sessions.get(key) is session:
            del self.sessions[key]
            sids = self.by_holder.get(session.holder)
            if sids is not None:
                sids.discard(session.sid)

    def _holder_gone(self, holder: str) -> None:
        """The holder stopped answering: its sockets leave their tables (a seat waits
        for its player through the grace period, as for any dropped socket). If it
        was only slow, it is told, and its sockets join again."""
        for sid in self.by_holder.pop(holder, set()):
            session = self.sessions.get((holder, sid))
            if session is not None:
                session.drop()
                self._post(holder, MISSING, sid)

    # -- the wire -----------------------------------------------------------------------

    def _post(self, dest: str, kind: bytes, sid: int, payload: bytes = b"") -> None:
        """Queue a record for ``dest``; everything queued in this loop turn goes in one
        PUBLISH per destination, in order."""
        if self._stopped:
            return
        parts = self._pending.get(dest)
        if parts is None:
            parts = self._pending[dest] = []
            self._pending_bytes[dest] = 0
        parts += (_HEAD.pack(kind, sid, len(payload)), payload)
        self._pending_bytes[dest] += len(payload) + _HEAD.size
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    def backlog(self, dest: str) -> Awaitable[None] | None:
        """Something to wait for while ``dest`` has too much queued, else None."""
        if self._pending_bytes.get(dest, 0) <= MAX_PENDING_BYTES:
            return None
        if self._drained is None:
            self._drained = asyncio.get_running_loop().create_future()
        return asyncio.shield(self._drained)

    async def _write(self) -> None:
        try:
            while self._pending:
                batches, self._pending, self._pending_bytes = self._pending, {}, {}
                try:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for dest, parts in batches.items():
                            pipe.publish(self.channel_of(dest), b"".join([self._header, *parts]))
                        received = await pipe.execute()
                except Exception as exc:
                    # Lost: the peers resync on the next version, sockets find their
                    # tables again once pings are answered.
                    log.warning("relay: publish failed: %s: %s", type(exc).__name__, exc)
                    await asyncio.sleep(0.1)
                else:
                    for dest, count in zip(batches, received, strict=True):
                        if not count:
                            self._unreachable(dest)
                drained, self._drained = self._drained, None
                if drained is not None and not drained.done():
                    drained.set_result(None)
        finally:
            self._writer = None

    def _unreachable(self, peer: str) -> None:
        """Nobody listens on ``peer``'s channel: that process is gone."""
        self._unanswered(peer)
        self._owner_gone(peer)
        self._holder_gone(peer)

    async def _listen(self) -> None:
        first = True
        while True:
            pubsub = self._sub_redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                self.subscribed.set()
                if not first:
                    # Messages may have been lost meanwhile: every relayed socket joins
                    # its table again (a fresh state).
                    for owner in list(self.by_owner):
                        self._owner_gone(owner)
                first = False
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self._receive(message["data"])
            except Exception as exc:  # Redis away (or anything else): subscribe again
                self.subscribed.clear()
                log.warning("relay: subscription lost: %s: %s", type(exc).__name__, exc)
                stop_if_cancelled()
                await asyncio.sleep(0.2)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _receive(self, data: bytes) -> None:
        try:
            source, records = decode_batch(data)
        except (ValueError, struct.error, UnicodeDecodeError):
            log.warning("relay: a malformed batch was dropped")
            return
        self.heard[source] = time.monotonic()
        if source in self.gone:
            self.gone.discard(source)
            back = self._back.pop(source, None)
            if back is not None:
                back.set()
        for kind, sid, payload in records:
            try:
                self._dispatch(source, kind, sid, payload)
            except Exception:
                log.exception("relay: record %r from %s failed", kind, source)

    def _dispatch(self, source: str, kind: bytes, sid: int, payload: bytes) -> None:
        if kind == DATA:
            socket = self.sockets.get(sid)
            if socket is not None:
                socket.client.send(payload)
        elif kind == FRAME:
            self._frame(source, sid, payload.decode("utf-8", "surrogatepass"))
        elif kind == CLOSE:
            socket = self.sockets.get(sid)
            if socket is not None:
                (code,) = _CODE.unpack_from(payload)
                socket.client.close(code, payload[_CODE.size:].decode(errors="replace"))
        elif kind == OPEN:
            self._open(source, sid, payload.decode())
        elif kind == BINARY:
            self._frame(source, sid, payload)
        elif kind == GONE:
            session = self.sessions.get((source, sid))
            if session is not None:
                session.drop()
        elif kind == MISSING:
            socket = self.sockets.get(sid)
            if socket is not None:
                socket.client.close(CLOSE_MOVED, "the table is not there")
        elif kind == PING:
            self._post(source, PONG, 0)
        elif kind == INFO:
            self._info(source, sid, payload.decode())
        elif kind == INFO_ANSWER:
            self._answered(source, sid, payload)
        elif kind != PONG:
            log.warning("relay: unknown record kind %r from %s", kind, source)

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(PING_INTERVAL)
            self._sweep_once(time.monotonic())

    def _sweep_once(self, now: float) -> None:
        """Ping the owners relayed to; let silent peers go; forget long-gone ones."""
        for owner, sids in list(self.by_owner.items()):
            if not sids:
                del self.by_owner[owner]
                continue
            self.ping(owner)
            if now - self.heard.get(owner, now) > SILENT_AFTER:
                log.warning("relay: owner process %s is silent", owner)
                self._owner_gone(owner)
        for holder, sids in list(self.by_holder.items()):
            if not sids:
                del self.by_holder[holder]
            elif now - self.heard.get(holder, now) > SILENT_AFTER:
                log.warning("relay: holder process %s is silent", holder)
                self._holder_gone(holder)
        for peer in [p for p, at in self.heard.items() if now - at > FORGET_AFTER
                     and p not in self.by_owner and p not in self.by_holder]:
            del self.heard[peer]
            self.gone.discard(peer)
            self._back.pop(peer, None)


class RoutedConnection(SocketConnection):
    """The browser's socket under one route's ``Client``: a close for a move is not
    passed on (the socket follows the table), and a ``seated`` token is remembered."""

    def __init__(self, websocket: WebSocket, socket: RelayedSocket) -> None:
        super().__init__(websocket)
        self.socket = socket
        self.remote = False
        self.client: Client | None = None

    async def send_bytes(self, data: bytes) -> None:
        socket = self.socket
        if data.startswith(_SEATED):
            socket.note_seated(data)
        elif socket.unanswered and data.startswith(_ANSWERS) and (
                not data.startswith(_DELTA) or b'"ack":' in data):
            socket.note_answer(data)
        await self.websocket.send_text(data.decode())

    async def close(self, code: int, reason: str) -> None:
        client = self.client
        moving = code == CLOSE_MOVED or (code == CLOSE_RESTART and self.remote)
        if moving and client is not None and not client.aborted and not self.socket.done:
            self.socket.moved(client)
            return
        self.socket.done = True
        await self.websocket.close(code, reason)


class RelayedSocket:
    """One browser socket of this process when several processes serve (holder side).

    Its route is a local table (``table``), a session with the owning process
    (``owner``, ``sid``), or none while the table is being located.
    """

    def __init__(self, relay: Relay, websocket: WebSocket, table_id: str) -> None:
        self.relay = relay
        self.websocket = websocket
        self.table_id = table_id
        self.metrics = relay.metrics
        self.table: Table | None = None
        self.owner: str | None = None
        self.sid = 0
        self._conn: RoutedConnection
        self.client = self._new_client()
        #: The last valid ``hello``'s token (None: a spectator), once one was said.
        self.said_hello = False
        self.token: str | None = None
        #: Intents sent and not answered yet, by id (``_note_intent``).
        self.unanswered: dict[str, str] = {}
        self.routed = asyncio.Event()
        self.unavailable = False
        self.done = False
        self.routed_at = 0.0
        self._bounce = RETRY_MIN / 2
        #: The gone process the table's lease still names, after a ``_route`` found one.
        self.lease_of_gone: str | None = None
        self._mover: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[Any] | None = None

    def _new_client(self) -> Client:
        """A client for the next route (the last one's was closed for the move)."""
        conn = self._conn = RoutedConnection(self.websocket, self)
        client = Client(conn, self.relay.tables.config.send_queue_size)
        conn.client = client

        def abort() -> None:
            if client.reading and self._reader is not None:
                self._reader.cancel()

        client.on_abort = abort
        return client

    async def run(self) -> None:
        self._reader = asyncio.current_task()
        found = await self._route()
        if found is False:
            self._unknown()
            await self.client.wait_closed(CLOSE_FLUSH_SECONDS)
            return
        if found is None:
            self._mover = asyncio.get_running_loop().create_task(self._relocate())
        await read_socket(self.websocket, self, self.relay.settings, self.metrics)

    async def handle(self, raw: str | bytes) -> None:
        """A frame that passed the size and rate checks: to the table, wherever it is."""
        if isinstance(raw, str) and '"hello"' in raw:
            self._note_hello(raw)
        if self.table is None and self.owner is None:
            await self.routed.wait()  # a move: the frame waits (the reader too)
            if self.table is None and self.owner is None:
                self._say_unavailable(raw)
                return
        if isinstance(raw, str) and '"id"' in raw:
            self._note_intent(raw)
        await self._send(raw)

    async def _send(self, raw: str | bytes) -> None:
        if self.table is not None:
            await handle_frame(raw, self.table, self.client, self.metrics)
        elif self.owner is not None:
            self.relay.forward(self.owner, self.sid, raw)

    def _note_intent(self, raw: str) -> None:
        """Keep an intent until it is answered: if the table moves meanwhile (its owner
        died before answering, say), it is sent again to the new owner, which answers a
        known id with its first answer and applies an unknown one (docs/protocol.md).

        The id is found without parsing the frame (the owner parses it): inside a JSON
        string a quote is escaped, so ``"id": "..."`` is a key of the message."""
        found = _INTENT_ID.search(raw)
        if found is not None:
            self.unanswered[found[1]] = raw
            if len(self.unanswered) > MAX_UNANSWERED:
                del self.unanswered[next(iter(self.unanswered))]

    def note_answer(self, data: bytes) -> None:
        """An ``ack``, ``error`` or acking ``delta`` went to the browser: that intent is done.
        (A delta's ``ack`` is its last field: only that end of it is read.)"""
        with contextlib.suppress(ValueError):
            if data.startswith(_DELTA):
                at = data.rfind(b',"ack":')
                answered = orjson.loads(data[at + 7:-1]) if at >= 0 else None
            else:
                message = orjson.loads(data)
                answered = message.get("id") if isinstance(message, dict) else None
            if isinstance(answered, str):
                self.unanswered.pop(answered, None)

    def _note_hello(self, raw: str) -> None:
        parsed = _parse(raw)
        if not isinstance(parsed, Refusal) and isinstance(parsed[0], Hello):
            self.said_hello, self.token = True, parsed[0].token

    def note_seated(self, data: bytes) -> None:
        """A ``sit`` gave this socket a seat token: a ``hello`` replayed after a move uses it."""
        with contextlib.suppress(ValueError, KeyError, TypeError):
            token = orjson.loads(data)["token"]
            if isinstance(token, str):
                self.token = token

    def _replay(self) -> list[str]:
        """What a new route is sent first: the last ``hello`` (with the seat token the
        socket got since), then the intents not answered yet, in order."""
        if not self.said_hello:
            return []
        hello = orjson.dumps({"type": "hello", "token": self.token}).decode()
        return [hello, *self.unanswered.values()]

    def _say_unavailable(self, raw: str | bytes) -> None:
        parsed = _parse(raw)
        intent_id = parsed.intent_id if isinstance(parsed, Refusal) else parsed[1]
        _refuse(self.client, self.metrics, "service_unavailable",
                "the table cannot be reached right now; retrying", intent_id)

    def moved(self, client: Client) -> None:
        """The current route's owner let the table go (or is gone): find it again."""
        if self.done or client is not self.client:
            return
        if self.relay.closing:
            self.shutdown()
            return
        self._leave_route()
        self.metrics.relay_moves.inc()
        self.client = self._new_client()
        self.routed.clear()
        if self._mover is None or self._mover.done():
            self._mover = asyncio.get_running_loop().create_task(self._relocate())

    def _leave_route(self) -> None:
        if self.owner is not None:
            self.relay.close_session(self.sid, self.owner)
        self.table, self.owner, self.sid = None, None, 0

    async def _route(self) -> bool | None:
        """Locate the table and take the route to it: True when routed (a ``hello``
        said before is replayed there), False for an unknown table, None to retry."""
        self.lease_of_gone = None
        try:
            where = await self.relay.tables.locate(self.table_id)
        except Exception as exc:
            if not _unavailable(exc):
                raise
            if not self.unavailable:
                self.unavailable = True
                self.routed.set()  # frames meanwhile are answered, not held
                _refuse(self.client, self.metrics, "service_unavailable",
                        "the table cannot be reached right now; retrying")
            return None
        if self.done:
            return None
        if where is None:
            return False
        if isinstance(where, Table):
            if where.closed:
                return None
            self._conn.remote = False
            self.table = where
            for raw in self._replay():
                await handle_frame(raw, where, self.client, self.metrics)
        else:
            owner = where.process_id
            if owner in self.relay.gone or owner == self.relay.process_id:
                # Gone, or the lease says this process while the table is not here yet.
                self.relay.ping(owner)  # answered if it is only slow
                if owner != self.relay.process_id:
                    self.lease_of_gone = owner
                return None
            self._conn.remote = True
            self.owner = owner
            self.sid = self.relay.open_session(self, owner)
            for raw in self._replay():
                self.relay.forward(owner, self.sid, raw)
        self.unavailable = False
        self.routed_at = time.monotonic()
        self.routed.set()
        return True

    async def _relocate(self) -> None:
        try:
            await self._find_again()
        except Exception:
            log.exception("relay: table %s could not be located again", self.table_id)
            self.done = True
            self.routed.set()
            self.client.close(CLOSE_UNAVAILABLE, "the table could not be reached")

    async def _find_again(self) -> None:
        delay = RETRY_MIN
        if time.monotonic() - self.routed_at < 1.0:
            # Moved again right after a move: the owner the lease names does not have the
            # table (yet). Do not bounce between them at the speed of Redis.
            self._bounce = min(RETRY_MAX, self._bounce * 2)
            await asyncio.sleep(self._bounce)
        else:
            self._bounce = RETRY_MIN / 2
        while not self.done:
            found = await self._route()
            if found is True:
                return
            if found is False:
                self._unknown()
                return
            if self.lease_of_gone is not None and await self._outwait(self.lease_of_gone):
                continue
            await asyncio.sleep(delay)
            delay = min(RETRY_MAX, delay * 2)

    async def _outwait(self, owner: str) -> bool:
        """The table's lease names ``owner``, which is gone (``kill -9``): wait until the
        lease runs out, then locate again at once (which takes the table over if nobody
        else did first), rather than at the next retry or failover sweep; stop waiting if
        ``owner`` is heard from again (it was only slow; it is pinged meanwhile).

        Nothing is taken before the lease runs out: ``locate`` only acquires a free
        lease. False if how long the lease has left cannot be told (it just ran out or
        changed hands, or Redis is away): retry as before."""
        try:
            left = await self.relay.tables.lease_ends_in(self.table_id, owner)
        except Exception as exc:
            if not _unavailable(exc):
                raise
            return False
        if left is None:
            return False
        deadline = time.monotonic() + left + EXPIRY_MARGIN
        while not self.done and owner in self.relay.gone:
            now = time.monotonic()
            if now >= deadline:
                break
            await self.relay.hear_from(owner, min(deadline - now, PING_INTERVAL))
            self.relay.ping(owner)
        return True

    def _unknown(self) -> None:
        self.done = True
        self.routed.set()
        _refuse(self.client, self.metrics, "unknown_table", "no live table has this id")
        self.client.close(CLOSE_UNKNOWN_TABLE, "unknown table")

    def shutdown(self) -> None:
        """This process stops: the browser reconnects (to another process)."""
        self.done = True
        self.routed.set()
        self.client.close(CLOSE_RESTART, "the server is restarting")
        if self.client.closed and not self.client.aborted:
            # The route's client was closed for the move being intercepted: close anew.
            self.client = self._new_client()
            self.client.close(CLOSE_RESTART, "the server is restarting")

    async def end(self) -> None:
        """The browser's socket is gone: its seat leaves the table, wherever that is."""
        self.done = True
        self.routed.set()
        if self._mover is not None:
            self._mover.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._mover
        table = self.table
        self._leave_route()
        if table is not None:
            await table.leave(self.client)
        await self.client.stop()


class RemoteConnection:
    """The connection of an owner-side ``Client`` for a socket held by another process:
    its messages (built for this recipient) and its close go to the holder."""

    def __init__(self, session: RemoteSession) -> None:
        self.session = session

    async def send_bytes(self, data: bytes) -> None:
        session = self.session
        session.relay._post(session.holder, DATA, session.sid, data)
        wait = session.relay.backlog(session.holder)
        if wait is not None:
            await wait

    async def close(self, code: int, reason: str) -> None:
        session = self.session
        session.relay._post(session.holder, CLOSE, session.sid,
                            _CODE.pack(code) + reason.encode()[:120])
        session.drop()


class RemoteSession:
    """A socket held by another process, at a table of this one (owner side)."""

    def __init__(self, relay: Relay, holder: str, sid: int, table: Table) -> None:
        self.relay = relay
        self.holder = holder
        self.sid = sid
        self.table = table
        self.client = Client(RemoteConnection(self), relay.tables.config.send_queue_size)
        #: Frames to handle in order; None: the socket is gone.
        self.inbox: deque[str | bytes | None] = deque()
        self.task: asyncio.Task[None] | None = None
        self.dropped = False

    def push(self, item: str | bytes | None) -> None:
        if self.dropped:
            return
        if item is not None and len(self.inbox) >= MAX_INBOX:
            self.client.close(CLOSE_POLICY, "message flood")
            return
        self.inbox.append(item)
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run())

    def drop(self) -> None:
        """The socket is gone (or its session ended): it leaves the table."""
        if not self.dropped:
            self.push(None)
            self.dropped = True
            self.relay.forget(self)

    async def _run(self) -> None:
        inbox = self.inbox
        while inbox:
            item = inbox.popleft()
            if item is None:
                inbox.clear()
                await self.table.leave(self.client)
                await self.client.stop()
                return
            try:
                await handle_frame(item, self.table, self.client, self.relay.metrics)
            except Exception:
                # As for a local socket whose handler failed: it is closed, its seat leaves.
                log.exception("relay: a frame of a relayed socket failed")
                self.client.close(CLOSE_UNAVAILABLE, "the message could not be handled")
                inbox.clear()
                inbox.append(None)
            await asyncio.sleep(0)
        self.task = None
