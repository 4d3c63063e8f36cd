#!/usr/bin/env python3
"""Run the standard load scenarios of the Dingo server and the side-by-side comparison.

    python3 bench/run.py                  # everything (~15 min); /tmp/dingo-bench/<stamp>/
    python3 bench/run.py --quick          # small and short (~3 min): a sanity check
    python3 bench/run.py --write-docs     # ... then rewrite docs/benchmarks.md "## Server load"
    python3 bench/run.py --only standard  # or --only compare
    python3 bench/run.py --base /tmp/old  # this tree against another checkout, side by side

Every run starts a fresh server pinned to CPU0 (``taskset -c 0``) and drives it with
``bench/loadgen.py`` pinned to CPU1. The Dingo server is started the README way,
``./scripts/serve.sh`` (``dingo migrate`` then ``dingo serve``) with ``DINGO_PORT`` and a
``DATABASE_URL`` on a fresh SQLite file in a temporary directory, so every action is
committed (WAL, fsync) before anyone is told about it.

Standard scenarios (targets from issues 8 and 19):
  paced1000  1,000 tables paced at one action / 2 s per table  p99 < 25 ms, zero errors;
             Dingo and the bare FastAPI floor in turn          p99 <= 2x the floor's
             (and the disk alone: bench/commit_floor.py's SQLite commits at the same
             rate, the floor of any server that persists each action before answering)
  closed     50 tables closed loop                             >= 3,000 actions/s
  idle       2,500 tables x 4 seated sockets held              <= 40 KB per connection,
             (RSS connected - RSS before) / connections        10,000 connections held
Messages (issue 19): the median size of a delta to a seat that did not act <= 300 bytes,
and delta bytes per action over all recipients, from the Dingo runs' generator.
Comparison (bare FastAPI floor, dingo, boardgame.io; the shared harness's scenarios):
  closed     50 tables closed loop         (the dingo runs double as the standard "closed")
  paced      500 tables, one action / 2 s per table
Medians and ratios come from the shared ``summarize.py``.
Regression check (``--base DIR``: another checkout of this repository, e.g. a ``git
worktree`` of an older commit, started the same README way from DIR): closed loop and
idle, the two servers in turn in every round, and this tree's figures as ratios to DIR's.

Needs the shared harness (``$PERF_DIR``, default ``<repo>/../shared/perf``) set up with
its ``setup.sh`` (``/tmp/perf-venv``, ``/tmp/perf-node``), ``taskset``, 2 CPUs. Only
the standard library is used here, so any Python 3.11 runs it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PERF_DIR = Path(os.environ.get("PERF_DIR") or REPO.parent / "shared" / "perf")
PERF_VENV = Path(os.environ.get("PERF_VENV", "/tmp/perf-venv"))
PERF_NODE = Path(os.environ.get("PERF_NODE", "/tmp/perf-node"))
PERF_PY = PERF_VENV / "bin" / "python"
LOADGEN = REPO / "bench" / "loadgen.py"
COMMIT_FLOOR = REPO / "bench" / "commit_floor.py"
DOCS = REPO / "docs" / "benchmarks.md"
SECTION = "## Server load"
SERVER_CPU, GEN_CPU = "0", "1"
DINGO_PORT = 18904
MAX_PER_ADDRESS = 20_000

TARGETS = {"paced1000_p99_ms": 25.0, "closed_actions_per_s": 3000.0, "idle_kb_per_conn": 40.0,
           "idle_connections": 10_000,
           # issue 19
           "closed_x_bgio": 2.0, "cpu_per_1k_x_bare": 2.5, "paced1000_p99_x_bare": 2.0,
           "bystander_bytes": 300.0}

# name -> loadgen arguments; quick variants are small and short
FULL = {
    "paced1000": ["--tables", "1000", "--pace", "2", "--warmup", "5", "--duration", "30"],
    "idle": ["--tables", "2500", "--idle", "--warmup", "0", "--duration", "25"],
    "closed": ["--tables", "50", "--pace", "0", "--warmup", "3", "--duration", "15"],
    "paced": ["--tables", "500", "--pace", "2", "--warmup", "4", "--duration", "30"],
}
QUICK = {
    "paced1000": ["--tables", "300", "--pace", "2", "--warmup", "3", "--duration", "10"],
    "idle": ["--tables", "250", "--idle", "--warmup", "0", "--duration", "5"],
    "closed": ["--tables", "50", "--pace", "0", "--warmup", "2", "--duration", "6"],
    "paced": ["--tables", "200", "--pace", "2", "--warmup", "3", "--duration", "10"],
}


def log(*parts: object) -> None:
    print("[bench]", *parts, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- servers


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


#: Set by --base: the other checkout the "base" server runs from.
BASE: Path | None = None
DINGOS = ("dingo", "base")


class Server:
    """One fresh server process pinned to CPU0; ``pid`` is the server itself."""

    def __init__(self, name: str, out: Path, tag: str) -> None:
        self.name = name
        self.log_path = out / f"{tag}.server.log"
        self.tmp: tempfile.TemporaryDirectory[str] | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        env = dict(os.environ)
        self.repo = REPO
        if name in DINGOS:
            if name == "base":
                assert BASE is not None, "the base server needs --base"
                self.repo = BASE
            self.tmp = tempfile.TemporaryDirectory(prefix="dingo-bench-")
            env.update(DATABASE_URL=f"sqlite+aiosqlite:///{self.tmp.name}/dingo.db",
                       DINGO_PORT=str(DINGO_PORT), DINGO_HOST="127.0.0.1",
                       # Every simulated player connects from 127.0.0.1; the default cap
                       # (256 sockets per address) is for real clients, one per address.
                       MAX_CONNECTIONS_PER_ADDRESS=str(MAX_PER_ADDRESS))
            # The README way: serve.sh migrates, then execs `dingo serve` (same pid).
            self.cmd = ["taskset", "-c", SERVER_CPU, str(self.repo / "scripts" / "serve.sh")]
            self.ports = [DINGO_PORT]
            self.loadgen = ["--adapter", "dingo", "--port", str(DINGO_PORT)]
        elif name == "bare":
            self.cmd = ["taskset", "-c", SERVER_CPU, str(PERF_PY),
                        str(PERF_DIR / "peers" / "bare_fastapi.py"), "--port", "18901"]
            self.ports = [18901]
            self.loadgen = ["--adapter", "bare", "--port", "18901"]
        elif name == "bgio":
            env["NODE_PATH"] = str(PERF_NODE / "node_modules")
            self.cmd = ["taskset", "-c", SERVER_CPU, "node",
                        str(PERF_DIR / "peers" / "bgio" / "server.js"),
                        "--port", "18902", "--api-port", "18903"]
            self.ports = [18902, 18903]
            self.loadgen = ["--adapter", "bgio", "--port", "18902", "--api-port", "18903"]
        else:
            raise ValueError(name)
        self.env = env

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        for port in self.ports:
            if port_open(port):
                raise SystemExit(f"bench: port {port} is already in use")
        with open(self.log_path, "wb") as logf:
            self.proc = subprocess.Popen(self.cmd, cwd=self.repo, env=self.env, stdout=logf,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120  # serve.sh may first (re)install the venv
        for port in self.ports:
            while not port_open(port):
                if self.proc.poll() is not None:
                    raise SystemExit(f"bench: {self.name} died on start:\n"
                                     f"{self.log_path.read_text()[-3000:]}")
                if time.monotonic() > deadline:
                    raise SystemExit(f"bench: {self.name} never opened port {port}")
                time.sleep(0.1)
        if self.name in DINGOS:
            cmdline = Path(f"/proc/{self.pid}/cmdline").read_bytes().replace(b"\0", b" ")
            if b"dingo serve" not in cmdline:
                raise SystemExit(f"bench: pid {self.pid} is not the server: {cmdline!r}")
            with urllib.request.urlopen(f"http://127.0.0.1:{DINGO_PORT}/readyz", timeout=10):
                pass
        time.sleep(0.5)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.proc = None
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None


# --------------------------------------------------------------------------- runs


#: Set by --quiet: wait before each run until the 1-minute load average is at most this.
QUIET: tuple[float, float] | None = None  # (load, longest wait in seconds)


def wait_for_quiet() -> None:
    if QUIET is None:
        return
    limit, longest = QUIET
    start = time.monotonic()
    while os.getloadavg()[0] > limit and time.monotonic() - start < longest:
        time.sleep(5)
    waited = time.monotonic() - start
    if waited >= 5:
        log(f"waited {waited:.0f} s for the load average to drop to {limit} "
            f"(now {os.getloadavg()[0]:.2f})")


def run_loadgen(cmd: list[str], args: list[str], log_path: Path,
                stop: Callable[[], None]) -> dict | None:
    """Run the load generator ``cmd`` (its stderr to ``log_path``), then ``stop`` the
    servers whatever happened; its one-line JSON summary, or None if it failed."""
    window = float(args[args.index("--duration") + 1]) + float(args[args.index("--warmup") + 1])
    try:
        with open(log_path, "wb") as err:
            done = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=err,
                                  timeout=window + 300, check=False)
        line = done.stdout.decode().strip().splitlines()[-1] if done.stdout.strip() else ""
    except subprocess.TimeoutExpired:
        line = ""
    finally:
        stop()
    if not line.startswith("{"):
        log(f"  FAILED (see {log_path})")
        return None
    result: dict = json.loads(line)
    return result


def run_one(out: Path, jsonl: Path, scenario: str, server_name: str, rnd: int,
            args: list[str]) -> dict | None:
    tag = f"{scenario}-{server_name}-{rnd}"
    server = Server(server_name, out, tag)
    wait_for_quiet()
    load = os.getloadavg()[0]
    server.start()
    log(f"{scenario:9} {server_name:5} round {rnd} (server pid {server.pid}, load {load:.2f}) ...")
    cmd = ["taskset", "-c", GEN_CPU, str(PERF_PY), str(LOADGEN), *server.loadgen,
           "--server-pid", str(server.pid), "--close-timeout", "2",
           "--label", f"{scenario}/{server_name}/{rnd}", *args]
    result = run_loadgen(cmd, args, out / f"{tag}.loadgen.log", server.stop)
    if result is None:
        return None
    result["loadavg_before"] = round(load, 2)
    with open(jsonl, "a") as f:
        f.write(json.dumps(result) + "\n")
    log("  " + headline(result))
    return result


def run_commit_floor(jsonl: Path, rnd: int, args: list[str]) -> dict | None:
    """``bench/commit_floor.py`` where the server runs (CPU0, the temporary directory's
    filesystem), at ``args``' paced rate: how long the disk alone makes a durable commit
    wait at that load. Labelled like a run of a server named ``commit``."""
    rate = int(args[args.index("--tables") + 1]) / float(args[args.index("--pace") + 1])
    wait_for_quiet()
    load = os.getloadavg()[0]
    log(f"{'paced1000':9} commit round {rnd} (the disk alone, {rate:.0f} commits/s) ...")
    done = subprocess.run(["taskset", "-c", SERVER_CPU, sys.executable, str(COMMIT_FLOOR),
                           "--rate", str(rate), "--seconds", "10",
                           "--dir", tempfile.gettempdir()],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 or not done.stdout.startswith("{"):
        log(f"  FAILED: {done.stderr.strip()[-500:]}")
        return None
    result: dict = json.loads(done.stdout)
    result.update(label=f"paced1000/commit/{rnd}", loadavg_before=round(load, 2))
    with open(jsonl, "a") as f:
        f.write(json.dumps(result) + "\n")
    log(f"  commit p50 {result['p50_ms']} p99 {result['p99_ms']} ms")
    return result


def headline(r: dict) -> str:
    lat, srv, err = r["latency_ms"], r["server"], r["errors"]
    if (r.get("adapter_notes") or {}).get("idle"):
        return (f"idle: {idle_kb(r):.1f} KB/conn, {r['adapter_notes']['connections_open']:,} "
                f"connections open, rss {srv['rss_mb_before']} -> {srv['rss_mb_connected']} MB, "
                f"setup {r['setup_s']} s, errors {err['total']}")
    return (f"{r['actions_per_s']:,.0f} act/s  p50 {lat['p50']} p99 {lat['p99']} ms  "
            f"srv cpu {srv['cpu_util']}  gen cpu {r['generator']['cpu_util']}  "
            f"CPU-s/1k {srv['cpu_s_per_1000_actions']}  errors {err['total']}")


def idle_kb(r: dict) -> float:
    srv = r["server"]
    conns = r["tables"] * 4
    return (srv["rss_mb_connected"] - srv["rss_mb_before"]) * 1024 / conns


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def spread(values: list[float], fmt: str) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return format(values[0], fmt)
    return f"{format(med(values), fmt)} ({format(min(values), fmt)}-{format(max(values), fmt)})"


# --------------------------------------------------------------------------- report


def versions() -> dict[str, str]:
    venv_py = REPO / ".venv" / "bin" / "python"
    probe = ("import importlib.metadata as m, json, sys\n"
             "names = ['fastapi', 'starlette', 'uvicorn', 'uvloop', 'httptools', 'websockets',"
             " 'sqlalchemy', 'aiosqlite', 'pydantic', 'orjson', 'aiohttp']\n"
             "out = {'python': sys.version.split()[0]}\n"
             "for n in names:\n"
             "    try: out[n] = m.version(n)\n"
             "    except m.PackageNotFoundError: pass\n"
             "print(json.dumps(out))")
    got = {}
    for label, py in (("server", venv_py), ("generator", PERF_PY)):
        with contextlib.suppress(Exception):
            text = subprocess.run([str(py), "-c", probe], capture_output=True, text=True,
                                  timeout=30).stdout
            got[label] = ", ".join(f"{k} {v}" for k, v in json.loads(text).items())
    node = PERF_NODE / "node_modules"
    parts = []
    with contextlib.suppress(Exception):
        parts.append("node " + subprocess.run(["node", "--version"], capture_output=True,
                                              text=True, timeout=10).stdout.strip())
    for pkg in ("boardgame.io", "socket.io", "koa"):
        with contextlib.suppress(Exception):
            meta = json.loads((node / pkg / "package.json").read_text())
            parts.append(f"{pkg} {meta['version']}")
    got["bgio"] = ", ".join(parts)
    cpu = "?"
    with contextlib.suppress(Exception):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    got["host"] = f"{platform.system()} {platform.release()}, {os.cpu_count()} CPUs ({cpu})"
    with contextlib.suppress(Exception):
        got["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                                       capture_output=True, text=True).stdout.strip()
    return got


def summarize(jsonl: Path, baseline: str) -> str:
    if not jsonl.exists():
        return ""
    done = subprocess.run([str(PERF_PY), str(PERF_DIR / "summarize.py"), str(jsonl),
                           "--markdown", "--baseline", baseline],
                          capture_output=True, text=True, check=False)
    return (done.stdout + done.stderr).strip()


def group(runs: list[dict], scenario: str, server: str) -> list[dict]:
    return [r for r in runs if r["label"].split("/")[:2] == [scenario, server]]


def report(std: list[dict], cmp_runs: list[dict], cmp_jsonl: Path, quick: bool,
           command: str, out: Path) -> str:
    v = versions()
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [SECTION, ""]
    lines += [
        f"_Generated by `{command}` on {now}"
        f"{' — QUICK run: small, short scenarios, a sanity check only' if quick else ''}._",
        "",
        "How: every run starts a fresh server pinned to CPU0 (`taskset -c 0`); "
        "`bench/loadgen.py` (the shared harness `../shared/perf/loadgen.py` plus a Dingo "
        "adapter) runs pinned to CPU1. The Dingo server is started the README way, "
        f"`DINGO_PORT={DINGO_PORT} MAX_CONNECTIONS_PER_ADDRESS={MAX_PER_ADDRESS} "
        "DATABASE_URL=sqlite+aiosqlite:///<fresh tmp dir>/dingo.db ./scripts/serve.sh` (every"
        " simulated player connects from 127.0.0.1, so the per-address socket cap is raised; "
        "all other settings are the defaults): SQLite in WAL mode, every action committed "
        "(fsync) before it is announced. Each table is a 50-game match with no bots and no "
        "turn timer; its four seats are load-generator clients playing uniformly random legal"
        " moves from their own views (real Dingo). Latency is from sending an intent to the "
        "moment all four seats hold the resulting state (each has applied its `delta`). "
        "The machine is a small shared VM: figures move by 15% or more between runs, so "
        "each is given as median (min-max) over the runs, and `load` is the 1-minute load "
        "average before each run (2.0 = both CPUs busy with other work).",
        "",
        f"- Host: {v.get('host')}",
        f"- Server venv: {v.get('server')}",
        f"- Generator venv: {v.get('generator')}",
        f"- boardgame.io peer: {v.get('bgio')}",
        f"- Commit: {v.get('commit')}; raw results: `{out}`",
        "",
        "### Targets (issues 8 and 19)",
        "",
        "| scenario | target | measured: median (min-max) | met? |",
        "|---|---|---|---|",
    ]
    paced = group(std, "paced1000", "dingo")
    closed = group(cmp_runs, "closed", "dingo") or group(std, "closed", "dingo")
    idle = group(std, "idle", "dingo")

    def verdict(ok: bool | None) -> str:
        return "-" if ok is None else ("yes" if ok else "**no**")

    if paced:
        p99 = [r["latency_ms"]["p99"] for r in paced if r["latency_ms"]["p99"] is not None]
        errs = [r["errors"]["total"] for r in paced]
        ok = bool(p99) and max(p99) < TARGETS["paced1000_p99_ms"] and not any(errs)
        lines.append(f"| {paced[0]['tables']:,} tables paced, 1 action / 2 s / table | "
                     f"p99 < 25 ms, 0 errors | p99 {spread(p99, '.1f')} ms, errors {errs} | "
                     f"{verdict(ok)} |")
    if closed:
        aps = [r["actions_per_s"] for r in closed]
        ok = min(aps) >= TARGETS["closed_actions_per_s"]
        lines.append(f"| {closed[0]['tables']} tables closed loop | >= 3,000 actions/s | "
                     f"{spread(aps, ',.0f')} actions/s, errors "
                     f"{[r['errors']['total'] for r in closed]} | {verdict(ok)} |")
    if idle:
        kb = [idle_kb(r) for r in idle]
        held = [r["adapter_notes"]["connections_open"] for r in idle]
        ok = max(kb) <= TARGETS["idle_kb_per_conn"] and min(held) >= TARGETS["idle_connections"]
        lines.append(f"| {idle[0]['tables']:,} tables x 4 seated sockets idle | <= 40 KB per "
                     f"connection, 10,000 held | {spread(kb, '.1f')} KB, held {held} | "
                     f"{verdict(ok)} |")
    lines += issue19(std, cmp_runs)
    lines.append("")

    if paced or closed:
        lines += ["### Dingo runs", "",
                  "| run | load | actions/s | p50 ms | p95 ms | p99 ms | max ms | errors | "
                  "srv CPU | srv CPU-s/1k act | srv RSS MB | gen CPU | delta bytes to a "
                  "bystander (median) | delta bytes per action |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in paced + closed:
            lat, srv = r["latency_ms"], r["server"]
            notes = r.get("adapter_notes") or {}
            lines.append(
                f"| {r['label']} ({r['tables']} tables) | {r.get('loadavg_before', '-')} | "
                f"{r['actions_per_s']:,.0f} | {lat['p50']} | {lat['p95']} | {lat['p99']} | "
                f"{lat['max']} | {r['errors']['total']} | {srv['cpu_util']} | "
                f"{srv['cpu_s_per_1000_actions']} | {srv['rss_mb']} | "
                f"{r['generator']['cpu_util']} | {notes.get('bystander_delta_bytes_median')} | "
                f"{notes.get('delta_bytes_per_action')} |")
        lines.append("")
    if idle:
        lines += ["### Idle connections", "",
                  "| run | load | connections held | RSS before MB | RSS connected MB | "
                  "RSS end MB | KB per connection | setup s | errors |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in idle:
            srv = r["server"]
            lines.append(
                f"| {r['label']} | {r.get('loadavg_before', '-')} | "
                f"{r['adapter_notes']['connections_open']:,} | {srv['rss_mb_before']} | "
                f"{srv['rss_mb_connected']} | {srv['rss_mb']} | {idle_kb(r):.1f} | "
                f"{r['setup_s']} | {r['errors']['total']} |")
        lines += ["", "KB per connection = (RSS with every socket seated and every match "
                  "started - RSS of the fresh server) / connections; it includes each "
                  "table's share (four sockets per table).", ""]

    if cmp_runs:
        lines += ["### Side by side: bare FastAPI floor, Dingo, boardgame.io", ""]
        ratio_lines = []
        for scenario in ("closed", "paced"):
            d = group(cmp_runs, scenario, "dingo")
            for other in ("bare", "bgio"):
                o = group(cmp_runs, scenario, other)
                if not d or not o:
                    continue

                def m(runs: list[dict], key: str) -> float:
                    vals = [_metric(r, key) for r in runs]
                    vals = [x for x in vals if x is not None]
                    return med(vals)

                parts = []
                for key, label in (("actions_per_s", "actions/s"), ("p99", "p99"),
                                   ("cpu_per_1k", "CPU-s per 1k actions"),
                                   ("rss_conn", "RSS connected")):
                    a, b = m(d, key), m(o, key)
                    if b:
                        parts.append(f"{label} {a / b:.2f}x")
                ratio_lines.append(f"- {scenario}: dingo/{other}: " + ", ".join(parts))
        lines += [*ratio_lines, "",
                  "Medians over the rounds, ratios to `bare` (from the shared `summarize.py`):",
                  "", summarize(cmp_jsonl, "bare"), "",
                  "The same, ratios to `bgio`:", "",
                  summarize(cmp_jsonl, "bgio").split("\n\nper run")[0], ""]
    lines += ["Reproduce (after `bash ../shared/perf/setup.sh` once):", "", "```bash",
              "python3 bench/run.py                # all scenarios, ~15 min",
              "python3 bench/run.py --quick        # small and short, ~3 min",
              "python3 bench/run.py --write-docs   # ... and rewrite this section",
              "# one scenario by hand: a server the README way, then the generator",
              f"DINGO_PORT={DINGO_PORT} MAX_CONNECTIONS_PER_ADDRESS={MAX_PER_ADDRESS} "
              "DATABASE_URL=sqlite+aiosqlite:////tmp/b/dingo.db taskset -c 0 ./scripts/serve.sh &",
              "taskset -c 1 /tmp/perf-venv/bin/python bench/loadgen.py --adapter dingo "
              f"--port {DINGO_PORT} --server-pid $! --tables 1000 --pace 2 --warmup 5 "
              "--duration 30",
              "```", ""]
    return "\n".join(lines)


def issue19(std: list[dict], cmp_runs: list[dict]) -> list[str]:
    """Issue 19's rows of the targets table: ratios of medians measured in this run."""

    def m(runs: list[dict], key: str) -> float | None:
        vals = [x for x in (_metric(r, key) for r in runs) if x is not None]
        return med(vals) if vals else None

    def row(what: str, target: str, a: float | None, b: float | None, limit: float,
            at_least: bool, detail: str) -> str:
        if a is None or not b:
            return f"| {what} | {target} | - | - |"
        ratio = a / b
        ok = ratio >= limit if at_least else ratio <= limit
        return f"| {what} | {target} | {ratio:.2f}x ({detail}) | {'yes' if ok else '**no**'} |"

    lines = []
    closed, bgio, bare = (group(cmp_runs, "closed", n) for n in ("dingo", "bgio", "bare"))
    aps, bgio_aps = m(closed, "actions_per_s"), m(bgio, "actions_per_s")
    lines.append(row("50 tables closed loop: actions/s", ">= 2x boardgame.io's", aps, bgio_aps,
                     TARGETS["closed_x_bgio"], True, f"{aps:,.0f} vs {bgio_aps:,.0f}"
                     if aps is not None and bgio_aps is not None else ""))
    cpu, bare_cpu = m(closed, "cpu_per_1k"), m(bare, "cpu_per_1k")
    lines.append(row("50 tables closed loop: server CPU-s per 1,000 actions",
                     "<= 2.5x the bare floor's", cpu, bare_cpu, TARGETS["cpu_per_1k_x_bare"],
                     False, f"{cpu:.3f} vs {bare_cpu:.3f} s"
                     if cpu is not None and bare_cpu is not None else ""))
    paced, paced_bare = group(std, "paced1000", "dingo"), group(std, "paced1000", "bare")
    p99, bare_p99 = m(paced, "p99"), m(paced_bare, "p99")
    commit_p99 = [r["p99_ms"] for r in group(std, "paced1000", "commit")]
    lines.append(row("1,000 tables paced: p99", "<= 2x the bare floor's at the same load",
                     p99, bare_p99, TARGETS["paced1000_p99_x_bare"], False,
                     f"{p99:.1f} vs {bare_p99:.1f} ms"
                     if p99 is not None and bare_p99 is not None else ""))
    if commit_p99 and bare_p99:
        # The floor persists nothing; a durable server waits for the disk on every action.
        floor = med(commit_p99)
        lines.append(f"| ... the disk alone: a lone SQLite commit (WAL, `synchronous=FULL`) "
                     f"at the same rate, `bench/commit_floor.py` | p99 <= 2x the bare floor's "
                     f"({TARGETS['paced1000_p99_x_bare'] * bare_p99:.1f} ms) | "
                     f"{floor / bare_p99:.2f}x ({spread(commit_p99, '.1f')} ms) | "
                     f"{'yes' if floor <= TARGETS['paced1000_p99_x_bare'] * bare_p99 else '**no**'}"
                     " |")
    sizes = [r["adapter_notes"].get("bystander_delta_bytes_median") for r in paced + closed
             if r.get("adapter_notes")]
    sizes = [x for x in sizes if x is not None]
    per_action = [r["adapter_notes"].get("delta_bytes_per_action") for r in paced + closed
                  if r.get("adapter_notes")]
    if sizes:
        ok = max(sizes) <= TARGETS["bystander_bytes"]
        lines.append(f"| a delta to a seat that did not act (median bytes) | <= 300 | "
                     f"{spread(sizes, '.0f')}; per action, all recipients: "
                     f"{spread([x for x in per_action if x is not None], '.0f')} bytes | "
                     f"{'yes' if ok else '**no**'} |")
    return lines


def _metric(r: dict, key: str) -> float | None:
    if key == "actions_per_s":
        return r["actions_per_s"]
    if key == "p99":
        return r["latency_ms"]["p99"]
    if key == "cpu_per_1k":
        return r["server"]["cpu_s_per_1000_actions"]
    if key == "rss_conn":
        return r["server"]["rss_mb_connected"]
    raise KeyError(key)


def write_docs(section: str) -> None:
    """Replace (or add) the "## Server load" section; other sections are left as they are."""
    text = DOCS.read_text() if DOCS.exists() else "# Benchmarks\n"
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == SECTION), None)
    if start is None:
        new = text.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"
    else:
        end = next((i for i in range(start + 1, len(lines))
                    if lines[i].startswith("## ")), len(lines))
        new = "\n".join(lines[:start] + section.rstrip("\n").splitlines()
                        + (["", *lines[end:]] if end < len(lines) else [])) + "\n"
    DOCS.write_text(new)
    log(f"wrote {DOCS.relative_to(REPO)} ({SECTION})")


# --------------------------------------------------------------------------- main


def preflight() -> None:
    problems = []
    if not (PERF_DIR / "loadgen.py").is_file():
        problems.append(f"the shared harness is missing: {PERF_DIR} (set PERF_DIR)")
    if not PERF_PY.exists():
        problems.append(f"{PERF_PY} is missing: run bash {PERF_DIR}/setup.sh")
    if not (PERF_NODE / "node_modules" / "boardgame.io").is_dir():
        problems.append(f"{PERF_NODE} has no boardgame.io: run bash {PERF_DIR}/setup.sh")
    if shutil.which("taskset") is None:
        problems.append("taskset (util-linux) is required")
    if len(os.sched_getaffinity(0)) < 2:
        problems.append("two CPUs are needed (server on CPU0, generator on CPU1)")
    if problems:
        raise SystemExit("bench: " + "\n  ".join(problems))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 25_000 if hard == resource.RLIM_INFINITY else hard
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))  # children inherit it
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < 12_000:
        log("warning: open-files limit below 12,000; the idle scenario needs ~10,100 per side")


def regression(runs: list[dict], base: Path) -> str:
    """This tree against ``base``, side by side: medians per server and their ratios."""
    lines = [f"### This tree against `{base}` (the same commands, in turn)", "",
             "| scenario | measure | this tree | base | ratio |", "|---|---|---|---|---|"]
    for scenario, measures in (("closed", (("actions_per_s", "actions/s"),
                                           ("cpu_per_1k", "server CPU-s per 1k actions"),
                                           ("p99", "p99 ms"))),
                               ("idle", (("idle_kb", "KB per connection"),))):
        for key, label in measures:
            values = {}
            for name in DINGOS:
                rs = group(runs, scenario, name)
                got = [idle_kb(r) if key == "idle_kb" else _metric(r, key) for r in rs]
                values[name] = med([x for x in got if x is not None]) if rs else None
            a, b = values["dingo"], values["base"]
            ratio = f"{a / b:.3f}" if a is not None and b else "-"
            lines.append(f"| {scenario} | {label} | {a if a is None else round(a, 3)} | "
                         f"{b if b is None else round(b, 3)} | {ratio} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small, short scenarios (sanity check)")
    ap.add_argument("--write-docs", action="store_true",
                    help=f"write the figures into docs/benchmarks.md ({SECTION!r} section)")
    ap.add_argument("--only", choices=("standard", "compare"), help="run only one part")
    ap.add_argument("--base", type=Path, metavar="DIR",
                    help="only the regression check against another checkout in DIR")
    ap.add_argument("--rounds", type=int, help="runs per scenario and server (default 2; quick 1)")
    ap.add_argument("--servers", default="bare dingo bgio", help="servers of the comparison")
    ap.add_argument("--out", type=Path, help="results directory (default /tmp/dingo-bench/<stamp>)")
    ap.add_argument("--quiet", type=float, metavar="LOAD",
                    help="before each run, wait until the 1-minute load average is <= LOAD "
                         "(the machine is shared; see --quiet-wait)")
    ap.add_argument("--quiet-wait", type=float, default=600, metavar="S",
                    help="longest wait for --quiet, seconds (default 600); then run anyway")
    args = ap.parse_args()
    global QUIET
    if args.quiet is not None:
        QUIET = (args.quiet, args.quiet_wait)
    preflight()
    rounds = args.rounds or (1 if args.quick else 2)
    spec = QUICK if args.quick else FULL
    out = args.out or Path("/tmp/dingo-bench") / datetime.now().strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    std_jsonl, cmp_jsonl = out / "standard.jsonl", out / "compare.jsonl"
    servers = args.servers.split()
    log(f"results in {out}; rounds {rounds}; {'quick' if args.quick else 'full'} scenarios")
    started = time.monotonic()
    if args.base is not None:
        global BASE
        BASE = args.base.resolve()
        reg_jsonl, runs = out / "regression.jsonl", []
        for scenario in ("closed", "idle"):
            for rnd in range(1, rounds + 1):
                for name in ("base", "dingo") if rnd % 2 else ("dingo", "base"):
                    r = run_one(out, reg_jsonl, scenario, name, rnd, spec[scenario])
                    if r:
                        runs.append(r)
        section = regression(runs, BASE)
        (out / "regression.md").write_text(section)
        print(section)
        log(f"total {time.monotonic() - started:.0f} s; report in {out / 'regression.md'}")
        return
    std: list[dict] = []
    cmp_runs: list[dict] = []
    if args.only != "standard":
        for scenario in ("closed", "paced"):
            for rnd in range(1, rounds + 1):
                for name in servers:
                    r = run_one(out, cmp_jsonl, scenario, name, rnd, spec[scenario])
                    if r:
                        cmp_runs.append(r)
    if args.only != "compare":
        extra = ("closed",) if args.only == "standard" else ()
        for scenario in ("paced1000", *extra, "idle"):
            for rnd in range(1, rounds + 1):
                # The floor at the same load, in turn with Dingo (issue 19's p99 target).
                names = ("dingo",) if scenario != "paced1000" else (
                    ("bare", "dingo") if rnd % 2 else ("dingo", "bare"))
                for name in names:
                    r = run_one(out, std_jsonl, scenario, name, rnd, spec[scenario])
                    if r:
                        std.append(r)
                if scenario == "paced1000":
                    r = run_commit_floor(std_jsonl, rnd, spec[scenario])
                    if r:
                        std.append(r)
    command = "python3 bench/run.py" + " ".join(
        [""] + [a for a in sys.argv[1:] if a != "--write-docs"])
    section = report(std, cmp_runs, cmp_jsonl, args.quick, command.strip(), out)
    (out / "report.md").write_text(section)
    print(section)
    log(f"total {time.monotonic() - started:.0f} s; report in {out / 'report.md'}")
    if args.write_docs:
        write_docs(section)


if __name__ == "__main__":
    main()
