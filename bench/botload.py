#!/usr/bin/env python3
"""People's latency while the bots think on every core (issue 18), side by side in one run.

    python3 bench/botload.py                    # 200 tables of hard bots, 2 rounds
    python3 bench/botload.py --bot-tables 50 --rounds 1 --duration 10   # quick

Each round starts a fresh server the README way (``bench/run.py``'s ``Server``: pinned to
CPU0, its bot worker processes with it) twice:

- **idle**: only the people's tables: ``bench/loadgen.py`` paced (``--human-tables``
  tables of four load-generator players, one move per table every ``--pace`` s), the
  intent-to-answer latency measured by the shared harness;
- **busy**: the same, while ``--bot-tables`` tables of four hard bots play (a host socket
  each starts the match and watches it: a table moves only while someone is connected),
  so that the bots' workers have a decision waiting at every moment.

The people's p50 and p99 latency of the two, their ratio (the target: p99 busy within 2x
of idle), how many bot decisions were made per second, and the CPU the bot workers and
the server's event loop used, are printed as one JSON line per run and a table at the end.
Only the standard library here; the load is driven with the shared harness's venv
(``$PERF_VENV``, from ``../shared/perf/setup.sh``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # bench/run.py: the Server, the paths, the CPU split


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of these processes so far (clock ticks from /proc)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (the bot workers and the forkserver)."""
    out: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").iterdir():
            kids = (task / "children").read_text().split()
            out += map(int, kids)
            todo += map(int, kids)
    return out


# --------------------------------------------------------------------------- the bots' tables


async def drive_bot_tables(port: int, tables: int, kind: str, ready_file: Path) -> None:
    """(Run by the perf venv's Python.) Open ``tables`` tables of four ``kind`` bots, start
    them, and watch them until killed; write the count of states seen to ``ready_file``
    every second (the first write once every match has started)."""
    import aiohttp

    base = f"http://127.0.0.1:{port}"
    body = {"games_to_win": 50, "turn_seconds": None,
            "bots": [{"seat": s, "kind": kind} for s in range(4)]}
    states = 0
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:

        async def one(i: int, started: asyncio.Event) -> None:
            nonlocal states
            async with http.post(f"{base}/api/tables", json=body) as resp:
                created = await resp.json()
                if resp.status != 201:
                    raise SystemExit(f"POST /api/tables -> {resp.status}: {created}")
            ws = await http.ws_connect(f"{base}/ws/{created['table_id']}", max_msg_size=0)
            await ws.send_str(json.dumps({"type": "hello", "token": created["host_token"]}))
            await ws.send_str(json.dumps({"type": "start", "id": f"start{i}"}))
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT and msg.type != aiohttp.WSMsgType.BINARY:
                    break
                data = json.loads(msg.data)
                kind = data.get("type")
                if kind == "ack" or (kind == "delta" and "ack" in data):
                    started.set()  # the start was taken (a delta carries its sender's ack)
                if kind in ("state", "delta") and data.get("v", 0) > data.get("from", -1):
                    states += 1  # a change of the table: after the start, a bot's move

        flags = [asyncio.Event() for _ in range(tables)]
        tasks = [asyncio.create_task(one(i, flags[i])) for i in range(tables)]
        await asyncio.wait_for(asyncio.gather(*(f.wait() for f in flags)), 120)
        while True:
            ready_file.write_text(str(states))
            for task in tasks:
                if task.done() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
            await asyncio.sleep(1)


# --------------------------------------------------------------------------- one run


def run_once(out: Path, mode: str, rnd: int, args: argparse.Namespace) -> dict[str, Any]:
    tag = f"botload-{mode}-{rnd}"
    server = run.Server("dingo", out, tag)
    server.env.update(BOT_DELAY_SECONDS="0", LOG_LEVEL="WARNING", ADVICE_DEALS="0")
    server.start()
    driver = None
    ready = out / f"{tag}.states"
    try:
        if mode == "busy":
            with open(out / f"{tag}.driver.log", "wb") as err:
                driver = subprocess.Popen(
                    ["taskset", "-c", run.GEN_CPU, str(run.PERF_PY), __file__, "--drive",
                     "--port", str(run.DINGO_PORT), "--bot-tables", str(args.bot_tables),
                     "--kind", args.kind, "--ready-file", str(ready)], stderr=err)
            deadline = time.monotonic() + 180
            while not ready.exists():
                if driver.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"botload: the bot tables did not start "
                                     f"(see {out / (tag + '.driver.log')})")
                time.sleep(0.5)
            time.sleep(3)  # every worker busy
        workers = children(server.pid)
        loop_cpu, bots_cpu = cpu_seconds([server.pid]), cpu_seconds(workers)
        states_before = int(ready.read_text() or 0) if ready.exists() else 0
        started = time.monotonic()
        cmd = ["taskset", "-c", run.GEN_CPU, str(run.PERF_PY), str(run.LOADGEN),
               *server.loadgen, "--server-pid", str(server.pid), "--close-timeout", "2",
               "--label", f"botload/{mode}/{rnd}", "--tables", str(args.human_tables),
               "--pace", str(args.pace), "--warmup", "3", "--duration", str(args.duration)]
        with open(out / f"{tag}.loadgen.log", "wb") as err:
            done = subprocess.run(cmd, cwd=run.REPO, stdout=subprocess.PIPE, stderr=err,
                                  check=False, timeout=args.duration + 300)
        window = time.monotonic() - started
        line = done.stdout.decode().strip().splitlines()[-1] if done.stdout.strip() else ""
        if not line.startswith("{"):
            raise SystemExit(f"botload: loadgen failed (see {out / (tag + '.loadgen.log')})")
        result = json.loads(line)
        states_after = int(ready.read_text() or 0) if ready.exists() else 0
        return {
            "mode": mode, "round": rnd, "bot_tables": args.bot_tables if mode == "busy" else 0,
            "human_tables": args.human_tables, "pace_s": args.pace,
            "p50_ms": result["latency_ms"]["p50"], "p99_ms": result["latency_ms"]["p99"],
            "actions": result.get("actions"), "errors": result["errors"]["total"],
            # each bot decision is one change the table's watcher is told of
            "bot_decisions_per_s": round((states_after - states_before) / window, 1),
            "loop_cpu_pct": round(100 * (cpu_seconds([server.pid]) - loop_cpu) / window, 1),
            "bot_workers_cpu_pct": round(100 * (cpu_seconds(workers) - bots_cpu) / window, 1),
            "bot_workers": len(workers),
        }
    finally:
        if driver is not None:
            driver.kill()
            driver.wait()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot-tables", type=int, default=200)
    parser.add_argument("--kind", default="hard", help="the bots' kind (default hard)")
    parser.add_argument("--human-tables", type=int, default=20)
    parser.add_argument("--pace", type=float, default=1.0,
                        help="seconds between a people's table's moves")
    parser.add_argument("--duration", type=float, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--drive", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=run.DINGO_PORT, help=argparse.SUPPRESS)
    parser.add_argument("--ready-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        asyncio.run(drive_bot_tables(args.port, args.bot_tables, args.kind, args.ready_file))
        return
    run.preflight()
    out = Path(tempfile.mkdtemp(prefix="dingo-botload-"))
    runs = []
    for rnd in range(1, args.rounds + 1):
        for mode in ("idle", "busy"):  # alternating, so a drift of the machine hits both
            r = run_once(out, mode, rnd, args)
            print(json.dumps(r), flush=True)
            runs.append(r)
    idle = [r for r in runs if r["mode"] == "idle"]
    busy = [r for r in runs if r["mode"] == "busy"]

    def med(rs: list[dict[str, Any]], key: str) -> float:
        return statistics.median(r[key] for r in rs)

    print(f"\n| | idle | busy ({args.bot_tables} tables of {args.kind} bots) | busy / idle |")
    print("|---|---|---|---|")
    for key, label in (("p50_ms", "people's p50 ms"), ("p99_ms", "people's p99 ms")):
        print(f"| {label} | {med(idle, key):.1f} | {med(busy, key):.1f} | "
              f"{med(busy, key) / med(idle, key):.2f}x |")
    for key, label in (("bot_decisions_per_s", "bot decisions/s"),
                       ("loop_cpu_pct", "server loop CPU %"),
                       ("bot_workers_cpu_pct", "bot workers CPU %"), ("errors", "errors")):
        print(f"| {label} | {med(idle, key)} | {med(busy, key)} | |")
    print(f"\nruns and logs: {out}")


if __name__ == "__main__":
    main()
