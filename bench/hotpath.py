"""The table server's own cost per action, without sockets: rules, log, views, encoding.

    .venv/bin/python bench/hotpath.py                    # 50 tables, 20,000 actions
    taskset -c 0 .venv/bin/python bench/hotpath.py --runs 5 --profile

Runs the code a WebSocket message goes through once it has been read
(``app.api.ws.handle_frame``: parse and validate the intent, then ``Table.submit``:
engine, log entry, views, encoding, one send per seat) for N tables of four
seated players in a closed loop, on a memory store and connections that
only keep the last message. What is left between this and ``bench/run.py``'s
closed loop is the WebSocket layer (uvicorn, Starlette, the kernel) and
SQLite. CPU time per action is reported, best of ``--runs``: the machine is
shared, and the best run is the one least disturbed.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import pstats
import random
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.api.ws import handle_frame
from app.observability import Metrics
from app.table.client import Client
from app.table.manager import TableManager
from app.table.options import TableConfig, TableOptions
from app.table.ports import MemoryStore
from app.table.table import Table

#: No pauses: the next game starts as soon as every player is ready.
CONFIG = TableConfig(bot_delay_seconds=0.0, next_game_seconds=0.0)


class LastMessage:
    """A connection that keeps only what it was sent last (the player's current view)."""

    def __init__(self) -> None:
        self.last = b""

    async def send_bytes(self, data: bytes) -> None:
        self.last = data

    async def close(self, code: int, reason: str) -> None:
        pass


async def seated_tables(manager: TableManager, count: int) -> list[tuple[Table, list[Client]]]:
    tables = []
    for _ in range(count):
        table, host = await manager.create(TableOptions.create(games_to_win=50))
        clients = []
        for seat in range(4):
            client = Client(LastMessage())
            await table.join(client, host if seat == 0 else None)
            await table.submit(client, {"type": "sit", "seat": seat, "name": f"P{seat}"})
            clients.append(client)
        await table.submit(clients[0], {"type": "start"})
        tables.append((table, clients))
    return tables


async def run(tables: int, actions: int, seed: int,
              profile: cProfile.Profile | None) -> tuple[float, int]:
    """CPU seconds per action over ``actions`` game actions (ready votes come on top),
    and how many games were dealt."""
    manager = TableManager(MemoryStore(), CONFIG)
    metrics = Metrics()
    live = await seated_tables(manager, tables)
    rng = random.Random(seed)
    ids = itertools.count()
    done = 0
    if profile:
        profile.enable()
    started = time.process_time()
    while done < actions:
        for table, clients in live:
            assert table.match is not None
            game = table.match.inner.game
            if game.over:
                for client in clients:
                    if client.seat is not None and not table.seats[client.seat].ready:
                        ready = orjson.dumps({"type": "ready", "id": f"i{next(ids)}"})
                        await handle_frame(ready.decode(), table, client, metrics)
                continue
            seat = game.to_act
            assert seat is not None
            intent = rng.choice(game.legal_actions()).to_dict()
            del intent["seat"]
            intent.update(id=f"i{next(ids)}", v=table.version)
            await handle_frame(orjson.dumps(intent).decode(), table, clients[seat], metrics)
            done += 1
        await asyncio.sleep(0)  # the next game starts from a timer callback
    spent = time.process_time() - started
    if profile:
        profile.disable()
    games = sum(len(table.match.inner.games) for table, _ in live if table.match is not None)
    await manager.shutdown()
    return spent / actions, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--actions", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile the last run")
    args = parser.parse_args()
    results = []
    games = 0
    for n in range(args.runs):
        profile = cProfile.Profile() if args.profile and n == args.runs - 1 else None
        per_action, games = asyncio.run(run(args.tables, args.actions, n, profile))
        if profile is None:
            results.append(per_action)
        else:
            pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
    if results:
        best = min(results)
        print(f"{args.tables} tables, {args.actions:,} actions ({games} games), "
              f"best of {len(results)}: "
              f"{best * 1e6:.0f} us CPU per action ({1 / best:,.0f} actions/s on one core); "
              f"all runs: {', '.join(f'{r * 1e6:.0f}' for r in results)} us")


if __name__ == "__main__":
    main()
