"""The 20 cards of Mate as small integers, with their codes, names, strength and value.

A card is ``suit * 5 + rank`` with suits ``0..3`` for clubs, spades, hearts, diamonds
(high to low) and ranks ``0..4`` for ace, ten, king, queen, seven (high to low), so
card numbers run in pack order ``AC TC KC QC 7C AS ... 7D``: every list a view shows is
sorted by number, which is the order the rules page asks for (section 7: the order of a
list must not say which card is face down). A hand is a 20-bit mask, which makes the
suit-then-rank answer rule two ``&`` and lets the perfect bot key its memo on two ints.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "ATKQ7"
SUITS = "CSHD"
RANK_NAMES = ("ace", "ten", "king", "queen", "seven")
SUIT_NAMES = ("clubs", "spades", "hearts", "diamonds")
#: What a mate with a card of each rank is worth per move (A 11, T 10, K 4, Q 3, 7 7).
RANK_VALUES = (11, 10, 4, 3, 7)

Card = int
CARDS: tuple[Card, ...] = tuple(range(20))
CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
BY_CODE: dict[str, Card] = {c: i for i, c in enumerate(CODES)}
ALL = (1 << 20) - 1


def suit_of(c: Card) -> int:
    return c // 5


def rank_of(c: Card) -> int:
    return c % 5


VALUE: tuple[int, ...] = tuple(RANK_VALUES[rank_of(c)] for c in CARDS)
NAME: tuple[str, ...] = tuple(f"{RANK_NAMES[rank_of(c)]} of {SUIT_NAMES[suit_of(c)]}"
                              for c in CARDS)
SUIT_MASK: tuple[int, ...] = tuple(0b11111 << (5 * s) for s in range(4))
RANK_MASK: tuple[int, ...] = tuple(sum(1 << (5 * s + r) for s in range(4)) for r in range(5))
#: Per lead card: the cards of its suit, and the cards of its rank.
SUIT_OF_MASK: tuple[int, ...] = tuple(SUIT_MASK[suit_of(c)] for c in CARDS)
RANK_OF_MASK: tuple[int, ...] = tuple(RANK_MASK[rank_of(c)] for c in CARDS)


def answers(hand: int, lead: Card) -> int:
    """The cards of ``hand`` that may answer ``lead``: its suit if held, else its rank.

    Zero means the holder is mated.
    """
    follow = hand & SUIT_OF_MASK[lead]
    return follow if follow else hand & RANK_OF_MASK[lead]


def beats(a: Card, b: Card) -> bool:
    """``a`` is stronger than ``b``: higher rank, or the same rank and a higher suit.

    With numbers ``suit * 5 + rank`` a lower rank number is a higher rank, and for an
    equal rank a lower suit number is a higher suit.
    """
    ra, rb = a % 5, b % 5
    return ra < rb if ra != rb else a < b


def cards_in(mask: int) -> list[Card]:
    """The cards of a mask in pack order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def codes(cards: Iterable[Card]) -> list[str]:
    return [CODES[c] for c in cards]


def mask_codes(mask: int) -> list[str]:
    """A mask's codes in pack order (the only order a view lists cards in)."""
    return [CODES[c] for c in cards_in(mask)]

