"""One live connection as the table sees it: a bounded queue, flushed once per loop turn.

The table never awaits a socket: it puts encoded messages on each client's
queue and moves on, so one slow or stuck browser cannot stall a table. A
client whose queue fills up is cut off (4008) instead of growing memory.

Queued messages go out together when the event loop has run everything that
was ready (``_Outbox``), as Redis writes its replies before it sleeps: the
messages of every table that acted in that turn leave in one burst. A socket
write that has to wake the peer's idle CPU costs several times one that finds
it awake, so this is about 10% of a busy server's CPU (docs/benchmarks.md).
While a socket takes data, a flush sends without a task; only a socket that
makes a send wait gets a writer task, until its queue is empty.
Transports (FastAPI's WebSocket, test fakes) only implement ``Connection``.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .views import Shown

CLOSE_TOO_SLOW = 4008
ABORT_CLOSE_SECONDS = 5.0


class Connection(Protocol):
    async def send_bytes(self, data: bytes) -> None:
        """Send one UTF-8 JSON message (the WebSocket transport sends it as a text frame)."""

    async def close(self, code: int, reason: str) -> None: ...


class Client:
    """A connection plus who it is at its table (seat, host, token hash)."""

    def __init__(self, conn: Connection, queue_size: int = 64) -> None:
        self.conn = conn
        self.seat: int | None = None
        self.host = False
        self.token_hash: str | None = None
        self.joined = False
        #: What this client was last sent (``TableViews``): the next delta starts from it.
        self.shown: Shown | None = None
        self.closed = False
        self.close_code: int | None = None
        # A plain list, and a writer task only while there is something to send: an idle
        # socket then holds no task, coroutine or future (about 1 KB each, and thousands
        # of such objects waiting for seconds made every young-generation garbage
        # collection slow), and asyncio.Queue's three deques and Event are gone too.
        self._queue: list[bytes | tuple[int, str]] = []
        self._queue_size = queue_size
        self._writer: asyncio.Task[None] | None = None
        self._closer: asyncio.Task[None] | None = None
        self._flush_due = False  # in this loop turn's outbox
        #: Called once when the client is cut off, so the transport stops reading it too.
        self.on_abort: Callable[[], object] | None = None
        #: Set by the transport while it waits for the peer's next frame.
        self.reading = False

    @property
    def aborted(self) -> bool:
        """Cut off without a clean close (too slow, or a close that found the queue full)."""
        return self._closer is not None

    def send(self, data: bytes) -> None:
        """Queue a message; never blocks. A client too slow to keep up is dropped."""
        if self.closed:
            return
        if not self._put(data):
            self.abort(CLOSE_TOO_SLOW, "too slow: messages were not read")

    def close(self, code: int, reason: str) -> None:
        """Close after the messages already queued have been sent."""
        if self.closed:
            return
        if not self._put((code, reason)):
            self.abort(code, reason)
            return
        self.closed = True
        self.close_code = code

    def abort(self, code: int, reason: str) -> None:
        """Close now, dropping whatever is still queued."""
        if self.closed and self._closer is not None:
            return
        self.closed = True
        self.close_code = code
        if self._writer is not None:
            self._writer.cancel()
        self._queue.clear()
        self._closer = asyncio.create_task(self._close_quietly(code, reason))
        if self.on_abort is not None:
            self.on_abort()

    async def wait_closed(self, timeout: float) -> None:
        """Give a server-initiated close (e.g. 1009 after an error) time to go out."""
        self.flush()
        writer = self._writer
        if writer is None:
            return  # nothing left to send
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(writer), timeout)

    async def stop(self) -> None:
        """The peer is gone: stop the writer and drop anything queued."""
        self.closed = True
        self._queue.clear()
        writer = self._writer
        if writer is not None:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        if self._closer is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._closer

    def _put(self, item: bytes | tuple[int, str]) -> bool:
        """Queue ``item`` for this loop turn's flush; False if the queue is full."""
        if len(self._queue) >= self._queue_size:
            return False
        self._queue.append(item)
        if not self._flush_due and self._writer is None:
            self._flush_due = True
            _schedule_flush(self)
        return True

    def flush(self) -> None:
        """Send what is queued, now: at once while the socket takes data, else by a task.

        A send runs here until it first has to wait, which it never does while
        the socket takes data. Only then does a writer task take over the rest,
        so a busy table pays for no task per message.
        """
        self._flush_due = False
        queue = self._queue
        while queue and self._writer is None and self._closer is None:
            item = queue.pop(0)
            closing = not isinstance(item, bytes)
            send = self.conn.send_bytes(item) if isinstance(item, bytes) else self.conn.close(*item)
            try:
                waiting_on = send.send(None)
            except StopIteration:
                continue
            except Exception:
                self.closed = True  # the socket is gone; the reader side leaves the table
                queue.clear()
                return
            self._writer = asyncio.get_running_loop().create_task(
                self._write(_Resume(send, waiting_on), closing=closing))

    async def _write(self, started: Awaitable[None], closing: bool) -> None:
        """Finish the send ``flush`` started, then send what queued meanwhile, then end.

        After a close or a failure ``_writer`` stays set, so nothing new is sent
        (nothing is queued then anyway: ``closed`` is set).
        """
        queue = self._queue
        try:
            await started
            if closing:
                return
            while queue:
                item = queue.pop(0)
                if isinstance(item, bytes):
                    await self.conn.send_bytes(item)
                else:
                    await self.conn.close(*item)
                    return
        except Exception:
            # The socket is gone; the reader side notices and leaves the table.
            self.closed = True
            return
        # The queue is empty and nothing was awaited since that check: the next message
        # goes out with the next flush again.
        self._writer = None

    async def _close_quietly(self, code: int, reason: str) -> None:
        # A peer that reads nothing never lets the close frame out: give up after a while.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.close(code, reason), ABORT_CLOSE_SECONDS)


class _Outbox:
    """The clients with messages queued in this turn of one event loop.

    The first message of a turn schedules one flush, which runs once every
    callback that was ready has run: a turn's messages leave in one burst.
    """

    def __init__(self) -> None:
        self.clients: list[Client] = []

    def flush(self) -> None:
        clients, self.clients = self.clients, []
        for client in clients:
            if client._flush_due:
                client.flush()


#: One outbox per running event loop (tests run many loops; production one).
_OUTBOXES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Outbox] = (
    weakref.WeakKeyDictionary())


#: The loop (weakly) and outbox of the last ``_schedule_flush``: one loop in production,
#: so no dictionary lookup per message.
_last_box: tuple[weakref.ref[asyncio.AbstractEventLoop] | None, _Outbox] = (None, _Outbox())


def _schedule_flush(client: Client) -> None:
    global _last_box
    loop = asyncio.get_running_loop()
    last_loop, box = _last_box
    if last_loop is None or last_loop() is not loop:
        found = _OUTBOXES.get(loop)
        if found is None:
            found = _OUTBOXES[loop] = _Outbox()
        box = found
        _last_box = (weakref.ref(loop), box)
    if not box.clients:
        loop.call_soon(box.flush)
    box.clients.append(client)


class _Resume:
    """Await the rest of a coroutine that already ran up to its first suspension.

    ``waiting_on`` is what it yielded there (the future it waits for); the task
    awaiting this waits on it, then drives the coroutine on as usual.
    """

    def __init__(self, coro: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        self.coro = coro
        self.waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, None]:
        coro, yielded = self.coro, self.waiting_on
        while True:
            try:
                sent = yield yielded
            except BaseException as exc:  # cancellation included: pass it on
                try:
                    yielded = coro.throw(exc)
                except StopIteration:
                    return
            else:
                try:
                    yielded = coro.send(sent)
                except StopIteration:
                    return
