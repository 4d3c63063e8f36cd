"""Smoke test of the load benchmark's tools: bench/loadgen.py against the real server.

It starts the server the way `dingo serve` does (uvicorn in a subprocess, migrations
applied, a fresh SQLite file, a free port), drives two tables with the Dingo adapter
of the shared harness for about two seconds, and checks that moves were made and
nothing was refused, timed out or disconnected. It asserts no timing at all: the
figures live in docs/benchmarks.md ("## Server load", written by bench/run.py).

The tables are paced (one move per 25 ms per table) rather than closed-loop: a closed
loop of two tables makes each seat send far more than the server's per-connection
limit (50 messages/s sustained, ws.RATE_PER_SECOND), which would rightly answer
``rate_limited``. Closed loop at scale is bench/run.py's job.

Needs the shared harness beside the repository (``../shared/perf``, or ``PERF_DIR``)
and aiohttp + orjson in the test environment; without them the test skips locally and
fails under CI=true.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PERF_DIR = Path(os.environ.get("PERF_DIR") or REPO.parent / "shared" / "perf")


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (required when CI=true)", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """A real server process: (port, pid). Its log is printed if the test fails."""
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/dingo.db",
           "DINGO_HOST": "127.0.0.1", "DINGO_PORT": str(port), "LOG_LEVEL": "WARNING"}
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve"], cwd=REPO, env=env,
                                stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the server did not start:\n{log_path.read_text()[-3000:]}")
                time.sleep(0.1)
        yield port, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        print(log_path.read_text()[-3000:])


def test_dingo_adapter_plays_two_tables(server: tuple[int, int]) -> None:
    if not (PERF_DIR / "loadgen.py").is_file():
        _missing(f"the shared perf harness is not at {PERF_DIR} (set PERF_DIR)")
    for module in ("aiohttp", "orjson"):
        try:
            __import__(module)
        except ImportError:
            _missing(f"{module} is not installed (it belongs in the dev extra)")
    port, pid = server
    cmd = [sys.executable, str(REPO / "bench" / "loadgen.py"), "--adapter", "dingo",
           "--port", str(port), "--server-pid", str(pid), "--tables", "2",
           "--pace", "0.025", "--warmup", "0.5", "--duration", "2", "--close-timeout", "2",
           "--games-to-win", "1", "--label", "smoke/dingo/1"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PERF_DIR": str(PERF_DIR)}, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0 and lines, f"loadgen failed:\n{done.stdout}\n{done.stderr}"
    summary = json.loads(lines[-1])
    notes = summary["adapter_notes"]
    assert summary["adapter"] == "dingo"
    assert summary["actions"] > 0, summary
    assert summary["errors"]["total"] == 0, summary["errors"]
    assert notes["protocol_errors"] == 0, notes
    assert notes["disconnects"] == 0, notes
    assert notes["connections_open"] == notes["connections"] == 8, notes
    assert summary["server"]["cpu_s"] is not None  # it watched the server process
