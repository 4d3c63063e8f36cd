"""What the clients of a table see: its status, its public information, ``state`` and
``delta``.

``TableViews`` is the part of ``Table`` that builds messages; it reads the table and
changes nothing but its caches and what each client was last shown (``Client.shown``).
``_state`` is THE builder of a full state (a seat gets its own view and its forms of the
events, spectators the public ones), sent on ``hello`` and ``sync``; after that
``_announce`` sends each client a ``delta``: the change from what it was last shown to
its view now (``patch.change``), built once per distinct viewer and group of clients
shown the same thing.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from app.games.contract import (
    JSON,
    Event,
    GameSpec,
    MatchState,
    SplitViews,
    ViewKeys,
)

from . import messages, patch
from .seats import Seat

if TYPE_CHECKING:
    from .client import Client
    from .clock import Timer
    from .options import TableOptions
    from .table import MatchInfo


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
    _host_back_by: float | None
    _strengths: dict[str, str]
    _bot_kinds: list[JSON]
    _rule: str
    _timer: Timer | None
    _split: SplitViews | None
    _deals: int
    _game_over: bool
    _game_events: list[Event]
    _keys: ViewKeys | None
    info: MatchInfo | None
    _scoreboard_seen: tuple[Hashable, bytes, messages.Embedded] | None
    _why_seen: tuple[tuple[int, bool], messages.Embedded | None] | None
    # The last ``state.table`` and ``state.seats``, with what they were built from.
    _table_seen: tuple[tuple[str, int | None, int, bool, float | None], dict[str, Any]] | None = (
        None)
    _seats_seen: tuple[tuple[Any, ...], list[dict[str, Any]]] | None = None
    #: Counts the changes to ``info.holders`` (a deal, a seat changing hands mid-game), so
    #: ``_seats`` knows when its ``earlier`` must be worked out again.
    _holder_changes: int = 0

    @property
    def status(self) -> str:
        if self.match is None:
            return "lobby"
        if self.match.over:
            return "match_over"
        return "between_games" if self.match.between_games else "playing"

    def _watchers(self) -> tuple[int, bool]:
        """How many connections hold no seat (spectators, and a host who holds none), and
        whether the host is among them."""
        watching = [c for c in self.clients if c.seat is None]
        return len(watching), any(c.host for c in watching)

    def public_info(self, *, presence: bool = True) -> dict[str, Any]:
        """``GET /api/tables/{id}``: public only (no card, no token).

        ``presence=False``: a table folded from its log by a process that could not ask
        its owner (``TableManager.public_info``): whether people are connected or away,
        and how many watch, is not known there, so it is null, not a guess (a bot is
        always connected, an empty seat never). Votes (``ready``) are logged: known."""
        seats = [s.public(self.host_hash, self._strengths) for s in self.seats]
        if not presence:
            for seat in seats:
                if seat["kind"] == "human":
                    seat.update(connected=None, away=None, back_by=None)
        return {"table_id": self.id, "url": f"/t/{self.id}", "game": self.game.name,
                "title": self.game.title, "options": self.options.public(),
                "status": self.status, "seats": seats,
                "spectators": self._watchers()[0] if presence else None,
                "match_id": self.match_id}

    def _common(self) -> dict[str, Any]:
        """The part of a state that is the same for every recipient (``table`` to ``timer``).

        Its sections are the same objects while they are equal (``_table_info``,
        ``_seats``, ``_scoreboard``), so a delta finds them unchanged by identity."""
        timer = self._timer
        return {
            "table": self._table_info(),
            "seats": self._seats(),
            "to_act": [] if self.match is None else sorted(self.match.to_act()),
            "match": self._scoreboard(),
            "why": self._why(),
            "timer": None if timer is None else {"seat": min(timer.seats),
                                                 "seats": sorted(timer.seats),
                                                 "deadline": timer.deadline,
                                                 "server_time": time.time()},
        }

    def _table_info(self) -> dict[str, Any]:
        """``state.table``: rebuilt only when its status, match id, watchers or the seatless
        host's grace change (the rest is fixed when the table is created).
        ``host_watching``: the host is here without a seat (no seat shows it, and the others
        wait on it to start or seat anyone); ``host_back_by``: such a host has gone, and the
        role passes then (a seat's ``back_by`` says it for a seated host)."""
        key = (self.status, self.match_id, *self._watchers(), self._host_back_by)
        seen = self._table_seen
        if seen is None or seen[0] != key:
            game = self.game
            seen = self._table_seen = (key, {
                "id": self.id, "game": game.name, "title": game.title, "rule": self._rule,
                "status": key[0], "options": self.options.public(), "match_id": key[1],
                "spectators": key[2], "host_watching": key[3], "host_back_by": key[4],
                "bot_kinds": self._bot_kinds})
        return seen[1]

    def _seats(self) -> list[dict[str, Any]]:
        """``state.seats``: rebuilt only when something ``Seat.public`` shows changed."""
        host_hash = self.host_hash
        played = self._played_by()
        key = (host_hash, played, self._holder_changes,
               *[(s.name, s.token_hash, s.bot, s.client is None, s.away, s.ready, s.back_by)
                 for s in self.seats])
        seen = self._seats_seen
        if seen is None or seen[0] != key:
            strengths = self._strengths
            seen = self._seats_seen = (key, [
                {**s.public(host_hash, strengths),
                 "played": None if p is None else {"name": p[0], "bot": p[1]},
                 "earlier": self._earlier(s, p)}
                for s, p in zip(self.seats, played or [None] * len(self.seats), strict=True)])
        return seen[1]

    def _earlier(self, seat: Seat, played: tuple[str, bool] | None) -> list[dict[str, Any]]:
        """Who else held ``seat`` in this match, each with the games (numbered from 1) they
        played in it, in the order they first did. Else than whom the scoreboard's column
        is named for: whoever holds the seat now, or between games whoever ended the game on
        the felt (``played``). A player who left mid-match played some of its games."""
        info = self.info
        if info is None:
            return []
        now = played if played is not None else (seat.name, seat.bot is not None)
        games: dict[tuple[str, bool], list[int]] = {}
        for number, held in enumerate(info.holders, start=1):
            for holder in held[seat.index]:
                who = (holder["name"], holder["bot"])
                if who != now:
                    numbers = games.setdefault(who, [])
                    if not numbers or numbers[-1] != number:
                        numbers.append(number)
        return [{"name": name, "bot": bot, "games": numbers}
                for (name, bot), numbers in games.items()]

    def _played_by(self) -> tuple[tuple[str, bool] | None, ...] | None:
        """Per seat, who played it (name, bot) at the end of the game on the felt, when
        someone else holds it now (between games a bot was removed, a seat taken or given
        away): the finished game's results and log are theirs, not the new holder's. None
        while a game is on (every action asks: nothing is built then)."""
        info = self.info
        if info is None or not self._game_over or not info.holders:
            return None
        return tuple(None if (last["name"], last["bot"]) == (s.name, s.bot is not None)
                     else (last["name"], last["bot"])
                     for s, (*_, last) in zip(self.seats, info.holders[-1], strict=True))

    def _scoreboard(self) -> messages.Embedded | None:
        """``MatchState.scoreboard()``, encoded once per version for every recipient (once per
        change for a game with ``ViewKeys``). Not once per game: a game may score in the
        middle of a deal (Bingo's bonus counts at once), and a stale scoreboard would differ
        from the one rebuilt after a restart. The same object while its encoding is the
        same, so a delta finds it unchanged by identity."""
        match = self.match
        if match is None:
            return None
        keys = self._keys
        number = 0 if self.info is None else self.info.number
        key = (number, self.version if keys is None else keys.scoreboard_key())
        seen = self._scoreboard_seen
        if seen is None or seen[0] != key:
            data = messages.encode(match.scoreboard())
            kept = seen[2] if seen is not None and seen[1] == data else messages.embed(data)
            seen = self._scoreboard_seen = (key, data, kept)
        return seen[2]

    def _why(self) -> messages.Embedded | None:
        """Once a game is over: why each seat scored what it did (``MatchState.why()``).
        Its seats stay ``{0}``, ``{1}`` ... as in a ``say``, for each page to word for its
        reader ("to your penalty pile"). Built once per finished game, for everyone."""
        match = self.match
        if match is None or not self._game_over:
            return None
        key = (self._deals, True)
        seen = self._why_seen
        if seen is None or seen[0] != key:
            why = match.why()
            seen = self._why_seen = (key, None if why is None else messages.embed(
                messages.encode(why)))
        return seen[1]

    def _view(self, viewer: int | None, shared: JSON | None) -> tuple[JSON | None, JSON | None]:
        """Seat ``viewer``'s view of the game (a spectator's: ``None``), and its private part
        when the game splits its views; ``shared``: this moment's ``SplitViews.shared_view()``,
        built once for every recipient."""
        split = self._split
        if split is not None:
            assert shared is not None
            private = split.private_view(viewer)
            return {**shared, **private}, private
        return (None if self.match is None else self.match.view(viewer)), None

    def _state(self, viewer: int | None, events: list[Event], common: dict[str, Any],
               shared: JSON | None) -> tuple[bytes, Shown]:
        """THE builder of a full ``state``: everything seat ``viewer`` may see now (its own
        view, its forms of the events; spectators the public ones) and the current game's
        events so far (``log``), for a connection that joined or resynced; and what it
        shows, which the recipient's next delta starts from.

        ``common`` and ``shared``: this moment's ``_common()`` and shared view (``_view``).
        """
        view, private = self._view(viewer, shared)
        data = messages.encode({
            "type": "state", "v": self.version, **common, "game": view,
            "events": [e.for_seat(viewer) for e in events],
            "log": [e.for_seat(viewer) for e in self._game_events]})
        return data, Shown(self.version, common, view, shared, private)

    def _send_state(self, client: Client, events: list[Event], common: dict[str, Any],
                    shared: JSON | None) -> None:
        data, client.shown = self._state(self._seen_as(client.seat), events, common, shared)
        client.send(data)

    def _seen_as(self, seat: int | None) -> int | None:
        """Whose view the holder of ``seat`` gets: the seat's, but for a finished game that
        someone else played there (the seat was taken or given away since it ended), a
        spectator's: that game's hand and private moves were theirs (``_played_by``)."""
        if seat is None:
            return None
        played = self._played_by()
        return None if played is not None and played[seat] is not None else seat

    def _sync(self, client: Client) -> None:
        """A full ``state`` for ``client`` (``sync``, or a client shown nothing yet)."""
        self._send_state(client, [], self._common(), self._shared())

    def _shared(self) -> JSON | None:
        """This moment's ``SplitViews.shared_view()`` (``None`` for other games)."""
        split = self._split
        return None if split is None else split.shared_view()

    def _announce(self, events: list[Event], joined: Client | None = None,
                  acked: tuple[Client, str | None] | None = None) -> None:
        """Send every client what changed for it since what it was last shown.

        Each recipient's new view is built once per distinct viewer, and its ``delta``
        (``patch.change`` from its last view to this one, the events in its form) once per
        group of clients shown the same thing. ``joined``, a connection that just
        (re)joined, gets a full ``state`` with the game log instead. ``acked``: the
        client whose intent this change answers, and its id: its delta carries ``ack``.

        For a game that splits its views, a seat whose private part did not change (the
        game's ``ViewKeys.private_key`` says so without building it) and whose events are
        the public forms gets the same delta as every other such seat shown the same
        thing before: it is encoded once.
        """
        common, shared = self._common(), self._shared()
        version = self.version
        actor, ack_id = acked if acked is not None else (None, None)
        if actor is not None and (actor is joined or actor.shown is None
                                  or actor not in self.clients):
            actor.send(messages.ack(ack_id, version))
            actor = None
        groups: dict[tuple[int | None, int], list[Client]] = {}
        for client in self.clients:
            if client is joined or client.shown is None:
                self._send_state(client, events, common, shared)
            else:
                groups.setdefault((self._seen_as(client.seat), id(client.shown)),
                                  []).append(client)
        common_changes: dict[int, tuple[JSON, patch.Gone]] = {}
        shared_changes: dict[int, tuple[Any, patch.Gone]] = {}
        #: Encoded deltas of seats with nothing of their own in them, by what they hold.
        plain: dict[tuple[int, int, int], bytes | None] = {}
        public = [e.public for e in events]
        now: dict[int | None, Shown] = {}
        for (viewer, _), clients in groups.items():
            old = clients[0].shown
            assert old is not None
            new = now.get(viewer)
            if new is None:
                new = now[viewer] = self._shown(viewer, common, shared, old)
            forms = [e.for_seat(viewer) for e in events]
            split = old.split_from(new)
            # Nothing of its own: the private part unchanged, the events' public forms.
            bystander = (split and new.private is old.private
                         and all(map(operator.is_, forms, public)))
            key = (id(old.common), id(old.shared), old.v)
            if bystander and key in plain:
                data = plain[key]
            else:
                data = self._delta(old, new, common, shared, forms,
                                   common_changes, shared_changes, split)
                if bystander:
                    plain[key] = data
            for client in clients:
                client.shown = new
                if client is actor:
                    client.send(messages.ack(ack_id, version) if data is None
                                else messages.merge(data, {"ack": ack_id}))
                elif data is not None:
                    client.send(data)

    def _shown(self, viewer: int | None, common: dict[str, Any], shared: JSON | None,
               old: Shown) -> Shown:
        """What ``viewer`` is shown now. A private part the game's ``ViewKeys`` knows to be
        unchanged since ``old`` is ``old``'s (the same object), not built again."""
        key: Hashable | None = None
        keys = self._keys
        if keys is not None:
            key = keys.private_key(viewer)
            if key is not None:
                key = (viewer, self._deals, key)
                if key == old.key and old.private is not None:
                    return Shown(self.version, common, None, shared, old.private, key)
        split = self._split
        if split is not None:  # ``Shown`` keeps the two parts: they are not joined here
            return Shown(self.version, common, None, shared, split.private_view(viewer), key)
        view, _ = self._view(viewer, shared)
        return Shown(self.version, common, view, None, None, key)

    def _delta(self, old: Shown, new: Shown, common: dict[str, Any], shared: JSON | None,
               forms: list[JSON], common_changes: dict[int, tuple[JSON, patch.Gone]],
               shared_changes: dict[int, tuple[Any, patch.Gone]], split: bool) -> bytes | None:
        """The encoded ``delta`` from ``old`` to ``new`` with the events ``forms`` (None when
        there is nothing to send); what every group shares is compared once per announce."""
        common_change = common_changes.get(id(old.common))
        if common_change is None:
            common_change = common_changes[id(old.common)] = _common_change(old.common, common)
        changes, gone = common_change[0], list(common_change[1])
        if split:
            # The shared part's change once for every viewer, then this one's own.
            shared_change = shared_changes.get(id(old.shared))
            if shared_change is None:
                shared_gone: patch.Gone = []
                shared_change = shared_changes[id(old.shared)] = (
                    patch.change(old.shared, new.shared, ("game",), shared_gone), shared_gone)
            own = patch.change(old.private, new.private, ("game",), gone)
            gone += shared_change[1]
            game = _union(shared_change[0], own)
        else:
            game = patch.change(old.game, new.game, ("game",), gone)
        if game is not patch.SAME:
            changes = {**changes, "game": game}  # the common change is shared: a copy
        if not (changes or gone or forms or old.v != new.v):
            return None
        delta: JSON = {"type": "delta", "from": old.v, "v": new.v, "patch": changes,
                       "events": forms}
        if gone:
            delta["gone"] = gone
        return messages.encode(delta)


class Shown:
    """What one client was last sent: the version, the sections every recipient shares,
    and its game view: whole, or for a game that splits its views, its shared and private
    parts (kept apart: a seated connection holds its last view while idle). Clients shown
    the same thing hold the same object (a delta is built once for them). ``key``: the
    viewer, the deal and the game's ``ViewKeys.private_key`` the private part was built
    at (None when the game gave none)."""

    __slots__ = ("_game", "common", "disjoint", "key", "private", "shared", "v")

    def __init__(self, v: int, common: dict[str, Any], game: JSON | None,
                 shared: JSON | None = None, private: JSON | None = None,
                 key: Hashable | None = None) -> None:
        self.v = v
        self.common = common
        split = shared is not None and private is not None
        self._game = None if split else game
        self.shared = shared if split else None
        self.private = private if split else None
        self.key = key
        #: Split, and no private key is a shared key too.
        self.disjoint = (split and private is not None and shared is not None
                         and private.keys().isdisjoint(shared))

    @property
    def game(self) -> JSON | None:
        """The game view as the client holds it."""
        if self.shared is not None and self.private is not None:
            return {**self.shared, **self.private}
        return self._game

    def split_from(self, new: Shown) -> bool:
        """The change to ``new`` is the shared part's plus the private part's: both views
        are split, and in each the private keys are not shared keys too."""
        return self.disjoint and new.disjoint


def _union(shared: Any, own: Any) -> Any:
    """The game's change from its shared part's and its private part's (disjoint keys)."""
    if shared is patch.SAME:
        return own
    if own is patch.SAME:
        return shared
    return {**shared, **own}


def _common_change(old: dict[str, Any], new: dict[str, Any]) -> tuple[JSON, patch.Gone]:
    """The patch (and ``gone``) from one ``_common()`` to another. The timer counts as
    changed when its seats or deadline do (``server_time`` is only the clock when the
    state was built)."""
    changes: JSON = {}
    gone: patch.Gone = []
    for key, value in new.items():
        before = old[key]
        if before is value:  # most sections are kept while they are equal (``_common``)
            continue
        if key == "timer" and before is not None and value is not None and (
                before["deadline"] == value["deadline"] and before["seats"] == value["seats"]):
            continue
        changed = patch.change(before, value, (key,), gone)
        if changed is not patch.SAME:
            changes[key] = changed
    return changes, gone
