"""The course of a game of Dingo: its three phases and the seven exchange rounds.

A game goes through the exchange (four discards, with a pass left, across and
right between them, each seat in turn from the dealer), then the hunts, then
it is over. These names and the order of the rounds are read by the rules
(``state``), by the views (``views``: the ``stage`` and a pass's ``direction``)
and by the determinization, which rebuilds a game from a view; they live here,
below all three, so none of them imports another for them.
"""

from __future__ import annotations

from .actions import DISCARD, PASS

EXCHANGE, HUNT, OVER = "exchange", "hunt", "over"

#: The seven exchange rounds; a pass round's number is the receiver's offset.
ROUNDS: tuple[tuple[str, int], ...] = (
    (DISCARD, 0), (PASS, 1), (DISCARD, 0), (PASS, 2), (DISCARD, 0), (PASS, 3), (DISCARD, 0),
)
DIRECTIONS = {1: "left", 2: "across", 3: "right"}


def round_name(kind: str, detail: str | int) -> str:
    """An exchange round as a view's ``stage`` names it: ``discard 2``, ``pass left``
    (``detail``: a discard round's number, a pass round's direction)."""
    return f"{kind} {detail}"


#: Each round's name: discard 1, pass left, discard 2, ... discard 4.
ROUND_NAMES = tuple(round_name(kind, DIRECTIONS[offset] if kind == PASS else n // 2 + 1)
                    for n, (kind, offset) in enumerate(ROUNDS))
#: Each round is one decision by each of the four seats.
EXCHANGE_STEPS = len(ROUNDS) * 4
