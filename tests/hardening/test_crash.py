"""Crash test: ``kill -9`` right after an acknowledged action, at several points, loses nothing.

``tests/api/test_matches_crash.py`` kills once mid-hunt and checks the match
record. Here one table lives through four kills of a real ``dingo serve`` (a
SQLite file, a free loopback port), each followed by a restart on the same file:

- mid-exchange: right after a ``pass`` that leaves its pass round unfinished
  (passes given but not yet received are hidden state);
- mid-ace-hunt: right after an action that leaves the ace hunt waiting for a seat;
- twice at a random acknowledged action (a random 1-25 actions on).

The phase-targeted kills wait for every seat to have seen the acknowledged
version (nothing else is sent meanwhile); the random ones kill the moment the
actor reads its ``ack``, before the others read anything. After each restart
the four clients reconnect with their tokens: every seat is at exactly the
acknowledged version, and every seat that saw that version sees the same view.

Every other registered game: one server holding a table of each, killed right after a
random acknowledged move of each game in turn and once in a half-made simultaneous
decision (``test_kill_9_at_tables_of_every_other_game_loses_nothing``).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
from pathlib import Path
from typing import Any

from hardeningkit import TWO_SEAT, started
from serverkit import catch_up, dingo_serve, drain, join, legal_wire, seat_view, seated_table
from tablekit import Player


async def act(players: list[Player], rng: random.Random) -> tuple[int, int] | None:
    """The seat to act plays a random legal move; (its acked version, the seat), else None."""
    await catch_up(players)
    state = players[0].state
    if state["table"]["match_id"] is not None:  # match over: play another
        for p in players:
            await p.intent({"type": "rematch"})
        return None
    if state["game"] is None or not state["to_act"]:  # between games
        for p in players:
            await p.intent({"type": "ready"})
        return None
    (seat,) = state["to_act"]
    actor = players[seat]
    intent_id = actor.intent_id()
    await actor.send({"id": intent_id, "v": actor.state["v"], **legal_wire(actor, rng)})
    while True:
        answer = await actor.recv()
        if answer["type"] in ("ack", "error") and answer.get("id") == intent_id:
            break
    assert answer["type"] == "ack", answer
    actor.acked = answer["v"]  # type: ignore[attr-defined]  # caught up to by the next act
    return answer["v"], seat


def mid_pass_round(before: dict[str, Any], after: dict[str, Any]) -> bool:
    b, a = (state["game"] and state["game"]["decision"] for state in (before, after))
    return (b is not None and a is not None and b["kind"] == a["kind"] == "pass"
            and a["direction"] == b["direction"])


def mid_ace_hunt(before: dict[str, Any], after: dict[str, Any]) -> bool:
    game = after["game"]
    return (game is not None and game["hunt"] is not None and game["hunt"]["rank"] == "A"
            and bool(after["to_act"]))


async def test_kill_9_at_four_acknowledged_actions_loses_nothing(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("CRASH_SEED", "7")))
    db = tmp_path / "crash.db"
    env = {"RECONNECT_GRACE_SECONDS": "600", "NEXT_GAME_SECONDS": "600"}
    points = ["mid-exchange", "mid-ace-hunt", "random", "random"]
    killed: list[tuple[str, int]] = []
    seen: list[dict[str, Any] | None] = []
    compared = 0
    table_id, tokens = "", [""]
    for round_ in range(len(points) + 1):
        async with dingo_serve(db, tmp_path, **env) as server:
            if round_ == 0:
                table_id, players, tokens = await seated_table(server.base, games_to_win=3)
            else:  # back after a kill: everyone at the acknowledged version, same view
                point, version = killed[-1]
                players = [await join(server.base, table_id, token) for token in tokens]
                for p, view in zip(players, seen, strict=True):
                    assert p.state["v"] == version, (point, p.state["v"], version)
                    if view is not None:
                        assert seat_view(p.state) == view, point
                        compared += 1
                game = players[0].state["game"]
                if point == "mid-exchange":
                    assert game["decision"]["kind"] == "pass", game["decision"]
                if point == "mid-ace-hunt":
                    assert game["hunt"]["rank"] == "A", game["hunt"]
                for _ in range(3):  # and the game goes on
                    await act(players, rng)
            if round_ == len(points):
                for p in players:
                    await p.ws.close()
                break
            point = points[round_]
            version = await play_to(point, players, rng)
            os.kill(server.pid, signal.SIGKILL)
            await server.process.wait()
            killed.append((point, version))
            seen = []
            for p in players:
                await drain(p)
                assert all(f["v"] <= version for f in p.frames if f["type"] == "state")
                at = [f for f in p.frames if f["type"] == "state" and f["v"] == version]
                seen.append(seat_view(at[-1]) if at else None)
            if point != "random":
                assert None not in seen, "every seat saw the version before the kill"
    print(f"kills (point, version): {killed}; seat views compared: {compared}")
    assert [k for k, _ in killed] == points
    assert compared >= 8, compared


async def test_kill_9_between_games_keeps_the_acknowledged_votes(tmp_path: Path) -> None:
    """Two of four players vote ``ready`` between games, then ``dingo serve`` is killed
    with ``kill -9`` right after the second ack and restarted on the same file: every
    seat sees both votes, at the version of that ack; a retried vote gets its original
    answer; and the next game is dealt once the other two vote, the first two not
    voting again."""
    rng = random.Random(int(os.environ.get("CRASH_SEED", "7")))
    db = tmp_path / "votes.db"
    env = {"RECONNECT_GRACE_SECONDS": "600", "NEXT_GAME_SECONDS": "600"}
    async with dingo_serve(db, tmp_path, **env) as server:
        table_id, players, tokens = await seated_table(server.base, games_to_win=2)
        while True:
            await catch_up(players)
            if players[0].state["table"]["status"] != "playing":
                break
            await next(p for p in players if p.my_turn()).play_random(rng)
        assert players[0].state["table"]["status"] == "between_games"
        votes = [await p.intent({"type": "ready"}) for p in players[:2]]
        assert [a["type"] for a in votes] == ["ack", "ack"], votes
        version = votes[1]["v"]
        os.kill(server.pid, signal.SIGKILL)
        await server.process.wait()
        for p in players:
            await drain(p)
    async with dingo_serve(db, tmp_path, **env) as server:
        # Those who did not vote come back first: the voters alone at the table would
        # be every present seat, and their votes would deal the next game at once.
        back = {s: await join(server.base, table_id, tokens[s]) for s in (2, 3, 0, 1)}
        players = [back[s] for s in range(4)]
        for p in players:
            assert p.state["v"] == version
            assert p.state["table"]["status"] == "between_games"
            assert [s["ready"] for s in p.state["seats"]] == [True, True, False, False]
        await players[0].send({"type": "ready", "id": votes[0]["id"]})
        assert await players[0].expect("ack") == votes[0]  # the original answer
        assert (await players[2].intent({"type": "ready"}))["v"] == version + 1
        await asyncio.sleep(0.2)
        assert players[2].state["table"]["status"] == "between_games"  # waits for seat 3
        assert (await players[3].intent({"type": "ready"}))["v"] == version + 2
        for p in players:
            dealt = await p.until(lambda s: s["table"]["status"] == "playing")
            assert not any(s["ready"] for s in dealt["seats"])
            assert dealt["v"] == version + 3  # the two votes and the deal: nothing else
        for p in players:
            await p.ws.close()


async def play_to(point: str, players: list[Player], rng: random.Random) -> int:
    """Play on until the kill point; the acknowledged version to kill at."""
    countdown = rng.randint(1, 25)
    for _ in range(2000):
        before = players[0].state
        done = await act(players, rng)
        if done is None:
            continue
        version, seat = done
        if point == "random":
            countdown -= 1
            if countdown == 0:
                return version  # the actor just read its ack: kill now
            continue
        await catch_up(players)
        reached = mid_pass_round if point == "mid-exchange" else mid_ace_hunt
        if reached(before, players[seat].state):
            return version
    raise AssertionError(f"never reached {point}")


# -- every other game: one server, a table of each, killed at each game's acknowledged moves --


async def act_any(players: list[Player], rng: random.Random
                  ) -> tuple[int, int, dict[str, Any]] | None:
    """A seat that may act plays a random legal move (in a simultaneous decision, any of
    them); (its acked version, the seat, the intent), or None between games or matches."""
    await catch_up(players)
    state = players[0].state
    if not state["to_act"]:
        kind = "rematch" if state["table"]["status"] == "match_over" else "ready"
        for p in players:
            await p.intent({"type": kind})
        return None
    seat = rng.choice(state["to_act"])
    actor = players[seat]
    intent = {"id": actor.intent_id(), "v": actor.state["v"], **legal_wire(actor, rng)}
    await actor.send(intent)
    while True:
        answer = await actor.recv()
        if answer["type"] in ("ack", "error") and answer.get("id") == intent["id"]:
            break
    assert answer["type"] == "ack", answer
    actor.acked = answer["v"]  # type: ignore[attr-defined]
    return answer["v"], seat, intent


def half_decided(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """A simultaneous decision is half made: some seats have decided (face down), not all."""
    return (len(before["to_act"]) > 1 and after["v"] == before["v"] + 1
            and bool(after["to_act"]) and set(after["to_act"]) < set(before["to_act"]))


async def test_kill_9_at_tables_of_every_other_game_loses_nothing(tmp_path: Path) -> None:
    """A real ``dingo serve`` with a table of each two-seat game is killed once right after
    each game's actor reads its ack (the others at rest, every seat caught up), then once
    in the middle of a simultaneous decision (one seat committed face down) where a game
    has them. After every restart, at every table, every seat is at exactly the version
    last acknowledged there and sees what it saw; the killed intent, retried with its id
    and version, gets its original answer and changes nothing; and play goes on."""
    rng = random.Random(int(os.environ.get("CRASH_SEED", "7")))
    db = tmp_path / "crash-games.db"
    env = {"RECONNECT_GRACE_SECONDS": "600", "NEXT_GAME_SECONDS": "600"}
    kills: list[tuple[str | None, str]] = [(name, "random") for name in TWO_SEAT]
    kills.append((None, "half-decided"))
    tables: dict[str, tuple[str, list[str]]] = {}
    acked: dict[str, int] = {}
    seen: dict[str, list[dict[str, Any] | None]] = {}
    retry: tuple[str, int, dict[str, Any], dict[str, Any]] | None = None
    simultaneous: set[str] = set()
    done: list[tuple[str, str, int]] = []
    compared = 0
    for round_ in range(len(kills) + 1):
        async with dingo_serve(db, tmp_path, **env) as server:
            at: dict[str, list[Player]] = {}
            if round_ == 0:
                for name in TWO_SEAT:
                    table_id, players, tokens = await started(server.base, name)
                    tables[name], at[name] = (table_id, tokens), players
            else:
                for name, (table_id, tokens) in tables.items():
                    players = [await join(server.base, table_id, t) for t in tokens]
                    for p, view in zip(players, seen[name], strict=True):
                        assert p.state["v"] == acked[name], (name, p.state["v"], acked[name])
                        if view is not None:
                            assert seat_view(p.state) == view, name
                            compared += 1
                    at[name] = players
                if retry is not None:  # the intent acknowledged just before the kill
                    name, seat, intent, answer = retry
                    players = at[name]
                    await players[seat].send(intent)
                    again = await players[seat].expect("ack")
                    assert again == answer, (again, answer)
                    await players[seat].send({"type": "sync"})
                    synced = await players[seat].next_state(lambda s: s["events"] == [])
                    assert synced["v"] == acked[name]  # not applied again
                for players in at.values():  # and every game goes on
                    moved = 0
                    while moved < 2:
                        moved += await act_any(players, rng) is not None
            if round_ == len(kills):
                for players in at.values():
                    for p in players:
                        await p.ws.close()
                break
            killer, point = kills[round_]
            for name, players in at.items():  # the others move on, and are at rest
                if name != killer:
                    for _ in range(rng.randint(0, 4)):
                        await act_any(players, rng)
                    await catch_up(players)
            retry = None
            if point == "random":
                assert killer is not None
                countdown = rng.randint(1, 25)
                while countdown:
                    got = await act_any(at[killer], rng)
                    if got is not None:
                        countdown -= 1
                version, seat, intent = got  # the actor just read its ack: kill now
                retry = (killer, seat, intent, {"type": "ack", "id": intent["id"],
                                                "v": version})
            else:
                for _ in range(300):  # play round the tables until one is half decided
                    name = rng.choice(sorted(at))
                    await catch_up(at[name])
                    before = at[name][0].state
                    simultaneous |= {name} if len(before["to_act"]) > 1 else set()
                    if await act_any(at[name], rng) is None:
                        continue
                    await catch_up(at[name])
                    if half_decided(before, at[name][0].state):
                        killer = name
                        break
                if killer is None:
                    assert not simultaneous, "a simultaneous decision was never half made"
                    kills.pop()
                    for players in at.values():
                        for p in players:
                            await p.ws.close()
                    break
            os.kill(server.pid, signal.SIGKILL)
            await server.process.wait()
            for name, players in at.items():
                versions = []
                for p in players:
                    await drain(p)
                    versions += [f["v"] for f in p.frames if f["type"] == "state"]
                acked[name] = max([*versions, *(getattr(p, "acked", 0) for p in players)])
                seen[name] = []
                for p in players:
                    last = [f for f in p.frames if f["type"] == "state" and f["v"] == acked[name]]
                    seen[name].append(seat_view(last[-1]) if last else None)
                if name != killer or point != "random":
                    assert None not in seen[name], "every seat saw the version before the kill"
            assert killer is not None
            done.append((killer, point, acked[killer]))
    print(f"kills (game, point, version): {done}; seat views compared: {compared}")
    assert [(k, p) for k, p, _ in done][:len(TWO_SEAT)] == [(n, "random") for n in TWO_SEAT]
    assert len(done) == len(TWO_SEAT) + bool(simultaneous)  # Divide: half decided
    # Every seat of every table after each kill but the killed table's (only its actor is
    # sure to have read the version before a "random" kill).
    assert compared >= len(done) * (len(TWO_SEAT) - 1) * 2, compared
