"""Bots for Bingo: a heuristic bot that counts as a good player does (the random bot is
``kit.RandomBot``).

A bot sees what its seat's browser sees and nothing else: ``choose`` gets the seat's
view (``BingoMatch.view(seat)``) and answers one of ``view["legal"]``. Each bot has its
own ``random.Random`` from its seed.

Views show only the last completed trick (rules, section 16: players count in their
heads), so the heuristic bot keeps its own memory of every trick it has seen, as a
player at the table would: it acts in every trick (leading or following), so each trick
is the "last trick" of its next view, and nothing is missed. From that it knows its own
points exactly, and which tiles are still unseen (in the other hand or in the stock).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..contract import JSON
from ..kit import mask_of
from .tiles import (
    BINGO,
    BY_CODE,
    CODES,
    Tile,
    beats,
    is_double,
    is_trump,
    rank_in,
    value,
)

CLAIM_AT = 70


@dataclass
class Memory:
    """What the bot has seen of the deal in progress."""

    key: tuple[int, str]
    tricks: dict[int, tuple[int, Tile, Tile, int]] = field(default_factory=dict)


class HeuristicBot:
    """Keeps trumps, declares its doubles, closes when its count and sure winners reach 70,
    claims when it has counted 70, and otherwise plays for cheap wins of valuable tricks."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.memory: Memory | None = None

    # --- memory ------------------------------------------------------------------------

    def _remember(self, view: JSON) -> Memory:
        board = view["board"]
        key = (int(view["match"]["deal_number"]), str(board["turn_up"]))
        if self.memory is None or self.memory.key != key:
            self.memory = Memory(key)
        seen = [board["last_trick"]] if board["last_trick"] else []
        if board.get("tally"):
            seen += board["tally"]["tricks"]
        for t in seen:
            if t["follow"] is not None and t["winner"] is not None:
                self.memory.tricks[t["trick"]] = (t["leader"], BY_CODE[t["lead"]],
                                                  BY_CODE[t["follow"]], t["winner"])
        return self.memory

    def _points(self, view: JSON, memory: Memory, seat: int) -> int:
        trump = view["board"]["trump"]
        pts = sum(value(a, trump) + value(b, trump)
                  for _, a, b, w in memory.tricks.values() if w == seat)
        if view["board"]["tricks_won"][seat]:
            pts += sum(d["value"] for d in view["board"]["declarations"] if d["seat"] == seat)
        return pts

    def _unseen(self, view: JSON, memory: Memory, hand: int) -> int:
        """Tiles that may be in the other hand (or still in the stock)."""
        board = view["board"]
        gone = hand
        for _, a, b, _ in memory.tricks.values():
            gone |= (1 << a) | (1 << b)
        if board["trick"] is not None:
            gone |= 1 << BY_CODE[board["trick"]["lead"]]
        return ((1 << 28) - 1) & ~gone

    # --- choosing ----------------------------------------------------------------------

    def choose(self, view: JSON) -> JSON:
        legal: list[JSON] = view["legal"]
        if len(legal) == 1:
            return legal[0]
        memory = self._remember(view)
        seat: int = view["seat"]
        board = view["board"]
        trump: int = board["trump"]
        hand = mask_of(BY_CODE[c] for c in board["hand"])
        kinds = {a["type"]: a for a in legal}
        plays = [BY_CODE[a["tile"]] for a in legal if a["type"] == "play"]
        if board["trick"] is not None:
            lead = BY_CODE[board["trick"]["lead"]]
            tile = self._follow(lead, plays, trump, board["phase"] == 1)
            return {"type": "play", "tile": CODES[tile]}
        if "declare" in kinds:
            return kinds["declare"]
        mine = self._points(view, memory, seat)
        if "claim" in kinds and mine >= CLAIM_AT:
            return kinds["claim"]
        unseen = self._unseen(view, memory, hand)
        sure = [t for t in plays if self._sure(t, unseen, trump)]
        if "close" in kinds and mine >= 40:
            gain = sum(value(t, trump) for t in sure)
            if mine + gain >= CLAIM_AT + 6:
                return kinds["close"]
        tile = self._lead(plays, sure, trump, board["phase"] == 1)
        return {"type": "play", "tile": CODES[tile]}

    @staticmethod
    def _sure(tile: Tile, unseen: int, trump: int) -> bool:
        """No tile the other seat could hold beats ``tile`` led."""
        t = 0
        rest = unseen
        while rest:
            if rest & 1 and beats(tile, t, trump):
                return False
            rest >>= 1
            t += 1
        return True

    @staticmethod
    def _keep(tile: Tile, trump: int) -> int:
        """How much a tile is worth keeping for later (trumps, the bingo)."""
        if tile == BINGO:
            return 16
        if is_trump(tile, trump):
            return 4 + rank_in(tile, trump)
        return 1 if is_double(tile) else 0

    def _lead(self, plays: list[Tile], sure: list[Tile], trump: int, phase_one: bool) -> Tile:
        if not phase_one and sure:
            return max(sure, key=lambda t: (value(t, trump), -self._keep(t, trump), t))
        if all(is_double(t) for t in plays) and BINGO in plays:
            return BINGO  # a declaration's lead: the bingo cannot lose
        if phase_one:
            return min(plays, key=lambda t: (value(t, trump) + self._keep(t, trump),
                                             self.rng.random()))
        return min(plays, key=lambda t: (value(t, trump), self._keep(t, trump),
                                         self.rng.random()))

    def _follow(self, lead: Tile, plays: list[Tile], trump: int, phase_one: bool) -> Tile:
        stake = value(lead, trump)

        def score(t: Tile) -> tuple[float, float]:
            worth = stake + value(t, trump)
            keep = self._keep(t, trump) if phase_one else 0
            if beats(lead, t, trump):
                return (worth + 1 - keep, self.rng.random())
            return (-worth - keep / 4, self.rng.random())

        return max(plays, key=score)

