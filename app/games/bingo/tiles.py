"""The 28 tiles of a double-six set, their codes, suits, ranks and point values.

A tile is a small integer ``0..27`` in code order (``0-0``, ``0-1`` ... ``6-6``), so
every list a view shows, sorted by number, is sorted by code and says nothing about
where a tile came from. A hand is a 28-bit mask. The rules page (section 1) makes the
blank worth seven everywhere, so every comparison goes through ``pips``, never the raw
number; the code keeps the raw numbers, smaller first, because that is the only spelling
the page accepts.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..contract import shown
from ..kit import mask_of

Tile = int
PAIRS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(7) for b in range(a, 7))
CODES: tuple[str, ...] = tuple(f"{a}-{b}" for a, b in PAIRS)
BY_CODE: dict[str, Tile] = {c: i for i, c in enumerate(CODES)}
ALL = (1 << 28) - 1
BINGO: Tile = BY_CODE["0-0"]
#: The two non-doubles whose ends add to ten (a blank counting seven): always 10 points.
TENS = frozenset((BY_CODE["4-6"], BY_CODE["0-3"]))
DOUBLES: tuple[Tile, ...] = tuple(i for i, (a, b) in enumerate(PAIRS) if a == b)
DOUBLE_MASK = sum(1 << d for d in DOUBLES)
#: Suit names for the narration, by number (0 is the blank).
SUIT_NAMES = ("blanks", "ones", "twos", "threes", "fours", "fives", "sixes")


def pips(n: int) -> int:
    """What an end is worth in this game: the blank counts seven (rules, section 1)."""
    return 7 if n == 0 else n


def double_of(n: int) -> Tile:
    return BY_CODE[f"{n}-{n}"]


def is_double(t: Tile) -> bool:
    a, b = PAIRS[t]
    return a == b


def high_end(t: Tile) -> int:
    """The higher end, blank = 7: the suit of a led plain tile, the trump of a turn-up."""
    a, b = PAIRS[t]
    return a if pips(a) >= pips(b) else b


def trump_of(turn_up: Tile) -> int:
    return high_end(turn_up)


def is_trump(t: Tile, trump: int) -> bool:
    return trump in PAIRS[t]


def shows(t: Tile, n: int) -> bool:
    return n in PAIRS[t]


def other_end(t: Tile, n: int) -> int:
    a, b = PAIRS[t]
    return b if a == n else a


def rank_in(t: Tile, n: int) -> int:
    """Rank of ``t`` inside suit ``n`` (it must show ``n``): the double first (8), then the
    other end, blank = 7."""
    return 8 if is_double(t) else pips(other_end(t, n))


def in_suit(t: Tile, suit: int, trump: int) -> bool:
    """A tile "of that suit" for following (section 8): it shows the number and is not a
    trump; for the blank suit the bingo counts (ruling 2), since it shows a blank."""
    return shows(t, suit) and not is_trump(t, trump)


def led_suit(t: Tile, trump: int) -> int:
    """The suit a led tile asks for: the trump if it is one, else its higher end."""
    return trump if is_trump(t, trump) else high_end(t)


def beats(lead: Tile, follow: Tile, trump: int) -> bool:
    """Whether the follower's tile wins the trick (rules, section 3, in its order)."""
    if lead == BINGO:
        return False
    if follow == BINGO:
        return True
    lt, ft = is_trump(lead, trump), is_trump(follow, trump)
    if lt and ft:
        return rank_in(follow, trump) > rank_in(lead, trump)
    if lt or ft:
        return ft
    suit = high_end(lead)
    if not shows(follow, suit):
        return False
    return rank_in(follow, suit) > rank_in(lead, suit)


def value(t: Tile, trump: int) -> int:
    """Card points of ``t`` with ``trump`` as trumps (section 4)."""
    a, b = PAIRS[t]
    if a == b:
        return 28 if a == trump else pips(a) + pips(b)
    if trump in (a, b):
        return pips(a) + pips(b)
    return 10 if t in TENS else 0


def follows(hand: int, lead: Tile, trump: int) -> int:
    """The tiles of ``hand`` (a mask) the phase-two ladder allows against ``lead`` (section 8):
    the first non-empty step of: beat it in its suit; follow its suit; trump or bingo;
    anything."""
    return _ladder(hand, lead, trump)[0]


def duty_step(hand: int, lead: Tile, trump: int) -> int:
    """Which step of the ladder binds (1 beat, 2 follow, 3 trump or bingo, 4 anything)."""
    return _ladder(hand, lead, trump)[1]


def _ladder(hand: int, lead: Tile, trump: int) -> tuple[int, int]:
    tiles = list(tiles_in(hand))
    if is_trump(lead, trump):
        steps = [
            [t for t in tiles if is_trump(t, trump) and beats(lead, t, trump)],
            [t for t in tiles if is_trump(t, trump)],
            [t for t in tiles if t == BINGO],
        ]
    else:
        suit = high_end(lead)
        of_suit = [t for t in tiles if in_suit(t, suit, trump)]
        steps = [
            [t for t in of_suit if beats(lead, t, trump)],
            of_suit,
            [t for t in tiles if is_trump(t, trump) or t == BINGO],
        ]
    for number, step in enumerate(steps, 1):
        if step:
            return mask_of(step), number
    return hand, 4


def tiles_in(mask: int) -> Iterable[Tile]:
    t = 0
    while mask:
        if mask & 1:
            yield t
        mask >>= 1
        t += 1


def mask_codes(mask: int) -> list[str]:
    return [CODES[t] for t in tiles_in(mask)]


def set_value(trump: int) -> int:
    """What the 28 tiles are worth together (131 to 147, section 4)."""
    return sum(value(t, trump) for t in range(28))


def parse_tile(text: object) -> Tile:
    """A tile code such as ``2-5`` (exactly: the smaller number first, 0 to 6)."""
    if isinstance(text, str):
        tile = BY_CODE.get(text)
        if tile is not None:
            return tile
    raise ValueError(f"{shown(text)} is not a tile: a tile is written as its two numbers "
                     "from 0 to 6, smaller first, e.g. \"2-5\"")
