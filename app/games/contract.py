"""The game contract: what every game hosted on Dingo Online declares.

A game is one package ``app/games/<name>/`` whose ``__init__`` exposes ``GAME``,
a ``GameSpec``, plus one line in ``app.games.REGISTRY``. Everything above the
rules (tables, storage, the wire, the browser frame, the replay command) talks
to a game only through these types, so it needs to know no game's rules.

Like the rules themselves, this module is pure: standard library only, no I/O,
no clock, no global random. Chance comes from a seed, so a match is
``seed + options + the list of (seat, action)`` and replaying that list through
``MatchState.apply`` rebuilds it exactly (that is how a table survives a
restart and how records are replayed).

Wire forms are plain JSON objects. An action on the wire is a dict with a
``type`` (and the game's own fields, e.g. ``{"type": "play", "card": "7H"}``);
the seat is never part of it: the table knows who sent it.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import sys
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import IO, Any, Literal, Protocol, runtime_checkable

JSON = dict[str, Any]


# --- errors ------------------------------------------------------------------------------

class GameError(ValueError):
    """A refused action or setup. The message is for people: it names the card and the reason.

    A refused action never changes the state. ``code`` is the wire error code.
    """

    code = "illegal"


class Malformed(GameError):
    """Not of a shape the game understands (unknown type, missing field, not a card code)."""

    code = "malformed"


class OutOfTurn(GameError):
    """A seat acted while it may not act now."""

    code = "not_your_turn"


class Illegal(GameError):
    """Well formed and in turn, but the rules forbid it now."""

    code = "illegal"


def shown(value: object) -> str:
    """A short repr of untrusted input for a message (huge or deeply nested values too).

    Shared because every game quotes what it refuses, and the quoting must be equally safe
    in all of them: a huge integer is not converted (that could raise or take long), a
    value too deep to repr is named, and anything longer than 24 characters is cut.
    """
    if isinstance(value, int) and not isinstance(value, bool) and not -10**12 < value < 10**12:
        return "a number that large"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return "that value"
    return text if len(text) <= 24 else text[:20] + "..."


# --- events -------------------------------------------------------------------------------

#: The private forms of an event that has none (shared: nobody changes it).
_NOBODY: Mapping[int, JSON] = MappingProxyType({})


class Event:
    """What an action caused: a public form, and private forms for the seats that may know more.

    ``for_seat`` is the one place that picks a recipient's form; spectators (``None``)
    always get ``public``. A form may carry ``"say"``: a plain-words sentence built by the
    game (its narration), with seats written ``{0}``, ``{1}`` ... for the table to fill
    in with names. The log, the results panel and the replay viewer all show that text,
    so the browser never re-implements a rule.
    """

    __slots__ = ("private", "public")

    def __init__(self, public: JSON, private: Mapping[int, JSON] | None = None) -> None:
        self.public = public
        self.private: Mapping[int, JSON] = private or _NOBODY

    @property
    def kind(self) -> str:
        return str(self.public["type"])

    def for_seat(self, seat: int | None) -> JSON:
        """The form ``seat`` may see (``None``: a spectator)."""
        if seat is not None:
            form = self.private.get(seat)
            if form is not None:
                return form
        return self.public

    def __repr__(self) -> str:
        return f"Event({self.public!r}, private={dict(self.private)!r})"


def seat_labels(names: Sequence[str]) -> list[str]:
    """Players' names as narration names them: where two share a name, the seat (from 1)
    follows it, as on the pages."""
    return [f"{n} {s + 1}" if list(names).count(n) > 1 else n for s, n in enumerate(names)]


_SEAT = re.compile(r"\{(\d+)\}")


def fill_names(value: Any, labels: Sequence[str]) -> Any:
    """``value`` with the seat placeholders ``{0}``, ``{1}`` ... in every string replaced by
    ``labels`` (a number with no label is left as it is). Narration is written this way so
    the same sentence serves every recipient and the replay viewer."""
    if isinstance(value, str):
        return _SEAT.sub(lambda found: labels[int(found.group(1))]
                         if int(found.group(1)) < len(labels) else found.group(0), value)
    if isinstance(value, dict):
        return {k: fill_names(v, labels) for k, v in value.items()}
    if isinstance(value, list):
        return [fill_names(v, labels) for v in value]
    return value


# --- options ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Option:
    """One table option, defined once and used by the HTTP schema, the table, storage and
    the home page form (``to_dict`` is what the form is built from)."""

    name: str
    title: str
    description: str
    kind: Literal["int", "bool", "choice"]
    default: int | bool | str | None
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[int | str, ...] = ()
    #: ``None`` is allowed (e.g. "no points threshold").
    optional: bool = False

    def check(self, value: object) -> int | bool | str | None:
        """``value`` if it is acceptable, else ``Malformed`` with a plain-words reason."""
        if value is None:
            if self.optional:
                return None
            raise Malformed(f"{self.title} must be given")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise Malformed(f"{self.title} must be true or false")
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise Malformed(f"{self.title} must be a whole number")
            low = -math.inf if self.minimum is None else self.minimum
            high = math.inf if self.maximum is None else self.maximum
            if not low <= value <= high:
                raise Malformed(f"{self.title} must be from {self.minimum} to {self.maximum}")
            return value
        if isinstance(value, bool) or value not in self.choices:
            shown = ", ".join(str(c) for c in self.choices)
            raise Malformed(f"{self.title} must be one of {shown}")
        assert isinstance(value, int | str)
        return value

    def to_dict(self) -> JSON:
        return {"name": self.name, "title": self.title, "description": self.description,
                "kind": self.kind, "default": self.default, "minimum": self.minimum,
                "maximum": self.maximum, "choices": list(self.choices),
                "optional": self.optional}


def check_options(options: Sequence[Option], given: Mapping[str, object]) -> JSON:
    """Every option's checked value (defaults filled in); unknown names are refused."""
    known = {o.name for o in options}
    unknown = sorted(set(given) - known)
    if unknown:
        raise Malformed(f"unknown option {unknown[0]!r}")
    return {o.name: o.check(given.get(o.name, o.default)) for o in options}


# --- the state of a match -----------------------------------------------------------------

class MatchState(Protocol):
    """One match in progress: the authoritative state, changed only by ``apply``.

    A match is a series of games (deals); ``apply`` never starts the next game by
    itself: between games the table shows the scoreboard, then calls
    ``start_next_game``.
    """

    @property
    def over(self) -> bool:
        """The match is finished (``winner`` is then final)."""

    @property
    def between_games(self) -> bool:
        """A game has ended and the next one has not been started."""

    @property
    def winner(self) -> int | None:
        """The seat that won the match (``None`` while playing, or for a drawn match)."""

    def to_act(self) -> frozenset[int]:
        """The seats that may act now: one seat, or several for simultaneous decisions
        (both seats commit face down), or none (between games, match over)."""

    def legal(self, seat: int) -> list[JSON]:
        """The wire-form actions ``seat`` may send now (``[]`` when it may not act)."""

    def apply(self, seat: int, action: Mapping[str, Any]) -> list[Event]:
        """Apply ``seat``'s wire-form ``action``; raise ``GameError`` (state unchanged)."""

    def start_next_game(self) -> list[Event]:
        """Deal the next game; ``Illegal`` unless ``between_games``."""

    def opening_events(self) -> list[Event]:
        """The events of the first game's deal (``new_match`` deals it): what a table shows
        when the match starts, as ``start_next_game`` returns them for the later games."""

    def view(self, seat: int | None) -> JSON:
        """Everything ``seat`` may see now, JSON-ready (``None``: a spectator, public only).

        Must hold: ``"legal"`` (``legal(seat)``, ``[]`` for spectators) and ``"prompt"``
        (plain words: who must do what, seats as ``{0}``...), and the game's board. (Who may
        act is ``to_act()``; the table sends it with every state.)
        After a game ends, its reveal (every hand, face-down cards) is in every view.
        """

    def scoreboard(self) -> JSON:
        """The match so far, public: per game results and totals, the match rule in words
        (``"rule"``: e.g. "first to win 3 games") and ``"standing"``: per seat, the number
        the match is decided on (games won, or points), for lists of past matches."""

    def why(self) -> JSON | None:
        """Once a game is over, why each seat scored what it did, built by the server for
        the results panel (``None`` while a game is in progress, or when the events' ``say``
        and the revealed view say it all)."""

    def record(self) -> JSON:
        """Everything needed to store and replay this match: ``seed``, ``options`` and
        ``games``, per game its ``setup``, its ``actions``, and once it is over its public
        ``result`` and ``winner`` (a seat, or ``None`` for a draw)."""


@runtime_checkable
class SplitViews(Protocol):
    """Optional, for speed: a match whose views share a large public part.

    ``view(seat)`` must equal ``shared_view()`` merged with ``private_view(seat)`` (the
    private keys win); a table then encodes the shared part once for all recipients.
    """

    def shared_view(self) -> JSON:
        """The part of every recipient's view that is the same for all of them."""

    def private_view(self, seat: int | None) -> JSON:
        """The rest of ``seat``'s view."""


@runtime_checkable
class ViewKeys(Protocol):
    """Optional, for speed: cheap keys that say when part of what a table shows is unchanged.

    A table calls these after every change instead of building (and comparing) what they
    stand for. A key must change whenever what it stands for changes (two equal keys of one
    match mean equal values); a key that changes when nothing did only costs time.
    """

    def scoreboard_key(self) -> Hashable:
        """Equal while ``scoreboard()`` is."""

    def private_key(self, seat: int | None) -> Hashable | None:
        """Equal while ``SplitViews.private_view(seat)`` is; ``None``: build it to know."""


class Bot(Protocol):
    """A bot sees what its seat's browser sees, nothing else: it gets the seat's view and
    its own random generator, and has no path to the state."""

    def choose(self, view: JSON) -> JSON:
        """One of ``view["legal"]``."""


@runtime_checkable
class ObservingBot(Bot, Protocol):
    """A bot that also remembers what it has seen: before each ``choose`` the table tells
    it every event of the current game it has not been told, in its seat's form, in order
    (the events since the game was dealt; a new game starts a new series)."""

    def observe(self, event: JSON) -> None:
        """Take note of one event."""

    def new_game(self) -> None:
        """A new game was dealt: forget the last one's events."""


#: The usual ``standing``: games won.
GAMES_WON = ("game won", "games won")


@dataclass(frozen=True)
class GameSpec:
    """A game as the registry lists it."""

    name: str  # the id used in URLs, storage and ``python -m app.replay NAME``
    title: str
    seats: int
    options: tuple[Option, ...]
    #: Every action type of the game, and the fields each has besides ``type``: a table
    #: refuses any other field, also one of another type of the same game (the games' own
    #: parsers read past keys they do not need, and a table logs an action as it came).
    fields: Mapping[str, frozenset[str]]
    #: ``read_action(action, checked_options)``: the action codec's check of a wire-form
    #: action's shape, whatever the state (``Malformed`` with the reason, e.g. "not a
    #: card"); ``apply`` checks it again with the rules. A table refuses a malformed
    #: action before asking whether it is in time.
    read_action: Callable[[object, JSON], object]
    #: ``new_match(seed, checked_options)``: a new match; every deal comes from ``seed``.
    new_match: Callable[[int, JSON], MatchState]
    #: bot kind (e.g. "random", "heuristic", "perfect") -> ``factory(seed)``.
    bots: Mapping[str, Callable[[int], Bot]]
    #: One line of ``python -m app.replay NAME``: the answer, or ``None`` for a blank line.
    replay_line: Callable[[str | bytes], JSON | None]
    #: One-sentence description for the home page.
    blurb: str = ""
    #: The game in a few steps, in the order it is played: the home page's "How … goes".
    how: tuple[str, ...] = field(default=())
    #: Shown on the home page only when the whole game (rules, client module, tests) is done.
    playable: bool = False
    #: Bot kinds by strength, weakest first, as the home page offers them.
    bot_order: tuple[str, ...] = field(default=())
    #: The bot kind that plays for an absent player or one out of time ("" : the
    #: strongest of ``bot_order``).
    stand_in: str = ""
    #: ``redeal(match, seat, rng)``: a match with the same history in which everything
    #: ``seat`` may not know (per the rules page: other hands, the stock, face-down
    #: cards; ``None``: a spectator) is dealt anew at random, consistently with what it may
    #: know. The shared leak test checks that ``seat``'s view of it is byte-identical.
    redeal: Callable[[MatchState, int | None, random.Random], MatchState] | None = None
    #: ``sample_world(view, rng, seen)``: a match that seat ``view["seat"]``, to act now,
    #: cannot tell from the real one, everything it may not know dealt at random
    #: consistently with what it knows: ``view`` (its current view, as its browser gets it; a
    #: search bot samples when it must choose, so a game may refuse another seat's) and ``seen``
    #: (what it was shown earlier in this game, in order: its form of each event, and
    #: views). ``sample_world(...).view(seat) == view``. A search bot plays on such
    #: samples (determinization), so it needs no path to the real state. ``None``: the
    #: game's own bots need none (its spec says why); ``ValueError`` for a view nothing
    #: can be sampled from (a spectator's, a finished game's).
    sample_world: Callable[[JSON, random.Random, Sequence[JSON]], MatchState] | None = None
    #: ``invariants(match)``: raise ``AssertionError`` if the state is inconsistent
    #: (cards conserved, scores add up...); the shared tests call it after every action.
    invariants: Callable[[MatchState], None] | None = None
    #: ``standing_unit(options)``: what the numbers of a match's ``standing`` count, one and
    #: more than one (a stored match's options), so a list of matches can say "3 games won"
    #: or "102 points" rather than a bare number. Default: games won.
    standing_unit: Callable[[Mapping[str, Any]], tuple[str, str]] = lambda options: GAMES_WON
    #: The ``type`` of every action the game has (the wire checks a message's type by it):
    #: the keys of ``fields``.
    actions: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", frozenset(self.fields))

    def check_options(self, given: Mapping[str, object]) -> JSON:
        return check_options(self.options, given)

    @property
    def stand_in_bot(self) -> str:
        return self.stand_in or self.bot_order[-1]

    def bot_kinds(self) -> list[JSON]:
        """The bots a host may seat, weakest first, with their strength in words."""
        words = STRENGTH_WORDS.get(len(self.bot_order), ())
        return [{"kind": kind, "strength": words[i] if i < len(words) else kind}
                for i, kind in enumerate(self.bot_order)]


#: Strength words for a game's bots by how many it has (weakest first).
STRENGTH_WORDS: dict[int, tuple[str, ...]] = {
    1: ("normal",), 2: ("easy", "normal"), 3: ("easy", "normal", "hard"),
    4: ("easy", "normal", "hard", "expert")}


# --- replay-command helpers, shared by every game's ``replay_line`` -----------------------

def refused(why: str, action_index: int | None = None) -> JSON:
    """A replay answer for a refused line (``action_index`` None) or action (its index)."""
    return {"error": why, "action_index": action_index}


def read_record(line: str | bytes) -> JSON | None:
    """Decode one JSON Lines record: the object, ``None`` for a blank line.

    Raises ``Malformed`` with a plain-words reason for anything that is not a JSON object
    (bad UTF-8, bad JSON, too deep, a number too long, NaN/Infinity are refused too).
    """
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise Malformed("the line is not valid UTF-8") from None
    if not line.strip():
        return None
    try:
        record = json.loads(line, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise Malformed(f"not valid JSON: {e.msg} at column {e.colno}") from None
    except RecursionError:
        raise Malformed("not valid JSON: nested too deeply") from None
    except ValueError as e:  # too many digits, or NaN/Infinity
        raise Malformed(f"not valid JSON: {e}") from None
    if not isinstance(record, dict):
        raise Malformed("a record is a JSON object")
    return record


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def answer(replay_line: Callable[[str | bytes], JSON | None], line: str | bytes) -> JSON | None:
    """``replay_line(line)``, or a refusal if it raised: a replay command never crashes on a
    line, whatever the game's code does with it (an engine bug shows as that line's error)."""
    try:
        return replay_line(line)
    except RecursionError:
        return refused("not valid JSON: nested too deeply")
    except Exception as e:
        return refused(f"the line could not be read: {type(e).__name__}")


def run_replay(replay_line: Callable[[str | bytes], JSON | None],
               stdin: Iterable[str | bytes] | None = None, stdout: IO[str] | None = None) -> int:
    """Answer every input line with one JSON line, never stopping early; the exit code."""
    out = sys.stdout if stdout is None else stdout
    try:
        for line in (sys.stdin.buffer if stdin is None else stdin):
            reply = answer(replay_line, line)
            if reply is not None:
                out.write(json.dumps(reply) + "\n")
                out.flush()
    except BrokenPipeError:
        if stdout is None:  # the reader went away: silence the final flush of sys.stdout
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0
