"""Work one process of the service should do alone (app.cluster.claims): the advice of a
finished game is worked out by one of several processes, and a claim left by a process
that died runs out."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from matchdb import SQLITE, migrated_database, play_match_record
from redis.asyncio import Redis

from app.advisor import Advisor
from app.cluster.claims import WorkClaims
from app.db.session import create_engine
from app.db.store import create_store


class CountingWorkers:
    """Bot workers that run nothing: they count what they were given (a game's advice)."""

    def __init__(self, runs: list[str]) -> None:
        self.runs = runs

    async def run(self, fn: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        self.runs.append(repr(args[0]))  # the game's dealt hands: one per game
        await asyncio.sleep(0.05)  # long enough for the other process to look meanwhile
        return {"deals": 1, "playouts": 1, "decisions": [], "mistakes": [0, 0, 0, 0]}


async def test_each_game_is_worked_out_by_one_of_three_processes(
        redis: Redis, prefix: str, tmp_path: Path) -> None:
    with migrated_database(SQLITE, tmp_path, None) as url:
        store = create_store(url)
        try:
            for seed in (51, 52):
                await store.finish_match(play_match_record(
                    seed, bots=(False, True, True, True), games_to_win=2))
        finally:
            await store.close()
        engine = create_engine(url)
        try:
            runs: list[str] = []
            advisors = [
                Advisor(engine, CountingWorkers(runs), deals=1, playouts=1,  # type: ignore[arg-type]
                        claim=WorkClaims(redis, f"p{i}", prefix=prefix).advice)
                for i in range(3)]
            done = await asyncio.gather(*(a.work() for a in advisors))
            assert sum(done) == len(runs) >= 4, (done, runs)  # two matches of 2+ games
            assert len(set(runs)) == len(runs), "a game was worked out twice"
            assert [await a.work() for a in advisors] == [0, 0, 0]  # all stored
        finally:
            await engine.dispose()


async def test_a_claim_is_one_process_s_until_it_runs_out(redis: Redis, prefix: str) -> None:
    mine = WorkClaims(redis, "a", ttl=0.2, prefix=prefix)
    theirs = WorkClaims(redis, "b", ttl=0.2, prefix=prefix)
    assert await mine.advice(7, 1)
    assert not await theirs.advice(7, 1)
    assert not await mine.advice(7, 1)  # taken once, not again
    assert await theirs.advice(7, 2)  # another piece of work
    assert await theirs.claim("other work", "7:1")  # another kind of work
    await asyncio.sleep(0.3)  # the first process died without finishing
    assert await theirs.advice(7, 1)
