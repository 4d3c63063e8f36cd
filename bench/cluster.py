#!/usr/bin/env python3
"""Two processes against one on the same two cores (issue 17), side by side in one run.

    python3 bench/cluster.py                     # closed + paced1000, 2 rounds (~8 min)
    python3 bench/cluster.py --quick --rounds 1  # small and short: a sanity check

Each round runs every scenario twice, in turn:

- **one**: one ``dingo serve`` process on PostgreSQL, ``REDIS_URL`` unset (today's server);
- **two**: two ``dingo serve`` processes of one service (``REDIS_URL`` set, docs/cluster.md)
  on the same PostgreSQL and a private ``redis-server``. The load generator creates table
  ``i`` on process ``i mod 2`` and connects seat ``s`` to process ``(i + s) mod 2``
  (``bench/loadgen.py --spread-ports``): every table has players on both processes, so
  half the actions cross from a relaying process to the owner and back.

Servers are started the README way (``scripts/serve.sh``), each on a fresh PostgreSQL
database, not pinned: the processes, PostgreSQL, Redis and the load generator share the
machine's two cores, as a real two-process deployment on a two-core box would.
Scenarios (``bench/run.py``'s): ``closed`` (50 tables, closed loop: actions/s) and
``paced1000`` (1,000 tables, one action per table every 2 s: p50 and p99, the extra hop's
cost).

Needs the shared harness set up (``../shared/perf/setup.sh``), ``psql`` and
``redis-server``, and PostgreSQL at ``$BENCH_POSTGRES`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``; the databases are created and dropped).
Only the standard library here.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # bench/run.py: paths, scenarios, the harness venv, summaries

POSTGRES = os.environ.get("BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
PORTS = (18911, 18912)
REDIS_PORT = 18913
TARGET_CLOSED_RATIO = 1.7


def psql(statement: str) -> None:
    subprocess.run(["psql", POSTGRES, "-q", "-v", "ON_ERROR_STOP=1", "-c", statement],
                   check=True, capture_output=True)


class Service:
    """``processes`` dingo servers on one fresh PostgreSQL database (and Redis if > 1)."""

    def __init__(self, processes: int, out: Path, tag: str) -> None:
        self.processes = processes
        self.out = out
        self.tag = tag
        self.db = f"dingo_bench_{uuid.uuid4().hex[:10]}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.redis: subprocess.Popen[bytes] | None = None
        self.ports = list(PORTS[:processes])

    def start(self) -> None:
        for port in [*self.ports, REDIS_PORT]:
            if run.port_open(port):
                raise SystemExit(f"bench: port {port} is already in use")
        psql(f'CREATE DATABASE "{self.db}"')
        user_host = POSTGRES.split("://", 1)[1].rsplit("/", 1)[0]
        env = {**os.environ, "DATABASE_URL": f"postgresql+asyncpg://{user_host}/{self.db}",
               "DINGO_HOST": "127.0.0.1", "LOG_LEVEL": "WARNING",
               "MAX_CONNECTIONS_PER_ADDRESS": str(run.MAX_PER_ADDRESS)}
        env.pop("REDIS_URL", None)
        if self.processes > 1:
            self.redis = subprocess.Popen(
                ["redis-server", "--port", str(REDIS_PORT), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            env["REDIS_URL"] = f"redis://127.0.0.1:{REDIS_PORT}/0"
        for port in self.ports:  # one after the other: the first one migrates
            log = open(self.out / f"{self.tag}.server-{port}.log", "wb")  # noqa: SIM115
            proc = subprocess.Popen([str(run.REPO / "scripts" / "serve.sh")], cwd=run.REPO,
                                    env={**env, "DINGO_PORT": str(port)}, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            self.procs.append(proc)
            self._wait_ready(proc, port)

    def _wait_ready(self, proc: subprocess.Popen[bytes], port: int) -> None:
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(OSError), urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/readyz", timeout=2):
                return
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"bench: the server on port {port} did not start; see "
                                 f"{self.out / f'{self.tag}.server-{port}.log'}")
            time.sleep(0.2)

    def stop(self) -> None:
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        if self.redis is not None:
            self.redis.kill()
            self.redis.wait(10)
        psql(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')


def run_one(out: Path, jsonl: Path, scenario: str, processes: int, rnd: int,
            args: list[str], colocate: bool = False) -> dict | None:
    name = "one" if processes == 1 else ("two-local" if colocate else "two")
    tag = f"{scenario}-{name}-{rnd}"
    service = Service(processes, out, tag)
    run.wait_for_quiet()
    load = os.getloadavg()[0]
    service.start()
    run.log(f"{scenario:9} {name} round {rnd} (load {load:.2f}) ...")
    # The first process's CPU (the harness reads one pid); the processes of "two" share the
    # load evenly (tables are created on each in turn), so the service's is that times two.
    cmd = [str(run.PERF_PY), str(run.LOADGEN), "--adapter", "dingo",
           "--port", str(service.ports[0]), "--close-timeout", "2",
           "--server-pid", str(service.procs[0].pid),
           "--label", f"{scenario}/{name}/{rnd}", *args]
    if processes > 1:
        cmd += ["--spread-ports", ",".join(map(str, service.ports))]
        if colocate:
            cmd.append("--colocate")
    result = run.run_loadgen(cmd, args, out / f"{tag}.loadgen.log", service.stop)
    if result is None:
        return None
    result.update(loadavg_before=round(load, 2), processes=processes, config=name)
    with open(jsonl, "a") as f:
        f.write(json.dumps(result) + "\n")
    lat = result["latency_ms"]
    run.log(f"  {result['actions_per_s']:,.0f} act/s  p50 {lat['p50']} p99 {lat['p99']} ms  "
            f"errors {result['errors']['total']}")
    return result


def report(runs: list[dict], command: str, out: Path) -> str:
    lines = [f"_Generated by `{command}` on "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; raw results `{out}`._", "",
             "| scenario | one process | two processes | two / one | two, no hop | "
             "no hop / one |", "|---|---|---|---|---|---|"]
    by: dict[tuple[str, str], list[dict]] = {}
    for r in runs:
        by.setdefault((r["label"].split("/")[0], r["config"]), []).append(r)

    def figures(scenario: str, config: str, pick: str) -> list[float]:
        got = by.get((scenario, config), [])
        if pick == "aps":
            return [r["actions_per_s"] for r in got]
        if pick == "cpu":  # the service's CPU-s per 1,000 actions, every process's
            return [r["server"]["cpu_s_per_1000_actions"] * r["processes"] for r in got
                    if r["server"]["cpu_s_per_1000_actions"] is not None]
        return [r["latency_ms"][pick] for r in got if r["latency_ms"][pick] is not None]

    rows = [("closed", "aps", "actions/s", ",.0f"),
            ("closed", "cpu", "server CPU-s per 1,000 actions, all processes", ".3f"),
            ("paced1000", "p50", "p50 ms", ".1f"),
            ("paced1000", "p99", "p99 ms", ".1f")]
    for scenario, pick, label, fmt in rows:
        one = figures(scenario, "one", pick)
        if not one:
            continue
        cells = [f"{scenario} {label}", run.spread(one, fmt)]
        for config in ("two", "two-local"):
            got = figures(scenario, config, pick)
            ratio = run.med(got) / run.med(one) if got and run.med(one) else float("nan")
            cells += [run.spread(got, fmt), "-" if not got else f"{ratio:.2f}x"]
        lines.append("| " + " | ".join(cells) + " |")
    errors = [(r["label"], r["errors"]["total"]) for r in runs if r["errors"]["total"]]
    lines += ["", f"Errors: {errors or 'none'}. Closed-loop target: two / one ≥ "
              f"{TARGET_CLOSED_RATIO}x."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["closed", "paced1000"])
    parser.add_argument("--with-colocated", action="store_true",
                        help="also two processes with every seat on its table's owner")
    opts = parser.parse_args()
    if not run.PERF_PY.exists():
        raise SystemExit(f"bench: {run.PERF_PY} missing: run ../shared/perf/setup.sh first")
    scenarios = run.QUICK if opts.quick else run.FULL
    names = [opts.only] if opts.only else ["closed", "paced1000"]
    out = Path(tempfile.mkdtemp(prefix="dingo-cluster-bench-"))
    jsonl = out / "runs.jsonl"
    runs = []
    for rnd in range(1, opts.rounds + 1):
        for scenario in names:
            configs = [(1, False), (2, False)] + ([(2, True)] if opts.with_colocated else [])
            for processes, colocate in configs:
                result = run_one(out, jsonl, scenario, processes, rnd, scenarios[scenario],
                                 colocate)
                if result is not None:
                    runs.append(result)
    text = report(runs, "python3 bench/cluster.py " + " ".join(sys.argv[1:]), out)
    (out / "report.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
