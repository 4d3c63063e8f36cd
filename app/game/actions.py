"""Actions: the three decisions a seat makes, as small values with a text form.

``Action(seat, kind, cards)`` prints as ``"2 discard 7H"``, ``"2 pass KS"``,
``"2 play 7C 7S"`` or ``"2 play -"`` (a declined hunt turn) and
``Action.parse`` reads that back; ``to_dict``/``from_dict`` are the JSON form
of the replay command and the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import CODES, Card, code, parse_card
from .errors import MalformedAction, shown

DISCARD, PASS, PLAY = "discard", "pass", "play"
KINDS = (DISCARD, PASS, PLAY)


@dataclass(frozen=True, slots=True)
class Action:
    """One decision of one seat. Checked when built, so the engine can trust its fields."""

    seat: int
    kind: str
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        _seat(self.seat)
        if self.kind not in KINDS:
            raise MalformedAction(
                f"unknown action type {shown(self.kind)}: expected discard, pass or play")
        if not isinstance(self.cards, tuple):
            if not isinstance(self.cards, list):
                raise MalformedAction("an action's cards must be a tuple or list of cards")
            object.__setattr__(self, "cards", tuple(self.cards))
        for c in self.cards:
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 52:
                raise MalformedAction(f"{shown(c)} is not a card number 0-51")

    def __str__(self) -> str:
        listed = " ".join(code(c) for c in self.cards) or "-"
        return f"{self.seat} {self.kind} {listed}"

    @property
    def card(self) -> Card:
        """The single card of a discard or a pass."""
        return self.cards[0]

    def to_dict(self) -> dict[str, Any]:
        if self.kind == PLAY:
            return {"seat": self.seat, "type": PLAY, "cards": [code(c) for c in self.cards]}
        return {"seat": self.seat, "type": self.kind, "card": code(self.cards[0])}

    @classmethod
    def from_dict(cls, data: object) -> Action:
        """Read ``{"seat": 2, "type": "discard", "card": "7H"}`` and its siblings."""
        if not isinstance(data, dict):
            raise MalformedAction("an action must be an object with seat and type")
        seat = _seat(data.get("seat"))
        kind = data.get("type")
        if kind in (DISCARD, PASS):
            if "card" not in data:
                raise MalformedAction(f"a {kind} needs a card")
            return cls(seat, kind, (_card(data["card"]),))
        if kind == PLAY:
            cards = data.get("cards")
            if not isinstance(cards, list):
                raise MalformedAction("a play needs a list of cards ([] to pass)")
            if len(cards) > 2:
                raise MalformedAction("a hunt turn plays at most two wolves")
            return cls(seat, PLAY, tuple(_card(c) for c in cards))
        raise MalformedAction(f"unknown action type {shown(kind)}: expected discard, pass or play")

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read the text form ``"2 play 7C 7S"`` (``-`` for no cards)."""
        if not isinstance(text, str):
            raise MalformedAction("an action's text form is a string such as '2 play 7C'")
        parts = text.split()
        if len(parts) < 3:
            raise MalformedAction(f"cannot read action {text!r}: expected 'SEAT TYPE CARD...'")
        cards = [] if parts[2:] == ["-"] else parts[2:]
        if parts[1] == PLAY:
            return cls.from_dict({"seat": _int(parts[0]), "type": PLAY, "cards": cards})
        if len(cards) != 1:
            raise MalformedAction(f"a {parts[1]} names exactly one card")
        return cls.from_dict({"seat": _int(parts[0]), "type": parts[1], "card": cards[0]})


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise MalformedAction(f"seat must be 0, 1, 2 or 3, not {shown(text)}") from None


def _seat(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise MalformedAction(f"seat must be 0, 1, 2 or 3, not {shown(value)}")
    return value


def _card(value: object) -> Card:
    try:
        return parse_card(value)
    except ValueError as e:
        raise MalformedAction(str(e)) from None


def _fast_actions() -> dict[tuple[object, ...], Action]:
    """Every well-formed action keyed by its JSON fields as written in a plain record.

    ``{"seat": 2, "type": "discard", "card": "7H"}`` is ``(2, "discard", "7H")`` and a
    play ``(2, "play", "7C", "7S")``. An action spelled any other way (lower case, spaces,
    odd types) is read by ``Action.from_dict``, so the answers, errors included, do not
    change; the table only makes well-formed ones cheap (replays and the wire read many).
    """
    table: dict[tuple[object, ...], Action] = {}
    for seat in range(4):
        for c in range(52):
            for kind in (DISCARD, PASS):
                table[(seat, kind, CODES[c])] = Action(seat, kind, (c,))
        table[(seat, PLAY)] = Action(seat, PLAY, ())
        for rank in range(13):
            for w in (rank * 4, rank * 4 + 3):
                table[(seat, PLAY, CODES[w])] = Action(seat, PLAY, (w,))
            a, b = rank * 4, rank * 4 + 3
            table[(seat, PLAY, CODES[a], CODES[b])] = Action(seat, PLAY, (a, b))
            table[(seat, PLAY, CODES[b], CODES[a])] = Action(seat, PLAY, (b, a))
    return table


_FAST = _fast_actions()


def plain_action(data: dict[str, Any], seat: object) -> Action | None:
    """The shared ``Action`` that ``data`` plainly spells for ``seat``, or ``None``.

    Plainly: ``seat`` an int, ``type`` and card codes strings as the engine writes them
    (other keys are ignored). Anything else is for ``Action.from_dict`` to read or refuse.
    """
    kind = data.get("type")
    if type(seat) is not int or type(kind) is not str:
        return None
    if kind == PLAY:
        cards = data.get("cards")
        if type(cards) is not list or len(cards) > 2:
            return None
        # (a list among the cards is unhashable: Action.from_dict refuses it)
        for c in cards:
            if type(c) is not str:
                return None
        return _FAST.get((seat, kind, *cards))
    card = data.get("card")
    return _FAST.get((seat, kind, card)) if type(card) is str else None


def read_action(data: object, seat: object = None) -> Action:
    """``Action.from_dict(data)``, with ``seat`` if given (``data`` then has none or the
    same), looked up instead of built for every well-formed action."""
    if type(data) is dict:
        if seat is None:
            seat = data.get("seat")
        found = plain_action(data, seat)
        if found is not None:
            return found
        if "seat" not in data or data["seat"] != seat:
            data = {**data, "seat": seat}
    return Action.from_dict(data)
