"""Deltas: after every message, the state a client patched together equals the full state a
fresh ``sync`` would show it at that moment, for every seat and a spectator, through whole
matches of every game (the Python client applies them as the browser does: ``Tracker``)."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import orjson
import pytest
from tablekit import FakeConn, Harness, comparable, fast_config, play, settled, wait_until

from app import games
from app.table.client import Client
from app.table.table import Table

#: Short matches (every game is played to its end; Dingo's default is five games).
SHORT: dict[str, dict[str, Any]] = {"dingo": {"games_to_win": 2}, "divide": {"target_wins": 2}}


class Witness:
    """Keeps, per connection, the full state a fresh sync would have shown it when each
    message of a change was queued for it (``_announce``), for ``CheckedConn`` to compare."""

    def __init__(self, table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
        self.table = table
        self.expected: dict[CheckedConn, list[dict[str, Any]]] = defaultdict(list)
        self.checked = 0
        #: Mismatches (raised in a send, which the client's writer swallows: also kept here).
        self.failures: list[str] = []
        announce = table._announce

        def witnessed(*args: Any, **kwargs: Any) -> None:
            queued = {c: len(c._queue) for c in table.clients}
            announce(*args, **kwargs)
            common, shared = table._common(), table._shared()
            for client in table.clients:
                new = len(client._queue) - queued.get(client, 0)
                if new:
                    data, _ = table._state(table._seen_as(client.seat), [], common, shared)
                    assert isinstance(client.conn, CheckedConn)
                    self.expected[client.conn] += [comparable(orjson.loads(data))] * new

        monkeypatch.setattr(table, "_announce", witnessed)


class CheckedConn(FakeConn):
    """After each state, delta or ack it is sent, its patched state must equal the fresh one."""

    def __init__(self, witness: Witness) -> None:
        super().__init__()
        self.witness = witness
        self.deltas: list[int] = []  # the size of every delta, in bytes

    async def send_bytes(self, data: bytes) -> None:
        await super().send_bytes(data)
        kind = self.tracker.raw[-1]["type"]
        if kind == "delta":
            self.deltas.append(len(data))
        if kind in ("state", "delta", "ack"):
            assert self.tracker.state is not None
            if comparable(self.tracker.state) != self.witness.expected[self].pop(0):
                self.witness.failures.append(f"after {data[:300]!r}")
                raise AssertionError(self.witness.failures[-1])
            self.witness.checked += 1


@pytest.mark.parametrize("name", games.names())
async def test_every_client_patches_together_the_state_a_sync_would_show_it(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = games.get(name)
    last = spec.seats - 1
    h = Harness(fast_config())
    table, host = await h.table(game=name, turn_seconds=60,
                                bots=((last, spec.bot_order[0]),), **SHORT.get(name, {}))
    witness = Witness(table, monkeypatch)
    try:
        players: dict[int, tuple[Client, FakeConn]] = {}
        for seat in range(last):
            client, conn = await h.join(table, host if seat == 0 else None, CheckedConn(witness))
            await table.submit(client, {"type": "sit", "seat": seat, "name": f"P{seat}"})
            players[seat] = client, conn
        _, watching = await h.join(table, None, CheckedConn(witness))
        await table.submit(players[0][0], {"type": "start", "id": "go"})
        moves = await play(table, players, random.Random(7),
                           lambda: table.match_id is not None or witness.failures)
        conns = [conn for _, conn in players.values()] + [watching]
        await settled(table, *conns)
        # (A random player's wrong claims can end a Bingo match within ten moves of its own.)
        assert moves > 0 and table.version > 10 and table.match is not None and table.match.over
        # Every state, delta and ack was checked; each move sent one to every connection.
        assert witness.checked == sum(1 for c in conns for m in c.tracker.raw
                                      if m["type"] in ("state", "delta", "ack"))
        assert witness.checked > len(conns) * moves
        assert not any(witness.expected.values()), "a message was queued and never sent"
        # Deltas were sent, each to its recipient alone when views differ.
        assert all(isinstance(c, CheckedConn) and len(c.deltas) > moves for c in conns)
        # And a sync now answers what each had patched together.
        for client, conn in [*players.values(), (h.clients[-1], watching)]:
            patched = conn.tracker.state
            await table.sync(client)
            await wait_until(lambda conn=conn: conn.tracker.raw[-1]["type"] == "state")
            assert patched is not None and comparable(patched) == comparable(conn.frames[-1])
    finally:
        await h.close()
        assert not witness.failures, witness.failures[0]
