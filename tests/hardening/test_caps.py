"""Connections per table and per client address are capped, and released on disconnect."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest
from tablekit import Live, Player, live_server, wait_until
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

PER_TABLE = 6
PER_ADDRESS = 10


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    async for server in live_server(tmp_path, max_connections_per_table=PER_TABLE,
                                    max_connections_per_address=PER_ADDRESS):
        yield server


async def raw(live: Live, table_id: str) -> ClientConnection:
    return await connect(f"ws://{live.base}/ws/{table_id}", compression=None)


async def refused(live: Live, table_id: str) -> str:
    """Open a socket that must be refused: its one error message, then close 1008."""
    ws = await raw(live, table_id)
    frame = orjson.loads(await asyncio.wait_for(ws.recv(), 5))
    assert frame["type"] == "error" and frame["code"] == "too_many_connections", frame
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(ws.recv(), 5)
    assert ws.close_code == 1008 and ws.close_reason == "too many connections"
    message: str = frame["message"]
    return message


async def accepted(live: Live, table_id: str) -> Player:
    player = await live.player(table_id)  # hello answered with welcome and a state
    return player


def counts(live: Live) -> tuple[dict[str, int], dict[str, int]]:
    caps = live.app.state.connection_caps
    return caps.tables, caps.addresses


async def test_a_table_takes_at_most_its_cap_and_frees_a_place_on_disconnect(live: Live) -> None:
    table_id, _host = await live.create()
    players = [await accepted(live, table_id) for _ in range(PER_TABLE)]
    for _ in range(3):
        assert "table" in await refused(live, table_id)
    assert counts(live)[0] == {table_id: PER_TABLE}
    # The refused sockets changed nothing: the seated ones still play.
    answer = await players[0].intent({"type": "sit", "seat": 0, "name": "P0"})
    assert answer["type"] == "ack", answer
    # Another table is not affected by this one's cap.
    other_id, _ = await live.create()
    other = await accepted(live, other_id)
    # A closed socket frees its place at once (well, once the server saw the close).
    await players[1].ws.close()
    await wait_until(lambda: counts(live)[0].get(table_id) == PER_TABLE - 1)
    players[1] = await accepted(live, table_id)
    assert "table" in await refused(live, table_id)
    for p in [*players, other]:
        await p.ws.close()
    live.players.clear()
    await wait_until(lambda: counts(live) == ({}, {}))


async def test_an_address_takes_at_most_its_cap_over_all_tables(live: Live) -> None:
    tables = [(await live.create())[0] for _ in range(3)]
    sockets = [await raw(live, tables[i % 3]) for i in range(PER_ADDRESS)]
    await wait_until(lambda: sum(counts(live)[1].values()) == PER_ADDRESS)
    assert counts(live)[1] == {"127.0.0.1": PER_ADDRESS}
    for table_id in tables:  # no table is full (at most 4 each), the address is
        assert "address" in await refused(live, table_id)
    assert "address" in await refused(live, "no-such-table")  # counted before the lookup
    await sockets.pop().close()
    await wait_until(lambda: counts(live)[1] == {"127.0.0.1": PER_ADDRESS - 1})
    sockets.append(await raw(live, tables[0]))
    player = Player(sockets[-1])
    await player.send({"type": "hello", "token": None})
    await player.expect("welcome")
    assert "address" in await refused(live, tables[1])
    for ws in sockets:
        await ws.close()
    await wait_until(lambda: counts(live) == ({}, {}))


async def test_the_caps_are_settings_with_documented_defaults() -> None:
    from app.config import Settings

    s = Settings()
    assert (s.max_connections_per_table, s.max_connections_per_address) == (64, 256)
    protocol = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    assert "`too_many_connections`" in protocol
