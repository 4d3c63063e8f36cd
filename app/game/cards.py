"""Cards of Dingo as small integers, with their text codes and roles.

A card is ``rank * 4 + suit`` with ranks ``0..12`` for ``2..A`` and suits
``0..3`` for ``C D H S``. Integers keep hands as bit masks, which makes the
legal-move checks of a hunt a single ``&`` (the simulator plays thousands of
games a second). Everything that leaves the engine uses the text codes
(``7H``, ``TS``, ``AD``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TypeVar

from .errors import shown

RANKS = "23456789TJQKA"
SUITS = "CDHS"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE = 12

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king", "ace")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

Card = int
T = TypeVar("T")


def card(rank: int, suit: int) -> Card:
    return rank * 4 + suit


def rank_of(c: Card) -> int:
    return c >> 2


def suit_of(c: Card) -> int:
    return c & 3


CODES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_BY_CODE: dict[str, Card] = {code: i for i, code in enumerate(CODES)}
#: A card by its code exactly as the engine writes it (``parse_card`` reads any spelling).
BY_CODE: Mapping[str, Card] = MappingProxyType(_BY_CODE)

AD = card(ACE, DIAMONDS)
AH = card(ACE, HEARTS)
AC = card(ACE, CLUBS)
AS = card(ACE, SPADES)


def code(c: Card) -> str:
    return CODES[c]


def parse_card(text: object) -> Card:
    """Parse a card code such as ``7H``; raise ``ValueError`` with the reason."""
    if type(text) is str:
        c = _BY_CODE.get(text)  # a code as the engine writes it: views, records, the wire
        if c is not None:
            return c
    elif not isinstance(text, str):
        raise ValueError(f"a card must be a code such as '7H', not {shown(text)}")
    c = _BY_CODE.get(text.strip().upper())
    if c is None:
        raise ValueError(f"{text[:12]!r} is not a card code (rank 23456789TJQKA then suit CDHS)")
    return c


def codes(cards: Iterable[Card]) -> list[str]:
    return list(map(CODES.__getitem__, cards))


def bit_lister(values: Sequence[T]) -> Callable[[int], list[T]]:
    """A function listing ``values[c]`` for each card ``c`` of a mask, lowest first.

    Seven table lookups (one per byte of the mask) instead of a loop over bits:
    listing a hand's choices is the simulator's hottest step.
    """
    tables = []
    for offset in range(0, 52, 8):
        size = 1 << min(8, 52 - offset)
        table: list[tuple[T, ...]] = [()] * size
        for pattern in range(1, size):
            low = pattern & -pattern
            table[pattern] = (values[low.bit_length() - 1 + offset], *table[pattern ^ low])
        tables.append(table)
    t0, t1, t2, t3, t4, t5, t6 = tables

    def listed(mask: int) -> list[T]:
        return [*t0[mask & 255], *t1[mask >> 8 & 255], *t2[mask >> 16 & 255],
                *t3[mask >> 24 & 255], *t4[mask >> 32 & 255], *t5[mask >> 40 & 255],
                *t6[mask >> 48]]

    return listed


#: The cards of a mask, lowest first.
cards_in: Callable[[int], list[Card]] = bit_lister(range(52))


def wolves_mask(rank: int) -> int:
    return (1 << card(rank, CLUBS)) | (1 << card(rank, SPADES))


WOLVES = tuple(wolves_mask(r) for r in range(13))
#: The 40 cards of the pack: everything but the rabbits 2D..KD.
PACK: tuple[Card, ...] = tuple(c for c in range(52) if suit_of(c) != DIAMONDS or c == AD)
RABBITS: tuple[Card, ...] = tuple(card(r, DIAMONDS) for r in range(ACE))
RED_MASK = sum(1 << c for c in range(52) if suit_of(c) in (DIAMONDS, HEARTS))


def value(c: Card, *, penalty: bool = False) -> int:
    """Points of a card: 2-9 one, 10-K two, aces three, AD ten (three in a penalty pile)."""
    if c == AD:
        return 3 if penalty else 10
    r = rank_of(c)
    return 1 if r <= 7 else (2 if r < ACE else 3)


SCORE_VALUE = tuple(value(c) for c in range(52))
PENALTY_VALUE = tuple(value(c, penalty=True) for c in range(52))


def sort_key(c: Card) -> tuple[int, int]:
    """Hand order for people: by suit (clubs, diamonds, hearts, spades), then rank."""
    return (suit_of(c), rank_of(c))


def describe(c: Card) -> str:
    """Plain words for a card, e.g. ``7 of hearts``."""
    return f"{RANK_NAMES[rank_of(c)]} of {SUIT_NAMES[suit_of(c)]}"
