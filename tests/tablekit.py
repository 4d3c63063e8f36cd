"""Shared by tests/table and tests/api/test_ws*.py: fakes, a live server, players, leak checks.

The live server is real uvicorn on a free port in the test's own event loop,
so a test can talk to it over real WebSockets and still look at the tables
and the store it runs on.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import re
import shutil
import tempfile
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvicorn
from fastapi import FastAPI
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app import games
from app.api.schemas import SERVER_MESSAGE
from app.config import Settings
from app.db.migrate import run_migrations
from app.game import Action, Match, MatchOptions, codes
from app.games.dingo import DingoMatch
from app.main import create_app
from app.table import patch
from app.table.client import Client
from app.table.manager import TableManager
from app.table.options import TableConfig, TableOptions
from app.table.ports import MemoryStore, StoredTable
from app.table.table import Table

TIMEOUT = 10.0
CARD = re.compile(r"^[2-9TJQKA][CDHS]$")


def dingo(table: Table) -> Match:
    """The Dingo engine's match behind a Dingo table (for tests that look inside it)."""
    assert isinstance(table.match, DingoMatch)
    return table.match.inner


# -- fakes --------------------------------------------------------------------------


class RecordingStore(MemoryStore):
    """A MemoryStore that writes what it was asked into a shared ``order`` list."""

    def __init__(self, order: list[tuple[str, int]] | None = None) -> None:
        super().__init__()
        self.order = order if order is not None else []
        self.fail_appends = False
        self.fail_records = False
        self.fail_reads = False  # load_table: the database cannot be read
        #: A test's gate (an ``asyncio.Event``): while it is given and not yet set, every
        #: append waits, so a change stays folded in the table's memory and not stored.
        self.gate: asyncio.Event | None = None

    async def append(self, table_id: str, seq: int, entry: dict[str, Any]) -> None:
        await asyncio.sleep(0)  # durable "later": nothing may be announced meanwhile
        if self.gate is not None:
            await self.gate.wait()
        if self.fail_appends:
            raise OSError("disk full")
        await super().append(table_id, seq, entry)
        self.order.append(("append", seq))

    async def load_table(self, table_id: str) -> StoredTable | None:
        if self.fail_reads:
            raise OSError("the database is away")
        return await super().load_table(table_id)

    async def finish_match(self, record: dict[str, Any]) -> int:
        if self.fail_records:
            raise ValueError("games[0].scores: do not add up")
        return await super().finish_match(record)

    def entries(self, table_id: str) -> list[dict[str, Any]]:
        return self.tables[table_id].entries


class Tracker:
    """The test clients' copy of the table, kept as a browser keeps it (docs/protocol.md).

    A ``state`` replaces it; a ``delta`` must start from its version (a gap fails the
    test: the server never skips one) and its ops are applied to a copy, so every state
    a test looks at stays as it was. ``receive`` answers the frames the client has now
    seen, in the form tests read them: a delta becomes the full ``state`` it leads to,
    preceded by an ``ack`` when it carried one (the actor's acknowledgement).
    """

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        #: Every frame as it came over the wire, decoded.
        self.raw: list[dict[str, Any]] = []

    def receive(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        SERVER_MESSAGE.validate_python(message)
        self.raw.append(message)
        kind = message["type"]
        if kind == "state":
            self.state = message
            return [message]
        if kind != "delta":
            return [message]
        assert self.state is not None, "a delta came before any state"
        assert message["from"] == self.state["v"], (
            f"a delta from v{message['from']} came to a client at v{self.state['v']}")
        state = {k: v for k, v in orjson.loads(orjson.dumps(self.state)).items() if k != "log"}
        patch.apply(state, message["patch"], message.get("gone") or [])
        state["v"], state["events"] = message["v"], message["events"]
        self.state = state
        if "ack" in message:
            return [{"type": "ack", "id": message["ack"], "v": message["v"]}, state]
        return [state]


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A state without what differs between two builds of the same moment: the events that
    led to it, the log, and the timer's reading of the server's clock."""
    same = {k: v for k, v in state.items() if k not in ("events", "log", "type")}
    if same.get("timer"):
        same["timer"] = {k: v for k, v in same["timer"].items() if k != "server_time"}
    return same


class FakeConn:
    """A ``Connection`` that keeps every message it was sent, decoded (``frames``: deltas
    as the states they lead to, ``Tracker``)."""

    def __init__(self, order: list[tuple[str, int]] | None = None) -> None:
        self.frames: list[dict[str, Any]] = []
        self.closed: int | None = None
        self.order = order
        self.tracker = Tracker()

    async def send_bytes(self, data: bytes) -> None:
        try:
            received = self.tracker.receive(orjson.loads(data))
        except Exception:
            # The client's writer takes a failed send for a closed socket and says nothing:
            # a message the protocol's schema refuses would only show as a test timing out.
            traceback.print_exc()
            raise
        for message in received:
            self.frames.append(message)
            if self.order is not None and message["type"] == "state":
                self.order.append(("state", message["v"]))

    async def close(self, code: int, reason: str) -> None:
        self.closed = code

    def states(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "state"]

    def last(self, kind: str = "state") -> dict[str, Any]:
        return [f for f in self.frames if f["type"] == kind][-1]


class Harness:
    """A manager on a recording store, and every client a test opened (closed at the end)."""

    def __init__(self, config: TableConfig | None = None) -> None:
        self.order: list[tuple[str, int]] = []
        self.store = RecordingStore(self.order)
        self.manager = TableManager(self.store, config or fast_config())
        self.clients: list[Client] = []

    async def table(self, **options: Any) -> tuple[Table, str]:
        return await self.manager.create(TableOptions.create(**options))

    async def join(self, table: Table, token: str | None = None,
                   conn: Any = None) -> tuple[Client, FakeConn]:
        conn = conn or FakeConn(self.order)
        client = Client(conn, self.manager.config.send_queue_size)
        self.clients.append(client)
        await table.join(client, token)
        await asyncio.sleep(0)
        return client, conn

    async def seat(self, table: Table, seat: int, name: str,
                   token: str | None = None) -> tuple[Client, FakeConn]:
        client, conn = await self.join(table, token)
        await table.submit(client, {"type": "sit", "seat": seat, "name": name})
        await wait_until(lambda: any(f["type"] == "seated" for f in conn.frames))
        return client, conn

    async def restart(self, table: Table, config: TableConfig | None = None) -> Table:
        """The table as a restarted server (or another process) brings it back from its log:
        shut here, restored from the store, served by this harness's manager."""
        table.shut(1012, "restart")
        stored = StoredTable(table.id, table.options.to_dict(), table.created_at,
                             list(self.store.entries(table.id)))
        copy = await Table.restore(stored, self.store, config or self.manager.config)
        self.manager.tables[copy.id] = copy
        return copy

    async def close(self) -> None:
        await self.manager.shutdown()
        for client in self.clients:
            await client.stop()



async def wait_until(predicate: Callable[[], object], timeout: float = TIMEOUT) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError("timed out waiting for the table")
        await asyncio.sleep(0.002)


TWO_SEAT_GAMES = [name for name in games.names() if games.get(name).seats == 2]


async def answer(table: Table, client: Client, conn: FakeConn,
                 intent: dict[str, Any]) -> dict[str, Any]:
    """Submit ``intent`` and wait for its ack or error (frames are sent asynchronously)."""
    before = len(conn.frames)
    await table.submit(client, intent)

    def answers() -> list[dict[str, Any]]:
        return [f for f in conn.frames[before:] if f["type"] in ("ack", "error")
                and f["id"] == intent.get("id")]

    await wait_until(answers)
    return answers()[0]


async def settled(table: Table, *conns: FakeConn) -> None:
    """Wait until every connection has been sent the table's current state."""
    await wait_until(lambda: all(c.states() and c.last()["v"] == table.version for c in conns))


async def play(table: Table, players: dict[int, tuple[Client, FakeConn]], rng: random.Random,
               until: Any) -> int:
    """Send random legal actions from what each seat was shown, until ``until()``; return
    how many were accepted."""
    sent = 0
    ids = iter(range(10**6))
    while not until():
        moved = False
        for seat, (client, conn) in players.items():
            state = conn.last()
            if state["v"] != table.version or seat not in state["to_act"]:
                continue
            legal = state["game"]["legal"]
            assert legal, f"seat {seat} is to act and was offered nothing"
            action = rng.choice(legal)
            reply = await answer(table, client, conn,
                                 {**action, "id": f"m{next(ids)}", "v": state["v"]})
            if reply["type"] == "ack":
                sent += 1
            else:  # another seat acted first (a simultaneous decision): look again
                assert reply["code"] == "stale_version", reply
            moved = True
        if not moved:
            await asyncio.sleep(0.002)
    return sent


def fast_config(**changes: Any) -> TableConfig:
    base = {"reconnect_grace_seconds": 30.0, "bot_delay_seconds": 0.0,
            "next_game_seconds": 0.0, "idle_seconds": 600.0}
    return TableConfig(**{**base, **changes})


# -- what each viewer may not see ----------------------------------------------------


def hidden_by_version(options: TableOptions, entries: list[dict[str, Any]]
                      ) -> dict[int, dict[int | None, set[str]]]:
    """For each version during a game, the cards each viewer (``None``: spectator) must not see.

    Rebuilt from the log with the bare rules engine: every card in a hand and,
    under closed discards, every discard under the top, except the viewer's own
    hand and the cards it discarded, passed or received itself.
    """
    hidden: dict[int, dict[int | None, set[str]]] = {}
    match: Match | None = None
    mine: dict[int, set[str]] = {}
    for entry in entries:
        kind = entry["kind"]
        if kind in ("start", "rematch", "next_game"):
            if kind == "next_game":
                assert match is not None
                match.start_next_game()
            else:
                match = Match(entry["seed"], MatchOptions(**options.rules))
            mine = {s: set() for s in range(4)}
        elif kind == "action":
            assert match is not None
            action = {**entry["action"], "seat": entry.get("seat", entry["action"].get("seat"))}
            match.apply(Action.from_dict(action))
            if action["type"] == "discard":
                mine[action["seat"]].add(action["card"])
        if match is None or match.game.over:
            continue
        game = match.game
        hands = {s: set(game.hand(s)) for s in range(4)}
        in_hands = set().union(*hands.values())
        under = set() if game.open_discards else set(codes(game.discards[:-1]))
        per: dict[int | None, set[str]] = {None: in_hands | under}
        for s in range(4):
            view = game.view(s)
            known = ({p["card"] for p in view["passed"]} | {r["card"] for r in view["received"]}
                     | hands[s])
            per[s] = (in_hands | under) - known - mine[s]
        hidden[entry["seq"]] = per
    return hidden


#: Keys whose card value is not a card shown from a hand (``card_strings``).
_NOT_SHOWN_CARDS = frozenset({"rabbit", "tie_break"})


def card_strings(value: Any) -> set[str]:
    """Every string in a JSON value that is a card code.

    A ``rabbit`` field only names the rabbit being hunted (``AD`` in the ace
    hunt, whoever holds it), so it is not a card shown from a hand. Nor is a finished
    game's ``tie_break`` in the scoreboard: the rabbit of a public score pile that decided
    that game, which a later game may well deal into a hand (the leak test once failed
    on ``match.games[0].tie_break == "AD"`` in game 2).
    """
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(v for k, v in item.items() if k not in _NOT_SHOWN_CARDS)
            stack.extend(item.keys())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and CARD.match(item):
            found.add(item)
    return found


def assert_no_leaks(frames: list[dict[str, Any]], viewer: int | None,
                    hidden: dict[int, dict[int | None, set[str]]]) -> int:
    """No state frame shows ``viewer`` a card hidden from it at that version; returns checks."""
    checked = 0
    for frame in frames:
        if frame["type"] != "state" or frame["v"] not in hidden:
            continue
        leaked = card_strings(frame) & hidden[frame["v"]][viewer]
        assert not leaked, f"viewer {viewer} was shown {sorted(leaked)} at v{frame['v']}"
        checked += 1
    return checked


# -- a live server and players over real WebSockets -----------------------------------------


@dataclass
class Live:
    app: FastAPI
    base: str
    store: Any  # a RecordingStore, or the app's SqlStore with ``real_store``
    http: httpx.AsyncClient
    players: list[Player] = field(default_factory=list)

    @property
    def manager(self) -> TableManager:
        manager: TableManager = self.app.state.tables
        return manager

    async def create(self, **options: Any) -> tuple[str, str]:
        r = await self.http.post("/api/tables", json=options)
        assert r.status_code == 201, r.text
        body = r.json()
        return body["table_id"], body["host_token"]

    async def player(self, table_id: str, token: str | None = None) -> Player:
        ws = await connect(f"ws://{self.base}/ws/{table_id}", compression=None,
                           max_size=2**22)
        player = Player(ws)
        self.players.append(player)
        await player.send({"type": "hello", "token": token})
        await player.expect("welcome")
        await player.next_state()
        return player

    async def started(self, **options: Any) -> tuple[str, list[Player], list[str]]:
        """A table with four seated people and its match started, every seat caught up;
        its id, the players by seat, and their seat tokens."""
        table_id, host = await self.create(**options)
        players = []
        for seat in range(4):
            player = await self.player(table_id, host if seat == 0 else None)
            answer = await player.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
            assert answer["type"] == "ack", answer
            players.append(player)
        assert (await players[0].intent({"type": "start"}))["type"] == "ack"
        version = players[0].state["v"]
        for p in players:
            await p.until(lambda s: s["v"] >= version)
        assert players[0].state["table"]["status"] == "playing"
        return table_id, players, [host] + [p.token or "" for p in players[1:]]


_template: list[Path] = []


async def migrated_sqlite(path: Path) -> str:
    """A migrated SQLite file at ``path`` (migrations run once per test run, then copied)."""
    if not _template:
        template = Path(tempfile.mkdtemp(prefix="dingo-template-")) / "template.db"
        await asyncio.to_thread(run_migrations, f"sqlite+aiosqlite:///{template}")
        _template.append(template)
    shutil.copyfile(_template[0], path)
    return f"sqlite+aiosqlite:///{path}"


async def live_server(tmp_path: Path, config: TableConfig | None = None,
                      real_store: bool = False, **settings: Any) -> AsyncIterator[Live]:
    """Run the app under uvicorn on a free port, in this event loop.

    By default its tables run on a fresh ``RecordingStore`` with fast timings
    (``config``); with ``real_store`` they keep the app's own SQL store and
    settings, as ``dingo serve`` runs them.
    """
    if "database_url" not in settings:
        settings["database_url"] = await migrated_sqlite(tmp_path / "live.db")
    app = create_app(Settings(**settings))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_config=None,
                                           ws_per_message_deflate=False, lifespan="on"))
    serving = asyncio.create_task(server.serve())
    await wait_until(lambda: server.started or serving.done())
    assert server.started, "uvicorn did not start"
    port = server.servers[0].sockets[0].getsockname()[1]
    own: TableManager = app.state.tables
    manager = own
    if not real_store:
        manager = TableManager(RecordingStore(), config or fast_config(), app.state.metrics)
        app.state.tables = manager
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
        live = Live(app, f"127.0.0.1:{port}", manager.store, http)
        try:
            yield live
        finally:
            for player in live.players:
                await player.ws.close()
            if manager is not own:
                await manager.shutdown()
                app.state.tables = own
            server.should_exit = True
            await serving


_id_blocks = itertools.count(0, 100_000)


class Player:
    """One WebSocket client that keeps every frame it receives."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {}
        self.token: str | None = None
        self.tracker = Tracker()
        self._ready: list[dict[str, Any]] = []  # frames of a message not returned yet
        # Ids are fresh for the whole test run, as the protocol asks: a client that came
        # back after a restart must not reuse an id the table remembers from its log.
        self._n = next(_id_blocks)

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(orjson.dumps(message).decode())

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next frame; a delta as the state it leads to (``Tracker``), and the ack it
        carried as a frame of its own before it."""
        if self._ready:
            return self._ready.pop(0)
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        seen = self.tracker.receive(orjson.loads(raw))
        for message in seen:
            self.frames.append(message)
            if message["type"] == "state":
                self.state = message
            elif message["type"] == "seated":
                self.token = message["token"] or self.token
        self._ready.extend(seen[1:])
        return seen[0]

    async def expect(self, kind: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next frame of this type (frames of other types are kept and skipped)."""
        while True:
            message = await self.recv(timeout)
            if message["type"] == kind:
                return message

    async def next_state(self, predicate: Callable[[dict[str, Any]], object] = lambda s: True,
                         timeout: float = TIMEOUT) -> dict[str, Any]:
        """The first state from now on (or already received and unread) that satisfies it."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            message = await self.recv(max(0.01, end - loop.time()))
            if message["type"] == "state" and predicate(message):
                return message

    async def until(self, predicate: Callable[[dict[str, Any]], object],
                    timeout: float = TIMEOUT) -> dict[str, Any]:
        """The latest state if it satisfies ``predicate``, else the next one that does."""
        if self.state and predicate(self.state):
            return self.state
        return await self.next_state(predicate, timeout)

    async def closed_code(self, timeout: float = TIMEOUT) -> int | None:
        try:
            while True:
                await self.recv(timeout)
        except ConnectionClosed as e:
            return e.rcvd.code if e.rcvd else None

    def intent_id(self) -> str:
        self._n += 1
        return f"i{self._n}"

    async def intent(self, message: dict[str, Any], versioned: bool = False) -> dict[str, Any]:
        """Send an intent with a fresh id (and this player's version); return its ack or error.

        After an ack, also wait for the state it produced, so ``self.state`` is current.
        """
        intent_id = self.intent_id()
        extra = {"v": self.state["v"]} if versioned else {}
        await self.send({"id": intent_id, **extra, **message})
        while True:
            answer = await self.recv()
            if answer["type"] in ("ack", "error") and answer["id"] == intent_id:
                break
        if answer["type"] == "ack":
            await self.until(lambda s: s["v"] >= answer["v"])
        return answer

    async def read_all(self) -> None:
        """Keep every frame until the socket closes (run it as a task for a spectator)."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self.recv(timeout=3600)

    def my_turn(self) -> bool:
        game = self.state.get("game")
        return bool(game and game["legal"])

    async def play_random(self, rng: random.Random) -> dict[str, Any]:
        """Make a random legal move from this player's own view."""
        choice = rng.choice(self.state["game"]["legal"])
        wire = {k: v for k, v in choice.items() if k != "seat"}
        answer = await self.intent(wire, versioned=True)
        assert answer["type"] == "ack", answer
        return answer
