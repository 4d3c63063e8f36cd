"""A live table of any hosted game: its seats, the authoritative match, a version, timers
and the fan-out.

The table knows no game's rules: it talks to its game through the contract
(``app.games.contract``): ``GameSpec`` for the seats, options and bots, ``MatchState``
for the match. The game is chosen when the table is created (``TableOptions.game``).

This module holds the log, connections and intents; what clients are shown is built
by ``TableViews`` (``views.py``), what the table does by itself (bots, the turn timer,
the next game) is ``TableClock`` (``clock.py``); options in ``options.py``, seats and
names in ``seats.py``.

A table is a fold of its append-only log. Every accepted change becomes a log
entry that goes through ``_fold`` — the same function ``restore`` replays —
then is made durable with ``TableStore.append``, and only then announced.
All of it happens under the table's lock, so nobody is ever shown a state that
is not yet durable.

What a client sees is built in exactly one place, ``_state``: a seat gets
``MatchState.view(seat)`` and every event in the form ``Event.for_seat(seat)``,
spectators the public forms. After the first, each change reaches a client as a
``delta`` from what it was last shown to that view (``views.py``).

Log entries (``kind`` plus fields; every entry also has ``at``, an ISO time,
and storage hands them back with their ``seq``, which is the table version):

- ``open`` ``host_hash`` — first entry: the SHA-256 of the host token.
- ``sit`` ``seat, name, token_hash`` — a person took an empty seat.
- ``bot_add`` ``seat, bot`` / ``bot_remove`` ``seat`` — the host's changes.
- ``start`` / ``rematch`` ``seed`` — a new match (its seed fixes every deal).
- ``action`` ``seat, action`` (the wire form), ``auto`` (``"timer"`` or ``"away"`` when
  a bot moved for a human seat) — one game action. Dingo logs written before the game
  contract have no ``seat``: their ``action`` carries it.
- ``next_game`` — the next game of the match was dealt.
- ``recorded`` ``match_id`` — the finished match is in the history.
- ``host`` ``seat, reason`` — the host role went to that seat's player (``"away"``:
  the host was gone past the grace period; ``"handover"``: the host gave it).
- ``replace`` ``seat, bot`` — the host replaced an absent player with a bot of kind
  ``bot``, or freed the seat (``bot`` null); the player's token no longer holds it.
- ``vote`` ``seat, vote`` — a seated person voted ``"ready"`` (between games) or
  ``"rematch"`` (after the match); logged once per seat and vote: a seat that has
  voted already is acked without a new entry. Votes are cleared where they always
  were: when a game ends, the next is dealt, a match starts, or the seat is replaced.
  Older logs have none: their tables restore with nobody ready.

An entry written for a client's intent that carried an ``id`` also has ``id``
(the intent's id) and, when the sender held a seat, ``by`` (that seat): ``_fold``
rebuilds from them the ``ack`` the sender got, under the sender's token (``sit``:
the token the seat was taken with; no ``by``: the host's token), so a retried id
is answered alike after a restart. Entries from older logs have neither.

Presence (who is connected) and chat are not logged.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from app.games.contract import (
    JSON,
    Bot,
    Event,
    GameError,
    GameSpec,
    MatchState,
    ObservingBot,
    SplitViews,
    ViewKeys,
    shown,
)
from app.observability import log_event

from . import messages
from .client import Client
from .clock import TableClock, Timer, new_seed
from .options import TableConfig, TableOptions
from .ports import Fenced, StoredTable, TableStore, Tenure
from .seats import (
    Seat,
    TableError,
    bot_name,
    clean_chat,
    clean_name,
)
from .thinking import BotWorkers
from .tokens import hash_token, new_token, same_hash
from .views import TableViews

if TYPE_CHECKING:
    from app.observability import Metrics

log = logging.getLogger(__name__)

CLOSE_REPLACED = 4001
CLOSE_UNAVAILABLE = 1011
#: The table is served by another process now (several processes): the socket layer
#: finds the new owner (``TableManager.locate``) and joins the socket there again.
CLOSE_MOVED = 4012
MOVED_REASON = "the table moved to another server"

#: Events the table adds around the engine's; bots only observe the engine's.
TABLE_EVENTS = frozenset({"seat_taken", "bot_added", "bot_removed", "match_start",
                          "auto_move", "match_recorded", "host_changed", "seat_replaced"})


class TableMoved(TableError):
    """(Several processes.) This process no longer owns the table: the change was not
    stored, its sender gets no answer here (it asks the new owner again), and the
    table's sockets close with ``CLOSE_MOVED``."""

    def __init__(self) -> None:
        super().__init__("moved", MOVED_REASON)


@dataclass
class MatchInfo:
    number: int
    seed: int
    started_at: str
    ended_at: str | None = None
    recorded: bool = False
    #: Per game, the steps a stand-in bot played for an absent person (``auto`` actions).
    stand_in: list[list[int]] = field(default_factory=list)
    #: Per game and seat, who held the seat in turn: ``name``, ``bot``, ``strength`` and
    #: ``since`` (the game's steps played before they took it: 0 from the deal). A seat
    #: changes hands mid-game when its player leaves or the host gives it to a bot.
    holders: list[list[list[JSON]]] = field(default_factory=list)


_second_iso: tuple[int, str] = (0, "")


def _now_iso() -> str:
    """``datetime.now(UTC).isoformat()``, for the log entry of every action.

    The date and time up to the second are formatted once per second: formatting
    them every time was a noticeable share of an action's cost.
    """
    global _second_iso
    now = time.time()
    second = int(now)
    if _second_iso[0] != second:
        _second_iso = (second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    return f"{_second_iso[1]}.{int((now - second) * 1_000_000):06d}+00:00"


class Table(TableViews, TableClock):
    def __init__(self, table_id: str, options: TableOptions, created_at: datetime,
                 store: TableStore, config: TableConfig, metrics: Metrics | None = None,
                 bot_workers: BotWorkers | None = None, tenure: Tenure | None = None) -> None:
        self.id = table_id
        self.options = options
        self.created_at = created_at
        self.store = store
        self.config = config
        self.metrics = metrics
        self.bot_workers = bot_workers or BotWorkers()
        self.game: GameSpec = options.spec
        self._bot_kinds = self.game.bot_kinds()
        #: The match rule in words, shown before a match starts too (a match dealt to ask).
        self._rule = str(self.game.new_match(0, options.rules).scoreboard()["rule"])
        self._strengths = {b["kind"]: b["strength"] for b in self._bot_kinds}
        self.seats = [Seat(i) for i in range(self.game.seats)]
        for seat, kind in options.bots:
            self.seats[seat].bot = kind
            self.seats[seat].name = bot_name(seat)
        self.host_hash: str | None = None
        self.version = 0
        self.match: MatchState | None = None
        #: The match again when it is ``SplitViews`` (its shared part is encoded once for
        #: all recipients), else None: checked once per match, not per view.
        self._split: SplitViews | None = None
        #: The match again when it is ``ViewKeys`` too (and splits its views), else None.
        self._keys: ViewKeys | None = None
        self._deals = 0  # games dealt at this table: a new one restarts the game's events
        self._game_steps = 0  # actions applied in the current game
        self._game_over = False  # ``game_over``
        #: The version at which the last game ended: votes from since then are in time.
        self._votes_since = 0
        #: Per seat that may act: the version its decision was put to it at.
        self._deciding: dict[int, int] = {}
        self.info: MatchInfo | None = None
        self.match_id: int | None = None  # the last recorded match of this table
        self.clients: set[Client] = set()
        self.closed = False
        #: Several processes: this process's lease of the table (None: one process, and
        #: writes are not fenced). ``moved``: the lease is lost and the table is dropped
        #: here; ``on_moved`` (the manager's) is told when the table stops being served
        #: here: moved, or shut after a storage failure.
        self.tenure = tenure
        self.moved = False
        self.on_moved: Callable[[Table], None] | None = None
        self.idle_since: float | None = time.monotonic()
        self._bots: dict[int, Bot] = {}
        #: Per seat, the bot (kind, seed) to make when it is first asked (``_new_bot``).
        self._bots_due: dict[int, tuple[str, int]] = {}
        #: Every event since the current game was dealt: for the bots, and the game log of
        #: a connection that joins or resyncs (``_observe``).
        self._game_events: list[Event] = []
        #: Tokens of players who left their seats (``leave_seat``): such a token names no
        #: seat, but still its holder, who joins with it as a spectator (a ``leave_seat``
        #: retried after a reconnect gets its answer) and gets a new token to sit again.
        self._retired: set[str] = set()
        #: A host who holds no seat (a table made through the API and not sat at): the
        #: grace timer that runs while no connection of its is here, and whether it ran
        #: out (``_host_away``), and when it ends (``time.time()``; everyone sees it).
        self._host_grace: asyncio.TimerHandle | None = None
        self._host_back_by: float | None = None
        self._seatless_host_gone = False
        #: Per seat: (the deal, how many of those events) its bot has read.
        self._bot_read: dict[int, tuple[int, int]] = {}
        self._lock = asyncio.Lock()
        #: Clear while ``_commit`` has folded an entry it has not stored yet: reads from
        #: outside the table's sockets wait for it (``stored_info``).
        self._stored = asyncio.Event()
        self._stored.set()
        self._replies: dict[str | Client, OrderedDict[str, bytes]] = {}
        #: While ``submit`` applies an intent with an id: (id, sender's seat), for ``_commit``.
        self._intent: tuple[str, int | None] | None = None
        self._timer: Timer | None = None
        self._changed_at = time.monotonic()
        self._wake: asyncio.TimerHandle | None = None
        self._wake_due = 0.0  # when (monotonic) ``_wake`` was set to fire
        self._tasks: set[asyncio.Task[None]] = set()
        # ((deals, last game over), encoded): ``_scoreboard`` and ``_why``
        #: (version, encoded, the object embedded: the same while the encoding is)
        self._scoreboard_seen: tuple[Hashable, bytes, messages.Embedded] | None = None
        self._why_seen: tuple[tuple[int, bool], messages.Embedded | None] | None = None

    # -- the log -------------------------------------------------------------------

    @classmethod
    async def restore(cls, stored: StoredTable, store: TableStore, config: TableConfig,
                      metrics: Metrics | None = None, *, bot_workers: BotWorkers | None = None,
                      tenure: Tenure | None = None,
                      on_moved: Callable[[Table], None] | None = None) -> Table:
        """Rebuild a table by folding its log; bots re-observe every event on the way.

        The same after a restart and when a process takes a table over from another
        (``tenure``: its lease, set before anything is written, e.g. the record of a
        match that ended just before the old owner died)."""
        table = cls(stored.table_id, TableOptions.from_dict(stored.options),
                    stored.created_at, store, config, metrics, bot_workers, tenure)
        table.on_moved = on_moved
        for entry in stored.entries:
            table._fold(int(entry["seq"]), entry)
        for seat in table.seats:
            if seat.human:
                table._start_grace(seat)
        table._watch_seatless_host()
        if table.match is not None and table.match.over and not table.info_recorded:
            # The crash came between the last action and the match record: record it now.
            async with table._lock:
                await table._record_match()
        table._settle()
        return table

    @classmethod
    def folded(cls, stored: StoredTable, store: TableStore, config: TableConfig) -> Table:
        """The table as its log leaves it, only to be read (a table another process owns,
        for ``/api/tables/{id}``): nothing is scheduled, nobody is connected here, and it
        is closed, so it never writes."""
        table = cls(stored.table_id, TableOptions.from_dict(stored.options),
                    stored.created_at, store, config)
        for entry in stored.entries:
            table._fold(int(entry["seq"]), entry)
        table.closed = True
        return table

    @property
    def info_recorded(self) -> bool:
        return self.info is None or self.info.recorded

    def _fold(self, seq: int, entry: dict[str, Any]) -> list[Event]:
        """Apply one log entry to the table; the only way its durable state changes.

        Live intents are checked before they get here, except game actions,
        which the game checks: it raises a ``GameError`` and changes nothing.
        """
        kind = entry["kind"]
        intent_id: str | None = entry.get("id")
        answer_key = self._answer_key(entry) if intent_id is not None else None
        events: list[Event]
        if kind == "action":
            assert self.match is not None
            action: JSON = entry["action"]
            actor: int = entry["seat"] if "seat" in entry else action["seat"]
            events = self.match.apply(actor, action)
            self._game_steps += 1
            if entry.get("auto"):
                assert self.info is not None
                self.info.stand_in[-1].append(self._game_steps)
                events.insert(0, Event({"type": "auto_move", "seat": actor,
                                        "reason": entry["auto"]}))
            if self.match.between_games or self.match.over:
                self._clear_votes()
            if self.match.over:
                assert self.info is not None
                self.info.ended_at = entry["at"]
        elif kind == "next_game":
            assert self.match is not None
            events = self.match.start_next_game()
            self._new_deal()
            self._clear_votes()
        elif kind in ("start", "rematch"):
            events = self._new_match(int(entry["seed"]), entry["at"])
        elif kind == "sit":
            seat = self.seats[entry["seat"]]
            seat.name, seat.token_hash, seat.bot = entry["name"], entry["token_hash"], None
            seat.sat_at = seq
            if self.match is not None:
                self._new_bot(seat.index, self.game.stand_in_bot, seq)
            events = [Event({"type": "seat_taken", "seat": seat.index, "name": seat.name})]
        elif kind == "bot_add":
            seat = self.seats[entry["seat"]]
            seat.bot, seat.name = entry["bot"], bot_name(seat.index)
            if self.match is not None:
                self._new_bot(seat.index, entry["bot"], seq)
            events = [Event({"type": "bot_added", "seat": seat.index, "kind": seat.bot})]
        elif kind == "bot_remove":
            seat = self.seats[entry["seat"]]
            events = [Event({"type": "bot_removed", "seat": seat.index, "name": seat.name})]
            seat.bot = seat.name = None
            self._bots.pop(seat.index, None)
            self._bots_due.pop(seat.index, None)
        elif kind == "recorded":
            assert self.info is not None
            self.info.recorded = True
            self.match_id = int(entry["match_id"])
            events = [Event({"type": "match_recorded", "match_id": self.match_id})]
        elif kind == "host":
            seat = self.seats[entry["seat"]]
            self.host_hash = seat.token_hash
            self._seatless_host_gone = False
            for client in self.clients:
                client.host = same_hash(self.host_hash, client.token_hash)
            events = [Event({"type": "host_changed", "seat": seat.index,
                             "reason": entry["reason"]})]
        elif kind == "replace":
            seat = self.seats[entry["seat"]]
            player = seat.name
            if entry.get("left") and seat.token_hash is not None:
                self._retired.add(seat.token_hash)
            if seat.grace is not None:
                seat.grace.cancel()
            seat.grace = seat.back_by = None
            seat.token_hash, seat.away, seat.ready = None, False, False
            seat.bot = entry["bot"]
            seat.name = None if seat.bot is None else bot_name(seat.index)
            if seat.bot is None:
                self._bots.pop(seat.index, None)
                self._bots_due.pop(seat.index, None)
            elif self.match is not None:
                self._new_bot(seat.index, seat.bot, seq)
            self._new_holder(seat)
            events = [Event({"type": "seat_replaced", "seat": seat.index, "kind": seat.bot,
                             "player": player, "left": bool(entry.get("left"))})]
        elif kind == "vote":
            self.seats[entry["seat"]].ready = True
            events = []
        elif kind == "open":
            self.host_hash = entry["host_hash"]
            events = []
        else:
            raise ValueError(f"table {self.id}: unknown log entry kind {kind!r}")
        self.version = seq
        match = self.match
        was_over = self._game_over
        self._game_over = match is not None and (match.between_games or match.over)
        if self._game_over and not was_over:
            self._votes_since = seq
        self._note_deciding(seq, kind, _actor(entry))
        if answer_key is not None and intent_id is not None:
            # The sender's answer, as ``submit`` sent it: the last entry of an intent
            # (a match record after the final action) has the version it was acked at.
            self._remember(answer_key, intent_id, messages.ack(intent_id, seq))
        if kind != "vote":
            # A vote does not move on the pause before the next game (``TableClock._due``):
            # the last to vote would make everyone wait longer.
            self._changed_at = time.monotonic()
        self._observe(events)
        return events

    def _note_deciding(self, seq: int, kind: str, actor: int | None) -> None:
        """Keep, per seat that may act, the version its decision was put to it at.

        A seat's decision stands until it acts or a game is dealt; other seats acting
        meanwhile (a simultaneous decision: both seats commit face down) or the table
        changing (someone sits, the host changes) do not change it, so an action sent
        from any version since then is not stale (``_stale``).
        """
        match = self.match
        acting = () if match is None or self._game_over else match.to_act()
        fresh = kind in ("start", "rematch", "next_game")
        before = self._deciding
        self._deciding = {s: seq if fresh or s == actor or s not in before else before[s]
                          for s in acting}

    def _stale(self, client: Client, intent: dict[str, Any], v: int) -> bool:
        """An intent sent from version ``v`` comes too late: something changed since.

        A game action is in time while its seat's decision stands (``_note_deciding``),
        a vote from any version since the last game ended (``_votes_since``): other
        seats' votes, now logged, must not make it stale."""
        if v == self.version:
            return False
        if intent["type"] in self.game.actions and client.seat is not None:
            return not self._deciding.get(client.seat, self.version + 1) <= v <= self.version
        if intent["type"] in _VOTES and self._game_over:
            return not self._votes_since <= v <= self.version
        return True

    def _answer_key(self, entry: dict[str, Any]) -> str | None:
        """Whose answer an entry with an intent ``id`` is (``_reply_key`` of its sender).

        Read before the entry is folded: a ``host`` handover changes ``host_hash``.
        """
        if entry["kind"] == "sit":
            token_hash: str | None = entry["token_hash"]  # the sitter's token from now on
            return token_hash
        by = entry.get("by")
        return self.host_hash if by is None else self.seats[by].token_hash

    @property
    def game_over(self) -> bool:
        """No game is in progress: the last one ended (the match may be over too).

        Kept by ``_fold`` (it is asked several times per action)."""
        return self._game_over

    def _new_match(self, seed: int, started_at: str) -> list[Event]:
        number = self.info.number + 1 if self.info else 1
        self.match = self.game.new_match(seed, self.options.rules)
        self._split = self.match if isinstance(self.match, SplitViews) else None
        self._keys = (self.match if self._split is not None and isinstance(self.match, ViewKeys)
                      else None)
        self.info = MatchInfo(number, seed, started_at)
        self.match_id = None
        self._clear_votes()
        self._new_deal()
        for s in self.seats:
            self._new_bot(s.index, s.bot or self.game.stand_in_bot, 0)
        return [Event({"type": "match_start", "match_number": number}),
                *self.match.opening_events()]

    def _new_deal(self) -> None:
        """A game was dealt: its events start afresh (for late joiners and the bots)."""
        self._deals += 1
        self._game_events = []
        self._game_steps = 0
        if self.info is not None:
            self.info.stand_in.append([])
            self.info.holders.append([[self._holder(s)] for s in self.seats])
            self._holder_changes += 1

    def _holder(self, seat: Seat) -> JSON:
        """Who holds ``seat`` from the current step of the game on (``MatchInfo.holders``)."""
        return {"name": seat.name, "bot": seat.bot is not None,
                "strength": seat.strength(self._strengths), "since": self._game_steps}

    def _new_holder(self, seat: Seat) -> None:
        """``seat`` changed hands: mid-game its new holder plays the game's next steps (a
        seat only changes hands mid-game to a bot). Between games the next deal notes who
        holds every seat."""
        if self.info is None or self.game_over:
            return
        holders = self.info.holders[-1][seat.index]
        if holders[-1]["since"] == self._game_steps:
            holders.pop()  # gone before playing a step of this game
        holders.append(self._holder(seat))
        self._holder_changes += 1

    def _bot_seed(self, seat: int, seq: int) -> int:
        """Bots are seeded from the log, so a restored table rebuilds the same bots."""
        assert self.info is not None
        return (self.info.seed * 8 + seq * 4 + seat) % (1 << 63)

    def _observe(self, events: list[Event]) -> None:
        """Keep the current game's events for the bots and for late joiners' game log.

        Every seat has a bot ready to stand in, but few ever move: telling each
        of them every event as it happens cost more than the rest of an action,
        so they read these when asked to move.
        """
        self._game_events += [e for e in events if e.kind != "match_start"]

    def _bot(self, seat: int) -> Bot:
        """Seat ``seat``'s bot, told every game event of this game it has not seen yet."""
        bot = self._bots.get(seat)
        if bot is None:
            kind, seed = self._bots_due.pop(seat)
            bot = self._bots[seat] = self.game.bots[kind](seed)
        if isinstance(bot, ObservingBot):
            deal, read = self._bot_read.get(seat, (0, 0))
            if deal != self._deals:
                bot.new_game()
                read = 0
            for event in self._game_events[read:]:
                if event.kind not in TABLE_EVENTS:
                    bot.observe(event.for_seat(seat))
            self._bot_read[seat] = (self._deals, len(self._game_events))
        return bot

    def _new_bot(self, seat: int, kind: str, seq: int) -> None:
        """A new stand-in for ``seat``; it reads the current game from its start.

        Made when first asked to move (``_bot``): every seat has one, few ever move, and
        a bot's memory is about 1 KB. An untouched bot made later from the same seed is
        the same bot: it learns only from the events ``_bot`` tells it."""
        self._bots.pop(seat, None)
        self._bots_due[seat] = (kind, self._bot_seed(seat, seq))
        self._bot_read[seat] = (self._deals, 0)

    def _clear_votes(self) -> None:
        for seat in self.seats:
            seat.ready = False

    async def _commit(self, entry: dict[str, Any]) -> list[Event]:
        """Fold a new entry, make it durable, and record the match if it just ended.

        Called under the lock. If storage fails, the table's memory is ahead of
        its log, so the table is shut; it comes back from the log the next time it is
        looked for (``TableManager.locate``).

        Several processes (``tenure``): the lease is proved before the entry is
        folded and the append is fenced with its token; a lease lost or a fenced
        append refused (another process owns the table now) drops the table here
        (``_lose``) and raises ``TableMoved``: nothing was stored.
        """
        entry = {**entry, "at": _now_iso()}
        if self._intent is not None:
            entry["id"] = self._intent[0]
            if self._intent[1] is not None:
                entry["by"] = self._intent[1]
        seq = self.version + 1
        tenure = self.tenure
        if tenure is not None:
            held = not self.moved and await tenure.prove()
            # ``moved`` again: the table may have been dropped while this task proved,
            # and the cancel dropping it sent lost in Redis's client (``app.loops``).
            if not held or self.moved:
                self._lose("lease_lost", seq)
                raise TableMoved
        self._stored.clear()
        try:
            events = self._fold(seq, entry)
            await self._append(seq, entry)
        finally:
            self._stored.set()
        if self.match is not None and self.match.over and not self.info_recorded:
            events += await self._record_match()
        return events

    async def _append(self, seq: int, entry: dict[str, Any]) -> None:
        """(``_commit``.) Store the folded entry; the table is dropped or shut if it cannot."""
        tenure = self.tenure
        try:
            if tenure is None:
                await self.store.append(self.id, seq, entry)
            else:
                await self.store.append(self.id, seq, entry, fence=tenure.fence)
        except Fenced:
            self._lose("fenced", seq)
            raise TableMoved from None
        except Exception as exc:
            log_event(log, "table_storage_failed", logging.ERROR, table_id=self.id,
                      seq=seq, error=type(exc).__name__)
            # Refuse everything from now on; the sockets close once this answer is out.
            self.closed = True
            asyncio.get_running_loop().call_soon(
                self.shut, CLOSE_UNAVAILABLE, "the table could not be saved; reconnect later")
            if self.on_moved is not None:
                # Several processes: dropped here and its lease handed back, so it comes
                # back from its log (here or elsewhere) once the database takes writes.
                self.on_moved(self)
            raise TableError("unavailable", "the table could not be saved") from None

    async def stored_info(self) -> dict[str, Any] | None:
        """``public_info`` once all that is folded is stored; None if the table closed
        meanwhile (storage failed, or it moved to another process).

        ``_commit`` folds an entry before appending it (so an entry that cannot be
        applied never reaches the log), and the table's sockets hear of it only after
        the append. A read from outside (HTTP, another process) waits for the append
        too, a few ms: it never shows a change that may yet be lost. It does not wait
        for a bot's thinking, which comes before the fold.
        """
        while not self._stored.is_set():
            await self._stored.wait()
        return None if self.closed else self.public_info()

    async def _record_match(self) -> list[Event]:
        """Put the finished match in the history; on failure it stays in the log for a retry.

        A refused record must not stop the table: the match is over either way,
        and the next restore tries again (``finish_match`` stores a match once).
        """
        try:
            match_id = await self.store.finish_match(self.match_record())
        except Exception as exc:
            log_event(log, "match_record_failed", logging.ERROR, table_id=self.id,
                      error=f"{type(exc).__name__}: {exc}")
            return []
        return await self._commit({"kind": "recorded", "match_id": match_id})

    def match_record(self) -> dict[str, Any]:
        """The finished match in the shape ``TableStore.finish_match`` documents."""
        assert self.match is not None and self.info is not None
        match = self.match
        record = match.record()
        scoreboard = match.scoreboard()
        return {
            "game": self.game.name,
            "seats": self.game.seats,
            "table_id": self.id,
            "seed": record["seed"],
            "options": record["options"],
            # Who held each seat at the end; earlier holders are in each game's ``holders``.
            "players": [{"seat": seat, "name": last["name"], "bot": last["bot"],
                         "strength": last["strength"]}
                        for seat, (*_, last) in enumerate(self.info.holders[-1])],
            "started_at": self.info.started_at,
            "ended_at": self.info.ended_at,
            "games": [{"number": i + 1, "setup": g["setup"], "actions": g["actions"],
                       "result": g["result"], "winner": g["winner"],
                       "stand_in": self.info.stand_in[i], "holders": self.info.holders[i]}
                      for i, g in enumerate(record["games"])],
            "scoreboard": scoreboard,
            "standing": scoreboard["standing"],
            "winner": match.winner,
            "record": record,
        }

    async def open(self, host_token: str) -> None:
        """The first entry of a new table: who its host is (by token hash)."""
        async with self._lock:
            await self._commit({"kind": "open", "host_hash": hash_token(host_token)})
            self._watch_seatless_host()

    # -- connections --------------------------------------------------------------

    async def join(self, client: Client, token: str | None) -> None:
        """``hello``: attach a connection as a seat, the host, or a spectator."""
        async with self._lock:
            if self.moved:
                client.close(CLOSE_MOVED, MOVED_REASON)
                return
            if self.closed:
                client.send(messages.error("unknown_table", "this table is closed"))
                return
            seat: Seat | None = None
            host = False
            token_hash = None
            if token:
                token_hash = hash_token(token)
                seat = next((s for s in self.seats if same_hash(s.token_hash, token_hash)), None)
                host = same_hash(self.host_hash, token_hash)
                if seat is None and not host and token_hash not in self._retired:
                    self._refuse(client, "bad_token", "this token holds no seat at this table")
                    return
            self._detach(client)
            if token_hash is not None:
                for other in [c for c in self.clients if c.token_hash == token_hash]:
                    self._detach(other)
                    other.close(CLOSE_REPLACED, "replaced by a newer connection")
            client.seat, client.host, client.token_hash = (
                seat.index if seat else None, host, token_hash)
            client.joined = True
            self.clients.add(client)
            self.idle_since = None
            if seat is not None:
                if seat.grace is not None:
                    seat.grace.cancel()
                    seat.grace = None
                seat.client = client
                seat.away = False
                seat.back_by = None
            if host:
                self._host_back()
            client.send(messages.encode({"type": "welcome", "table_id": self.id,
                                         "seat": client.seat, "host": host, "v": self.version,
                                         "build": self.config.client_build}))
            # Everyone is told: a seat's player is back, or there is one more spectator.
            try:
                events = await self._pass_host()
            except TableError:
                return  # storage failed; the table has been shut
            self._settle()
            self._announce(events, joined=client)

    async def leave(self, client: Client) -> None:
        """The connection is gone; a seat is held for the grace period, then a bot plays it.

        Everyone is told: a seat lost its player, or there is one spectator fewer.
        """
        async with self._lock:
            if client not in self.clients:
                return
            if self._detach(client):
                self._settle()
            self._announce([])

    def _detach(self, client: Client) -> bool:
        """Forget a connection; True if a seat lost its player (everyone should see it)."""
        if client not in self.clients:
            return False
        self.clients.discard(client)
        self._replies.pop(client, None)
        if not self.clients:
            self.idle_since = time.monotonic()
        seat = self.seats[client.seat] if client.seat is not None else None
        was_host = client.host
        client.seat, client.host, client.token_hash, client.joined = None, False, None, False
        client.shown = None
        if was_host:
            self._watch_seatless_host()
        if seat is None or seat.client is not client:
            return False
        seat.client = None
        if not self.closed:
            self._start_grace(seat)
        return True

    def _later(self, make: Callable[[asyncio.TimerHandle], Coroutine[Any, Any, None]]
               ) -> asyncio.TimerHandle:
        """A grace timer: in ``reconnect_grace_seconds``, ``make(its handle)`` runs as a task.

        The task waits for the lock, and meanwhile the player may come back and go again
        (a new timer): told its own handle, a task whose timer is no longer the current
        one does nothing, instead of ending the new grace period at once."""
        handle: asyncio.TimerHandle

        def fire() -> None:
            self._spawn(make(handle))

        handle = asyncio.get_running_loop().call_later(self.config.reconnect_grace_seconds, fire)
        return handle

    def _start_grace(self, seat: Seat) -> None:
        seat.grace = self._later(lambda handle: self._grace_over(seat.index, handle))
        seat.back_by = time.time() + self.config.reconnect_grace_seconds

    async def _grace_over(self, index: int, handle: asyncio.TimerHandle) -> None:
        async with self._lock:
            seat = self.seats[index]
            if seat.grace is not handle:
                return  # the player came back meanwhile (and may have gone again)
            seat.grace = seat.back_by = None
            if self.closed or not seat.human or seat.client is not None or seat.away:
                return
            seat.away = True
            await self._pass_host_and_announce()

    def _watch_seatless_host(self) -> None:
        """A host who holds no seat gets a seat's grace period once no connection of its is
        here; past it the role passes (``_pass_host``): else the table would wait for good
        for a host who may never come back to start it or seat anyone."""
        if (self.closed or self._host_grace is not None or self.host_hash is None
                or self._host_seat() is not None or any(c.host for c in self.clients)):
            return
        self._host_grace = self._later(self._seatless_host_grace_over)
        self._host_back_by = time.time() + self.config.reconnect_grace_seconds

    def _host_back(self) -> None:
        if self._host_grace is not None:
            self._host_grace.cancel()
            self._host_grace = self._host_back_by = None
        self._seatless_host_gone = False

    async def _seatless_host_grace_over(self, handle: asyncio.TimerHandle) -> None:
        async with self._lock:
            if self._host_grace is not handle:
                return  # the host came back meanwhile (and may have gone again)
            self._host_grace = self._host_back_by = None
            if self.closed or self._host_seat() is not None or any(
                    c.host for c in self.clients):
                return
            self._seatless_host_gone = True
            await self._pass_host_and_announce()

    def _host_away(self) -> bool:
        """The host is gone past its grace period: from its seat, or holding none."""
        host = self._host_seat()
        return host.away if host is not None else self._seatless_host_gone

    async def _host_after_sit(self) -> None:
        """Someone sat while the host was away and nobody was here to take the role."""
        async with self._lock:
            if not self.closed:
                await self._pass_host_and_announce()

    async def _pass_host_and_announce(self) -> None:
        """(Under the lock.) ``_pass_host``, then everyone is told."""
        try:
            events = await self._pass_host()
        except TableError:
            return  # storage failed; the table has been shut
        self._settle()
        self._announce(events)

    def _host_seat(self) -> Seat | None:
        return next((s for s in self.seats
                     if s.human and same_hash(s.token_hash, self.host_hash)), None)

    async def _pass_host(self) -> list[Event]:
        """A host gone past the grace period hands the role to the longest-seated present human.

        Called under the lock when a seat's (or a seatless host's) grace ends, when a
        player comes back and when someone sits down.
        """
        if not self._host_away():
            return []
        heirs = sorted((s for s in self.seats if s.present), key=lambda s: s.sat_at)
        if not heirs:
            return []
        return await self._commit({"kind": "host", "seat": heirs[0].index, "reason": "away"})

    async def sync(self, client: Client) -> None:
        async with self._lock:
            if not self.closed:
                self._sync(client)

    async def chat(self, client: Client, text: str) -> None:
        if client.seat is None:
            self._refuse(client, "not_seated", "only seated players may chat")
            return
        try:
            text = clean_chat(text, self.config.chat_max_chars)
        except TableError as e:
            self._refuse(client, e.code, str(e))
            return
        data = messages.encode({"type": "chat", "seat": client.seat,
                                "name": self.seats[client.seat].name, "text": text,
                                "at": time.time()})
        for other in self.clients:
            other.send(data)

    def _refuse(self, client: Client, code: str, message: str,
                intent_id: str | None = None) -> bytes:
        data = messages.error(code, message, intent_id, self.version)
        if self.metrics is not None:
            self.metrics.record_error(code)
        client.send(data)
        return data

    # -- intents ---------------------------------------------------------------------

    async def submit(self, client: Client, intent: dict[str, Any]) -> None:
        """Check and apply one intent: ack the sender, then show everyone the result.

        ``intent`` is a validated wire message (``type``, optional ``id`` and
        ``v``, and its fields). An ``id`` already answered for this seat gets
        the same answer again and changes nothing.
        """
        started = time.perf_counter()
        intent_id: str | None = intent.get("id")
        async with self._lock:
            if intent_id is not None:
                replies = self._replies.get(_reply_key(client))
                seen = replies.get(intent_id) if replies else None
                if seen is not None:
                    client.send(seen)
                    return
            if self.moved:
                client.close(CLOSE_MOVED, MOVED_REASON)  # asked again of the new owner
                return
            try:
                if self.closed:
                    raise TableError("unknown_table", "this table is closed")
                if intent["type"] in self.game.actions:
                    kind = intent["type"]
                    unknown = set(intent).difference(self.game.fields[kind], _INTENT_KEYS)
                    if unknown:
                        raise TableError("malformed", f"a {self.game.title} {kind} has no "
                                                      f"field {shown(sorted(unknown)[0])}")
                v = intent.get("v")
                if v is not None and self._stale(client, intent, v):
                    if intent["type"] in self.game.actions:
                        # A malformed action is called that, whatever its version.
                        self.game.read_action(_action_of(intent), self.options.rules)
                    raise TableError("stale_version",
                                     f"you acted on version {v}; the table is at {self.version}")
                self._intent = None if intent_id is None else (intent_id, client.seat)
                try:
                    events = await self._apply_intent(client, intent)
                finally:
                    self._intent = None
            except TableMoved:
                return  # not stored: no answer here (the sockets close with CLOSE_MOVED)
            except (TableError, GameError) as e:
                reply = self._refuse(client, e.code, str(e), intent_id)
            else:
                self._settle()
                self._announce(events, acked=(client, intent_id))
                if self.metrics is not None and intent["type"] in self.game.actions:
                    self.metrics.record_action(time.perf_counter() - started)
                if intent_id is None or intent_id in self._replies.get(_reply_key(client), ()):
                    return  # ``_fold`` remembered the ack with the intent's (last) entry
                reply = messages.ack(intent_id, self.version)  # acked without an entry
            if intent_id is not None:
                self._remember(_reply_key(client), intent_id, reply)

    def _remember(self, key: str | Client, intent_id: str, reply: bytes) -> None:
        replies = self._replies.setdefault(key, OrderedDict())
        replies[intent_id] = reply
        if len(replies) > self.config.remembered_intents:
            replies.popitem(last=False)

    async def _apply_intent(self, client: Client, intent: dict[str, Any]) -> list[Event]:
        kind = intent["type"]
        if kind in self.game.actions:
            return await self._act(client, intent)
        if kind == "sit":
            return await self._sit(client, intent["seat"], intent["name"])
        if kind in _VOTES:
            return await self._vote(client, kind)
        if kind == "leave_seat":
            return await self._leave_seat(client)
        if not client.host:
            words = _HOST_ONLY.get(kind, kind.replace("_", " "))
            raise TableError("not_host", f"only the host may {words}")
        if kind == "add_bot":
            seat = self._seat(intent["seat"], "empty")
            return await self._commit({"kind": "bot_add", "seat": seat.index, "bot": self._bot_kind(
                intent.get("kind") or self.game.stand_in_bot)})
        if kind == "remove_bot":
            seat = self._seat(intent["seat"], "bot")
            if self.status == "playing":
                raise TableError("not_now", "bots can be removed only between games")
            return await self._commit({"kind": "bot_remove", "seat": seat.index})
        if kind == "make_host":
            seat = self._seat(intent["seat"], "human")
            if client.seat == seat.index:
                raise TableError("not_now", "you are the host already")
            if not seat.present:
                # An absent host could not start, seat or replace anyone: the table would wait.
                raise TableError("not_now", f"{seat.name} is not here: only a player at "
                                            "the table can be made host")
            return await self._commit({"kind": "host", "seat": seat.index,
                                       "reason": "handover"})
        if kind == "replace_seat":
            seat = self._seat(intent["seat"], "human")
            if seat.client is not None:
                raise TableError("not_now", f"{seat.name} is here: only an absent player's "
                                            "seat can be given to a bot or freed")
            bot = None if intent.get("kind") is None else self._bot_kind(intent["kind"])
            if bot is None and self.status == "playing":
                raise TableError("not_now", "a seat can be freed only between games; "
                                            "give it to a bot now")
            return await self._commit({"kind": "replace", "seat": seat.index, "bot": bot})
        if kind == "start":
            if self.match is not None:
                raise TableError("not_now", "the match has already started")
            if any(s.kind == "empty" for s in self.seats):
                raise TableError("not_now", "every seat needs a player or a bot to start")
            return await self._commit({"kind": "start", "seed": new_seed()})
        raise TableError("unknown_type", f"unknown intent {kind!r}")

    def _bot_kind(self, kind: str) -> str:
        if kind not in self.game.bots:
            raise TableError("malformed",
                             f"bot kind must be one of {', '.join(self.game.bot_order)}")
        return kind

    def _seat(self, index: int, expected: str) -> Seat:
        if not 0 <= index < len(self.seats):
            raise TableError("malformed", f"this table has seats 0 to {len(self.seats) - 1}")
        seat = self.seats[index]
        if seat.kind != expected:
            code = "seat_taken" if expected == "empty" else "not_now"
            raise TableError(code, f"seat {index} is {seat.kind}, not {expected}")
        return seat

    async def _sit(self, client: Client, index: int, name: str) -> list[Event]:
        if client.seat is not None:
            raise TableError("already_seated", f"you already hold seat {client.seat}")
        name = clean_name(name)
        seat = self._seat(index, "empty")
        # (A token that named a seat its holder left names none again: a new one; but the
        # host's names the role, which its new seat carries.)
        held = client.token_hash
        token = (None if held is not None and (held not in self._retired or client.host)
                 else new_token())
        token_hash = held if token is None else hash_token(token)
        events = await self._commit({"kind": "sit", "seat": index, "name": name,
                                     "token_hash": token_hash})
        client.seat, client.token_hash = index, token_hash
        seat.client = client
        client.send(messages.encode({"type": "seated", "seat": index, "token": token,
                                     "host": client.host}))
        if self._host_away():
            # The host left when nobody else was here: the first to sit takes the role
            # (once this intent is answered, as its own log entry), or the table would wait.
            self._spawn(self._host_after_sit())
        return events

    async def _leave_seat(self, client: Client) -> list[Event]:
        """``leave_seat``: the sender gives its seat up and watches on. In the lobby the seat
        is freed; once a match has started a bot plays it from now on (the stand-in, as when
        the host gives an absent player's seat away; after the match too, so a rematch is
        not left waiting for an empty seat). The host stays the host, holding no seat (as a
        creator who never sat: its token names the role, and it has a grace period when it
        goes); sitting again it keeps its token (``_sit``)."""
        if client.seat is None:
            raise TableError("not_seated", "you hold no seat")
        seat = self.seats[client.seat]
        bot = None if self.status == "lobby" else self.game.stand_in_bot
        events = await self._commit({"kind": "replace", "seat": seat.index, "bot": bot,
                                     "left": True})
        seat.client, client.seat = None, None
        # A full state follows the ack: a delta from a seat's view to a spectator's would
        # patch split views (shared and private parts) that are not split alike.
        client.shown = None
        client.send(messages.encode({"type": "unseated"}))
        return events

    async def _act(self, client: Client, intent: dict[str, Any]) -> list[Event]:
        """A game action: the game checks it when the entry is folded (``GameError``)."""
        if client.seat is None:
            raise TableError("not_seated", "only a seated player may play")
        if self.match is None or self.game_over:
            raise TableError("not_now", "no game is in progress")
        return await self._commit({"kind": "action", "seat": client.seat,
                                   "action": _action_of(intent)})

    async def _vote(self, client: Client, kind: str) -> list[Event]:
        """``ready`` or ``rematch``: logged like any change, so an acked vote survives a
        restart or a takeover. A seat that has voted already is acked at once and nothing
        is logged: its vote is durable, and an entry per press would move the version
        (and send everyone a delta) for nothing."""
        if client.seat is None:
            raise TableError("not_seated", f"only a seated player may vote to {kind}")
        wanted = "between_games" if kind == "ready" else "match_over"
        if self.status != wanted:
            when = wanted.replace("_", " ")
            raise TableError("not_now", f"{kind} is for when the table is {when}")
        if self.seats[client.seat].ready:
            return []
        return await self._commit({"kind": "vote", "seat": client.seat, "vote": kind})

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


    # -- the end ----------------------------------------------------------------------

    def lose(self) -> None:
        """(Several processes.) This process no longer owns the table (its lease was lost):
        refuse everything from now on and close every socket with ``CLOSE_MOVED``."""
        self._lose("lease_lost", None)

    def _lose(self, why: str, seq: int | None) -> None:
        if self.moved:
            return
        log_event(log, "table_moved", logging.WARNING, table_id=self.id, why=why, seq=seq)
        self.moved = self.closed = True
        # After the answer in hand (if any) is out, as for a storage failure.
        asyncio.get_running_loop().call_soon(self.shut, CLOSE_MOVED, MOVED_REASON)
        if self.on_moved is not None:
            self.on_moved(self)

    async def stop(self, code: int, reason: str) -> None:
        """Shut once the change in flight (if any) is durable and announced."""
        async with self._lock:
            self.shut(code, reason)

    def shut(self, code: int, reason: str) -> None:
        """Stop every timer and close every connection (the log is left as it is)."""
        self.closed = True
        if self._wake is not None:
            self._wake.cancel()
        for seat in self.seats:
            if seat.grace is not None:
                seat.grace.cancel()
        if self._host_grace is not None:
            self._host_grace.cancel()
        current = asyncio.current_task()
        for task in list(self._tasks):
            if task is not current:
                task.cancel()
        for client in list(self.clients):
            client.close(code, reason)
        self.clients.clear()
        self._timer = None


#: The intents that are a seat's vote (``_vote``).
_VOTES = ("ready", "rematch")
#: The host's own intents, in the words of the error a non-host gets.
_HOST_ONLY = {"add_bot": "add a bot", "remove_bot": "remove a bot",
              "make_host": "hand the host role over", "replace_seat": "free a seat or give it away",
              "start": "start the match"}

#: What every intent may carry besides a game action's own fields.
_INTENT_KEYS = frozenset({"type", "id", "v"})


def _actor(entry: dict[str, Any]) -> int | None:
    """The seat that made a logged game action (older Dingo logs put it in the action)."""
    if entry["kind"] != "action":
        return None
    seat: int = entry["seat"] if "seat" in entry else entry["action"]["seat"]
    return seat


def _action_of(intent: dict[str, Any]) -> JSON:
    """A game intent's action: the message without its ``id`` and ``v``."""
    return {k: v for k, v in intent.items() if k not in ("id", "v")}


def _reply_key(client: Client) -> str | Client:
    """Answers are remembered per token (so they survive a reconnect), else per socket."""
    return client.token_hash or client

