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
_FOUR_HANDS = [HAND_SIZE] * 4
_INT = {int}


class Deal(tuple[tuple[Card, ...], ...]):
    """Four sorted hands holding the 40-card pack once, as ``deal`` makes them.

    A ``Game`` takes a ``Deal`` without checking it again (any other sequence
    of hands is checked), which matters to the simulator's thousands of games.
    """

    __slots__ = ()


def deal(seed: int, dealer: int) -> Deal:
    """Shuffle the 40-card pack with ``seed`` and deal it from the dealer's left."""
    return deal_from(random.Random(seed), dealer)


#: For each position i of the shuffle, from the last: (i, i + 1, the bits of i + 1).
_SHUFFLE_STEPS = tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, len(PACK))))


def shuffled(rng: random.Random) -> list[Card]:
    """The pack in the order ``rng.shuffle(list(PACK))`` leaves it, drawing the same bits.

    ``random.shuffle`` (CPython 3.8 and later) swaps each position from the last with one
    below it drawn by ``_randbelow``: ``getrandbits`` of the bound's length until below
    it. Written out here it costs no call per card; a test holds it to ``rng.shuffle``.
    """
    pack = list(PACK)
    getrandbits = rng.getrandbits
    for i, n, k in _SHUFFLE_STEPS:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def deal_from(rng: random.Random, dealer: int) -> Deal:
    """Shuffle the pack with ``rng`` and deal it one card at a time from the dealer's left."""
    pack = shuffled(rng)
    # Card i goes to seat dealer+1+i, so each seat's cards are one stride-4 slice.
    first = (-dealer - 1) % 4  # seat 0's
    return Deal((tuple(sorted(pack[first::4])), tuple(sorted(pack[(first + 1) % 4::4])),
                 tuple(sorted(pack[(first + 2) % 4::4])), tuple(sorted(pack[(first + 3) % 4::4]))))


def checked_deal(hands: Sequence[Iterable[Card]]) -> Deal:
    """The deal as four sorted hands, or ``MalformedAction`` saying what is wrong with it."""
    dealt = list(map(_as_list, _as_list(hands)))
    if len(dealt) != 4 or list(map(len, dealt)) != _FOUR_HANDS:
        raise MalformedAction("a deal is four hands of ten cards")
    first, second, third, fourth = dealt
    cards = [*first, *second, *third, *fourth]
    if set(map(type, cards)) != _INT or set(cards) != _PACK_SET:
        _refuse_deal(cards)
    return Deal((tuple(sorted(first)), tuple(sorted(second)), tuple(sorted(third)),
                 tuple(sorted(fourth))))


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
