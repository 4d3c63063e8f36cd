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
"""

from __future__ import annotations

import os
import random
import signal
from pathlib import Path
from typing import Any

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
    game = state["game"]
    if game is None or game["to_act"] is None:  # between games
        for p in players:
            await p.intent({"type": "ready"})
        return None
    actor = players[game["to_act"]]
    intent_id = actor.intent_id()
    await actor.send({"id": intent_id, "v": actor.state["v"], **legal_wire(actor, rng)})
    while True:
        answer = await actor.recv()
        if answer["type"] in ("ack", "error") and answer.get("id") == intent_id:
            break
    assert answer["type"] == "ack", answer
    actor.acked = answer["v"]  # type: ignore[attr-defined]  # caught up to by the next act
    return answer["v"], game["to_act"]


def mid_pass_round(before: dict[str, Any], after: dict[str, Any]) -> bool:
    b, a = before["game"], after["game"]
    return (b is not None and a is not None and b["stage"].startswith("pass")
            and a["stage"] == b["stage"])


def mid_ace_hunt(before: dict[str, Any], after: dict[str, Any]) -> bool:
    game = after["game"]
    return (game is not None and game["hunt"] is not None and game["hunt"]["rank"] == "A"
            and game["to_act"] is not None)


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
                    assert game["stage"].startswith("pass"), game["stage"]
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
