"""Shared by tests/hardening: tables of every registered game, and a leak oracle for them.

The leak oracle (``Oracle``) rebuilds a table's match from its log with the bare game
engine and decides, from the engine alone, what each viewer (a seat, or ``None`` for a
spectator) may be shown at every version. It knows no game's rules: what is hidden is
whatever the game's ``redeal(match, seat, rng)`` may change, i.e. another world the
viewer cannot tell from the real one. Three checks come from that:

- events: before every action, worlds the viewer cannot tell apart are drawn (a redeal,
  and when another seat acts, any of that seat's legal actions there); after the action,
  every world in which the viewer's view is still the same must have given it the very
  same event forms (else an event told it something its view does not: a leak). So a
  face-down card named in an event, a drawn tile in the public form, or which card the
  other seat committed, all fail;
- views, scoreboards and refusals are the same in every such world (a refused intent's
  message may not depend on a hidden card either);
- values: ``hidden(version, viewer)``, every code that is somewhere else in some world
  (another hand, another place in the stock, another face-down card) and that the
  viewer's view and checked events never showed it. No frame the viewer received at that
  version may carry one, as a whole string or as a word of any text (errors, chat, the
  game log, the table's own events). Public values (both hands in Divide, the other's
  unplayed cards in Mate) are never in it, so it cannot flag public information.

Frames are then compared with what the engine gives that viewer (``check_frames``): the
view exactly, and every game event a form the viewer was given.
"""

from __future__ import annotations

import json
import logging
import random
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from serverkit import join
from tablekit import TWO_SEAT_GAMES, Player

from app import games
from app.games.contract import JSON, Event, GameError, GameSpec, MatchState
from app.table.table import TABLE_EVENTS

GAMES = games.names()
TWO_SEAT = TWO_SEAT_GAMES
#: Game options for short matches at a test table (every other option: its default).
SHORT: dict[str, dict[str, Any]] = {"divide": {"target_wins": 1}, "dingo": {"games_to_win": 1}}

Viewer = int | None

class ErrorLog(logging.Handler):
    """Collects what a server in this process logs at ERROR and up, or with a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.records.append(record)

    def problems(self) -> list[str]:
        return [f"{r.levelname} {r.name}: {r.getMessage()}" for r in self.records]


#: The interpreter's recursion limit as a server runs with it (``dingo serve`` leaves it).
SERVER_RECURSION_LIMIT = sys.getrecursionlimit()


@contextmanager
def server_recursion_limit() -> Iterator[None]:
    """Hypothesis raises the recursion limit (to about 2,000) while it runs a test, and an
    app under Starlette's TestClient (another thread of this process) shares it: inside
    this, the limit is the server's, so input nested deep enough to raise RecursionError
    in a server raises it here too (without it the deep-input tests could not fail)."""
    raised = sys.getrecursionlimit()
    sys.setrecursionlimit(SERVER_RECURSION_LIMIT)
    try:
        yield
    finally:
        sys.setrecursionlimit(raised)


def table_body(name: str, options: dict[str, Any] | None = None, **extra: Any
               ) -> dict[str, Any]:
    """``POST /api/tables`` for a short match of ``name`` (or with ``options``), no timer."""
    chosen = SHORT.get(name, {}) if options is None else options
    return {"game": name, "options": chosen, "turn_seconds": None, **extra}


def variants(name: str) -> list[dict[str, Any]]:
    """The short match's options, and if the game has switches or choices, the same with
    each of them set otherwise (e.g. Bingo's open tally, Divide's long deck): what a seat
    is shown may depend on them."""
    base = dict(SHORT.get(name, {}))
    other = dict(base)
    for option in games.get(name).options:
        if option.kind == "bool":
            other[option.name] = not option.default
        elif option.kind == "choice":
            other[option.name] = next(c for c in option.choices if c != option.default)
    return [base, other] if other != base else [base]


async def seated(base: str, name: str, players: list[Player] | None = None,
                 **extra: Any) -> tuple[str, list[Player], list[str]]:
    """A table of ``name`` with a person in every seat (not started); its id, the players
    by seat and their tokens (the host's is seat 0's). ``players`` collects them too."""
    async with httpx.AsyncClient(base_url=f"http://{base}") as http:
        r = await http.post("/api/tables", json=table_body(name, **extra))
        assert r.status_code == 201, r.text
        table_id, host = r.json()["table_id"], r.json()["host_token"]
    seats = games.get(name).seats
    out: list[Player] = []
    for seat in range(seats):
        player = await join(base, table_id, host if seat == 0 else None)
        if players is not None:
            players.append(player)
        answer = await player.intent({"type": "sit", "seat": seat, "name": f"P{seat}"})
        assert answer["type"] == "ack", answer
        out.append(player)
    return table_id, out, [host] + [p.token or "" for p in out[1:]]


async def started(base: str, name: str, players: list[Player] | None = None,
                  **extra: Any) -> tuple[str, list[Player], list[str]]:
    """``seated``, then started, every seat caught up."""
    table_id, out, tokens = await seated(base, name, players, **extra)
    assert (await out[0].intent({"type": "start"}))["type"] == "ack"
    version = out[0].state["v"]
    for p in out:
        await p.until(lambda s: s["v"] >= version)
    assert out[0].state["table"]["status"] == "playing"
    return table_id, out, tokens


def wire(action: JSON) -> JSON:
    """A legal action as sent: unchanged, but without the seat (Dingo's legal names it)."""
    return {k: v for k, v in action.items() if k != "seat"}


def clone(spec: GameSpec, match: MatchState, rules: JSON) -> MatchState:
    """A copy of ``match`` rebuilt from its record (seed and actions), as a table restores
    one (a match need not be ``deepcopy``-able)."""
    record = match.record()
    again = spec.new_match(record["seed"], rules)
    for number, game in enumerate(record["games"]):
        if number:
            again.start_next_game()
        for seat, action in game["actions"]:
            again.apply(seat, action)
    return again


# -- the leak oracle -----------------------------------------------------------------------


def encoded(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def frozen(value: Any) -> Any:
    """A JSON copy (nothing shared with the live match)."""
    return json.loads(json.dumps(value))


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value: keys, values, and the words of longer texts."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item.keys())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            yield item


def placed(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """(where, string) for every string leaf; a list of plain values is a set (its index
    is not part of where: a sorted hand shifts when one card changes), others keep it."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from placed(v, (*path, k))
    elif isinstance(value, list):
        flat = all(not isinstance(v, dict | list) for v in value)
        for i, v in enumerate(value):
            yield from placed(v, (*path, "*" if flat else i))
    elif isinstance(value, str):
        yield path, value


def moved(real: JSON, other: JSON) -> set[str]:
    """The strings whose places differ between two records of the same match."""
    def places(record: JSON) -> dict[str, set[tuple[Any, ...]]]:
        out: dict[str, set[tuple[Any, ...]]] = {}
        for where, text in placed(record):
            out.setdefault(text, set()).add(where)
        return out

    a, b = places(real), places(other)
    return {text for text in a.keys() | b.keys() if a.get(text) != b.get(text)}


def mentions(frame: Any, values: Iterable[str]) -> set[str]:
    """Which of ``values`` ``frame`` carries: as a whole string, or as a word of a text."""
    values = set(values)
    if not values:
        return set()
    found: set[str] = set()
    word = re.compile("|".join(rf"(?<![\w-]){re.escape(v)}(?![\w-])"
                               for v in sorted(values, key=len, reverse=True)))
    for text in strings(frame):
        if text in values:
            found.add(text)
        elif len(text) > 1:
            found.update(word.findall(text))
    return found


@dataclass
class Expected:
    """What the engine says one viewer may be shown at one version."""

    view: JSON | None
    events: list[JSON]  # the game events of the entry that made this version
    log: list[JSON]  # every game event of the current game so far
    hidden: frozenset[str]


@dataclass
class Oracle:
    spec: GameSpec
    rules: JSON
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    #: Worlds drawn per viewer and action.
    worlds: int = 2
    #: (version, seat, action, refusal code) of refused intents to check (``refused``).
    refusals: list[tuple[int, int, JSON]] = field(default_factory=list)
    #: How many (world, action) comparisons were made, and how many worlds agreed.
    compared: int = 0
    agreed: int = 0
    #: Refusals checked in other worlds.
    refusals_checked: int = 0
    #: The intent ids of ``refusals`` (for ``check_frames``).
    vouched: frozenset[str] = frozenset()

    @property
    def viewers(self) -> list[Viewer]:
        return [*range(self.spec.seats), None]

    def _world(self, match: MatchState, viewer: Viewer) -> MatchState:
        assert self.spec.redeal is not None
        other = self.spec.redeal(match, viewer, self.rng)
        return clone(self.spec, match, self.rules) if other is match else other

    def replay(self, entries: list[dict[str, Any]]) -> dict[int, dict[Viewer, Expected]]:
        """Every version of the log (with ``seq``): per viewer, what it may be shown."""
        out: dict[int, dict[Viewer, Expected]] = {}
        match: MatchState | None = None
        logs: dict[Viewer, list[JSON]] = {v: [] for v in self.viewers}
        told: dict[Viewer, set[str]] = {v: set() for v in self.viewers}  # checked events
        for entry in entries:
            kind, seq = entry["kind"], entry["seq"]
            events: list[Event] = []
            checked = False
            if kind in ("start", "rematch"):
                match = self.spec.new_match(int(entry["seed"]), self.rules)
                events = match.opening_events()
            elif kind == "next_game":
                assert match is not None
                events = match.start_next_game()
            elif kind == "action":
                assert match is not None
                seat = entry["seat"] if "seat" in entry else entry["action"]["seat"]
                events, hidden = self._action(match, seat, entry["action"])
                checked = True
            if kind in ("start", "rematch", "next_game"):
                logs = {v: [] for v in self.viewers}
                told = {v: set() for v in self.viewers}
            if match is None:
                continue
            forms = {v: [frozen(e.for_seat(v)) for e in events] for v in self.viewers}
            if not checked:
                hidden = self._hidden(match)
            per: dict[Viewer, Expected] = {}
            for v in self.viewers:
                logs[v] = logs[v] + forms[v]
                view = frozen(match.view(v))
                if not checked:  # a deal: its forms only get the value check
                    leaked = mentions(forms[v], hidden[v] - set(strings(view)))
                    assert not leaked, (f"viewer {v} is dealt an event naming {sorted(leaked)}"
                                        f" at v{seq}: {forms[v]}")
                else:
                    told[v] |= set(strings(forms[v]))
                public = set(strings(view)) | told[v]
                per[v] = Expected(view, forms[v], logs[v], frozenset(hidden[v] - public))
            out[seq] = per
            for version, seat, action in self.refusals:
                if version == seq:
                    self._refusal(match, seat, action, seq)
        return out

    def _hidden(self, match: MatchState) -> dict[Viewer, set[str]]:
        if match.over or match.between_games:
            return {v: set() for v in self.viewers}
        real = match.record()
        out: dict[Viewer, set[str]] = {}
        for v in self.viewers:
            out[v] = set()
            for _ in range(self.worlds):
                out[v] |= moved(real, self._world(match, v).record())
        return out

    def _action(self, match: MatchState, seat: int, action: JSON
                ) -> tuple[list[Event], dict[Viewer, set[str]]]:
        """Apply the logged action, checking every viewer's event forms against worlds it
        cannot tell from this one; the events, and per viewer the values those worlds
        moved (what it may not know after the action)."""
        trials: list[tuple[Viewer, MatchState, list[Event]]] = []
        for v in self.viewers:
            for n in range(self.worlds):
                world = self._world(match, v)
                choice = action  # the seat's own move: it knows what it did
                if v != seat:
                    legal = world.legal(seat)
                    assert legal, f"seat {seat} may not act in a world viewer {v} cannot rule out"
                    if n % 2 or action not in legal:
                        choice = self.rng.choice(legal)  # the other seat chose anything
                try:
                    trials.append((v, world, world.apply(seat, choice)))
                except GameError as e:
                    assert v != seat, (f"seat {seat}'s own move {action} is refused in a world "
                                       f"it cannot tell from the real one: {e}")
        events = match.apply(seat, action)
        hidden: dict[Viewer, set[str]] = {v: set() for v in self.viewers}
        real = match.record()
        for v, world, got in trials:
            self.compared += 1
            if encoded(world.view(v)) != encoded(match.view(v)):
                continue  # the move showed the viewer something that rules this world out
            self.agreed += 1
            mine = [e.for_seat(v) for e in events]
            theirs = [e.for_seat(v) for e in got]
            assert encoded(theirs) == encoded(mine), (
                f"viewer {v} cannot tell two worlds apart by its view, yet seat {seat}'s "
                f"move gave it different events:\n real:  {mine}\n other: {theirs}")
            assert encoded(world.scoreboard()) == encoded(match.scoreboard()), v
            assert encoded(world.why()) == encoded(match.why()), v
            if not (match.over or match.between_games):
                hidden[v] |= moved(real, world.record())
        return events, hidden

    def _refusal(self, match: MatchState, seat: int, action: JSON, seq: int) -> None:
        """A refused action is refused alike in every world its sender cannot rule out."""
        def outcome(m: MatchState) -> str:
            try:
                m.apply(seat, action)
            except GameError as e:
                return f"{e.code}: {e}"
            return "accepted"

        real = outcome(clone(self.spec, match, self.rules))
        for _ in range(self.worlds):
            other = outcome(self._world(match, seat))
            assert other == real, (f"at v{seq} seat {seat}'s {action} is answered "
                                   f"{real!r}, but {other!r} in a world it cannot tell apart")
            self.refusals_checked += 1


def tagged(frames: Iterable[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(version, frame): its own ``v``, or the last one its socket saw."""
    version = -1
    for frame in frames:
        if isinstance(frame.get("v"), int):
            version = frame["v"]
        yield version, frame


def game_events(events: list[JSON]) -> list[JSON]:
    return [e for e in events if e.get("type") not in TABLE_EVENTS]


def check_frames(viewer: Viewer, streams: Iterable[Iterable[dict[str, Any]]],
                 expected: dict[int, dict[Viewer, Expected]],
                 vouched: frozenset[str] = frozenset()) -> int:
    """Every frame ``viewer`` received, on each of its sockets, against the oracle; how many
    frames were checked. ``vouched``: ids of refusals whose answer the oracle found the
    same in other worlds (the engine's words, e.g. an example tile in "a tile is written
    as 2-5", are then not a leak)."""
    checked = 0
    for frames in streams:
        for version, frame in tagged(frames):
            if version not in expected:
                continue
            want = expected[version][viewer]
            where = f"viewer {viewer}, v{version}, {frame['type']}: {str(frame)[:400]}"
            shown = frame
            if frame["type"] == "error" and frame.get("id") in vouched:
                shown = {k: v for k, v in frame.items() if k != "message"}
            leaked = mentions(shown, want.hidden)
            assert not leaked, f"shown hidden {sorted(leaked)}: {where}"
            if frame["type"] == "state" and frame.get("v") == version:
                assert frame["game"] == want.view, f"not the viewer's view: {where}"
                for event in game_events(frame["events"]):
                    assert event in want.log, f"not an event form it was given: {where}"
                if "log" in frame:
                    assert game_events(frame["log"]) == want.log, f"not its game log: {where}"
            checked += 1
    return checked


def playout_entries(spec: GameSpec, rules: JSON, seed: int) -> list[dict[str, Any]]:
    """A table log (``start``, ``action``, ``next_game`` entries) of a random match."""
    match = spec.new_match(seed, rules)
    rng = random.Random(seed)
    entries: list[dict[str, Any]] = [{"kind": "start", "seed": seed, "seq": 1}]
    while not match.over:
        if match.between_games:
            match.start_next_game()
            entries.append({"kind": "next_game"})
        else:
            seat = rng.choice(sorted(match.to_act()))
            action = rng.choice(match.legal(seat))
            match.apply(seat, action)
            entries.append({"kind": "action", "seat": seat, "action": wire(action)})
        entries[-1]["seq"] = len(entries)
    return entries


async def next_actor(players: list[Player], rng: random.Random) -> Player:
    """A seat that may act now, every player caught up (between games everyone is ready;
    after the match everyone asks for a rematch)."""
    for _ in range(20):
        version = max(p.state["v"] for p in players)
        for p in players:
            await p.until(lambda s, x=version: s["v"] >= x)
        state = players[0].state
        if state["to_act"]:
            return players[rng.choice(state["to_act"])]
        kind = "rematch" if state["table"]["status"] == "match_over" else "ready"
        for p in players:
            await p.intent({"type": kind})
        await players[0].until(lambda s: bool(s["to_act"]))
    raise AssertionError("nobody may act")
