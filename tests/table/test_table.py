"""A live table driven directly (no HTTP): seats, intents, fan-out, timers, the log."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from tablekit import (
    FakeConn,
    Harness,
    RecordingStore,
    answer,
    assert_no_leaks,
    comparable,
    dingo,
    fast_config,
    hidden_by_version,
    settled,
    wait_until,
)

from app.db.match_record import parse_match_record
from app.game import Action, Match, MatchOptions
from app.game.bots import HeuristicBot
from app.games.dingo import DingoBot, DingoMatch
from app.games.dingo.narration import PLACEHOLDERS, explain_hunt, explain_winner
from app.table.client import Client
from app.table.manager import OwnershipUnavailable, TableManager
from app.table.options import TableOptions
from app.table.ports import StoredTable
from app.table.table import TABLE_EVENTS, Table
from app.table.tokens import hash_token

_ids = itertools.count()


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    h = Harness()
    yield h
    await h.close()


async def submit(table: Table, client: Client, conn: FakeConn, **intent: Any) -> dict[str, Any]:
    """Submit an intent (with a fresh id unless it has one) and return its ack or error."""
    intent.setdefault("id", f"t{next(_ids)}")
    return await answer(table, client, conn, intent)


async def play_random(table: Table, players: dict[int, tuple[Client, FakeConn]],
                      rng: random.Random, until: Any) -> None:
    """Make random legal moves for the seats in ``players`` until ``until()``."""
    while not until():
        match = None if table.match is None else dingo(table)
        if match is not None and not match.game.over and match.game.to_act in players:
            seat = match.game.to_act
            client, conn = players[seat]
            action = rng.choice(match.game.legal_actions()).to_dict()
            del action["seat"]
            answer = await submit(table, client, conn, **action, id=f"a{table.version}",
                                  v=table.version)
            assert answer["type"] == "ack", answer
        else:
            await asyncio.sleep(0.001)


async def test_host_sits_plays_with_bots_and_sees_only_its_hand(harness: Harness) -> None:
    table, host = await harness.table(bots=((1, "heuristic"), (2, "random"), (3, "heuristic")))
    _watcher, watched = await harness.join(table)
    client, conn = await harness.join(table, host)
    assert conn.frames[0] == {"type": "welcome", "table_id": table.id, "seat": None,
                              "host": True, "v": 1, "build": None}
    answer = await submit(table, client, conn, type="sit", seat=0, name=" Ann ", id="s1")
    assert answer == {"type": "ack", "id": "s1", "v": 2}
    assert conn.last("seated") == {"type": "seated", "seat": 0, "token": None, "host": True}
    assert (await submit(table, client, conn, type="start"))["type"] == "ack"
    await wait_until(lambda: (table.match is not None and dingo(table).game.to_act == 0)
                     or (table.match is not None and dingo(table).game.over))
    await asyncio.sleep(0.01)
    mine = conn.last()
    assert mine["seats"][0] == {"seat": 0, "kind": "human", "name": "Ann", "bot": None,
                                "strength": None, "connected": True, "away": False,
                                "ready": False, "back_by": None, "host": True,
                                "played": None, "earlier": []}
    assert [(s["name"], s["strength"]) for s in mine["seats"][1:]] == [
        ("Bruno", "normal"), ("Cleo", "easy"), ("Dov", "normal")]
    assert len(mine["game"]["hand"]) == len(dingo(table).game.hand(0)) > 0
    public = watched.last()
    assert public["v"] == mine["v"] and "hand" not in public["game"]
    assert [e["type"] for st in watched.states() for e in st["events"]][:1] == ["seat_taken"]


async def test_every_change_is_durable_before_it_is_announced(harness: Harness) -> None:
    table, host = await harness.table(games_to_win=1, bots=tuple((s, "random") for s in range(4)))
    client, conn = await harness.join(table, host)
    assert (await submit(table, client, conn, type="start"))["type"] == "ack"
    await wait_until(lambda: table.match_id is not None and conn.states()[-1]["v"] == table.version)
    appended: set[int] = set()
    announced = 0
    for kind, v in harness.order:
        if kind == "append":
            appended.add(v)
        elif v > 1:
            assert v in appended, f"state v{v} was sent before entry {v} was stored"
            announced += 1
    assert announced > 28  # the 28 exchange moves alone
    assert conn.last()["v"] == table.version == harness.store.entries(table.id)[-1]["seq"]
    assert host not in orjson.dumps(harness.store.entries(table.id)).decode()


async def test_a_finished_match_is_recorded_and_replays(harness: Harness) -> None:
    table, host = await harness.table(games_to_win=2, open_discards=True,
                                      bots=tuple((s, "heuristic") for s in range(4)))
    _client, conn = await harness.join(table)
    admin, _ = await harness.join(table, host)
    await table.submit(admin, {"type": "start"})
    await wait_until(lambda: table.match_id is not None)
    record = harness.store.matches[0]
    match = Match.replay(record["seed"], MatchOptions(**record["options"]),
                         [[Action.from_dict(a) for a in g["actions"]] for g in record["games"]])
    assert (match.winner, match.totals, match.game_wins) == (
        record["winner"], record["scoreboard"]["totals"], record["standing"])
    assert record["players"][2] == {"seat": 2, "name": "Cleo", "bot": True, "strength": "normal"}
    assert record["started_at"] < record["ended_at"]
    await wait_until(lambda: conn.last()["table"]["match_id"] == 1)
    final = conn.last()
    assert final["table"]["status"] == "match_over"
    assert final["events"][-1] == {"type": "match_recorded", "match_id": 1}
    assert final["match"]["winner"] == record["winner"]
    # With nobody human at the table there is no rematch vote: it stays over.
    await asyncio.sleep(0.02)
    assert table.status == "match_over" and len(harness.store.matches) == 1
    # Why the last game ended so, in the replay's words: its 13 hunts and the winner rule.
    # Its seats as {0} ... {3}, as in a say: each page words them for its reader.
    why = final["why"]
    hunts = [e for e in table._game_events if e.kind == "hunt_result"]
    assert [h["explanation"] for h in why["hunts"]] == [
        explain_hunt(e.public, PLACEHOLDERS) for e in hunts]
    assert [h["rank"] for h in why["hunts"]] == list("23456789TJQKA")
    assert why["winner"] == explain_winner(dingo(table).game.result(), PLACEHOLDERS)
    assert [e for f in conn.states() for e in f["events"] if e["type"] == "game_start"]
    assert all(f["why"] is None for f in conn.states()
               if f["game"] is not None and f["game"]["phase"] != "over")


async def test_spectator_and_seats_never_see_hidden_cards(harness: Harness) -> None:
    table, host = await harness.table(games_to_win=1, bots=((2, "random"), (3, "random")))
    _watcher, watched = await harness.join(table)
    a = await harness.seat(table, 0, "Ann", host)
    b = await harness.seat(table, 1, "Bob")
    await table.submit(a[0], {"type": "start"})
    rng = random.Random(4)
    await play_random(table, {0: a, 1: b}, rng, lambda: table.match_id is not None)
    await asyncio.sleep(0.01)
    hidden = hidden_by_version(table.options, harness.store.entries(table.id))
    assert assert_no_leaks(watched.frames, None, hidden) > 28
    assert assert_no_leaks(a[1].frames, 0, hidden) > 28
    assert assert_no_leaks(b[1].frames, 1, hidden) > 28
    # The check itself can fail: seat 0 is shown its own hand, hidden from seat 1.
    first = next(f for f in a[1].frames if f["type"] == "state" and f["v"] in hidden)
    with pytest.raises(AssertionError, match="viewer 1 was shown"):
        assert_no_leaks([first], 1, hidden)


async def test_everyone_sees_how_many_are_watching(harness: Harness) -> None:
    table, host = await harness.table(bots=((1, "random"), (2, "random"), (3, "random")))
    _client, seat = await harness.seat(table, 0, "Ann", host)
    assert seat.last()["table"]["spectators"] == 0
    first, _ = await harness.join(table)
    _second, watching = await harness.join(table)
    await wait_until(lambda: seat.last()["table"]["spectators"] == 2)
    assert watching.last()["table"]["spectators"] == 2
    assert table.public_info()["spectators"] == 2
    await table.leave(first)
    await wait_until(lambda: seat.last()["table"]["spectators"] == 1)
    assert watching.last()["table"]["spectators"] == 1


async def test_every_state_shows_the_engines_view_of_its_recipient() -> None:
    """A state is encoded from parts shared by every recipient plus each one's own;
    put back together it must be exactly the engine's view of that seat (or a
    spectator's) and the match's scoreboard, at every version, between games too."""
    h = Harness(fast_config(next_game_seconds=300))
    try:
        table, host = await h.table(games_to_win=2, bots=((2, "random"), (3, "random")))
        _watcher, watched = await h.join(table)
        players = {0: await h.seat(table, 0, "Ann", host), 1: await h.seat(table, 1, "Bob")}
        viewers = {None: watched, 0: players[0][1], 1: players[1][1]}
        checked: set[tuple[int, int | None]] = set()
        between = 0
        await table.submit(players[0][0], {"type": "start"})
        rng = random.Random(7)
        while table.match is None or not table.match.over:
            await asyncio.sleep(0.002)  # bots move, and every state goes out
            match = None if table.match is None else dingo(table)
            if match is None:
                continue
            # A match rebuilt from scratch: nothing it shows comes from a cache.
            fresh = Match.replay(match.seed, match.options, [g.actions for g in match.games])
            for viewer, conn in viewers.items():
                state = conn.last("state")
                if state["v"] == table.version:
                    assert state["game"] == DingoMatch.around(fresh).view(viewer)
                    assert state["match"] == DingoMatch.around(fresh).scoreboard()
                    checked.add((state["v"], viewer))
            if match.between_games:
                between += 1
                for client, conn in players.values():
                    await submit(table, client, conn, type="ready")
                await wait_until(lambda: table.match is not None and not dingo(table).game.over)
            elif match.game.to_act in players:
                client, conn = players[match.game.to_act]
                action = rng.choice(match.game.legal_actions()).to_dict()
                del action["seat"]
                assert (await submit(table, client, conn, **action))["type"] == "ack"
        assert len(checked) > 90 and between >= 1
    finally:
        await h.close()


async def test_a_table_logged_before_the_game_contract_restores(harness: Harness) -> None:
    """Tables stored by a server from before other games came: options without ``game``
    and action entries whose ``action`` carries the seat (no ``seat`` of their own)."""
    table, host = await harness.table(games_to_win=2, bots=((1, "random"), (2, "random"),
                                                           (3, "heuristic")))
    ann = await harness.seat(table, 0, "Ann", host)
    await table.submit(ann[0], {"type": "start"})
    await play_random(table, {0: ann}, random.Random(2), lambda: table.version > 40)
    await wait_until(lambda: harness.store.entries(table.id)[-1]["seq"] == table.version)
    stored = harness.store.tables[table.id]
    old_entries = [
        {k: v for k, v in e.items() if k != "seat"} | {"action": {**e["action"],
                                                                 "seat": e["seat"]}}
        if e["kind"] == "action" else e for e in stored.entries]
    assert sum(e["kind"] == "action" for e in old_entries) > 20
    old = StoredTable(table.id, {k: v for k, v in stored.options.items() if k != "game"},
                      stored.created_at, old_entries)
    copy = await Table.restore(old, harness.store, fast_config())
    try:
        assert copy.game.name == "dingo" and copy.version == table.version
        assert copy.options == table.options
        for seat in (None, 0, 1, 2, 3):
            assert copy.match is not None and table.match is not None
            assert copy.match.view(seat) == table.match.view(seat)
    finally:
        copy.shut(1012, "test over")


async def test_restore_rebuilds_the_same_table_and_plays_on(harness: Harness) -> None:
    rng = random.Random(11)
    for _ in range(10):
        # A deal in which Ann or Bob has a say in a hunt (most have): the table waits there.
        table, host = await harness.table(games_to_win=1,
                                          bots=((2, "heuristic"), (3, "random")))
        a = await harness.seat(table, 0, "Ann", host)
        b = await harness.seat(table, 1, "Bob")
        await table.submit(a[0], {"type": "start"})
        await play_random(table, {0: a, 1: b}, rng, lambda t=table: t.match is not None and (
            dingo(t).game.over
            or (dingo(t).game.phase == "hunt" and dingo(t).game.to_act in (0, 1))))
        if not dingo(table).game.over:
            break
    assert not dingo(table).game.over, "ten deals without a hunt turn for Ann or Bob"
    await wait_until(lambda: harness.store.entries(table.id)[-1]["seq"] == table.version)
    # (tables of deals tried before are over, and are left out)
    stored = [s for s in await harness.store.unfinished_tables()
              if not any(e["kind"] == "recorded" for e in s.entries)]
    assert [s.table_id for s in stored] == [table.id]
    again = TableManager(harness.store, fast_config())
    assert await again.restore(stored) == [table.id]
    copy = again.get(table.id)
    assert copy is not None and copy.version == table.version
    for seat in (None, 0, 1, 2, 3):
        assert copy.match.view(seat) == table.match.view(seat)
    assert [s.name for s in copy.seats] == ["Ann", "Bob", "Cleo", "Dov"]
    assert copy.host_hash == table.host_hash
    # The restored table is live: the players come back with their tokens and finish.
    table.shut(1012, "restart")
    harness.clients.clear()
    try:
        ann, ann_conn = await harness.join(copy, host)
        bob, bob_conn = await harness.join(copy, b[1].last("seated")["token"])
        assert ann_conn.last()["game"] == a[1].last()["game"]
        await play_random(copy, {0: (ann, ann_conn), 1: (bob, bob_conn)}, rng,
                          lambda: copy.match_id is not None)
    finally:
        await again.shutdown()


async def test_restore_records_a_match_the_crash_left_unrecorded(harness: Harness) -> None:
    table, host = await harness.table(games_to_win=1, bots=tuple((s, "random") for s in range(4)))
    admin, _ = await harness.join(table, host)
    await table.submit(admin, {"type": "start"})
    entries = harness.store.entries(table.id)
    await wait_until(lambda: entries[-1]["kind"] == "recorded")
    crashed = StoredTable(table.id, table.options.to_dict(), table.created_at, entries[:-1])
    store = RecordingStore()
    store.tables[table.id] = crashed
    copy = await Table.restore(crashed, store, fast_config())
    assert copy.match_id == 1 and store.entries(table.id)[-1]["kind"] == "recorded"
    assert store.matches == [harness.store.matches[0]]


async def test_a_repeated_intent_is_applied_once_and_answered_alike(harness: Harness) -> None:
    table, host = await harness.table()
    players = [await harness.seat(table, s, f"P{s}", host if s == 0 else None) for s in range(4)]
    await table.submit(players[0][0], {"type": "start"})
    await wait_until(lambda: table.match is not None)
    seat = dingo(table).game.to_act
    client, conn = players[seat]
    card = dingo(table).game.legal_actions()[0].to_dict()["card"]
    intent = {"type": "discard", "card": card, "id": "d1", "v": table.version}
    first = await submit(table, client, conn, **intent)
    version = table.version
    second = await submit(table, client, conn, **intent)
    assert first == second == {"type": "ack", "id": "d1", "v": version}
    assert table.version == version and len(dingo(table).game.actions) == 1
    # A refused intent is remembered too: its retry does not change anything either.
    bad = {"type": "discard", "card": card, "id": "d2", "v": version}
    refused = await submit(table, client, conn, **bad)
    assert refused["code"] in ("not_your_turn", "illegal")
    assert await submit(table, client, conn, **bad) == refused


async def test_stale_and_foreign_intents_change_nothing(harness: Harness) -> None:
    table, host = await harness.table()
    players = [await harness.seat(table, s, f"P{s}", host if s == 0 else None) for s in range(4)]
    await table.submit(players[0][0], {"type": "start"})
    await wait_until(lambda: table.match is not None)
    game = dingo(table).game
    seat = game.to_act
    other = (seat + 1) % 4
    card = game.legal_actions()[0].to_dict()["card"]
    version = table.version
    stale = await submit(table, *players[seat], type="discard", card=card, id="x", v=version - 1)
    assert stale["code"] == "stale_version" and stale["id"] == "x" and stale["v"] == version
    # The other seat's token acts only for its own seat, whose turn it is not.
    foreign = await submit(table, *players[other], type="discard", card=card, id="y", v=version)
    assert foreign["code"] == "not_your_turn"
    assert table.version == version and game.actions == []
    ace = next((c for c in game.hand(seat) if c[0] == "A"), None)
    if ace is not None:
        illegal = await submit(table, *players[seat], type="discard", card=ace, id="z", v=version)
        assert illegal["code"] == "illegal"
    assert table.version == version and game.actions == []


async def test_seat_and_host_rules(harness: Harness) -> None:
    table, host = await harness.table(bots=((3, "random"),))
    guest, guest_conn = await harness.join(table)
    admin, admin_conn = await harness.join(table, host)
    assert (await submit(table, guest, guest_conn, type="sit", seat=3, name="Cy"))["code"] == (
        "seat_taken")
    assert (await submit(table, guest, guest_conn, type="sit", seat=1, name="\u202eevil"))[
        "code"] == "bad_name"
    assert (await submit(table, guest, guest_conn, type="sit", seat=1, name=" " * 3))[
        "code"] == "bad_name"
    refused = await submit(table, guest, guest_conn, type="add_bot", seat=0, kind="random")
    assert (refused["code"], refused["message"]) == ("not_host", "only the host may add a bot")
    for kind, words in (("start", "start the match"), ("make_host", "hand the host role over")):
        refused = await submit(table, guest, guest_conn, type=kind, seat=1)
        assert refused["message"] == f"only the host may {words}", refused
    assert (await submit(table, admin, admin_conn, type="start"))["code"] == "not_now"
    assert (await submit(table, guest, guest_conn, type="sit", seat=1, name="Cy"))["type"] == "ack"
    token = guest_conn.last("seated")["token"]
    assert len(token) >= 32 and table.seats[1].token_hash != token
    assert (await submit(table, guest, guest_conn, type="sit", seat=2, name="Cy"))["code"] == (
        "already_seated")
    assert (await submit(table, admin, admin_conn, type="remove_bot", seat=3))["type"] == "ack"
    assert (await submit(table, admin, admin_conn, type="remove_bot", seat=3))["code"] == "not_now"
    for seat in (0, 2, 3):
        assert (await submit(table, admin, admin_conn, type="add_bot", seat=seat,
                             kind="heuristic"))["type"] == "ack"
    assert (await submit(table, admin, admin_conn, type="start"))["type"] == "ack"
    assert (await submit(table, admin, admin_conn, type="start"))["code"] == "not_now"
    assert (await submit(table, guest, guest_conn, type="ready"))["code"] == "not_now"
    assert table.status == "playing"
    assert (await submit(table, admin, admin_conn, type="remove_bot", seat=2))["code"] == "not_now"


async def test_turn_timer_moves_for_a_slow_player(harness: Harness) -> None:
    table, host = await harness.table(turn_seconds=0.05,
                                      bots=tuple((s, "random") for s in (1, 2, 3)))
    client, conn = await harness.seat(table, 0, "Slow", host)
    await table.submit(client, {"type": "start"})
    await wait_until(lambda: any(e.get("type") == "auto_move" for f in conn.states()
                                 for e in f["events"]))
    state = next(f for f in conn.states() if any(e["type"] == "auto_move" for e in f["events"]))
    auto = state["events"][0]
    assert auto == {"type": "auto_move", "seat": 0, "reason": "timer"}
    assert state["events"][1]["seat"] == 0
    before = next(f for f in reversed(conn.states()) if f["v"] == state["v"] - 1)
    assert before["timer"]["seat"] == 0
    assert 0 < before["timer"]["deadline"] - before["timer"]["server_time"] <= 0.05
    assert not table.seats[0].away and table.seats[0].client is client


async def test_the_record_names_the_steps_a_stand_in_played(harness: Harness) -> None:
    """A player who never moves is played for by the timer's bot: every one of their steps
    is listed as the stand-in's (not their decision), and no other step is."""
    table, host = await harness.table(turn_seconds=0.02, games_to_win=1,
                                      bots=tuple((s, "random") for s in (1, 2, 3)))
    client, _conn = await harness.seat(table, 0, "Slow", host)
    await table.submit(client, {"type": "start"})
    await wait_until(lambda: table.match_id is not None, timeout=60)
    game = harness.store.matches[-1]["games"][0]
    mine = [i for i, a in enumerate(game["actions"], start=1) if a["seat"] == 0]
    assert mine and game["stand_in"] == mine
    assert parse_match_record(harness.store.matches[-1]).games[0]["stand_in"] == mine


async def test_an_absent_player_is_played_for_and_takes_the_seat_back() -> None:
    h = Harness(fast_config(reconnect_grace_seconds=0.02))
    try:
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        a = await h.seat(table, 0, "Ann", host)
        b = await h.seat(table, 1, "Bob")
        await table.submit(a[0], {"type": "start"})
        await table.leave(a[0])
        await wait_until(lambda: table.seats[0].away)
        assert b[1].last()["seats"][0]["connected"] is False
        rng = random.Random(3)
        await play_random(table, {1: b}, rng, lambda: any(
            e.get("reason") == "away" for f in b[1].states() for e in f["events"]))
        assert b[1].last()["seats"][0]["away"] is True
        back, back_conn = await h.join(table, host)
        assert back.seat == 0 and not table.seats[0].away
        # Ann was the host: gone past the grace, the role went to Bob, and stays there.
        assert back_conn.last()["seats"][0] == {"seat": 0, "kind": "human", "name": "Ann",
                                                "bot": None, "strength": None,
                                                "connected": True, "away": False,
                                                "ready": False, "back_by": None, "host": False,
                                                "played": None, "earlier": []}
        assert back_conn.last()["seats"][1]["host"] is True and not back.host
    finally:
        await h.close()


async def test_nothing_moves_while_nobody_is_connected(harness: Harness) -> None:
    table, host = await harness.table(bots=tuple((s, "random") for s in range(4)))
    client, _ = await harness.join(table, host)
    await table.submit(client, {"type": "start"})
    await table.leave(client)
    version = table.version
    await asyncio.sleep(0.05)
    assert table.version == version and table.status == "playing"


async def test_ready_votes_start_the_next_game_and_rematch_starts_a_new_match() -> None:
    h = Harness(fast_config(next_game_seconds=300))
    try:
        table, host = await h.table(games_to_win=2, bots=tuple((s, "random") for s in (1, 2, 3)))
        a = await h.seat(table, 0, "Ann", host)
        await table.submit(a[0], {"type": "start"})
        rng = random.Random(5)
        await play_random(table, {0: a}, rng, lambda: table.status != "playing")
        while table.status == "between_games":
            number = dingo(table).summary()["game_number"]
            await asyncio.sleep(0.01)
            assert dingo(table).summary()["game_number"] == number  # waits for the vote
            assert (await submit(table, *a, type="ready", id=f"r{number}"))["type"] == "ack"
            await wait_until(lambda n=number: dingo(table).summary()["game_number"] == n + 1)
            await play_random(table, {0: a}, rng, lambda: table.status != "playing")
        assert table.status == "match_over"
        await wait_until(lambda: table.match_id is not None)
        assert (await submit(table, *a, type="rematch"))["type"] == "ack"


        def starts() -> list[dict[str, Any]]:
            return [e for f in a[1].states() for e in f["events"] if e["type"] == "match_start"]

        await wait_until(lambda: len(starts()) == 2)
        assert starts() == [{"type": "match_start", "match_number": 1},
                            {"type": "match_start", "match_number": 2}]
        assert table.status == "playing" and table.match_id is None and table.info.number == 2
    finally:
        await h.close()


async def test_ready_pressed_over_and_over_does_not_hold_back_the_next_game() -> None:
    """Each vote reschedules the table's wake; a vote at every turn of the event
    loop must not keep pushing a due wake back for ever."""
    h = Harness(fast_config(next_game_seconds=300))
    try:
        table, host = await h.table(bots=tuple((s, "random") for s in (1, 2, 3)))
        a = await h.seat(table, 0, "Ann", host)
        await table.submit(a[0], {"type": "start"})
        await play_random(table, {0: a}, random.Random(3), lambda: table.status != "playing")
        assert table.status == "between_games"
        for _ in range(200):
            await table.submit(a[0], {"type": "ready"})
            await asyncio.sleep(0)
            if table.status == "playing":
                break
        assert table.status == "playing"
    finally:
        await h.close()


@pytest.mark.parametrize("vote", ["ready", "rematch"])
@pytest.mark.parametrize(("grace", "back"), [(30.0, True), (2.0, False)],
                         ids=["back-within-the-grace", "gone-past-it"])
async def test_a_player_who_just_dropped_is_waited_for_before_the_next_game_or_match(
        grace: float, back: bool, vote: str) -> None:
    """Everyone else voted, but Cy dropped a moment ago (or is not back yet after a
    restart): the next game (up to the usual pause) or the rematch waits for her vote,
    rather than starting before she is back; once her grace has run out she is not waited
    for."""
    h = Harness(fast_config(next_game_seconds=60, reconnect_grace_seconds=grace))
    try:
        table, host = await h.table(games_to_win=3 if vote == "ready" else 1,
                                    bots=((3, "random"),))
        a = await h.seat(table, 0, "Ann", host)
        b = await h.seat(table, 1, "Bob")
        c = await h.seat(table, 2, "Cy")
        cy_token = next(f["token"] for f in c[1].frames if f["type"] == "seated")
        players = {0: a, 1: b, 2: c}
        await table.submit(a[0], {"type": "start"})
        rng = random.Random(4)
        await play_random(table, players, rng, lambda: table.status != "playing")
        while vote == "rematch" and table.status == "between_games":  # a drawn game
            for player in players.values():
                await submit(table, *player, type="ready")
            await wait_until(lambda: table.status == "playing")
            await play_random(table, players, rng, lambda: table.status != "playing")
        waiting = table.status
        assert waiting == ("between_games" if vote == "ready" else "match_over")
        await table.leave(c[0])
        for player in (a, b):
            assert (await submit(table, *player, type=vote))["type"] == "ack"
        await asyncio.sleep(0.2)
        assert table.status == waiting
        if back:  # Cy is back and votes: at once
            cy = await h.join(table, cy_token)
            assert (await submit(table, *cy, type=vote))["type"] == "ack"
        await wait_until(lambda: table.status == "playing", timeout=15)
        assert table.seats[2].away is not back
    finally:
        await h.close()


@pytest.fixture
async def vote_harness() -> AsyncIterator[Harness]:
    """A harness whose tables wait (five minutes) for the votes between games."""
    h = Harness(fast_config(next_game_seconds=300))
    yield h
    await h.close()


@pytest.mark.parametrize("vote", ["ready", "rematch"])
async def test_an_acked_vote_survives_a_restore_and_counts_toward_the_next_game(
        vote: str, vote_harness: Harness) -> None:
    """A vote is logged before its ack: a table restored from its log shows it, answers
    its retried id alike, and starts the next game (or match) once the other player
    votes, without the restored voter voting again. Votes reset when that happens, in
    the restored table as in the log's every later fold."""
    h = vote_harness
    table, host = await h.table(games_to_win=2 if vote == "ready" else 1,
                                bots=((2, "random"), (3, "random")))
    a = await h.seat(table, 0, "Ann", host)
    b = await h.seat(table, 1, "Bob")
    await table.submit(a[0], {"type": "start"})
    rng = random.Random(5)
    await play_random(table, {0: a, 1: b}, rng, lambda: table.status != "playing")
    while vote == "rematch" and table.status == "between_games":  # a drawn game
        for player in (a, b):
            await submit(table, *player, type="ready")
        await wait_until(lambda: table.status == "playing")
        await play_random(table, {0: a, 1: b}, rng, lambda: table.status != "playing")
    assert table.status == ("between_games" if vote == "ready" else "match_over")
    if vote == "rematch":
        await wait_until(lambda: table.match_id is not None)
    # The last move is folded (so the status has changed) before its entry is stored.
    await wait_until(lambda: len(h.store.entries(table.id)) == table.version)
    before = table.version
    acked = await submit(table, *a, type=vote, id="v-ann")
    assert acked == {"type": "ack", "id": "v-ann", "v": before + 1}
    entries = h.store.entries(table.id)
    assert len(entries) == before + 1
    assert {k: v for k, v in entries[-1].items() if k != "at"} == {
        "kind": "vote", "seat": 0, "vote": vote, "id": "v-ann", "by": 0, "seq": before + 1}
    # Voting again changes nothing and logs nothing.
    again = await submit(table, *a, type=vote, id="v-ann-2")
    assert again == {"type": "ack", "id": "v-ann-2", "v": before + 1}
    assert len(entries) == before + 1 and table.version == before + 1
    await settled(table, b[1])
    assert [s["ready"] for s in b[1].last()["seats"]] == [True, False, False, False]
    voted = b[1].last()

    # A log without the vote (as every log was before votes were logged): nobody ready.
    older = StoredTable(table.id, table.options.to_dict(), table.created_at, entries[:-1])
    assert not any(s.ready for s in Table.folded(older, h.store, table.config).seats)
    # Another process, unable to ask the owner, folds the log: the vote is there.
    stored = StoredTable(table.id, table.options.to_dict(), table.created_at, list(entries))
    folded = Table.folded(stored, h.store, table.config).public_info(presence=False)
    assert [s["ready"] for s in folded["seats"]] == [True, False, False, False]

    table.shut(1012, "restart")
    copy = await Table.restore(stored, h.store, fast_config(next_game_seconds=300))
    h.manager.tables[table.id] = copy
    assert copy.version == before + 1 and copy.status == table.status
    assert [s.ready for s in copy.seats] == [True, False, False, False]
    # Bob first: were Ann alone at the table, her vote would be everyone's.
    bob = await h.join(copy, b[1].last("seated")["token"])
    ann = await h.join(copy, host)
    await wait_until(lambda: bob[1].last()["seats"][0]["connected"])  # Ann is back
    assert comparable(bob[1].last()) == comparable(voted)
    assert ann[1].last()["seats"][0]["ready"] is True
    await asyncio.sleep(0.05)
    assert copy.version == before + 1  # waiting for Bob
    # The retried vote gets its original answer and is not applied again.
    assert await raw_answer(copy, *ann, {"type": vote, "id": "v-ann"}) == acked
    assert copy.version == before + 1
    assert (await submit(copy, *bob, type=vote, id="v-bob"))["v"] == before + 2
    await wait_until(lambda: copy.status == "playing")
    assert [e["kind"] for e in h.store.entries(table.id)[before:before + 3]] == [
        "vote", "vote", "next_game" if vote == "ready" else "rematch"]
    if vote == "rematch":
        assert copy.info is not None and copy.info.number == 2
    assert not any(s.ready for s in copy.seats)
    final = StoredTable(table.id, table.options.to_dict(), table.created_at,
                        list(h.store.entries(table.id)))
    assert not any(s.ready for s in Table.folded(final, h.store, copy.config).seats)


async def test_a_vote_at_the_wrong_time_is_refused_and_logs_nothing(vote_harness: Harness
                                                                    ) -> None:
    harness = vote_harness
    table, host = await harness.table(games_to_win=2)  # people only: nothing moves by itself
    players = {s: await harness.seat(table, s, f"P{s}", host if s == 0 else None)
               for s in range(4)}
    a, b = players[0], players[1]
    watcher = await harness.join(table)

    async def refused(who: tuple[Client, FakeConn], vote: str) -> str:
        version, logged = table.version, len(harness.store.entries(table.id))
        answer = await submit(table, *who, type=vote)
        assert answer["type"] == "error", answer
        assert table.version == version and len(harness.store.entries(table.id)) == logged
        assert not any(s.ready for s in table.seats)
        code: str = answer["code"]
        return code

    assert await refused(a, "ready") == "not_now"  # the lobby
    await table.submit(a[0], {"type": "start"})
    assert await refused(a, "ready") == "not_now"  # a game is on
    assert await refused(b, "rematch") == "not_now"
    await play_random(table, players, random.Random(2), lambda: table.status != "playing")
    assert table.status == "between_games"
    assert await refused(a, "rematch") == "not_now"  # the match is not over
    assert await refused(watcher, "ready") == "not_seated"


async def test_a_repeated_vote_logs_nothing_and_a_retry_of_it_gets_its_first_answer(
        vote_harness: Harness) -> None:
    """The one intent acked without a log entry (a seat that has voted votes again): its
    answer is remembered all the same, so a retry once the table has moved on is answered
    with the version it was acked at, not the table's version now."""
    h = vote_harness
    table, host = await h.table(games_to_win=2, bots=((2, "random"), (3, "random")))
    a = await h.seat(table, 0, "Ann", host)
    b = await h.seat(table, 1, "Bob")
    await table.submit(a[0], {"type": "start"})
    await play_random(table, {0: a, 1: b}, random.Random(5),
                      lambda: table.status != "playing")
    assert table.status == "between_games"
    await submit(table, *a, type="ready")
    logged = len(h.store.entries(table.id))
    first = await submit(table, *a, type="ready", id="again")
    assert first == {"type": "ack", "id": "again", "v": table.version}
    assert len(h.store.entries(table.id)) == logged
    await submit(table, *a, type="remove_bot", seat=3)  # the table moves on
    assert table.version == first["v"] + 1
    assert await raw_answer(table, *a, {"type": "ready", "id": "again"}) == first


async def test_a_vote_is_in_time_from_any_version_since_the_game_ended(
        vote_harness: Harness) -> None:
    """Votes move the version now: one sent with the version it saw must not be refused
    because another seat voted first; one from before the game ended is stale."""
    harness = vote_harness
    table, host = await harness.table(games_to_win=2, bots=((3, "random"),))
    a = await harness.seat(table, 0, "Ann", host)
    b = await harness.seat(table, 1, "Bob")
    c = await harness.seat(table, 2, "Cy")
    await table.submit(a[0], {"type": "start"})
    await play_random(table, {0: a, 1: b, 2: c}, random.Random(9),
                      lambda: table.status != "playing")
    assert table.status == "between_games"
    ended = table.version
    assert (await submit(table, *a, type="ready", v=ended))["v"] == ended + 1
    assert (await submit(table, *b, type="ready", v=ended))["v"] == ended + 2
    stale = await submit(table, *c, type="ready", v=ended - 1)
    assert stale["code"] == "stale_version" and not table.seats[2].ready
    assert table.version == ended + 2


async def test_a_stand_in_bot_knows_the_game_so_far_as_if_it_had_watched_every_event(
        harness: Harness) -> None:
    """Bots read the game's events only when asked to move; by then they must know
    exactly what a bot told each event as it happened would know."""
    table, host = await harness.table(games_to_win=3)
    players = {0: await harness.seat(table, 0, "Ann", host)}
    for seat in (1, 2, 3):
        players[seat] = await harness.seat(table, seat, f"P{seat}")
    await table.submit(players[0][0], {"type": "start"})
    rng = random.Random(11)
    for moves in (9, 14, 30):  # mid-exchange, early hunts, later hunts
        target = table.version + moves
        await play_random(table, players, rng, lambda t=target: table.version >= t
                          or table.status != "playing")
        for seat, (_client, conn) in players.items():
            watched = HeuristicBot()
            for frame in conn.states():
                for event in frame["events"]:
                    if event["type"] not in TABLE_EVENTS:
                        watched.observe(event)
            stand_in = table._bot(seat)
            assert isinstance(stand_in, DingoBot) and isinstance(stand_in.bot, HeuristicBot)
            assert vars(stand_in.bot._memory) == vars(watched._memory)


async def test_a_late_spectator_gets_the_game_log_so_far_as_an_early_one_saw_it(
        harness: Harness) -> None:
    table, host = await harness.table(games_to_win=3)
    _early, early = await harness.join(table)
    players = {0: await harness.seat(table, 0, "Ann", host)}
    for seat in (1, 2, 3):
        players[seat] = await harness.seat(table, seat, f"P{seat}")
    await table.submit(players[0][0], {"type": "start"})
    await play_random(table, players, random.Random(4), lambda: table.version >= 20)
    _late, late = await harness.join(table)
    seen = [e for f in early.states() for e in f["events"]]
    dealt = max(i for i, e in enumerate(seen) if e["type"] == "game_start")
    log = late.last()["log"]
    assert log == seen[dealt:] and any(e["type"] == "pass" for e in log)
    assert all("card" not in e for e in log if e["type"] == "pass")  # passes stay private
    assert "log" not in early.last()  # only a (re)joining connection gets it


async def test_a_second_connection_with_the_same_token_replaces_the_first(
        harness: Harness) -> None:
    table, host = await harness.table()
    first, first_conn = await harness.seat(table, 0, "Ann", host)
    second, second_conn = await harness.join(table, host)
    await wait_until(lambda: first_conn.closed is not None)
    assert first_conn.closed == 4001
    assert table.seats[0].client is second and table.clients == {second}
    assert second_conn.frames[0]["seat"] == 0
    await table.leave(first)  # the old socket's reader ends later: nothing changes
    assert table.seats[0].client is second


async def test_a_client_that_does_not_read_is_dropped() -> None:
    h = Harness(fast_config(send_queue_size=4))

    class Stuck(FakeConn):
        async def send_bytes(self, data: bytes) -> None:
            await asyncio.Event().wait()

    try:
        table, host = await h.table(bots=tuple((s, "random") for s in range(4)))
        stuck = Stuck()
        await h.join(table, None, stuck)
        admin, _ = await h.join(table, host)
        await table.submit(admin, {"type": "start"})
        await wait_until(lambda: stuck.closed is not None)
        assert stuck.closed == 4008
    finally:
        await h.close()


async def test_a_broken_bot_does_not_stall_the_table(harness: Harness) -> None:
    table, host = await harness.table(bots=tuple((s, "random") for s in range(4)))
    client, _conn = await harness.join(table, host)
    await table.submit(client, {"type": "start"})
    await wait_until(lambda: table.version > 5)

    class Broken:
        name = "broken"

        def observe(self, event: dict[str, Any]) -> None:
            pass

        def choose(self, view: dict[str, Any]) -> Action:
            raise RuntimeError("bug")

    async with table._lock:
        table._bots = {s: Broken() for s in range(4)}  # type: ignore[misc]
        version = table.version
    await wait_until(lambda: table.version > version + 5)


async def test_a_storage_failure_shuts_the_table_until_its_log_can_be_read(
        harness: Harness) -> None:
    """The table is shut (its memory is ahead of its log); the next look for it brings
    it back from its log, as a restart would, once the database answers: what was
    refused is not there, what was acknowledged is."""
    table, host = await harness.table()
    client, conn = await harness.join(table, host)
    assert (await submit(table, client, conn, type="sit", seat=0, name="Ann"))["type"] == "ack"
    harness.store.fail_appends = True
    answer = await submit(table, client, conn, type="add_bot", seat=1)
    assert answer["code"] == "unavailable"
    await wait_until(lambda: conn.closed is not None)
    assert conn.closed == 1011
    assert harness.manager.get(table.id) is None
    assert table.id in harness.store.tables  # the log stays
    harness.store.fail_reads = True
    with pytest.raises(OwnershipUnavailable):  # service_unavailable: retry
        await harness.manager.locate(table.id)
    harness.store.fail_reads = harness.store.fail_appends = False
    back = await harness.manager.locate(table.id)
    assert isinstance(back, Table) and back is not table and back.version == 2
    assert [s.kind for s in back.seats[:2]] == ["human", "empty"]
    client, conn = await harness.join(back, host)
    assert conn.frames[0]["seat"] == 0
    assert (await submit(back, client, conn, type="add_bot", seat=1))["type"] == "ack"
    assert harness.store.entries(table.id)[-1]["kind"] == "bot_add"


async def test_public_info_never_shows_a_change_before_it_is_stored(harness: Harness) -> None:
    """A sit is folded, then stored: ``GET /api/tables/{id}`` (``public_info``) in between
    waits for the append, and shows the sit only once it is durable; if the append fails,
    the answer is the table its log brings back, never a seat the log does not have."""
    table, host = await harness.table()
    client, conn = await harness.join(table, host)
    gate = harness.store.gate = asyncio.Event()
    try:
        sitting = asyncio.create_task(submit(table, client, conn, type="sit", seat=0, name="Ann"))
        await wait_until(lambda: table.version == 2)  # folded; its append waits at the gate
        reading = asyncio.create_task(harness.manager.public_info(table.id))
        await asyncio.sleep(0.05)
        assert not reading.done()
        gate.set()
        info = await reading
        assert info is not None and info["seats"][0]["name"] == "Ann"
        assert harness.store.entries(table.id)[-1]["kind"] == "sit"
        assert (await sitting)["type"] == "ack"

        gate.clear()
        harness.store.fail_appends = True
        failing = asyncio.create_task(submit(table, client, conn, type="add_bot", seat=1))
        await wait_until(lambda: table.version == 3)
        reading = asyncio.create_task(harness.manager.public_info(table.id))
        await asyncio.sleep(0.05)
        assert not reading.done()
        gate.set()
        info = await reading  # from the table its log brings back: no bot
        assert info is not None and [s["kind"] for s in info["seats"][:2]] == ["human", "empty"]
        assert (await failing)["code"] == "unavailable"
        assert harness.manager.get(table.id) is not table
    finally:
        gate.set()  # a failed check must not leave the table locked


async def test_a_table_the_startup_could_not_read_is_restored_when_looked_for(
        harness: Harness) -> None:
    """A server whose startup could not read the database (``recover`` restored nothing)
    brings a table back from its log the first time it is looked for; an unknown id or a
    table closed for good stays unknown."""
    table, host = await harness.table()
    client, conn = await harness.join(table, host)
    assert (await submit(table, client, conn, type="sit", seat=0, name="Ann"))["type"] == "ack"
    closed, _ = await harness.table()
    await harness.manager.close(closed)
    later = TableManager(harness.store, harness.manager.config)  # the same store, nothing read
    try:
        back = await later.locate(table.id)
        assert isinstance(back, Table) and back.version == table.version
        assert back.seats[0].name == "Ann"
        assert await later.locate(table.id) is back
        assert await later.locate(closed.id) is None
        assert await later.locate("nosuchtable") is None
        assert later.tables == {table.id: back}
    finally:
        await later.shutdown()


async def test_a_refused_match_record_does_not_stop_the_table(harness: Harness) -> None:
    table, host = await harness.table(games_to_win=1, bots=((1, "random"), (2, "random"),
                                                            (3, "random")))
    a = await harness.seat(table, 0, "Ann", host)
    harness.store.fail_records = True
    await table.submit(a[0], {"type": "start"})
    await play_random(table, {0: a}, random.Random(8), lambda: table.status == "match_over")
    await wait_until(lambda: harness.store.entries(table.id)[-1]["seq"] == table.version)
    assert table.match_id is None and harness.store.matches == []
    entries = list(harness.store.entries(table.id))
    assert entries[-1]["kind"] == "action"
    # The live table plays on: a rematch starts a new match.
    assert (await submit(table, *a, type="rematch"))["type"] == "ack"
    await wait_until(lambda: any(e["kind"] == "rematch" for e in harness.store.entries(table.id)))
    assert table.status == "playing" and not table.closed
    # The log has the whole match, so a restore from it records the match.
    store = RecordingStore()
    stored = StoredTable(table.id, table.options.to_dict(), table.created_at, entries)
    store.tables[table.id] = stored
    copy = await Table.restore(stored, store, fast_config())
    assert copy.match_id == 1 and len(store.matches) == 1


async def test_idle_tables_are_closed() -> None:
    h = Harness(fast_config(idle_seconds=0.01))
    try:
        table, host = await h.table()
        client, _ = await h.join(table, host)
        busy, _ = await h.table()
        await asyncio.sleep(0.02)
        assert await h.manager.close_idle() == [busy.id]
        await table.leave(client)
        await asyncio.sleep(0.02)
        assert await h.manager.close_idle() == [table.id]
        assert h.manager.tables == {} and h.store.tables == {}
    finally:
        await h.close()


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="distinct"):
        TableOptions.create(bots=((1, "random"), (1, "heuristic")))
    with pytest.raises(ValueError, match="unknown bot kind"):
        TableOptions.create(bots=((1, "genius"),))
    with pytest.raises(ValueError):
        TableOptions.create(games_to_win=0)
    options = TableOptions.create(games_to_win=3, turn_seconds=30, bots=((2, "random"),))
    assert TableOptions.from_dict(options.to_dict()) == options


async def test_a_dropped_player_shows_when_a_bot_takes_over() -> None:
    h = Harness(fast_config(reconnect_grace_seconds=30))
    try:
        table, host = await h.table(bots=((2, "random"), (3, "heuristic")))
        a = await h.seat(table, 0, "Ann", host)
        b = await h.seat(table, 1, "Bob")
        await table.leave(b[0])
        await wait_until(lambda: not a[1].last()["seats"][1]["connected"])
        seat = a[1].last()["seats"][1]
        assert seat["connected"] is False and seat["away"] is False
        assert 25 < seat["back_by"] - time.time() <= 30
        assert a[1].last()["seats"][3]["back_by"] is None  # bots are never waited for
    finally:
        await h.close()


async def test_the_host_role_passes_to_the_longest_seated_and_survives_a_restart() -> None:
    h = Harness(fast_config(reconnect_grace_seconds=0.02))
    try:
        table, host = await h.table(bots=((3, "random"),))
        a = await h.seat(table, 0, "Ann", host)
        c = await h.seat(table, 2, "Cy")
        b = await h.seat(table, 1, "Bob")
        await table.leave(a[0])
        await wait_until(lambda: any(e["type"] == "host_changed"
                                     for f in b[1].states() for e in f["events"]))
        changed = [e for f in b[1].states() for e in f["events"] if e["type"] == "host_changed"]
        assert changed == [{"type": "host_changed", "seat": 2, "reason": "away"}]
        assert c[0].host and not b[0].host
        assert [s["host"] for s in c[1].last()["seats"]] == [False, False, True, False]
        # The new host hands the role on, then Bob replaces the absent Ann with a bot.
        answer = await submit(table, *c, type="make_host", seat=1)
        assert answer["type"] == "ack" and b[0].host and not c[0].host
        assert (await submit(table, *c, type="make_host", seat=0))["code"] == "not_host"
        assert (await submit(table, *b, type="replace_seat", seat=2))["code"] == "not_now"
        answer = await submit(table, *b, type="replace_seat", seat=0, kind="random")
        assert answer["type"] == "ack"
        assert b[1].last()["seats"][0] == {
            "seat": 0, "kind": "bot", "name": "Ada", "bot": "random", "strength": "easy",
            "connected": True, "away": False, "ready": False, "back_by": None, "host": False,
            "played": None, "earlier": []}
        events = [e for e in b[1].last()["events"]]
        assert events == [{"type": "seat_replaced", "seat": 0, "kind": "random",
                           "player": "Ann", "left": False}]
        # Ann's token holds nothing any more.
        gone, gone_conn = await h.join(table, host)
        assert gone_conn.last("error")["code"] == "bad_token" and gone.seat is None
        # A restart folds the same log: Bob is the host, Ada plays seat 0.
        entries = h.store.entries(table.id)
        await wait_until(lambda: entries[-1]["seq"] == table.version)
        stored = StoredTable(table.id, table.options.to_dict(), table.created_at, entries)
        copy = await Table.restore(stored, RecordingStore(), table.config)
        try:
            assert copy._host_seat() is copy.seats[1]
            assert [s.name for s in copy.seats] == ["Ada", "Bob", "Cy", "Dov"]
        finally:
            copy.shut(1012, "test")
    finally:
        await h.close()


async def test_the_host_role_goes_only_to_a_player_who_is_here() -> None:
    h = Harness(fast_config(reconnect_grace_seconds=0.02))
    try:
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        a = await h.seat(table, 0, "Ann", host)
        b = await h.seat(table, 1, "Bob")
        await table.leave(b[0])
        await wait_until(lambda: a[1].last()["seats"][1]["away"])
        version = table.version
        answer = await submit(table, *a, type="make_host", seat=1)
        assert answer["type"] == "error" and answer["code"] == "not_now"
        assert "Bob is not here" in answer["message"]
        assert a[0].host and table.version == version
        # Back, Bob can take it.
        token = next(f["token"] for f in b[1].frames if f["type"] == "seated")
        back = await h.join(table, token)
        await wait_until(lambda: a[1].last()["seats"][1]["connected"])
        answer = await submit(table, *a, type="make_host", seat=1)
        assert answer["type"] == "ack" and back[0].host and not a[0].host
    finally:
        await h.close()


async def test_the_first_to_sit_after_a_lone_host_left_is_host() -> None:
    h = Harness(fast_config(reconnect_grace_seconds=0.02))
    try:
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        a = await h.seat(table, 0, "Ann", host)
        await table.leave(a[0])
        await wait_until(lambda: table.seats[0].away)
        assert table._host_seat() is table.seats[0]  # nobody here to take the role
        b = await h.seat(table, 1, "Bob")
        await wait_until(lambda: b[0].host)
        changed = [e for f in b[1].states() for e in f["events"] if e["type"] == "host_changed"]
        assert changed == [{"type": "host_changed", "seat": 1, "reason": "away"}]
        # The new host can give Ann's seat to a bot and start.
        answer = await submit(table, *b, type="replace_seat", seat=0, kind="random")
        assert answer["type"] == "ack"
        assert (await submit(table, *b, type="start"))["type"] == "ack"
    finally:
        await h.close()


async def test_a_host_without_a_seat_who_is_gone_passes_the_role_on() -> None:
    """A host who never sat (a table made through the API) has a seat's grace period too:
    gone past it, the role passes to the longest-seated player here, or to the first to sit
    when nobody is; back within it, the host keeps the role. The same after a restart, when
    nobody is connected at all."""
    h = Harness(fast_config(reconnect_grace_seconds=0.3))
    try:
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        watching = await h.join(table, host)
        assert watching[0].host and watching[0].seat is None
        b = await h.seat(table, 1, "Bob")
        await table.leave(watching[0])
        back = await h.join(table, host)  # within the grace: still the host
        await asyncio.sleep(0.4)
        assert back[0].host and not b[0].host
        await table.leave(back[0])
        await wait_until(lambda: any(e["type"] == "host_changed"
                                     for f in b[1].states() for e in f["events"]))
        assert b[0].host
        changed = [e for f in b[1].states() for e in f["events"] if e["type"] == "host_changed"]
        assert changed == [{"type": "host_changed", "seat": 1, "reason": "away"}]
        assert (await submit(table, *b, type="sit", seat=0, name="x"))["code"] == (
            "already_seated")
        gone = await h.join(table, host)
        assert gone[1].last("error")["code"] == "bad_token"

        # Nobody seated when the grace runs out: the first to sit takes the role.
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        watching = await h.join(table, host)
        await table.leave(watching[0])
        await wait_until(lambda: table._seatless_host_gone)
        c = await h.seat(table, 0, "Cy")
        await wait_until(lambda: c[0].host)
        assert (await submit(table, *c, type="add_bot", seat=1, kind="random"))["type"] == "ack"
        assert (await submit(table, *c, type="start"))["type"] == "ack"

        # A restart, nobody back: the first to sit after the grace is the host.
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        watching = await h.join(table, host)
        await table.leave(watching[0])
        table = await h.restart(table)
        await wait_until(lambda: table._seatless_host_gone)
        d = await h.seat(table, 1, "Di")
        await wait_until(lambda: d[0].host)
    finally:
        await h.close()


async def test_everyone_is_told_when_the_host_watches_without_a_seat() -> None:
    """No seat shows a host who holds none: ``table.host_watching`` tells the others that it
    is here, among the spectators, from the moment it comes (or leaves its seat) until it
    sits down or goes; once it has gone, ``table.host_back_by`` says when the role passes."""
    h = Harness(fast_config(reconnect_grace_seconds=0.5))
    try:
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        b = await h.seat(table, 1, "Bob")
        assert b[1].last()["table"]["host_watching"] is False
        watching = await h.join(table, host)
        await wait_until(lambda: b[1].last()["table"]["host_watching"])
        assert b[1].last()["table"]["spectators"] == 1
        stranger = await h.join(table)
        await wait_until(lambda: b[1].last()["table"]["spectators"] == 2)
        assert b[1].last()["table"]["host_watching"] and stranger[1].last()["table"][
            "host_watching"]
        assert (await submit(table, *watching, type="sit", seat=0, name="Ann"))["type"] == "ack"
        await wait_until(lambda: not b[1].last()["table"]["host_watching"])
        assert b[1].last()["seats"][0]["host"]
        assert (await submit(table, *watching, type="leave_seat"))["type"] == "ack"
        await wait_until(lambda: b[1].last()["table"]["host_watching"])
        assert not any(s["host"] for s in b[1].last()["seats"])
        # Gone: no longer watching, and the others see when the role passes.
        await table.leave(watching[0])
        await wait_until(lambda: not b[1].last()["table"]["host_watching"])
        assert b[1].last()["table"]["spectators"] == 1
        back_by = b[1].last()["table"]["host_back_by"]
        assert back_by == pytest.approx(time.time() + 0.5, abs=0.2)
        watching = await h.join(table, host)  # back within its grace
        await wait_until(lambda: b[1].last()["table"]["host_back_by"] is None)
        assert b[1].last()["table"]["host_watching"]
        await table.leave(watching[0])
        await wait_until(lambda: b[1].last()["table"]["host_back_by"] is not None)
        await wait_until(lambda: b[1].last()["seats"][1]["host"])  # the role passed
        assert b[1].last()["table"]["host_back_by"] is None
    finally:
        await h.close()


async def test_a_grace_that_ran_out_as_its_player_came_back_and_went_again_starts_anew(
) -> None:
    """A grace timer fires while the table is busy; before its turn comes, the player comes
    back and goes again (a new grace period). The old timer's turn ends nothing: the seat is
    not played by a bot, nor the host role passed, until the new period is over."""
    h = Harness(fast_config(reconnect_grace_seconds=0.5))
    try:
        table, host = await h.table(bots=((3, "random"),))
        watching = await h.join(table, host)  # a host who holds no seat
        b = await h.seat(table, 1, "Bob")
        c = await h.seat(table, 2, "Cy")
        bob_token = next(f["token"] for f in b[1].frames if f["type"] == "seated")
        await table.leave(watching[0])
        await table.leave(b[0])
        await table._lock.acquire()
        again = []
        for token in (host, bob_token):
            client = Client(FakeConn(h.order))
            h.clients.append(client)
            again += [asyncio.create_task(table.join(client, token)),
                      asyncio.create_task(table.leave(client))]
        await asyncio.sleep(0.6)  # both old timers fire and wait for the lock
        table._lock.release()
        await asyncio.gather(*again)
        await asyncio.sleep(0.05)
        assert not table.seats[1].away and not table._seatless_host_gone
        assert table.seats[1].grace is not None and table._host_grace is not None
        # The new periods run out: a bot plays for Bob, and Cy (here) is the host.
        await wait_until(lambda: table.seats[1].away and c[0].host)
    finally:
        await h.close()


async def test_a_seat_can_be_freed_only_between_games() -> None:
    h = Harness(fast_config(reconnect_grace_seconds=30))
    try:
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        a = await h.seat(table, 0, "Ann", host)
        b = await h.seat(table, 1, "Bob")
        await table.leave(b[0])
        answer = await submit(table, *a, type="replace_seat", seat=1)
        assert answer["type"] == "ack"
        assert a[1].last()["seats"][1]["kind"] == "empty"
        c = await h.seat(table, 1, "Cy")
        assert c[0].seat == 1
        assert (await submit(table, *a, type="start"))["type"] == "ack"
        await table.leave(c[0])
        answer = await submit(table, *a, type="replace_seat", seat=1)
        assert answer["type"] == "error" and answer["code"] == "not_now"
    finally:
        await h.close()


async def test_a_player_leaves_the_seat_in_the_lobby_and_may_sit_again() -> None:
    """``leave_seat`` frees the seat before the match: the leaver watches (told first,
    ``unseated``), a retry gets the first answer (also from a new connection with the old
    token, which now joins as a spectator's), and sitting again gives a new token; the host
    stays the host, and keeps its token when it sits again."""
    h = Harness(fast_config(reconnect_grace_seconds=30))
    try:
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        a = await h.seat(table, 0, "Ann", host)
        b = await h.seat(table, 1, "Bob")
        old_token = next(f["token"] for f in b[1].frames if f["type"] == "seated")
        answer = await submit(table, *b, type="leave_seat", id="leave-1")
        assert answer == {"type": "ack", "id": "leave-1", "v": table.version}
        kinds = [f["type"] for f in b[1].frames]
        assert kinds[-3:] == ["unseated", "ack", "state"]
        assert b[1].last("unseated") == {"type": "unseated"}
        assert b[0].seat is None and table.seats[1].kind == "empty"
        assert a[1].last()["seats"][1]["kind"] == "empty"
        freed = [e for e in a[1].last()["events"] if e["type"] == "seat_replaced"]
        assert freed == [{"type": "seat_replaced", "seat": 1, "kind": None, "player": "Bob",
                          "left": True}]
        version = table.version
        assert await submit(table, *b, type="leave_seat", id="leave-1") == answer
        again = await submit(table, *b, type="leave_seat")
        assert again["type"] == "error" and again["code"] == "not_seated"
        # The page dropped before it heard: back with the old token, it watches, and the
        # retried intent gets its answer.
        back = await h.join(table, old_token)
        assert back[1].last("welcome")["seat"] is None
        assert not [f for f in back[1].frames if f["type"] == "error"]
        assert await submit(table, *back, type="leave_seat", id="leave-1") == answer
        assert table.version == version
        # So does a table restored from its log (a restart, another process).
        table = await h.restart(table)
        back = await h.join(table, old_token)
        assert back[1].last("welcome")["seat"] is None
        assert await submit(table, *back, type="leave_seat", id="leave-1") == answer
        assert table.version == version
        assert (await submit(table, *back, type="sit", seat=1, name="Bob"))["type"] == "ack"
        assert back[1].last("seated")["token"] not in (None, old_token)
        # The host may leave too: it stays the host, holding no seat; sitting again, its
        # seat carries its token, so the role comes back with it after a restart.
        a = await h.join(table, host)
        assert (await submit(table, *a, type="leave_seat"))["type"] == "ack"
        assert table.seats[0].kind == "empty" and a[0].seat is None and a[0].host
        table = await h.restart(table)
        a = await h.join(table, host)
        assert a[1].last("welcome")["seat"] is None and a[0].host
        assert (await submit(table, *a, type="sit", seat=0, name="Ann"))["type"] == "ack"
        assert a[1].last("seated")["token"] is None  # the host's token, kept
        table = await h.restart(table)
        a = await h.join(table, host)
        assert a[1].last("welcome")["seat"] == 0 and a[0].host
    finally:
        await h.close()


async def test_a_leave_sent_from_the_lobby_is_refused_once_the_match_has_started() -> None:
    """A page in the lobby sends ``leave_seat`` with its version: if the host started the
    match meanwhile, the leave is refused and the player keeps the seat (it meant to free a
    lobby seat, not to hand a match seat to a bot for good)."""
    h = Harness(fast_config(reconnect_grace_seconds=30))
    try:
        table, host = await h.table(bots=((2, "random"), (3, "random")))
        a = await h.seat(table, 0, "Ann", host)
        b = await h.seat(table, 1, "Bob")
        seen = table.version
        assert (await submit(table, *a, type="start"))["type"] == "ack"
        refused = await submit(table, *b, type="leave_seat", v=seen)
        assert refused["type"] == "error" and refused["code"] == "stale_version"
        assert table.seats[1].kind == "human" and b[0].seat == 1
        assert "hand" in b[1].last()["game"]
        # Sent as things stand, it is the leave it says.
        assert (await submit(table, *b, type="leave_seat", v=table.version))["type"] == "ack"
        assert table.seats[1].kind == "bot"
    finally:
        await h.close()


async def test_a_player_who_leaves_a_match_is_played_by_a_bot() -> None:
    """During the match and after it (a rematch would wait for an empty seat)."""
    h = Harness(fast_config(reconnect_grace_seconds=30))
    try:
        table, host = await h.table(bots=((3, "random"),))
        a = await h.seat(table, 0, "Ann", host)
        b = await h.seat(table, 1, "Bob")
        c = await h.seat(table, 2, "Cy")
        assert (await submit(table, *a, type="start"))["type"] == "ack"
        assert "hand" in b[1].last()["game"]
        assert (await submit(table, *b, type="leave_seat"))["type"] == "ack"
        seat = a[1].last()["seats"][1]
        assert (seat["kind"], seat["bot"]) == ("bot", table.game.stand_in_bot)
        # Bob watches: what any spectator sees, no hand.
        watcher = await h.join(table)
        await settled(table, watcher[1], b[1])
        assert b[0].seat is None and "hand" not in b[1].last()["game"]
        assert b[1].last()["game"] == watcher[1].last()["game"]
        # The match goes on with the bot in Bob's seat; after it Cy leaves too.
        rng = random.Random(5)
        await play_random(table, {0: a, 2: c}, rng, lambda: table.status == "match_over")
        assert (await submit(table, *c, type="leave_seat"))["type"] == "ack"
        assert table.seats[2].kind == "bot"
        assert (await submit(table, *a, type="rematch"))["type"] == "ack"
        await wait_until(lambda: table.status == "playing")
    finally:
        await h.close()


def test_the_winner_rule_in_words() -> None:
    labels = ["Ann", "Bob", "Cy", "Di"]
    assert explain_winner({"scores": [7, 3, -1, 0], "winner": 0, "tie_break": None}, labels) \
        == "The highest score wins the game: Ann with +7."
    assert explain_winner({"scores": [5, 5, 0, -2], "winner": 1, "tie_break": "8D"}, labels) \
        == ("Ann and Bob tie on +5; a tie goes to the player with the highest rabbit in the "
            "score pile: Bob's 8♦.")
    assert explain_winner({"scores": [2, 2, 2, 2], "winner": None, "tie_break": "draw"},
                          labels) == ("Ann, Bob, Cy and Di tie on +2 and none has a "
                                      "rabbit in the score pile, so the game is a draw.")
    assert explain_winner({"scores": [3, 0, -1, 3], "winner": None, "tie_break": "draw"},
                          labels) == ("Ann and Di tie on +3 and neither has a rabbit in the "
                                      "score pile, so the game is a draw.")


async def raw_answer(table: Table, client: Client, conn: FakeConn,
                     intent: dict[str, Any]) -> dict[str, Any]:
    """Submit ``intent`` and return its ack or error (an ack that came in a delta as the
    ``ack`` message it stands for: its id and version)."""
    before = len(conn.frames)

    def found() -> list[dict[str, Any]]:
        return [m for m in conn.frames[before:] if m["type"] in ("ack", "error")
                and m["id"] == intent["id"]]

    await table.submit(client, intent)
    await wait_until(found)
    return found()[0]


async def test_a_retried_intent_gets_its_original_answer_from_a_table_restored_from_its_log(
        ) -> None:
    """The answers behind 'a retried id gets its original answer' are rebuilt from the log:
    for the unseated host, a spectator who sat, a seated host and players, and the final
    action of a match (acked at the version of its match record)."""
    h = Harness()
    try:
        table, host = await h.table(games_to_win=1)
        conns: dict[str, tuple[Client, FakeConn]] = {}
        for name, token in (("host", host), ("spec", None)):
            conn = FakeConn()
            conns[name] = (await h.join(table, token, conn))[0], conn
        sent: list[tuple[str, dict[str, Any], dict[str, Any]]] = []  # (who, intent, answer)

        async def send(who: str, **intent: Any) -> dict[str, Any]:
            answer = await raw_answer(table, *conns[who], intent)
            sent.append((who, intent, answer))
            return answer

        assert (await send("host", type="add_bot", seat=3, kind="random", id="b3"))["v"] == 2
        assert (await send("spec", type="sit", seat=1, name="Sam", id="s1"))["type"] == "ack"
        spec_token = conns["spec"][1].last("seated")["token"]
        assert (await send("host", type="sit", seat=0, name="Hal", id="s0"))["type"] == "ack"
        assert (await send("host", type="add_bot", seat=2, kind="random", id="b2"))["v"] == 5
        refused = await send("spec", type="start", id="nope")
        assert refused["code"] == "not_host"
        assert (await send("host", type="start", id="go", v=5))["v"] == 6
        rng = random.Random(5)
        n = 0
        while table.match is not None and not table.match.over:
            game = dingo(table).game
            if game.to_act not in (0, 1):
                await asyncio.sleep(0.001)
                continue
            who = "host" if game.to_act == 0 else "spec"
            action = rng.choice(game.legal_actions()).to_dict()
            del action["seat"]
            n += 1
            assert (await send(who, **action, id=f"a{n}", v=table.version))["type"] == "ack"
        await wait_until(lambda: table.match_id is not None)
        _, last_intent, last_answer = sent[-1]
        entries = h.store.entries(table.id)
        # The match ended on a person's move: its ack carries the version of the record.
        if entries[-2].get("id") == last_intent["id"]:
            assert last_answer["v"] == entries[-1]["seq"] == table.version
        assert all(e.get("id") is None for e in entries if e["kind"] in ("open", "next_game"))
        version, actions = table.version, len(entries)
        table.shut(1012, "restart")
        stored = StoredTable(table.id, table.options.to_dict(), table.created_at, list(entries))
        copy = await Table.restore(stored, h.store, fast_config())
        h.manager.tables[table.id] = copy
        again: dict[str, tuple[Client, FakeConn]] = {}
        for name, token in (("host", host), ("spec", spec_token)):
            conn = FakeConn()
            again[name] = (await h.join(copy, token, conn))[0], conn
        kept = 0
        for who, intent, answer in sent[-copy.config.remembered_intents:]:
            retried = await raw_answer(copy, *again[who], intent)
            if answer["type"] == "ack":
                assert retried == answer, (who, intent)  # the same answer, not re-applied
                kept += 1
            else:  # a refusal is not logged: the retry is checked again
                assert retried["code"] in ("not_host", "stale_version")
        assert kept >= 10
        assert copy.version == version and len(h.store.entries(table.id)) == actions
        # The unseated host's and the spectator's first answers are there too, when kept.
        keys = {k for k in copy._replies if isinstance(k, str)}
        assert keys == {hash_token(host), hash_token(spec_token)}
    finally:
        await h.close()


async def test_entries_without_an_intent_id_rebuild_no_answer(harness: Harness) -> None:
    """An older log (no ``id`` in its entries): the table restores, a retry is checked anew."""
    table, host = await harness.table()
    players = [await harness.seat(table, s, f"P{s}", host if s == 0 else None) for s in range(4)]
    await table.submit(players[0][0], {"type": "start"})
    await wait_until(lambda: table.match is not None)
    seat = dingo(table).game.to_act
    card = dingo(table).game.legal_actions()[0].to_dict()["card"]
    intent = {"type": "discard", "card": card, "id": "old", "v": table.version}
    assert (await submit(table, *players[seat], **intent))["type"] == "ack"
    entries = [{k: v for k, v in e.items() if k not in ("id", "by")}
               for e in harness.store.entries(table.id)]
    table.shut(1012, "restart")
    store = RecordingStore()
    store.tables[table.id] = StoredTable(table.id, table.options.to_dict(), table.created_at,
                                         entries)
    copy = await Table.restore(store.tables[table.id], store, fast_config())
    assert copy._replies == {}
    token = host if seat == 0 else players[seat][1].last("seated")["token"]
    client, conn = await harness.join(copy, token)
    again = await submit(copy, client, conn, **intent)
    assert again["code"] == "stale_version" and copy.version == table.version
    await copy.stop(1012, "done")
