"""Tables of the two-seat games: the same table runtime as Dingo, through the game contract.

Every state a connection receives is checked against the wire schema (``FakeConn``); what a
seat is shown is exactly its game view; matches are recorded in the game-neutral shape and
rebuild from their seed and actions; a restored table plays on.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from tablekit import (
    TWO_SEAT_GAMES,
    FakeConn,
    Harness,
    answer,
    fast_config,
    play,
    settled,
    wait_until,
)

from app import games
from app.table.client import Client
from app.table.manager import TableManager


@pytest.mark.parametrize("name", TWO_SEAT_GAMES)
async def test_a_person_plays_a_whole_match_against_a_bot(name: str) -> None:
    spec = games.get(name)
    h = Harness()
    try:
        table, host = await h.table(game=name, bots=((1, spec.bot_order[0]),))
        assert len(table.seats) == 2
        ann = await h.seat(table, 0, "Ann", host)
        _watcher, watched = await h.join(table)
        await table.submit(ann[0], {"type": "start"})
        moves = await play(table, {0: ann}, random.Random(3), lambda: table.match_id is not None)
        assert moves > 0
        await settled(table, ann[1], watched)
        # What each recipient was shown is its own view of the match, nothing else.
        assert table.match is not None and table.match.over
        assert ann[1].last()["game"] == table.match.view(0)
        assert watched.last()["game"] == table.match.view(None)
        assert watched.last()["table"]["game"] == name
        assert watched.last()["match"]["standing"] == table.match.scoreboard()["standing"]
        # The record is game-neutral and the match rebuilds from its seed and actions.
        record = h.store.matches[-1]
        assert (record["game"], record["seats"]) == (name, 2)
        assert [p["name"] for p in record["players"]] == ["Ann", "Bruno"]
        again = spec.new_match(record["seed"], record["options"])
        for number, game in enumerate(record["games"]):
            if number:
                again.start_next_game()
            for seat, action in game["actions"]:
                again.apply(seat, action)
        assert again.over and again.winner == record["winner"]
        assert again.scoreboard() == record["scoreboard"]
        assert [g["winner"] for g in record["games"]] == [
            g["winner"] for g in again.record()["games"]]
    finally:
        await h.close()


@pytest.mark.parametrize("name", TWO_SEAT_GAMES)
async def test_wrong_actions_are_refused_and_change_nothing(name: str) -> None:
    h = Harness()
    try:
        table, host = await h.table(game=name)
        ann = await h.seat(table, 0, "Ann", host)
        bob = await h.seat(table, 1, "Bob")
        await table.submit(ann[0], {"type": "start"})
        await settled(table, ann[1], bob[1])
        assert table.match is not None
        views = [table.match.view(s) for s in (0, 1, None)]
        version = table.version
        waiting = next(s for s, p in ((0, ann), (1, bob)) if s not in table.match.to_act()
                       ) if len(table.match.to_act()) == 1 else None
        bad: list[tuple[tuple[Client, FakeConn], dict[str, Any], str]] = [
            (ann, {"type": "discard", "card": "7H"}, "unknown_type"),  # Dingo's, not this game's
        ]
        # A legal action with a field, that field mangled: not even a card (or tile).
        offered = [a for s in table.match.to_act() for a in table.match.legal(s) if len(a) > 1]
        field = next(k for k in offered[0] if k != "type")
        actor = ann if 0 in table.match.to_act() else bob
        bad.append((actor, {**offered[0], field: {"deep": [1]}}, "malformed"))
        bad.append((actor, {**offered[0], "colour": "red"}, "malformed"))  # not a field
        # A legal action with a field only another type has (Mate's decline with a card):
        # the game's parser would read past it, and the table would log it as it came.
        spec = table.game
        for seat in table.match.to_act():
            client = ann if seat == 0 else bob
            for action in table.match.legal(seat):
                for other in sorted(set().union(*spec.fields.values())
                                    - spec.fields[action["type"]]):
                    bad.append((client, {**action, other: [[["deep"]]]}, "malformed"))
        if waiting is not None:
            other = ann if waiting == 0 else bob
            legal = table.match.legal(1 - waiting)
            bad.append((other, legal[0], "not_your_turn"))
        for number, ((client, conn), action, code) in enumerate(bad):
            error = await answer(table, client, conn,
                                 {**action, "id": f"x{number}", "v": version})
            assert error["code"] == code, (action, error)
        assert table.version == version
        assert [table.match.view(s) for s in (0, 1, None)] == views
    finally:
        await h.close()


async def test_both_seats_commit_from_the_same_version() -> None:
    """A simultaneous decision: the second commitment, sent from the version both seats were
    shown, is in time (the first changed nothing the second seat decides on); a seat that
    has acted cannot act again from that version."""
    h = Harness()
    try:
        table, host = await h.table(game="divide")
        ann = await h.seat(table, 0, "Ann", host)
        bob = await h.seat(table, 1, "Bob")
        await table.submit(ann[0], {"type": "start"})
        await settled(table, ann[1], bob[1])
        v = table.version
        assert ann[1].last()["to_act"] == [0, 1]
        a, b = ann[1].last()["game"]["legal"][0], bob[1].last()["game"]["legal"][0]
        assert (await answer(table, *ann, {**a, "id": "a1", "v": v}))["type"] == "ack"
        assert (await answer(table, *bob, {**b, "id": "b1", "v": v}))["type"] == "ack"
        assert table.version == v + 2
        await settled(table, ann[1], bob[1])
        battle = [e for f in ann[1].states() for e in f["events"] if e["type"] == "battle"]
        assert len(battle) == 1
        again = await answer(table, *ann, {**ann[1].last()["game"]["legal"][0], "id": "a2",
                                           "v": v + 1})
        assert again["code"] == "stale_version"
    finally:
        await h.close()


async def test_simultaneous_decisions_share_one_timer_and_time_out_together() -> None:
    """Divide and Conquer: both seats commit at once. Neither acts: when the time is up a
    bot commits for each, and the second seat's time is not started afresh."""
    h = Harness(fast_config())
    try:
        table, host = await h.table(game="divide", turn_seconds=0.3)
        ann = await h.seat(table, 0, "Ann", host)
        bob = await h.seat(table, 1, "Bob")
        await table.submit(ann[0], {"type": "start"})
        await settled(table, ann[1])
        state = ann[1].last()
        assert state["to_act"] == [0, 1] and state["timer"]["seats"] == [0, 1]
        deadline = state["timer"]["deadline"]
        await wait_until(lambda: sum(1 for f in bob[1].states() for e in f["events"]
                                     if e["type"] == "auto_move") == 1)
        after_first = bob[1].last()
        assert len(after_first["to_act"]) == 1
        assert after_first["timer"]["deadline"] == deadline  # the same time runs on
        await wait_until(lambda: bob[1].last()["to_act"] == [0, 1]
                         and bob[1].last()["v"] > after_first["v"], timeout=5)
        autos = [e for f in bob[1].states() for e in f["events"] if e["type"] == "auto_move"]
        assert sorted(e["seat"] for e in autos) == [0, 1]
        assert {e["reason"] for e in autos} == {"timer"}
    finally:
        await h.close()


@pytest.mark.parametrize("name", TWO_SEAT_GAMES)
async def test_a_restored_table_is_the_same_and_plays_on(name: str) -> None:
    h = Harness()
    try:
        table, host = await h.table(game=name)
        ann = await h.seat(table, 0, "Ann", host)
        bob = await h.seat(table, 1, "Bob")
        players = {0: ann, 1: bob}
        await table.submit(ann[0], {"type": "start"})
        await settled(table, ann[1], bob[1])
        rng = random.Random(5)
        await play(table, players, rng, lambda: table.version >= 12)
        stored = [s for s in await h.store.unfinished_tables() if s.table_id == table.id]
        again = TableManager(h.store, fast_config())
        assert await again.restore(stored) == [table.id]
        copy = again.get(table.id)
        assert copy is not None and copy.match is not None and table.match is not None
        assert copy.version == table.version and copy.game is table.game
        for seat in (0, 1, None):
            assert copy.match.view(seat) == table.match.view(seat)
        table.shut(1012, "restart")
        h.clients.clear()
        try:
            a = await h.join(copy, host)
            b = await h.join(copy, bob[1].last("seated")["token"])
            await settled(copy, a[1], b[1])
            await play(copy, {0: a, 1: b}, rng, lambda: copy.match_id is not None)
        finally:
            await again.shutdown()
    finally:
        await h.close()


@pytest.mark.parametrize(("name", "seed"), [(n, 1) for n in TWO_SEAT_GAMES] + [("bingo", 28)])
async def test_every_state_shows_the_scoreboard_of_its_version(
        name: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game may score in the middle of a deal (Bingo's bonus counts at once): what each
    state shows of the match is always the scoreboard at that version, never one kept from
    earlier in the game (which a restart would then contradict)."""
    monkeypatch.setattr("app.table.table.new_seed", lambda: seed)  # the deals and the play
    h = Harness()
    try:
        table, host = await h.table(game=name)
        ann = await h.seat(table, 0, "Ann", host)
        bob = await h.seat(table, 1, "Bob")
        _watcher, watched = await h.join(table)
        await table.submit(ann[0], {"type": "start"})
        shown: list[tuple[dict[str, Any], dict[str, Any]]] = []

        def compare() -> bool:
            state = watched.last()
            if state["v"] == table.version and table.match is not None:
                shown.append((state["match"], table.match.scoreboard()))
            return table.match_id is not None

        await settled(table, ann[1], bob[1], watched)
        await play(table, {0: ann, 1: bob}, random.Random(seed), compare)
        assert shown and all(seen == now for seen, now in shown)
        if name == "bingo" and seed == 28:  # this match has the bonus the test is about
            assert any(e["type"] == "bingo_bonus" for s in watched.states()
                       for e in s["events"])
    finally:
        await h.close()
