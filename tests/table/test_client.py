"""A client sends its messages at the end of the loop turn while its socket takes data,
and queues them (bounded) while it does not."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest

from app.table.client import CLOSE_TOO_SLOW, Client


class GatedConn:
    """A connection whose sends wait while ``open`` is clear (a peer not reading)."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.open.set()
        self.sent: list[bytes] = []
        self.closed: tuple[int, str] | None = None
        self.fail = False

    async def send_bytes(self, data: bytes) -> None:
        await self.open.wait()
        if self.fail:
            raise OSError("connection reset")
        self.sent.append(data)

    async def close(self, code: int, reason: str) -> None:
        await self.open.wait()
        self.closed = (code, reason)


async def test_a_turns_messages_go_out_together_at_its_end_without_a_task() -> None:
    conns = [GatedConn(), GatedConn()]
    clients = [Client(conn) for conn in conns]
    clients[0].send(b"1")
    clients[1].send(b"a")
    clients[0].send(b"2")
    assert conns[0].sent == conns[1].sent == []  # the turn is not over
    tasks = len(asyncio.all_tasks())
    await asyncio.sleep(0)
    assert conns[0].sent == [b"1", b"2"] and conns[1].sent == [b"a"]
    assert len(asyncio.all_tasks()) == tasks  # no task was needed


async def test_messages_wait_in_order_while_the_socket_is_full_then_all_go_out() -> None:
    conn = GatedConn()
    client = Client(conn, queue_size=8)
    conn.open.clear()
    for i in range(6):
        client.send(str(i).encode())
    assert conn.sent == []
    conn.open.set()
    await asyncio.sleep(0.01)
    assert conn.sent == [str(i).encode() for i in range(6)]
    client.send(b"after")
    await asyncio.sleep(0)
    assert conn.sent[-1] == b"after"  # with the turn's flush again


async def test_a_close_goes_out_after_the_messages_before_it() -> None:
    conn = GatedConn()
    client = Client(conn)
    conn.open.clear()
    client.send(b"last words")
    client.close(4000, "bye")
    client.send(b"never")
    conn.open.set()
    await asyncio.sleep(0.01)
    assert conn.sent == [b"last words"] and conn.closed == (4000, "bye")


async def test_a_client_that_stops_reading_is_cut_off_when_its_queue_is_full() -> None:
    conn = GatedConn()
    client = Client(conn, queue_size=4)
    aborted: list[bool] = []
    client.on_abort = lambda: aborted.append(True)
    conn.open.clear()
    client.send(b"0")
    await asyncio.sleep(0)  # flushed: in the socket's hands, waiting
    for i in range(1, 6):  # four queued, one too many
        client.send(str(i).encode())
    assert client.aborted and aborted == [True] and client.close_code == CLOSE_TOO_SLOW
    conn.open.set()
    await client.stop()
    assert conn.sent == []  # the queue was dropped; the send in flight was cancelled


@pytest.mark.parametrize("stuck", [False, True])
async def test_a_failed_send_marks_the_client_closed(stuck: bool) -> None:
    conn = GatedConn()
    client = Client(conn)
    conn.fail = True
    if stuck:
        conn.open.clear()
    client.send(b"x")
    await asyncio.sleep(0)
    if stuck:
        conn.open.set()
        await asyncio.sleep(0.01)
    assert client.closed and conn.sent == []
    client.send(b"y")  # ignored
    assert conn.sent == []


async def test_wait_closed_sends_a_close_queued_this_turn_before_the_client_stops() -> None:
    conn = GatedConn()
    client = Client(conn)
    client.send(b"error: too large")
    client.close(1009, "message too large")
    await client.wait_closed(1.0)
    await client.stop()
    assert conn.sent == [b"error: too large"] and conn.closed == (1009, "message too large")


def test_an_event_loop_that_is_done_leaves_nothing_behind() -> None:
    """Each loop has its own outbox (tests run many loops), kept only while the loop lives."""

    async def send_one() -> None:
        conn = GatedConn()
        Client(conn).send(b"x")
        await asyncio.sleep(0)
        assert conn.sent == [b"x"]

    loop = asyncio.new_event_loop()
    loop.run_until_complete(send_one())
    loop.close()
    gone = weakref.ref(loop)
    del loop
    gc.collect()
    assert gone() is None
