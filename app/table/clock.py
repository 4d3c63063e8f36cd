"""What a table does by itself: bots move, the turn timer runs out, the next game starts.

``TableClock`` is the part of ``Table`` that keeps one wake-up set for when the table
should act next (``_due``) and acts then (``_on_wake``), under the table's lock, through
the same ``_commit`` as every intent.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.games.contract import Bot, Event, GameSpec, MatchState
from app.observability import log_event

from .seats import Seat, TableError

if TYPE_CHECKING:
    from app.observability import Metrics

    from .client import Client
    from .options import TableConfig, TableOptions
    from .thinking import BotWorkers

log = logging.getLogger("app.table.table")


@dataclass
class Timer:
    version: int
    seats: frozenset[int]  # the people it runs for (several for a simultaneous decision)
    due: float  # event-loop clock
    deadline: float  # wall clock, for clients


def new_seed() -> int:
    """A new match's seed: every deal of the match comes from it."""
    return secrets.randbits(63)


class TableClock:
    # What the table holds and this part uses (``Table.__init__`` sets them).
    id: str
    game: GameSpec
    options: TableOptions
    config: TableConfig
    metrics: Metrics | None
    match: MatchState | None
    version: int
    seats: list[Seat]
    clients: set[Client]
    closed: bool
    bot_workers: BotWorkers
    _bots: dict[int, Bot]
    _game_over: bool
    _timer: Timer | None
    _changed_at: float
    _wake: asyncio.TimerHandle | None
    _wake_due: float
    _lock: asyncio.Lock

    if TYPE_CHECKING:
        async def _commit(self, entry: dict[str, Any]) -> list[Event]: ...
        def _announce(self, events: list[Event], joined: Client | None = None) -> None: ...
        def _bot(self, seat: int) -> Bot: ...
        def _spawn(self, coro: Any) -> None: ...

    def _settle(self) -> None:
        """After any change: set the turn timer for the new position and reschedule."""
        timer = None
        match, seconds = self.match, self.options.turn_seconds
        if match is not None and seconds:
            people = frozenset(s for s in match.to_act()
                               if self.seats[s].human and not self.seats[s].away)
            old = self._timer
            if people and old and ((old.version == self.version and old.seats == people)
                                   or people < old.seats):
                # The same moment, or some of a simultaneous decision's seats have acted:
                # the others' time runs on.
                timer = Timer(old.version, people, old.due, old.deadline)
            elif people:
                timer = Timer(self.version, people, time.monotonic() + seconds,
                              time.time() + seconds)
        self._timer = timer
        self._reschedule()

    def _due(self) -> float | None:
        """When (monotonic clock) the table should act by itself next, if at all.

        Nothing moves while nobody is connected: a table waits for its players.
        """
        match = self.match
        if match is None or self.closed or not self.clients:
            return None
        if not self._game_over:
            if any(self._stands_in(s) for s in match.to_act()):
                return self._changed_at + self.config.bot_delay_seconds
            return self._timer.due if self._timer else None
        if any(s.kind == "empty" for s in self.seats):
            return None
        # Someone is here, and everyone who may still vote has: a player within its grace
        # period (dropped a moment ago, or not back yet after a restart) is waited for
        # (between games, up to the pause; a rematch, until the grace runs out).
        voted = any(s.present for s in self.seats) and all(
            s.ready for s in self.seats if s.human and not s.away)
        if match.over:
            return self._changed_at if voted else None
        return self._changed_at if voted else self._changed_at + self.config.next_game_seconds

    def _reschedule(self) -> None:
        """Set the wake for ``_due()``.

        A wake already set to fire no later is kept: ``_on_wake`` checks the time
        again, and moving a due wake on at every change (a player pressing ready
        over and over) would keep it from ever firing.
        """
        due = self._due()
        if self._wake is not None:
            if due is not None and self._wake_due <= due:
                return
            self._wake.cancel()
            self._wake = None
        if due is not None:
            self._wake_due = due
            self._wake = asyncio.get_running_loop().call_later(
                max(0.0, due - time.monotonic()), self._spawn_wake)

    def _spawn_wake(self) -> None:
        self._wake = None
        self._spawn(self._on_wake())

    async def _on_wake(self) -> None:
        async with self._lock:
            due = self._due()
            if due is None:
                return
            if due > time.monotonic() + 0.001:
                self._reschedule()
                return
            started = time.perf_counter()
            match = self.match
            assert match is not None
            try:
                if not self._game_over:
                    events = await self._auto_move()
                    if self.metrics is not None:
                        self.metrics.record_action(time.perf_counter() - started)
                elif match.over:
                    events = await self._commit({"kind": "rematch", "seed": new_seed()})
                else:
                    events = await self._commit({"kind": "next_game"})
            except TableError:
                return  # storage failed; the table has been shut
            self._settle()
            self._announce(events)

    def _stands_in(self, index: int) -> bool:
        """A bot moves for this seat without waiting: a bot seat, or a player gone away."""
        seat = self.seats[index]
        return seat.bot is not None or seat.away

    async def _auto_move(self) -> list[Event]:
        """A bot moves: for a bot seat, an absent player, or a player out of time.

        Of several seats to act (a simultaneous decision), bots and absent players move
        first; when only people out of time are left, the first of them.
        """
        match = self.match
        assert match is not None
        acting = sorted(match.to_act())
        index = next((s for s in acting if self._stands_in(s)), acting[0])
        seat = self.seats[index]
        entry: dict[str, Any] = {"kind": "action", "seat": index}
        if seat.bot is None:
            entry["auto"] = "away" if seat.away else "timer"
        legal = match.legal(index)
        try:
            view = match.view(index)
            # Off the event loop: a strong bot may think for a second; the table waits
            # (under its lock), every other table goes on.
            action, self._bots[index] = await self.bot_workers.choose(self._bot(index), view)
            if action not in legal:
                raise ValueError(f"bot chose {action}, which is not legal now")
        except Exception as exc:
            # A broken bot must not stall the table: log it and make the first legal move.
            log_event(log, "bot_failed", logging.ERROR, table_id=self.id, seat=index,
                      error=f"{type(exc).__name__}: {exc}")
            action = legal[0]
        return await self._commit({**entry, "action": action})
