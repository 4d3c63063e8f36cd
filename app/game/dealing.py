"""The deal: the 40-card pack shuffled and dealt, or a given deal checked.

A game starts from four hands of ten cards holding the pack once (the 40
cards without the twelve rabbits below the ace: the rabbits are not dealt).
``deal`` and ``deal_from`` make such hands from a seed or a random source,
the way a dealer does; ``checked_deal`` takes hands from outside (a record, a
test, a replay file) and says what is wrong with them. Both give a ``Deal``,
the mark a ``Game`` trusts without checking again.

(The module is not called ``deal``: ``app.game`` exports the function ``deal``,
which would hide a submodule of that name.)
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from .cards import AD, DIAMONDS, PACK, Card, code, describe
from .errors import MalformedAction, shown

HAND_SIZE = 10
_PACK_SET = frozenset(PACK)


class Deal(tuple[tuple[Card, ...], ...]):
    """Four sorted hands holding the 40-card pack once, as ``deal`` makes them.

    A ``Game`` takes a ``Deal`` without checking it again (any other sequence
    of hands is checked), which matters to the simulator's thousands of games.
    """

    __slots__ = ()


def deal(seed: int, dealer: int) -> Deal:
    """Shuffle the 40-card pack with ``seed`` and deal it from the dealer's left."""
    return deal_from(random.Random(seed), dealer)


def deal_from(rng: random.Random, dealer: int) -> Deal:
    """Shuffle the pack with ``rng`` and deal it one card at a time from the dealer's left."""
    pack = list(PACK)
    rng.shuffle(pack)
    # Card i goes to seat dealer+1+i, so each seat's cards are one stride-4 slice.
    return Deal(tuple(sorted(pack[(seat - dealer - 1) % 4::4])) for seat in range(4))


def checked_deal(hands: Sequence[Iterable[Card]]) -> Deal:
    """The deal as four sorted hands, or ``MalformedAction`` saying what is wrong with it."""
    dealt = [_as_list(hand) for hand in _as_list(hands)]
    if len(dealt) != 4 or any(len(hand) != HAND_SIZE for hand in dealt):
        raise MalformedAction("a deal is four hands of ten cards")
    cards = [c for hand in dealt for c in hand]
    if set(map(type, cards)) != {int} or set(cards) != _PACK_SET:
        _refuse_deal(cards)
    return Deal(tuple(sorted(hand)) for hand in dealt)


def _refuse_deal(cards: list[Any]) -> None:
    """Say why 40 values are not the pack dealt once."""
    for c in cards:
        if type(c) is not int or not 0 <= c < 52:
            raise MalformedAction(f"{shown(c)} is not a card number 0-51")
        if c & 3 == DIAMONDS and c != AD:
            raise MalformedAction(f"{code(c)} cannot be dealt: {describe(c)} is a rabbit")
    raise MalformedAction("a card is dealt twice: the deal must hold the 40-card pack once")


def _as_list(items: object) -> Sequence[Any]:
    if isinstance(items, (list, tuple)):
        return items
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise MalformedAction("a deal is four hands of ten cards")
    return list(items)
