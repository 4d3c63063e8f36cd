"""Who held each seat in turn: a seat that changes hands during a match is credited, game
by game and step by step, to whoever played it (``MatchInfo.holders``)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from tablekit import FakeConn, Harness, answer, fast_config, play, settled, wait_until

from app.db.match_record import parse_match_record
from app.table.client import Client
from app.table.table import Table

Player = tuple[Client, FakeConn]


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    h = Harness()
    yield h
    await h.close()


def _who(table: Table, game: int) -> list[list[tuple[str | None, bool, int]]]:
    assert table.info is not None
    return [[(h["name"], h["bot"], h["since"]) for h in turns]
            for turns in table.info.holders[game]]


async def _mate_started(harness: Harness) -> tuple[Table, str, Player, Player]:
    """A Mate match between Ann (the host) and Dov, just started."""
    table, host = await harness.table(game="mate")
    ann = await harness.seat(table, 0, "Ann", host)
    dov = await harness.seat(table, 1, "Dov")
    assert (await answer(table, *ann, {"type": "start", "id": "s"}))["type"] == "ack"
    return table, host, ann, dov


async def test_a_player_who_leaves_mid_game_is_credited_with_the_steps_they_played(
        harness: Harness) -> None:
    table, host, ann, dov = await _mate_started(harness)
    rng = random.Random(7)
    await play(table, {0: ann, 1: dov}, rng, until=lambda: table._game_steps >= 5)
    left_at = table._game_steps
    assert (await answer(table, *dov, {"type": "leave_seat", "id": "l"}))["type"] == "ack"
    assert _who(table, 0) == [[("Ann", False, 0)], [("Dov", False, 0), ("Bruno", True, left_at)]]
    # Everyone is told who else played the seat, and in which games: the scoreboard's
    # column is Bruno's now.
    await settled(table, ann[1])
    seats = ann[1].last()["seats"]
    assert seats[1]["earlier"] == [{"name": "Dov", "bot": False, "games": [1]}]
    assert seats[0]["earlier"] == []

    # A restored table rebuilds the same holders from its log.
    table = await harness.restart(table)
    assert _who(table, 0) == [[("Ann", False, 0)], [("Dov", False, 0), ("Bruno", True, left_at)]]
    ann = await harness.join(table, host)
    await play(table, {0: ann}, rng, until=lambda: table.info is not None
               and len(table.info.holders) == 2)
    await settled(table, ann[1])
    assert ann[1].last()["seats"][1]["earlier"] == [{"name": "Dov", "bot": False, "games": [1]}]
    await play(table, {0: ann}, rng, until=lambda: table.match_id is not None)

    record = harness.store.matches[-1]
    assert [(p["name"], p["bot"]) for p in record["players"]] == [("Ann", False),
                                                                  ("Bruno", True)]
    first = record["games"][0]["holders"]
    assert [(h["name"], h["since"]) for h in first[1]] == [("Dov", 0), ("Bruno", left_at)]
    assert first[1][1]["strength"] is not None and first[1][0]["strength"] is None
    for game in record["games"][1:]:  # the games after it: the bot's from the deal
        assert [(h["name"], h["since"]) for h in game["holders"][1]] == [("Bruno", 0)]
    rows = parse_match_record(record).players
    assert [(r["seat"], r["ordinal"], r["name"], r["is_bot"]) for r in rows] == [
        (0, 0, "Ann", False), (1, 0, "Bruno", True), (1, 1, "Dov", False)]


async def test_a_bot_replaced_between_games_keeps_the_games_it_played() -> None:
    # The next game waits for Ann's vote (or half a minute): time for the host to change seats.
    harness = Harness(fast_config(next_game_seconds=30.0))
    try:
        table, host = await harness.table(games_to_win=2, bots=((1, "random"), (2, "random"),
                                                                 (3, "random")))
        ann = await harness.seat(table, 0, "Ann", host)
        assert (await answer(table, *ann, {"type": "start", "id": "s"}))["type"] == "ack"
        rng = random.Random(3)
        await play(table, {0: ann}, rng, until=lambda: table.game_over)
        assert table.match is not None and not table.match.over  # first to two wins
        removed = await answer(table, *ann, {"type": "remove_bot", "seat": 1, "id": "r"})
        assert removed["type"] == "ack"
        assert ann[1].last()["seats"][1]["played"] == {"name": "Bruno", "bot": True}
        cal = await harness.seat(table, 1, "Cal")
        cal_token = next(f["token"] for f in cal[1].frames if f["type"] == "seated")
        # The game on the felt is still Bruno's (its results, its log), until the next deal:
        # Cal sees it as a spectator does, not Bruno's hand and passes.
        assert cal[1].last()["seats"][1]["played"] == {"name": "Bruno", "bot": True}
        _watcher, watching = await harness.join(table)
        await settled(table, cal[1], watching)
        assert cal[1].last()["game"] == watching.last()["game"] != ann[1].last()["game"]
        assert cal[1].last()["seats"][0]["played"] is None
        # The column is still Bruno's (``played``), and nobody else played the seat yet.
        assert cal[1].last()["seats"][1]["earlier"] == []
        # Back without the pause, from the log: the holders come back with the table.
        table = await harness.restart(table, fast_config())
        ann, cal = await harness.join(table, host), await harness.join(table, cal_token)
        await play(table, {0: ann, 1: cal}, rng, until=lambda: not table.game_over)
        await settled(table, cal[1])
        assert all(s["played"] is None for s in cal[1].last()["seats"])
        assert [s["earlier"] for s in cal[1].last()["seats"]] == [
            [], [{"name": "Bruno", "bot": True, "games": [1]}], [], []]
        await play(table, {0: ann, 1: cal}, rng, until=lambda: table.match_id is not None)
    finally:
        await harness.close()

    record = harness.store.matches[-1]
    assert [p["name"] for p in record["players"]] == ["Ann", "Cal", "Cleo", "Dov"]
    names = [[h["name"] for h in game["holders"][1]] for game in record["games"]]
    assert names[0] == ["Bruno"] and set(map(tuple, names[1:])) == {("Cal",)}
    rows = parse_match_record(record).players
    assert [(r["seat"], r["ordinal"], r["name"]) for r in rows] == [
        (0, 0, "Ann"), (1, 0, "Cal"), (1, 1, "Bruno"), (2, 0, "Cleo"), (3, 0, "Dov")]


async def test_a_seat_given_away_before_its_player_moved_was_never_theirs(
        harness: Harness) -> None:
    """Gone before the game's first step: the bot held the seat from the deal."""
    table, _host, _ann, dov = await _mate_started(harness)
    assert table._game_steps == 0  # Mate opens with both players' face-down choice
    assert (await answer(table, *dov, {"type": "leave_seat", "id": "l"}))["type"] == "ack"
    assert _who(table, 0)[1] == [("Bruno", True, 0)]


async def test_a_host_who_left_and_sat_again_is_named_under_the_stand_in_s_column() -> None:
    """Ann (the host) leaves mid-game; the bot plays on. Between games she removes it and
    sits again: the finished game's column is still the bot's (``played``), so the note
    under it names her, who played the game's start; from the next deal it names the bot."""
    harness = Harness(fast_config(next_game_seconds=30.0))
    try:
        table, _host, ann, dov = await _mate_started(harness)
        rng = random.Random(11)
        await play(table, {0: ann, 1: dov}, rng, until=lambda: table._game_steps >= 3)
        assert (await answer(table, *ann, {"type": "leave_seat", "id": "l"}))["type"] == "ack"
        await play(table, {1: dov}, rng, until=lambda: table.game_over)
        assert (await answer(table, *ann, {"type": "remove_bot", "seat": 0,
                                           "id": "r"}))["type"] == "ack"
        assert (await answer(table, *ann, {"type": "sit", "seat": 0, "name": "Ann",
                                           "id": "s2"}))["type"] == "ack"
        await settled(table, ann[1])
        seat = ann[1].last()["seats"][0]
        assert seat["played"] == {"name": "Ada", "bot": True}
        assert seat["earlier"] == [{"name": "Ann", "bot": False, "games": [1]}]
        assert (await answer(table, *dov, {"type": "ready", "id": "d"}))["type"] == "ack"
        assert (await answer(table, *ann, {"type": "ready", "id": "a"}))["type"] == "ack"
        await wait_until(lambda: not table.game_over)
        await settled(table, ann[1])
        seat = ann[1].last()["seats"][0]
        assert seat["played"] is None
        assert seat["earlier"] == [{"name": "Ada", "bot": True, "games": [1]}]
    finally:
        await harness.close()
