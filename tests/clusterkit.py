"""Helpers for tests/cluster: a private redis-server to kill, and waiting for a condition."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable


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
