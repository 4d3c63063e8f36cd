"""What the clients of a table see: its status, its public information, and ``state``.

``TableViews`` is the part of ``Table`` that builds messages; it reads the table and
changes nothing but its caches. ``_state`` is THE builder of what a recipient is shown
(a seat gets its own view and its forms of the events, spectators the public ones), and
``_announce`` builds and encodes each distinct view once per change.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from app.games.contract import JSON, Event, GameSpec, MatchState, SplitViews, seat_labels

from . import messages
from .seats import Seat, fill_names_encoded

if TYPE_CHECKING:
    from .client import Client
    from .clock import Timer
    from .options import TableOptions


class TableViews:
    # What the table holds and these read (``Table.__init__`` sets them).
    id: str
    game: GameSpec
    options: TableOptions
    match: MatchState | None
    match_id: int | None
    version: int
    seats: list[Seat]
    clients: set[Client]
    host_hash: str | None
    _strengths: dict[str, str]
    _bot_kinds: list[JSON]
    _rule: str
    _timer: Timer | None
    _split: SplitViews | None
    _deals: int
    _game_over: bool
    _game_events: list[Event]
    _scoreboard_seen: tuple[int, bytes] | None
    _why_seen: tuple[tuple[int, bool], bytes | None] | None

    @property
    def status(self) -> str:
        if self.match is None:
            return "lobby"
        if self.match.over:
            return "match_over"
        return "between_games" if self.match.between_games else "playing"

    @property
    def spectators(self) -> int:
        """Connections without a seat: spectators, and a host who has not sat down."""
        return sum(1 for c in self.clients if c.seat is None)

    def public_info(self) -> dict[str, Any]:
        return {"table_id": self.id, "url": f"/t/{self.id}", "game": self.game.name,
                "title": self.game.title, "options": self.options.public(),
                "status": self.status,
                "seats": [s.public(self.host_hash, self._strengths) for s in self.seats],
                "spectators": self.spectators, "match_id": self.match_id}

    def _common(self) -> bytes:
        """The part of ``state`` that is the same for every recipient, encoded."""
        timer = self._timer
        game = self.game
        return messages.encode({
            "type": "state",
            "v": self.version,
            "table": {"id": self.id, "game": game.name, "title": game.title, "rule": self._rule,
                      "status": self.status, "options": self.options.public(),
                      "match_id": self.match_id, "spectators": self.spectators,
                      "bot_kinds": self._bot_kinds},
            "seats": [s.public(self.host_hash, self._strengths) for s in self.seats],
            "to_act": [] if self.match is None else sorted(self.match.to_act()),
            "match": self._scoreboard(),
            "why": self._why(),
            "timer": None if timer is None else {"seat": min(timer.seats),
                                                 "seats": sorted(timer.seats),
                                                 "deadline": timer.deadline,
                                                 "server_time": time.time()},
        })

    def _scoreboard(self) -> messages.Embedded | None:
        """``MatchState.scoreboard()``, encoded once per version for every recipient. Not
        once per game: a game may score in the middle of a deal (Bingo's bonus counts at
        once), and a stale scoreboard would differ from the one rebuilt after a restart."""
        match = self.match
        if match is None:
            return None
        seen = self._scoreboard_seen
        if seen is None or seen[0] != self.version:
            seen = self._scoreboard_seen = (self.version, messages.encode(match.scoreboard()))
        return messages.embed(seen[1])

    def _why(self) -> messages.Embedded | None:
        """Once a game is over: why each seat scored what it did (``MatchState.why()``),
        with the players' names in place of the game's ``{0}``, ``{1}`` ... Built once per
        finished game."""
        match = self.match
        if match is None or not self._game_over:
            return None
        key = (self._deals, True)
        seen = self._why_seen
        if seen is None or seen[0] != key:
            labels = seat_labels([s.name or f"Seat {s.index + 1}" for s in self.seats])
            why = match.why()
            seen = self._why_seen = (key, None if why is None else fill_names_encoded(
                messages.encode(why), labels))
        return None if seen[1] is None else messages.embed(seen[1])

    def _shared_view(self) -> bytes | None:
        """The view's part every recipient shares (``SplitViews.shared_view``), encoded."""
        split = self._split
        return None if split is None else messages.encode(split.shared_view())

    def _state(self, viewer: int | None, events: list[Event],
               common: bytes | None = None, shared_view: bytes | None = None,
               with_log: bool = False) -> bytes:
        """THE builder of what a recipient is shown: seat ``viewer``'s view, or a spectator's.

        ``common`` and ``shared_view``: ``_common()`` and ``_shared_view()`` of this
        moment, when they are built once for several recipients.
        ``with_log``: add the current game's events so far (``log``), for a connection
        that joined or resynced and so has not seen them.
        """
        own: dict[str, Any] = {"game": None}
        match, split = self.match, self._split
        if split is not None:
            shared = shared_view or self._shared_view()
            assert shared is not None
            own["game"] = messages.embed(messages.merge(shared, split.private_view(viewer)))
        elif match is not None:
            own["game"] = match.view(viewer)
        own["events"] = [e.for_seat(viewer) for e in events]
        if with_log:
            own["log"] = [e.for_seat(viewer) for e in self._game_events]
        return messages.merge(common or self._common(), own)

    def _announce(self, events: list[Event], joined: Client | None = None) -> None:
        """Send every client the new state, building and encoding each distinct view once.

        ``joined``, a connection that just (re)joined, gets its own copy with the game log.
        """
        common, shared = self._common(), self._shared_view()
        by_viewer: dict[int | None, list[Client]] = {}
        for client in self.clients:
            if client is not joined:
                by_viewer.setdefault(client.seat, []).append(client)
        for viewer, clients in by_viewer.items():
            data = self._state(viewer, events, common, shared)
            for client in clients:
                client.send(data)
        if joined is not None:
            joined.send(self._state(joined.seat, events, common, shared, with_log=True))
