"""The cards of Divide and Conquer: codes, values, names, and who wins a battle.

Two decks exist (the rules page, "Cards, codes and values"): the standard ten cards
and the fourteen of the long game. Within a deck every card has its own value, so a
card is identified by its index in the deck sorted by value; the solver works on bit
masks of those indices, the engine and the wire on the codes.
"""

from __future__ import annotations

from collections.abc import Iterable

#: deck size -> its codes, lowest value first.
DECKS: dict[int, tuple[str, ...]] = {
    10: ("2", "3", "4", "5", "6", "7", "8", "9", "T", "Q"),
    14: ("2", "3", "4", "5", "6", "7", "8", "9", "T", "r2", "r4", "r5", "r6", "r8"),
}

#: code -> value (the queen is 12 for everything, a red card ten more than its pips).
VALUE: dict[str, int] = {
    **{str(n): n for n in range(2, 10)},
    "T": 10, "Q": 12, "r2": 12, "r4": 14, "r5": 15, "r6": 16, "r8": 18,
}

#: code -> the card's name in sentences.
NAME: dict[str, str] = {
    **{str(n): str(n) for n in range(2, 10)},
    "T": "10", "Q": "queen", "r2": "red 2", "r4": "red 4", "r5": "red 5", "r6": "red 6",
    "r8": "red 8",
}

DECK_NAMES = {10: "the standard deck", 14: "the long deck"}


def sorted_codes(cards: Iterable[str]) -> list[str]:
    """Cards sorted by value, lowest first: how every list of cards is shown."""
    return sorted(cards, key=VALUE.__getitem__)


def low_wins(low: int, high: int) -> bool:
    """Whether the lower value beats the higher: it divides it, or sits one below it.

    Either exception is enough (Ruling R1), and they only ever help the lower card (R2).
    """
    return high % low == 0 or high == low + 1


def battle(card0: str, card1: str) -> tuple[int, str]:
    """The seat that wins (0: ``card0``'s) and why, in words ("2 divides 8")."""
    v0, v1 = VALUE[card0], VALUE[card1]
    if v0 == v1:
        raise ValueError("two cards of equal value never meet")
    low, high = (card0, card1) if v0 < v1 else (card1, card0)
    vlow, vhigh = VALUE[low], VALUE[high]
    if vhigh % vlow == 0:
        why = f"{NAME[low]} divides {_valued(high)}"
        winner = low
    elif vhigh == vlow + 1:
        why = f"{NAME[low]} is one below {_valued(high)}"
        winner = low
    else:
        why = f"{NAME[high]} is higher"
        winner = high
    return (0 if winner == card0 else 1), why


def _valued(card: str) -> str:
    """A card's name, with its value when that is not its pips (the queen, red cards)."""
    name = NAME[card]
    return name if name == str(VALUE[card]) else f"{name} ({VALUE[card]})"

