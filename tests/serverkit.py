"""``dingo serve`` as a real process on a database of its own, and players for it.

Used by the crash, restart and shutdown tests (tests/api, tests/hardening).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tablekit import Player
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    base: str
    process: asyncio.subprocess.Process
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid


def log_problems(log: str) -> list[str]:
    """The lines of a server log that show a failure: a traceback, an exception's fields,
    anything at ERROR or CRITICAL. An HTTP 5xx from the app is one of them: an exception
    is logged with its traceback by uvicorn (Starlette answers 500 and re-raises), and
    so is an app that answers nothing; the only 5xx the app sends itself is
    ``/readyz``'s 503, which tells a database is unreachable."""
    return [line for line in log.splitlines()
            if "Traceback" in line or '"exc"' in line or _level(line) in ("error", "critical")]


def _level(line: str) -> str | None:
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    return entry.get("level") if isinstance(entry, dict) else None


@asynccontextmanager
async def dingo_serve(db: Path | str, logs: Path, **env: str) -> AsyncIterator[Server]:
    """``dingo serve`` on ``db`` (a SQLite file, or a database URL) and a free loopback
    port until ready; killed on exit. If the body ends without an error, the server's
    log must show no failure (``log_problems``)."""
    port = free_port()
    url = db if isinstance(db, str) else f"sqlite+aiosqlite:///{db}"
    environ = {**os.environ, "DATABASE_URL": url,
               "DINGO_HOST": "127.0.0.1", "DINGO_PORT": str(port), "LOG_LEVEL": "WARNING",
               **env}
    log_path = logs / f"serve-{port}.log"
    with open(log_path, "wb") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "app.cli", "serve", cwd=ROOT, env=environ, stdout=log,
            stderr=log)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                for _ in range(400):
                    if process.returncode is not None:
                        break
                    with suppress(httpx.TransportError):
                        if (await http.get("/readyz")).status_code == 200:
                            break
                    await asyncio.sleep(0.05)
            assert process.returncode is None, log_path.read_text()
            yield Server(f"127.0.0.1:{port}", process, log_path)
        finally:
            if process.returncode is None:
                process.kill()
            await process.wait()
    problems = log_problems(log_path.read_text())
    assert not problems, problems


async def join(base: str, table_id: str, token: str | None) -> Player:
    ws = await connect(f"ws://{base}/ws/{table_id}", compression=None, max_size=2**22)
    player = Player(ws)
    await player.send({"type": "hello", "token": token})
    await player.expect("welcome")
    await player.next_state()
    return player


async def seated_table(base: str, **options: Any) -> tuple[str, list[Player], list[str]]:
    """A table with four seated people, started; returns its id, the players, their tokens."""
    async with httpx.AsyncClient(base_url=f"http://{base}") as http:
        r = await http.post("/api/tables", json=options)
        assert r.status_code == 201, r.text
        table_id, host = r.json()["table_id"], r.json()["host_token"]
    players = [await join(base, table_id, host if seat == 0 else None) for seat in range(4)]
    for seat, p in enumerate(players):
        answer = await p.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
        assert answer["type"] == "ack", answer
    assert (await players[0].intent({"type": "start"}))["type"] == "ack"
    return table_id, players, [host] + [p.token or "" for p in players[1:]]


async def catch_up(players: list[Player]) -> int:
    """Every player at the latest version any of them has seen or been acked (returned)."""
    version = max(max(p.state["v"], getattr(p, "acked", 0)) for p in players)
    for p in players:
        await p.until(lambda s, v=version: s["v"] >= v)
    return version


async def drain(player: Player, timeout: float = 5.0) -> int | None:
    """Read every frame left until the socket closes; the close code."""
    with suppress(ConnectionClosed, TimeoutError):
        while True:
            await player.recv(timeout)
    return player.ws.close_code


def legal_wire(player: Player, rng: random.Random) -> dict[str, Any]:
    choice = rng.choice(player.state["game"]["legal"])
    return {k: v for k, v in choice.items() if k != "seat"}


def seat_view(state: dict[str, Any]) -> dict[str, Any]:
    """What a seat sees, minus the event log and who is connected right now."""
    return {"v": state["v"], "match": state["match"], "game": state["game"],
            "table": {k: v for k, v in state["table"].items() if k != "seats"}}
