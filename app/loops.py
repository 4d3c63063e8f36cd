"""Background loops that stop when they are told to, whatever the libraries under them do."""

from __future__ import annotations

import asyncio


def stop_if_cancelled() -> None:
    """Raise ``CancelledError`` if the running task was asked to stop.

    A background loop that outlives a failed round calls this after each round.
    redis-py (8.1, with a ``socket_timeout``) loses a ``cancel()`` that lands inside
    a command more often than not: the command just returns its answer. Such a loop
    then ran on after its owner had stopped it: a stopped lease keeper went on
    renewing, so no other process could take its tables over, and a cancelled
    failover sweep kept a shutdown waiting for it for ever.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
