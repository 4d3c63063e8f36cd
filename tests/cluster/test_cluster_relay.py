"""Forwarding (app.cluster.relay) on a real Redis: three apps in this event loop, each
with its own relay (its own process id and connections), one owning the table, players
spread over all three, whole matches over real WebSockets.

The table managers here stand in for ownership (``locate`` answers from a dict the
test sets), so a move of the table (``CLOSE_MOVED``) and an owner that vanishes are
driven by the test, at any moment; tests/cluster/test_cluster_relay_serve.py runs real
``dingo serve`` processes with real leases.
"""

from __future__ import annotations

import asyncio
import importlib
import itertools
import random
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from clusterkit import RedisProcess, eventually, over, play
from hardeningkit import check_frames, variants
from tablekit import (
    TWO_SEAT_GAMES,
    Live,
    Player,
    assert_no_leaks,
    hidden_by_version,
    live_server,
)
from websockets.asyncio.client import connect

from app.cluster import relay as relay_module
from app.cluster.relay import (
    CLOSE_MOVED,
    DATA,
    FORGET_AFTER,
    FRAME,
    Relay,
    decode_batch,
    encode_batch,
)
from app.table.manager import Owner
from app.table.options import TableOptions
from app.table.table import Table


class Cluster:
    """Apps ``a``, ``b``, ``c``; ``where[table_id]`` names the owning app."""

    def __init__(self, lives: dict[str, Live], prefix: str) -> None:
        self.lives = lives
        self.prefix = prefix
        self.where: dict[str, str] = {}
        self.relays: dict[str, Relay] = {}

    def locator(self, name: str) -> Any:
        async def locate(table_id: str) -> Table | Owner | None:
            owner = self.where.get(table_id)
            if owner is None:
                return None
            if owner == name:
                return self.lives[name].manager.get(table_id)
            return Owner(f"{self.prefix}{owner}")
        return locate

    async def create(self, on: str, **options: Any) -> tuple[str, str]:
        table_id, host = await self.lives[on].create(**options)
        self.where[table_id] = on
        return table_id, host

    async def move(self, table_id: str, to: str) -> None:
        """The table goes to ``to``, rebuilt from the log (the store is shared)."""
        old = self.lives[self.where[table_id]].manager
        table = old.tables.pop(table_id)
        await table.stop(CLOSE_MOVED, "the table moved")
        new = self.lives[to].manager
        stored = await new.store.load_table(table_id)
        assert stored is not None
        new._add(await Table.restore(stored, new.store, new.config, new.metrics))
        self.where[table_id] = to


async def vanish(cluster: Cluster, table_id: str, dead: str, heir: str) -> None:
    """Process ``dead`` stops (its relay goes silent: PUBLISH to it finds nobody) and
    ``heir`` takes the table over from the log, as after the dead one's lease expired."""
    relay: Any = cluster.relays[dead]
    relay._post = lambda *args: None  # nothing leaves a dead process
    for task in relay._tasks:
        task.cancel()
    await asyncio.wait(relay._tasks)
    old = cluster.lives[dead].manager.tables.pop(table_id)
    old.shut(4999, "gone")  # (nothing is sent)
    new = cluster.lives[heir].manager
    stored = await new.store.load_table(table_id)
    assert stored is not None
    new._add(await Table.restore(stored, new.store, new.config, new.metrics))
    cluster.where[table_id] = heir


@pytest.fixture
async def cluster(tmp_path: Path, redis_url: str, prefix: str) -> AsyncIterator[Cluster]:
    async with _cluster(tmp_path, redis_url, prefix) as result:
        yield result


@asynccontextmanager
async def _cluster(tmp_path: Path, redis_url: str, prefix: str, *,
                   real_store: bool = False) -> AsyncIterator[Cluster]:
    """Three apps; with ``real_store`` their own managers and settings on a's SQL store
    (the history API then sees the matches), else fast timings on a memory store."""
    async with AsyncExitStack() as stack:
        lives: dict[str, Live] = {}
        for name in "abc":
            path = tmp_path / name
            path.mkdir()
            lives[name] = await stack.enter_async_context(_serving(path, real_store))
        # One store for all: the table's log is the database's, whoever owns the table.
        store = lives["a"].manager.store
        for live in lives.values():
            live.manager.store = store
            live.store = store
        result = Cluster(lives, prefix)
        for name, live in lives.items():
            manager: Any = live.manager
            manager.process_id = f"{prefix}{name}"
            manager.locate = result.locator(name)
            relay = Relay(redis_url, manager, live.app.state.metrics,
                          live.app.state.settings, prefix=prefix)
            await relay.start()
            assert relay.subscribed.is_set()
            live.app.state.relay = relay
            result.relays[name] = relay
            stack.push_async_callback(relay.stop)
        yield result


class _serving:
    def __init__(self, path: Path, real_store: bool) -> None:
        self.gen = live_server(path, real_store=real_store, reconnect_grace_seconds=30.0)

    async def __aenter__(self) -> Live:
        return await self.gen.__anext__()

    async def __aexit__(self, *exc: object) -> None:
        with pytest.raises(StopAsyncIteration):
            await self.gen.__anext__()


async def seated(cluster: Cluster, table_id: str, host: str,
                 on: list[str]) -> list[Player]:
    players = []
    for seat, name in enumerate(on):
        player = await cluster.lives[name].player(table_id, host if seat == 0 else None)
        answer = await player.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
        assert answer["type"] == "ack", answer
        players.append(player)
    return players


def errors(player: Player) -> list[dict[str, Any]]:
    """The errors a socket got, but for a ``ready`` the table had moved past (``play``)."""
    return [f for f in player.frames if f["type"] == "error" and f["code"] != "not_now"]


def answers_once(player: Player) -> None:
    """Every intent id this socket sent was answered exactly once."""
    answered = Counter(f["id"] for f in player.frames if f["type"] in ("ack", "error")
                       and f.get("id"))
    twice = {k: n for k, n in answered.items() if n > 1}
    assert not twice, twice


def metric_value(app: Any, name: str) -> float:
    text = app.state.metrics.render()[0].decode()
    return float(next(line.split()[1] for line in text.splitlines()
                      if line.startswith(name + " ")))


def test_a_batch_round_trips() -> None:
    records = [(FRAME, 7, b'{"type":"sync"}'), (DATA, 2**40, b""), (DATA, 1, "é".encode())]
    assert decode_batch(encode_batch("p1", records)) == ("p1", records)
    with pytest.raises(ValueError):
        decode_batch(encode_batch("p1", records)[:-1])


async def test_players_on_three_processes_finish_a_match_each_shown_its_own_view(
    cluster: Cluster,
) -> None:
    table_id, host = await cluster.create("a", games_to_win=1)
    spectator = await cluster.lives["c"].player(table_id)
    watching = asyncio.create_task(spectator.read_all())
    players = await seated(cluster, table_id, host, ["a", "b", "c", "b"])
    assert (await players[0].intent({"type": "start"}))["type"] == "ack"
    await play(players, random.Random(17))
    final = players[0].state
    assert final["match"]["over"]
    # Relayed sockets count at the owner like local ones: four seats and a spectator.
    info = (await cluster.lives["a"].http.get(f"/api/tables/{table_id}")).json()
    assert info["spectators"] == 1 and info["status"] == "match_over"
    table = cluster.lives["a"].manager.get(table_id)
    assert table is not None and len(table.clients) == 5
    assert [s["connected"] for s in final["seats"]] == [True] * 4
    await spectator.ws.close()
    await watching
    store: Any = cluster.lives["a"].store
    entries = store.entries(table_id)
    hidden = hidden_by_version(TableOptions.from_dict(store.tables[table_id].options), entries)
    assert assert_no_leaks(spectator.frames, None, hidden) > 28
    for seat, player in enumerate(players):
        assert assert_no_leaks(player.frames, seat, hidden) > 28
        answers_once(player)
    # Only the owner ran the table; the others only relayed (and say so in /metrics).
    def gauges() -> dict[str, float]:
        return {name: metric_value(cluster.lives[name].app, "dingo_relayed_sockets")
                for name in "abc"}

    await eventually(lambda: gauges() == {"a": 0, "b": 2, "c": 1})  # (the spectator left)
    await eventually(lambda: metric_value(cluster.lives["a"].app, "dingo_relay_sessions") == 3)
    assert cluster.lives["b"].manager.tables == cluster.lives["c"].manager.tables == {}
    # A relayed socket that leaves: its seat is not connected any more, at the owner.
    await players[2].ws.close()
    await eventually(lambda: not table.seats[2].client and len(table.clients) == 3)


async def test_another_process_is_told_of_a_change_only_once_it_is_stored(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``GET /api/tables/{id}`` from another process asks the owner (``Relay.ask_info``).
    While a sit is folded at the owner and not yet stored, its answer waits for the
    append, and the owner's relay answers other questions meanwhile; not longer than
    the asker waits."""
    monkeypatch.setattr(relay_module, "INFO_TIMEOUT", 10.0)  # the owner's answer, not the log's
    table_id, host = await cluster.create("a")
    other_id, _ = await cluster.create("a")
    table = cluster.lives["a"].manager.get(table_id)
    assert table is not None
    player = await cluster.lives["b"].player(table_id, host)
    http = cluster.lives["c"].http
    gate = cluster.lives["a"].store.gate = asyncio.Event()
    try:
        await player.send({"type": "sit", "seat": 0, "name": "Ann", "id": "s1"})
        await eventually(lambda: table.version == 2)  # folded; its append waits at the gate
        reading = asyncio.create_task(http.get(f"/api/tables/{table_id}"))
        other = await http.get(f"/api/tables/{other_id}")
        assert other.status_code == 200 and other.json()["spectators"] == 0  # the owner's
        await asyncio.sleep(0.05)
        assert not reading.done()
        gate.set()
        answer = await reading
        assert answer.status_code == 200, answer.text
        seat = answer.json()["seats"][0]
        assert (seat["name"], seat["connected"]) == ("Ann", True)  # the owner's, presence and all
        assert cluster.lives["a"].store.entries(table_id)[-1]["kind"] == "sit"

        # An append still out when the asker stops waiting: the owner answers nothing and
        # lets go of the question; the asker folds the log, which has no bot yet.
        monkeypatch.setattr(relay_module, "INFO_TIMEOUT", 0.2)
        gate.clear()
        await player.send({"type": "add_bot", "seat": 1, "id": "b1"})
        await eventually(lambda: table.version == 3)
        answer = await http.get(f"/api/tables/{table_id}")
        seats = answer.json()["seats"]
        assert [s["kind"] for s in seats[:2]] == ["human", "empty"]
        assert seats[0]["connected"] is None  # from the log: presence is not known there
        await eventually(lambda: not cluster.relays["a"]._answering)
    finally:
        gate.set()


async def test_a_relayed_intent_retried_with_its_id_gets_the_first_answer(
    cluster: Cluster,
) -> None:
    table_id, host = await cluster.create("a", games_to_win=1)
    players = await seated(cluster, table_id, host, ["a", "b", "b", "c"])
    assert (await players[0].intent({"type": "start"}))["type"] == "ack"
    to_act = (players[0].state["to_act"] or [None])[0]
    mover = players[to_act]
    await mover.until(lambda s: s["v"] >= players[0].state["v"])
    choice = mover.state["game"]["legal"][0]
    wire = {k: v for k, v in choice.items() if k != "seat"}
    intent = {**wire, "id": "once-1", "v": mover.state["v"]}
    await mover.send(intent)
    first = await mover.expect("ack")
    await mover.send(intent)  # the answer was lost, say: the same id again
    again = await mover.expect("ack")
    assert first == again
    entries = cluster.lives["a"].store.entries(table_id)
    assert [e.get("id") for e in entries].count("once-1") == 1
    # A refused one is refused alike, with the same bytes.
    await mover.send({"type": "sit", "seat": 0, "name": "X", "id": "no-1"})
    refused = await mover.expect("error")
    await mover.send({"type": "sit", "seat": 0, "name": "X", "id": "no-1"})
    assert await mover.expect("error") == refused
    answers = [f for f in mover.tracker.raw if f.get("id") == "no-1"]
    assert len(answers) == 2
    for player in players:
        await player.send({"type": "sync"})
        await player.next_state()


async def test_the_table_moves_and_every_socket_follows_it_without_an_error(
    cluster: Cluster,
) -> None:
    table_id, host = await cluster.create("a", games_to_win=1)
    spectator = await cluster.lives["c"].player(table_id)
    watching = asyncio.create_task(spectator.read_all())
    players = await seated(cluster, table_id, host, ["a", "b", "c", "a"])
    assert (await players[0].intent({"type": "start"}))["type"] == "ack"
    rng = random.Random(5)
    await play(players, rng, stop_after=9)
    before = len(spectator.frames)
    # a -> b: sockets on a were local and go remote, those on b go local, c follows.
    await cluster.move(table_id, "b")
    for player in players:
        await player.expect("welcome")
        await player.next_state()
    await eventually(lambda: [f["type"] for f in spectator.frames].count("welcome") == 2)
    await play(players, rng, stop_after=6)
    # b -> c, then a process with no socket of the table.
    await cluster.move(table_id, "c")
    for player in players:
        await player.expect("welcome")
    await play(players, rng)
    assert over(players[0].state)
    assert metric_value(cluster.lives["a"].app, "dingo_relay_moves_total") >= 4
    for player in [*players, spectator]:
        assert player.ws.close_code is None
        assert not errors(player), player.frames
    # The moved sockets took their seats back with the tokens they held (from ``seated``).
    table = cluster.lives["c"].manager.get(table_id)
    assert table is not None
    assert [s.client is not None for s in table.seats] == [True] * 4
    assert cluster.lives["a"].manager.tables == cluster.lives["b"].manager.tables == {}
    await spectator.ws.close()
    await watching
    assert len(spectator.frames) > before
    store: Any = cluster.lives["a"].store
    hidden = hidden_by_version(TableOptions.from_dict(store.tables[table_id].options),
                               store.entries(table_id))
    assert assert_no_leaks(spectator.frames, None, hidden) > 20
    for seat, player in enumerate(players):
        assert assert_no_leaks(player.frames, seat, hidden) > 20
        answers_once(player)


async def test_a_relayed_player_who_left_the_seat_follows_a_move_as_a_spectator(
    cluster: Cluster,
) -> None:
    """The ``hello`` the relay replays when the table moves carries the token of a seat its
    player left: the new owner (from the log) takes it as a spectator's, refusing nothing."""
    table_id, host = await cluster.create("a")
    players = await seated(cluster, table_id, host, ["a", "b"])
    assert (await players[1].intent({"type": "leave_seat"}))["type"] == "ack"
    assert [f for f in players[1].frames if f["type"] == "unseated"] == [
        {"type": "unseated"}]
    await cluster.move(table_id, "c")
    welcome = await players[1].expect("welcome")
    assert welcome["seat"] is None
    await players[1].next_state()
    assert not errors(players[1]), players[1].frames
    assert players[1].ws.close_code is None


async def test_an_owner_that_vanishes_is_noticed_and_its_sockets_find_the_new_owner(
    cluster: Cluster,
) -> None:
    table_id, host = await cluster.create("a", games_to_win=1)
    players = await seated(cluster, table_id, host, ["b", "b", "c", "c"])
    assert (await players[0].intent({"type": "start"}))["type"] == "ack"
    rng = random.Random(9)
    await play(players, rng, stop_after=5)
    await vanish(cluster, table_id, "a", "b")
    for player in players:
        await player.expect("welcome", timeout=5)
        await player.next_state()
    assert all(p.ws.close_code is None for p in players)
    await play(players, rng)
    assert over(players[0].state)
    for player in players:
        answers_once(player)
    # Long after, the dead process is forgotten (each restart is a new peer): nothing
    # is kept of it, and the live peers are kept.
    relay = cluster.relays["b"]
    dead, live = f"{cluster.prefix}a", f"{cluster.prefix}c"
    assert dead in relay.gone and dead in relay.heard and live in relay.heard
    ghost = f"{cluster.prefix}never-heard"  # PUBLISH found nobody: gone, never heard from
    relay._unreachable(ghost)
    await relay.hear_from(ghost, 0.01)
    for peer in (dead, ghost):
        relay.heard[peer] -= FORGET_AFTER
    relay._sweep_once(time.monotonic())
    for peer in (dead, ghost):
        assert peer not in relay.gone and peer not in relay.heard and peer not in relay._back
    assert live in relay.heard and live not in relay.gone


async def test_sockets_of_a_vanished_owner_locate_again_when_its_lease_runs_out(
    cluster: Cluster,
) -> None:
    """While the lease still names the dead owner, a socket does not keep locating: it
    asks how long the lease has left (``TableManager.lease_ends_in``), waits that long
    and locates again then, which finds the table (taken over by then)."""
    table_id, host = await cluster.create("a")
    players = await seated(cluster, table_id, host, ["b", "c"])
    deadline = time.monotonic() + 1.5  # (set again when a vanishes)
    held: Counter[str] = Counter()  # locates while the lease was a's, by process

    def leased(name: str) -> Any:
        locate = cluster.locator(name)

        async def locate_leased(asked: str) -> Any:
            if asked == table_id and time.monotonic() < deadline:
                held[name] += 1
                return Owner(f"{cluster.prefix}a")
            return await locate(asked)

        async def lease_ends_in(asked: str, owner: str) -> float | None:
            left = deadline - time.monotonic()
            mine = asked == table_id and owner == f"{cluster.prefix}a"
            return left if mine and left > 0 else None

        return locate_leased, lease_ends_in

    for name in "bc":
        manager: Any = cluster.lives[name].manager
        manager.locate, manager.lease_ends_in = leased(name)
    deadline = time.monotonic() + 1.5
    await vanish(cluster, table_id, "a", "b")  # b has it; the lease says a until deadline
    for player in players:
        await player.expect("welcome", timeout=10)
        state = await player.next_state()
        assert state["seats"][0]["name"] == "P0" and player.ws.close_code is None
    # One locate each found the dead owner's lease; the next came when it ran out. (They
    # would locate every 0.05-0.5 s meanwhile without being told when it does.)
    assert held == {"b": 1, "c": 1}, held
    assert time.monotonic() >= deadline


async def test_frames_while_the_table_cannot_be_located_are_answered_unavailable(
    cluster: Cluster,
) -> None:
    table_id, host = await cluster.create("a")
    players = await seated(cluster, table_id, host, ["b", "c"])
    from app.cluster.client import RedisUnavailable

    failing = True
    locate = cluster.locator("b")

    async def flaky(table_id: str) -> Any:
        if failing:
            raise RedisUnavailable("Redis unreachable (test)")
        return await locate(table_id)

    manager: Any = cluster.lives["b"].manager
    manager.locate = flaky
    await cluster.move(table_id, "c")
    p0 = players[0]
    error = await p0.expect("error")
    assert error["code"] == "service_unavailable"
    await p0.send({"type": "ready", "id": "r-1"})
    refused = await p0.expect("error")
    assert (refused["code"], refused["id"]) == ("service_unavailable", "r-1")
    failing = False
    await p0.expect("welcome", timeout=5)
    state = await p0.next_state()
    assert state["seats"][0]["name"] == "P0" and p0.ws.close_code is None
    # An unknown table is told and closed (4404) on any process, as with one process.
    async with connect(f"ws://{cluster.lives['b'].base}/ws/nosuchtable") as ws:
        stranger = Player(ws)
        assert (await stranger.recv())["code"] == "unknown_table"
        assert await stranger.closed_code() == 4404


@pytest.mark.parametrize("stored", [True, False], ids=["applied", "not-received"])
async def test_an_intent_unanswered_when_its_owner_vanished_is_answered_by_the_next(
    cluster: Cluster, stored: bool,
) -> None:
    table_id, host = await cluster.create("a", games_to_win=1)
    players = await seated(cluster, table_id, host, ["b", "c", "b", "c"])
    assert (await players[0].intent({"type": "start"}))["type"] == "ack"
    rng = random.Random(3)
    await play(players, rng, stop_after=3)
    state = players[0].state
    mover = players[(state["to_act"] or [None])[0]]
    await mover.until(lambda s: s["v"] >= state["v"])
    relay: Any = cluster.relays["a"]
    if stored:
        relay._post = lambda *args: None  # a applies it, then dies before answering
    else:
        relay._frame = lambda *args: None  # a dies before reading it
    choice = mover.state["game"]["legal"][0]
    intent = {**{k: v for k, v in choice.items() if k != "seat"}, "id": "lost-1",
              "v": mover.state["v"]}
    await mover.send(intent)
    entries = cluster.lives["a"].store.entries(table_id)
    if stored:
        await eventually(lambda: entries[-1].get("id") == "lost-1")
    await vanish(cluster, table_id, "a", "c")
    answer = await mover.expect("ack", timeout=6)
    assert answer["id"] == "lost-1"
    assert [e.get("id") for e in cluster.lives["c"].store.entries(table_id)].count(
        "lost-1") == 1
    for player in players:
        answers_once(player)
        assert not errors(player)
    await play(players, rng)
    assert over(players[0].state)


@pytest.mark.parametrize("outage", [0.3, 2.5], ids=["blip", "peers-silent"])
async def test_redis_restarted_mid_game_every_relayed_socket_joins_again_and_plays_on(
    tmp_path: Path, redis_process: RedisProcess, prefix: str, outage: float,
) -> None:
    # A blip: messages may have been lost, the relays see their subscriptions come back.
    # Longer than a peer may be silent: the owner also dropped the relayed sessions.
    async with _cluster(tmp_path, redis_process.url, prefix) as cluster:
        table_id, host = await cluster.create("a", games_to_win=1)
        players = await seated(cluster, table_id, host, ["a", "b", "c", "b"])
        assert (await players[0].intent({"type": "start"}))["type"] == "ack"
        rng = random.Random(21)
        await play(players, rng, stop_after=6)
        redis_process.kill()
        await asyncio.sleep(outage)
        redis_process.start()
        for player in players[1:]:  # relayed: a pause, then the table again
            await player.expect("welcome", timeout=10)
            await player.next_state()
        assert all(p.ws.close_code is None for p in players)
        await play(players, rng)
        assert over(players[0].state)
        table = cluster.lives["a"].manager.get(table_id)
        assert table is not None
        await eventually(lambda: len(table.clients) == 4)
        for player in players:
            answers_once(player)


# -- the leak tests with their sockets spread over the three processes ---------------------


class Spread:
    """What the leak tests' ``play_match``/``play_other_match`` use of a ``Live``, with
    each new socket on the next of b, c and a (reconnects and second tabs too, so a seat's
    new socket often replaces one held by another process); the table is a's."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.turn = itertools.cycle("bca")
        self.http = cluster.lives["a"].http
        self.store = cluster.lives["a"].store

    async def create(self, **options: Any) -> tuple[str, str]:
        return await self.cluster.create("a", **options)

    async def player(self, table_id: str, token: str | None = None) -> Player:
        return await self.cluster.lives[next(self.turn)].player(table_id, token)


def _leak_tests() -> Any:
    """tests/hardening/test_leaks.py, whose match players these tests reuse."""
    hardening = str(Path(__file__).resolve().parents[1] / "hardening")
    if hardening not in sys.path:
        sys.path.insert(0, hardening)
    return importlib.import_module("test_leaks")


@pytest.fixture
async def sql_cluster(tmp_path: Path, redis_url: str, prefix: str) -> AsyncIterator[Cluster]:
    async with _cluster(tmp_path, redis_url, prefix, real_store=True) as result:
        yield result


async def test_the_dingo_leak_test_with_sockets_on_three_processes(
    sql_cluster: Cluster,
) -> None:
    cluster = sql_cluster
    leaks = _leak_tests()
    checked, disturbances, _ = await asyncio.wait_for(
        leaks.play_match(Spread(cluster), 4, 1), 60)
    assert checked > 150 and disturbances >= 3


@pytest.mark.parametrize("name", TWO_SEAT_GAMES)
async def test_every_other_games_leak_test_with_sockets_on_three_processes(
    sql_cluster: Cluster, name: str,
) -> None:
    cluster = sql_cluster
    leaks = _leak_tests()
    options = variants(name)[0]
    oracle, expected, viewers, _ = await asyncio.wait_for(
        leaks.play_other_match(Spread(cluster), name, options, 5), 60)
    checked = sum(check_frames(v.seat, [p.frames for p in v.streams], expected,
                               oracle.vouched) for v in viewers)
    assert checked > 60


async def test_a_relayed_socket_is_refused_and_capped_as_a_local_one(cluster: Cluster) -> None:
    table_id, _ = await cluster.create("a")
    player = await cluster.lives["b"].player(table_id)
    await player.ws.send(b"\x00binary")  # checked by the owner, as for a local socket
    refused = await player.expect("error")
    assert refused["code"] == "malformed" and "binary" in refused["message"]
    await player.send({"type": "sit", "seat": 9, "name": "X", "id": "s-9"})
    assert (await player.expect("error"))["id"] == "s-9"
    await player.send({"type": "nonsense", "id": "n-1"})
    assert (await player.expect("error"))["code"] == "unknown_type"
    # Size and rate are the holder's checks: too large is refused and closed (1009).
    await player.send({"type": "chat", "text": "x" * 5000})
    assert (await player.expect("error"))["code"] == "too_large"
    assert await player.closed_code() == 1009
    table = cluster.lives["a"].manager.get(table_id)
    assert table is not None
    await eventually(lambda: not table.clients)
