"""A client sends at once while its socket takes data, and queues (bounded) while it does not."""

from __future__ import annotations

import asyncio

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


async def test_a_message_goes_out_before_send_returns_while_the_socket_takes_data() -> None:
    conn = GatedConn()
    client = Client(conn)
    client.send(b"1")
    client.send(b"2")
    assert conn.sent == [b"1", b"2"]
    assert client._writer is None  # no task was needed


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
    assert conn.sent[-1] == b"after"  # at once again


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
    for i in range(6):  # one in the socket's hands, four queued, one too many
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
    if stuck:
        conn.open.set()
        await asyncio.sleep(0.01)
    assert client.closed and conn.sent == []
    client.send(b"y")  # ignored
    assert conn.sent == []
