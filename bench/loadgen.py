"""Load generator for the Dingo server: the shared perf harness plus a Dingo adapter.

The harness (``$PERF_DIR/loadgen.py``, default ``<repo>/../shared/perf``) owns the
game driving, the latency bookkeeping, the paced/closed modes and the one-line JSON
summary; this file only teaches it our wire protocol (docs/protocol.md) and then runs
its ``main``. Every adapter of the harness stays available (``--adapter bare|bgio|dingo``).

    /tmp/perf-venv/bin/python bench/loadgen.py --adapter dingo --port 8000 \\
        --tables 50 --pace 0 --warmup 3 --duration 15 [--server-pid PID]

What a Dingo table is here:

- ``POST /api/tables`` with a long match (``--games-to-win``, default 50), no turn timer
  and no bots, so every move is made by a load-generator seat;
- four WebSockets on ``/ws/{id}``: seat 0 says ``hello`` with the host token, the others
  ``hello`` null; each then ``sit``s on its seat (and keeps the seat token it gets); the
  host sends ``start`` once its view shows all four seats taken;
- each socket keeps its state: the full ``state`` that answers ``hello``, patched by
  every ``delta`` (``app.table.patch.apply``; a delta that does not start from the
  socket's version is a protocol error, answered with ``sync``); after each, a seat
  reports it to the harness with ``turn = game.to_act`` (or -1) and ``hand = game.legal``
  (the legal actions of that seat's own view, so the harness's random pick is a
  uniformly random *legal* move: real Dingo); the pick goes back as a
  ``discard``/``pass``/``play`` intent with a fresh ``id`` and the ``v`` it was made on;
- between games every seat sends ``ready`` (after a match, ``rematch``);
- an ``error`` answer to a move is a rejection (``core.on_rejected``); an ``error`` to
  anything else is counted as an error too (``adapter_notes.protocol_errors``).

Extra options (taken out before the harness parses the rest):

- ``--games-to-win N``  (1-50, default 50) the match length of each table;
- ``--idle``            connect and seat everything, start the matches, then make no
  move for ``--duration`` seconds (the harness's paced mode with a pace nobody
  reaches): the memory-per-idle-connection scenario.
- ``--spread-ports P,Q,...``  several ``dingo serve`` processes of one service
  (docs/cluster.md) on these loopback ports: table ``i`` is created on port ``i mod n``
  and seat ``s`` of it connects to port ``(i + s) mod n``, so every table has players
  on every process and most actions cross from a relaying process to the owner;
- ``--colocate``  with ``--spread-ports``: every seat of table ``i`` connects to port
  ``i mod n`` too (its owner), so nothing is relayed: what several processes give
  without the extra hop.

The generator runs with its garbage collector off, whatever the adapter. A latency is
taken when the generator has read every recipient's message, so a pause of the
generator is charged to the server: with 4,000 sockets each holding its state, its
full collections took 0.1-0.35 s and were the whole of the paced scenario's largest
latencies (docs/benchmarks.md). Nearly all it allocates is freed by reference counting:
its memory stayed flat over a paced run and grew about 0.5 MB a second in the closed
loop (53 MB after 15 s, 67 MB after 45 s), which a run's minute can afford.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import itertools
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
#: Where the shared harness lives (``loadgen.py``, ``summarize.py``, ``peers/``).
PERF_DIR = Path(os.environ.get("PERF_DIR") or REPO.parent / "shared" / "perf")
IDLE_PACE = 1e9  # seconds between a table's moves in --idle: never, within any run


def load_harness(perf_dir: Path = PERF_DIR) -> ModuleType:
    """Import the shared ``loadgen.py`` as the module ``perf_loadgen`` (once)."""
    if "perf_loadgen" in sys.modules:
        return sys.modules["perf_loadgen"]
    path = perf_dir / "loadgen.py"
    if not path.is_file():
        raise SystemExit(f"bench/loadgen.py: the shared harness {path} is missing "
                         "(set PERF_DIR to the directory holding perf/loadgen.py)")
    spec = importlib.util.spec_from_file_location("perf_loadgen", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["perf_loadgen"] = module
    spec.loader.exec_module(module)
    return module


lg = load_harness()
sys.path.insert(0, str(REPO))  # the delta format's ``apply``, standard library only
from app.table import patch  # noqa: E402

orjson = lg.orjson
dumps, loads = orjson.dumps, orjson.loads


#: Set by ``main`` from the extra options; the adapter reads it when it is built.
OPTIONS = argparse.Namespace(games_to_win=50, idle=False, spread_ports=[], colocate=False)


class DingoAdapter:
    """Our protocol (docs/protocol.md): HTTP to create tables, one WebSocket per seat."""

    name = "dingo"

    def __init__(self, args: argparse.Namespace) -> None:
        base = (args.url or f"http://127.0.0.1:{args.port or 8000}").rstrip("/")
        http = base.replace("ws://", "http://", 1).replace("wss://", "https://", 1)
        #: One base URL per server process; the same one n times over without --spread-ports.
        self.https = ([f"http://127.0.0.1:{port}" for port in OPTIONS.spread_ports]
                      or [http])
        self.wss = [h.replace("http", "ws", 1) for h in self.https]
        self.games_to_win = OPTIONS.games_to_win
        self.session: Any = None
        self.sockets: dict[tuple[int, int | None], Any] = {}
        self.readers: list[asyncio.Task[None]] = []
        self._ids = itertools.count(1)
        # counters for adapter_notes
        self.states = 0  # full states: the answers to hello and sync
        self.state_bytes = 0
        self.deltas = 0
        self.delta_bytes = 0
        #: In the measurement window: the size of every delta a seat got for a change it
        #: did not make (no ack); all delta bytes, and the game actions acked in them.
        self.bystander_bytes: list[int] = []
        self.window_bytes = 0
        self.window_actions = 0
        self.acks = 0
        self.protocol_errors = 0
        self.disconnects = 0
        self.votes = {"g": 0, "r": 0, "m": 0}  # acks of start, ready, rematch
        self.first_protocol_error: str | None = None

    # -- the harness's four methods --------------------------------------------------

    async def prepare(self, core: Any, n_tables: int) -> list[Any]:
        import aiohttp

        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        gate = asyncio.Semaphore(core.args.connect_concurrency)
        body = {"games_to_win": self.games_to_win, "turn_seconds": None, "bots": []}

        async def make(i: int) -> Any:
            http = self.https[i % len(self.https)]
            async with gate, self.session.post(f"{http}/api/tables", json=body) as resp:
                if resp.status != 201:
                    raise RuntimeError(f"POST /api/tables -> HTTP {resp.status}: "
                                       f"{(await resp.text())[:300]}")
                created = await resp.json(loads=loads)
            table = lg.Table(i, created["table_id"])
            table.info.update(host_token=created["host_token"], tokens={}, started=False,
                              voted=[False] * lg.SEATS)
            return table

        return list(await asyncio.gather(*(make(i) for i in range(n_tables))))

    async def open(self, core: Any, table: Any, seat: int | None) -> None:
        spread = 0 if OPTIONS.colocate else (seat or 0)
        base = self.wss[(table.index + spread) % len(self.wss)]
        ws = await self.session.ws_connect(f"{base}/ws/{table.tid}", compress=0,
                                           autoping=True, heartbeat=None, max_msg_size=0,
                                           decode_text=False)
        self.sockets[(table.index, seat)] = ws
        joined: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.readers.append(asyncio.create_task(self._read(core, table, seat, ws, joined)))
        token = table.info["host_token"] if seat == 0 else None
        await ws.send_str(dumps({"type": "hello", "token": token}).decode())
        if seat is not None:
            await ws.send_str(dumps({"type": "sit", "seat": seat, "name": f"Load {seat}",
                                     "id": f"s{next(self._ids)}"}).decode())
        # Seated (or, for a spectator, welcomed) before the next socket opens.
        await asyncio.wait_for(joined, 60)

    async def send(self, table: Any, seat: int, action: dict[str, Any], version: int) -> None:
        await self.sockets[(table.index, seat)].send_str(self._intent(action, version))

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*(ws.close() for ws in self.sockets.values()),
                             return_exceptions=True)
        if self.session is not None:
            await self.session.close()

    def extra(self) -> dict[str, Any]:
        return {
            "games_to_win": self.games_to_win,
            "idle": OPTIONS.idle,
            "connections_open": sum(1 for ws in self.sockets.values() if not ws.closed),
            "connections": len(self.sockets),
            "disconnects": self.disconnects,
            "protocol_errors": self.protocol_errors,
            "first_protocol_error": self.first_protocol_error,
            "acks": self.acks,
            "matches_started": self.votes["g"],
            "ready_votes": self.votes["r"],
            "rematch_votes": self.votes["m"],
            "state_frames": self.states,
            "state_bytes_mean": round(self.state_bytes / self.states) if self.states else None,
            "delta_frames": self.deltas,
            "delta_bytes_mean": round(self.delta_bytes / self.deltas) if self.deltas else None,
            "bystander_delta_bytes_median": (statistics.median(self.bystander_bytes)
                                             if self.bystander_bytes else None),
            "delta_bytes_per_action": (round(self.window_bytes / self.window_actions)
                                       if self.window_actions else None),
        }

    # -- the protocol ------------------------------------------------------------------

    def _intent(self, action: dict[str, Any], version: int) -> str:
        """A legal action of ``state.game.legal`` as the intent that makes it."""
        intent: dict[str, Any] = {"type": action["type"], "id": f"a{next(self._ids)}",
                                  "v": version}
        if "cards" in action:
            intent["cards"] = action["cards"]
        else:
            intent["card"] = action["card"]
        return dumps(intent).decode()

    def _protocol_error(self, core: Any, text: str) -> None:
        self.protocol_errors += 1
        core.rejected += 1  # counted in the summary's errors.total
        self.first_protocol_error = self.first_protocol_error or text
        core.first_error = core.first_error or f"rejected: {text}"

    def _on_state(self, core: Any, table: Any, seat: int, m: dict[str, Any]) -> str | None:
        """One seat's ``state``: report it; return a message to send, if any."""
        v = m["v"]
        status = m["table"]["status"]
        if status == "playing":
            table.info["voted"][seat] = False
            to_act = (m["to_act"] or [None])[0]
            action = core.on_view(table, seat, v, -1 if to_act is None else to_act,
                                  m["game"]["legal"])
            return None if action is None else self._intent(action[0], action[1])
        info = table.info
        if status == "lobby":
            if seat == 0 and not info["started"] and all(
                    s["kind"] != "empty" for s in m["seats"]):
                info["started"] = True
                return dumps({"type": "start", "id": f"g{next(self._ids)}"}).decode()
            return None
        core.on_view(table, seat, v, -1, [])
        # between_games: vote for the next game; match_over: for a rematch. Once each time:
        # votes are logged, so the other seats' votes bring new versions meanwhile.
        if not m["seats"][seat]["ready"] and not info["voted"][seat]:
            info["voted"][seat] = True
            if status == "between_games":
                return dumps({"type": "ready", "id": f"r{next(self._ids)}"}).decode()
            return dumps({"type": "rematch", "id": f"m{next(self._ids)}"}).decode()
        return None

    async def _read(self, core: Any, table: Any, seat: int | None, ws: Any,
                    joined: asyncio.Future[None]) -> None:
        import aiohttp

        text, binary = aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY
        state: dict[str, Any] | None = None  # this socket's copy of its state
        try:
            while True:
                msg = await ws.receive()
                if msg.type is not text and msg.type is not binary:
                    self.disconnects += 1
                    if not joined.done():
                        joined.set_exception(RuntimeError(f"closed while joining: {msg!r}"))
                    if core.running:
                        core.first_error = core.first_error or f"connection closed: {msg!r}"
                    return
                data = msg.data
                m = loads(data)
                kind = m["type"]
                reply = None
                if kind == "delta":
                    if state is None or m["from"] != state["v"]:
                        self._protocol_error(core, f"a delta from v{m['from']} at "
                                                   f"v{None if state is None else state['v']}")
                        state = None
                        await ws.send_str('{"type":"sync"}')
                        continue
                    patch.apply(state, m["patch"], m.get("gone") or [])
                    state["v"] = m["v"]
                    self.deltas += 1
                    self.delta_bytes += len(data)
                    window = getattr(core, "window", None)
                    if window is not None and window[0] <= time.perf_counter() < window[1]:
                        # What every recipient gets per action, and a bystander per message.
                        self.window_bytes += len(data)
                        if (m.get("ack") or " ")[0] == "a":
                            self.window_actions += 1
                        elif "ack" not in m and seat is not None:
                            self.bystander_bytes.append(len(data))
                    if "ack" in m:
                        self._acked(m["ack"])
                if kind in ("state", "delta"):
                    if kind == "state":
                        state = m
                        self.states += 1
                        self.state_bytes += len(data)
                    assert state is not None
                    if seat is None:
                        core.on_spectator_view(table)
                    else:
                        reply = self._on_state(core, table, seat, state)
                elif kind == "ack":
                    self._acked(m["id"])
                elif kind == "error":
                    intent_id = m.get("id") or ""
                    text_ = f"{m.get('code')}: {m.get('message')} (id {intent_id})"
                    if intent_id.startswith("a") and seat is not None:
                        action = core.on_rejected(table, seat, text_)
                        if action is not None:
                            reply = self._intent(action[0], action[1])
                    else:
                        self._protocol_error(core, text_)
                        if not joined.done():
                            joined.set_exception(RuntimeError(text_))
                elif kind == "seated":
                    table.info["tokens"][seat] = m["token"]
                    if not joined.done():
                        joined.set_result(None)
                elif kind == "welcome" and seat is None and not joined.done():
                    joined.set_result(None)
                if reply is not None:
                    await ws.send_str(reply)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.disconnects += 1
            if not joined.done():
                joined.set_exception(exc)
            if core.running:
                core.first_error = core.first_error or f"connection lost: {exc!r}"

    def _acked(self, intent_id: str | None) -> None:
        self.acks += 1
        first = (intent_id or " ")[0]
        if first in "grm":
            self.votes[first] += 1


def main(argv: list[str] | None = None) -> None:
    gc.disable()  # the generator's own pauses are not the server's latency (docstring)
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--games-to-win", type=int, default=50)
    extra.add_argument("--idle", action="store_true")
    extra.add_argument("--spread-ports", default="")
    extra.add_argument("--colocate", action="store_true")
    ours, rest = extra.parse_known_args(argv)
    if not 1 <= ours.games_to_win <= 50:
        raise SystemExit("--games-to-win must be 1-50")
    try:
        ports = [int(p) for p in ours.spread_ports.split(",") if p.strip()]
    except ValueError:
        raise SystemExit("--spread-ports takes port numbers separated by commas") from None
    OPTIONS.games_to_win, OPTIONS.idle = ours.games_to_win, ours.idle
    OPTIONS.spread_ports, OPTIONS.colocate = ports, ours.colocate
    if ours.idle:
        rest += ["--pace", str(IDLE_PACE)]
    lg.ADAPTERS["dingo"] = DingoAdapter
    sys.argv = [sys.argv[0], *rest]
    lg.main()


if __name__ == "__main__":
    main()
