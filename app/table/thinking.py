"""Where bots think: off the event loop, and behind people when the CPU is short.

A search bot thinks for hundreds of milliseconds of pure Python. In a thread it would hold
the GIL for most of that time and slow every socket of the process; so a server thinks in
worker processes (``processes`` > 0) started at a lower CPU priority (``nice``, and Linux's
idle scheduling class): when every core is busy with bots, the kernel runs the event loop
first, and the bots answer later, never the people. ``processes=0`` thinks in a thread,
for tests and for tiny servers.

A bot is handed to a worker with the view it is to answer (both plain, picklable data)
and comes back with its choice and its new inner state (its random generator moved on,
what it learnt), which replaces the table's copy: the worker keeps nothing between calls,
so any worker can answer for any bot and a worker that dies loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from app.games.contract import JSON, Bot
from app.observability import log_event

log = logging.getLogger("app.table.thinking")

T = TypeVar("T")

#: How much lower than the server's the workers' CPU priority is (``nice`` steps).
NICE = 10
#: How often a worker checks that its server is still there.
SERVER_WATCH_SECONDS = 1.0


def _start_worker(steps: int, server: int) -> None:
    """A new worker: nicer by ``steps``, and on Linux in the idle scheduling class (it then
    runs only on CPU time nothing else wants, and the server preempts it the moment it wakes
    up); and it ends when the server process ``server`` is gone, even killed outright."""
    os.nice(steps)
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or refused
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    threading.Thread(target=_outlive_no_server, args=(server,), daemon=True,
                     name="server-watch").start()


def _outlive_no_server(server: int) -> None:
    """A killed server (``kill -9``) cannot stop its pool: its workers would think on,
    orphaned, for ever. Each looks once a second and leaves when the server is gone."""
    while True:
        time.sleep(SERVER_WATCH_SECONDS)
        try:
            os.kill(server, 0)
        except (ProcessLookupError, PermissionError):  # gone, or its pid is someone else's
            os._exit(0)


def _choose(bot: Bot, view: JSON) -> tuple[JSON, Bot]:
    """In a worker: the bot's choice, and the bot as it is after choosing."""
    return bot.choose(view), bot


class BotWorkers:
    """The bots' thinking place of one server process (its ``TableManager`` holds it)."""

    def __init__(self, processes: int = 0, nice: int = NICE) -> None:
        if processes < 0:
            raise ValueError("processes must be 0 (a thread) or more")
        self.processes = processes
        self.nice = nice
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        """The pool, started at the first decision (a server without bots starts none).

        ``forkserver``: workers come from a clean process, not a fork of this one with its
        event loop, sockets and threads."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.processes, mp_context=multiprocessing.get_context("forkserver"),
                initializer=_start_worker, initargs=(self.nice, os.getpid()))
        return self._pool

    async def choose(self, bot: Bot, view: JSON) -> tuple[JSON, Bot]:
        """``bot``'s choice for ``view`` and the bot to keep from now on."""
        return await self.run(_choose, bot, view)

    async def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` where bots think (a module-level function, picklable
        arguments): the advice after a game is worked out there too.

        A pool whose worker died (killed, out of memory) is replaced and asked again once;
        whatever ``fn`` raises is the caller's to handle."""
        call = functools.partial(fn, *args, **kwargs)
        if not self.processes:
            return await asyncio.to_thread(call)
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            try:
                return await loop.run_in_executor(self._executor(), call)
            except BrokenProcessPool:
                log_event(log, "bot_workers_broken", logging.WARNING, attempt=attempt)
                self._discard()
        raise RuntimeError("the bots' worker processes keep dying")

    def _discard(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            with contextlib.suppress(Exception):
                pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (server shutdown); a decision under way is abandoned."""
        self._discard()
