"""Bots think in worker processes at a lower CPU priority, and come back with their state."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tablekit import Harness, fast_config, wait_until

from app import games
from app.games.contract import JSON, Bot
from app.table.thinking import BotWorkers

KINDS = [(name, kind) for name in games.names() for kind in games.get(name).bots]


def _first_views(name: str, seed: int, count: int) -> list[tuple[int, JSON]]:
    """The first ``count`` decisions of a random match, as (seat, view)."""
    spec = games.get(name)
    match = spec.new_match(seed, spec.check_options({}))
    rng = random.Random(seed)
    views = []
    while len(views) < count and not match.over:
        if match.between_games:
            match.start_next_game()
            continue
        seat = min(match.to_act())
        views.append((seat, match.view(seat)))
        match.apply(seat, rng.choice(match.legal(seat)))
    return views


@pytest.fixture(scope="module")
def workers() -> BotWorkers:
    pool = BotWorkers(processes=2)
    yield pool
    pool.close()


@pytest.mark.parametrize(("name", "kind"), KINDS)
async def test_a_bot_decides_in_a_worker_as_it_would_at_home(
        workers: BotWorkers, name: str, kind: str) -> None:
    """Every bot of every game crosses to a worker and back; it chooses what it would have
    chosen in the server, decision after decision (its state comes back with it); a search
    bot's choice also depends on its time budget, so of that only legality is checked."""
    spec = games.get(name)
    home: Bot = spec.bots[kind](11)
    away: Bot = spec.bots[kind](11)
    for seat, view in _first_views(name, 5, 6):
        want = home.choose(view)
        got, away = await workers.choose(away, view)
        assert got in view["legal"] and (got == want or kind == "hard"), (name, kind, seat)


async def test_workers_run_apart_at_a_lower_priority(workers: BotWorkers) -> None:
    loop = asyncio.get_running_loop()
    pid, niceness, policy = await loop.run_in_executor(workers._executor(), _priority)
    assert pid != os.getpid()
    assert niceness == min(19, os.nice(0) + workers.nice)
    if hasattr(os, "SCHED_IDLE"):  # Linux: only CPU time nothing else wants
        assert policy == os.SCHED_IDLE


def _priority() -> tuple[int, int, int | None]:
    policy = os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else None
    return os.getpid(), os.nice(0), policy


def test_a_tables_hard_bot_counts_the_cpu_it_was_given() -> None:
    """In a worker at the lowest priority its wall-clock time is not its own: on a busy
    server it thinks as long as ever and answers later."""
    bot = games.get("dingo").bots["hard"](3)
    assert bot.bot.clock is time.process_time  # type: ignore[attr-defined]


async def test_a_dead_worker_is_replaced_and_the_decision_still_made() -> None:
    workers = BotWorkers(processes=1)
    try:
        spec = games.get("dingo")
        _seat, view = _first_views("dingo", 3, 1)[0]
        await workers.choose(spec.bots["heuristic"](1), view)  # the pool is up
        pool = workers._executor()
        for pid in list(pool._processes):
            os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.2)
        action, _bot = await workers.choose(spec.bots["heuristic"](1), view)
        assert action in view["legal"]
        assert workers._executor() is not pool
    finally:
        workers.close()


@pytest.mark.parametrize(("game", "bots", "strengths"), [
    ("mate", ("greedy", "perfect"), ["normal", "hard"]),
    ("dingo", ("hard", "heuristic", "random", "hard"), ["hard", "normal", "easy", "hard"]),
])
async def test_a_table_of_bots_plays_its_match_through_the_workers(
        game: str, bots: tuple[str, ...], strengths: list[str]) -> None:
    h = Harness(fast_config(bot_processes=2))
    try:
        rules = {"games_to_win": 1} if game == "dingo" else {}
        table, host = await h.table(game=game, bots=tuple(enumerate(bots)), **rules)
        admin, _ = await h.join(table, host)
        await table.submit(admin, {"type": "start"})
        await wait_until(lambda: table.match_id is not None, timeout=120)
        assert h.manager.bot_workers._pool is not None  # it did think there
        record = h.store.matches[-1]
        assert record["game"] == game
        assert [p["strength"] for p in record["players"]] == strengths
    finally:
        await h.close()


#: A server stand-in: makes its bot workers think once, says their pids, then waits.
SERVER = """
import asyncio, os, sys
from app import games
from app.table.thinking import BotWorkers

async def main():
    workers = BotWorkers(processes=2)
    spec = games.get("mate")
    match = spec.new_match(1, spec.check_options({}))
    (seat,) = match.to_act()
    await asyncio.gather(*(workers.choose(spec.bots["greedy"](i), match.view(seat))
                           for i in range(4)))
    print(" ".join(map(str, workers._executor()._processes)), flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


def test_the_workers_of_a_killed_server_end_too(tmp_path: Path) -> None:
    """kill -9 gives a server no chance to stop its pool: the workers leave by themselves."""
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE,
                              cwd=Path(__file__).resolve().parents[2])
    try:
        assert server.stdout is not None
        pids = [int(p) for p in server.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
    finally:
        server.kill()
        server.wait()
        if server.stdout is not None:
            server.stdout.close()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids), "a worker outlived its server"


def _alive(pid: int) -> bool:
    """Running (not a zombie waiting for its parent to read its exit)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
