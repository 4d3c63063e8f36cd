"""Pieces of game implementation that several games share, each written once.

Not part of the contract (``contract.py`` says what a game must declare; a game may do
without all of this). These are the parts the two-seat, one-turn-at-a-time games
(Mate, Bingo) had each written out, and the match plumbing every game had: kept here so
that a fix to one is a fix to all, and the replay commands cannot drift apart where their
contracts say the same thing. Pure standard library, like ``contract.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from .contract import JSON, Event, GameError, Malformed, OutOfTurn, refused, shown

# --- seats in narration -------------------------------------------------------------------


def plural(n: int, word: str) -> str:
    """``n`` and ``word``, with an "s" unless ``n`` is 1: "1 game", "3 games"."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def seat_ref(seat: int) -> str:
    """How a ``"say"`` text names a seat: ``{0}``, ``{1}`` (the table fills in the names,
    as ``contract.Event`` says)."""
    return f"{{{seat}}}"


def in_seat_words(text: str) -> str:
    """``text`` with the two seats' placeholders written out as ``seat 0`` and ``seat 1``
    (a replay answer has no table to fill in names)."""
    return text.replace("{0}", "seat 0").replace("{1}", "seat 1")


# --- sets of cards or tiles as bit masks --------------------------------------------------

def mask_of(items: Iterable[int]) -> int:
    """The bit mask of a set of card or tile numbers (bit ``n`` set for each ``n``)."""
    m = 0
    for n in items:
        m |= 1 << n
    return m


# --- two seats, one to act ----------------------------------------------------------------

def check_seat(seat: object) -> None:
    """``OutOfTurn`` unless ``seat`` is the integer 0 or 1 (``True`` is not a seat)."""
    if type(seat) is not int or seat not in (0, 1):
        raise OutOfTurn(f"there is no seat {shown(seat)}: the seats are 0 and 1")


def seats_to_act(turn: int | None) -> frozenset[int]:
    """``MatchState.to_act`` for a game where one seat at a time acts (``None``: nobody)."""
    return frozenset() if turn is None else frozenset((turn,))


class RandomBot:
    """Any legal action, uniformly."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: JSON) -> JSON:
        legal: list[JSON] = view["legal"]
        return legal[self.rng.randrange(len(legal))]


class _Viewable(Protocol):
    def to_act(self) -> frozenset[int]: ...

    def legal(self, seat: int) -> list[JSON]: ...

    def prompt(self, seat: int | None) -> str: ...


def acting_keys(match: _Viewable, seat: int | None) -> JSON:
    """The keys every view must hold (``contract.MatchState.view``): ``to_act``, ``legal``
    (``[]`` for a spectator) and ``prompt``, for a game to splice into its view."""
    return {"to_act": sorted(match.to_act()),
            "legal": [] if seat is None else match.legal(seat),
            "prompt": match.prompt(seat)}


# --- rebuilding a match -------------------------------------------------------------------

class _Playable(Protocol):
    def start_next_game(self) -> list[Event]: ...

    def apply(self, seat: int, action: Mapping[str, Any]) -> list[Event]: ...


Match = TypeVar("Match", bound=_Playable)


def replay_games(match: Match,
                 games: Iterable[Iterable[Sequence[Any]]]) -> Match:
    """``match`` (new) with each game's ``(seat, action)`` list applied in order, the next
    game started between two lists: how a match is rebuilt from its record."""
    for index, actions in enumerate(games):
        if index:
            match.start_next_game()
        for seat, action in actions:
            match.apply(seat, action)
    return match


# --- the replay command, for two-seat games whose actions carry their seat -----------------

def replay_actions(apply: Callable[[int, dict[str, Any]], object], actions: Sequence[Any],
                   example: str) -> JSON | None:
    """Apply a replay line's actions (``{"seat": 0, "type": ...}``) in order through
    ``apply``; the refusal of the first refused one (seats in words), or ``None`` if all
    were applied. ``example`` is a well-formed action, quoted when one is not an object.
    Anything ``apply`` raises that is not a ``GameError`` is left to the caller."""
    for index, action in enumerate(actions):
        try:
            if not isinstance(action, dict):
                raise Malformed(f"an action is an object such as {example}")
            seat = action.get("seat")
            if type(seat) is not int or seat not in (0, 1):
                raise Malformed(f"the seat must be the integer 0 or 1, not {shown(seat)}")
            apply(seat, action)
        except GameError as e:
            return refused(in_seat_words(str(e)), index)
    return None
