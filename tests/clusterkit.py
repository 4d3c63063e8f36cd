"""Helpers for tests/cluster: a private redis-server to kill, waiting for a condition, and
playing a Dingo match on with players spread over processes."""

from __future__ import annotations

import asyncio
import random
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from tablekit import Player


async def eventually(check: Callable[[], bool | Awaitable[bool]], timeout: float = 10.0) -> None:
    """Wait until ``check()`` (sync or async) is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if not isinstance(result, bool):
            result = await result
        if result:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {check!r}")
        await asyncio.sleep(0.02)


T = TypeVar("T")


def losing_a_cancel(call: Callable[..., Awaitable[T]], entered: asyncio.Event,
                    ) -> Callable[..., Awaitable[T]]:
    """``call`` behind a wait that loses the first ``cancel()`` landing in it, as redis-py
    loses one that lands inside a command (``app.loops``); ``entered`` is set in the wait.
    Later cancels pass, so a loop that ignores the lost one fails its test, not hangs it."""
    lost = False

    async def lossy(*args: Any, **kwargs: Any) -> T:
        nonlocal lost
        entered.set()
        try:
            await asyncio.sleep(0.3)
        except asyncio.CancelledError:
            if lost:
                raise
            lost = True
        return await call(*args, **kwargs)

    return lossy


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class RedisProcess:
    """A ``redis-server`` child process on its own port; ``kill``/``start`` at will."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        assert self.process is None
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server on port {self.port} did not start")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL this server (only this child process), and wait for it."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None


def over(state: dict[str, Any]) -> bool:
    return state["table"]["status"] == "match_over" and state["table"]["match_id"] is not None


async def play(players: list[Player], rng: random.Random, *, stop_after: int | None = None
               ) -> None:
    """Play on (random legal moves, ready between games) until the match is over, or
    ``stop_after`` actions."""
    version = max(p.state["v"] for p in players)
    moves = 0
    while True:
        for player in players:
            await player.until(lambda s, v=version: s["v"] >= v)
        state = players[0].state
        if over(state) or (stop_after is not None and moves >= stop_after):
            return
        if state["table"]["status"] == "between_games":
            for player in players:
                answer = await player.intent({"type": "ready"})
                # (After a move the new owner may deal the next game by itself first.)
                assert answer["type"] == "ack" or answer["code"] == "not_now", answer
            version = state["v"] + 1
            continue
        to_act = (state["to_act"] or [None])[0]
        assert [bool(p.state["game"]["legal"]) for p in players] == [
            s == to_act for s in range(4)]
        version = (await players[to_act].play_random(rng))["v"]
        moves += 1
