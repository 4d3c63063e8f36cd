"""``stop_if_cancelled``: a loop whose round lost a ``cancel()`` still ends after it."""

from __future__ import annotations

import asyncio

import pytest

from app.loops import stop_if_cancelled


async def test_a_loop_ends_after_the_round_that_lost_its_cancel() -> None:
    rounds = 0
    in_round = asyncio.Event()

    async def loop() -> None:
        nonlocal rounds
        while True:
            rounds += 1
            in_round.set()
            try:
                await asyncio.sleep(1)
            except asyncio.CancelledError:
                if rounds > 1:
                    raise
                # The first one is lost, as the Redis client loses one inside a command.
            stop_if_cancelled()
            await asyncio.sleep(0)

    task = asyncio.create_task(loop())
    await in_round.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=3)
    assert rounds == 1


async def test_a_task_nobody_cancelled_goes_on() -> None:
    stop_if_cancelled()  # no error: this task was not asked to stop
    await asyncio.sleep(0)
