"""The background worker that writes the advice after each finished game.

A finished match is stored first (``finish_match``); its games wait with no advice
(``games.advice`` NULL) until this worker has worked it out (``app.game.advice``) in the
bots' worker processes, at their low CPU priority: people's tables come first, and the
advice follows when the CPU is free. Nothing is lost in a restart: what is still waiting
is found in the database again. Several server processes take each game in turn
(``claim``: ``app.cluster.claims``), and should two work the same one out (a claim ran
out), the first to store it wins and the other's equal copy changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.advice import pending_games, save_advice
from app.game.advice import advise_game
from app.loops import stop_if_cancelled
from app.observability import log_event
from app.table.thinking import BotWorkers

log = logging.getLogger("app.advisor")

#: Games read from the database at a time.
BATCH = 8

#: ``claim(match_id, number)``: whether this process works that game out now (False: another
#: process of the service has taken it).
Claim = Callable[[int, int], Awaitable[bool]]


class Advisor:
    def __init__(self, engine: AsyncEngine, workers: BotWorkers, *, deals: int,
                 playouts: int, poll_seconds: float = 5.0, claim: Claim | None = None) -> None:
        self.engine = engine
        self.claim = claim
        self.workers = workers
        self.deals = deals
        self.playouts = playouts
        self.poll_seconds = poll_seconds
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="advisor")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                done = await self.work()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database is away: try again later
                log_event(log, "advice_failed", logging.WARNING,
                          error=f"{type(exc).__name__}: {exc}")
                done = 0
            stop_if_cancelled()
            if not done:
                await asyncio.sleep(self.poll_seconds)

    async def work(self) -> int:
        """Work out and store the advice of the games waiting for it; how many it did."""
        games = await pending_games(self.engine, BATCH)
        done = 0
        for game in games:
            if self.claim is not None and not await self.claim(game.match_id, game.number):
                continue  # another process is on it
            try:
                advice = await self.workers.run(
                    advise_game, game.setup["hands"], game.setup["dealer"], game.actions,
                    game.people, skip=game.stand_in,
                    open_discards=bool(game.options.get("open_discards")),
                    seed=game.setup.get("seed", 0), deals=self.deals, playouts=self.playouts)
            except Exception as exc:
                # A game the advice cannot be worked out for must not be retried forever.
                log_event(log, "advice_failed", logging.ERROR, match_id=game.match_id,
                          number=game.number, error=f"{type(exc).__name__}: {exc}")
                advice = {"none": "the advice could not be worked out"}
            await save_advice(self.engine, game.match_id, game.number, advice)
            done += 1
        return done
