"""Bots for Divide and Conquer. Each gets only its seat's view (``DivideMatch.view``).

- ``RandomBot``: a uniformly random legal card.
- ``GreedyBot``: the card that beats the most of the opponent's cards, lowest first on
  ties: what a beginner does, and a fixed way of playing.
- ``EquilibriumBot``: the game-theoretic solution (``solver``): at every battle it draws
  its card from the optimal mixed strategy of the zero-sum game "win the game, +1;
  draw, 0; lose it, -1", so no way of playing wins more than it loses against it on
  average. Its view holds everything it needs: its hand, the opponent's unshown cards
  (a face-down card among them, unmarked), the battles won so far, the half, and the
  deal.

Why that objective: only the game's result counts (Ruling R10 has every battle fought,
but a sixth win is worth no more than a fifth), and a drawn game is replayed and counts
for neither seat (R11). A match is then won by whoever wins more of its decided games,
so what matters per game is P(win) against P(loss); "+1/0/-1" is that difference, and
holding it at the deal's value means no opponent wins more games than it loses against
the bot on average, hence no better than even in a match. Maximising battles instead
(``objective="battles"``) would trade game wins for margins.

What that buys, measured (docs/benchmarks.md): every deal of the standard deck is worth
exactly 0 (the hand swap makes the game fair), and in most states the optimal
strategies use every card, so a reply that stays among them earns exactly the value:
computed over all 252 deals, the bot's expected result against random and against
greedy is 0 (each wins 36.8% of games). It cannot be beaten on average, but it does not
punish weak play either, while a best response to greedy wins every game. Uniformly
random play is itself optimal: against it each half pairs the hands by a uniformly
random matching whatever one does, and the swap mirrors the halves, so nothing beats
it on average (tested, and in docs/benchmarks.md).
"""

from __future__ import annotations

import random

from ..contract import JSON
from .cards import VALUE, low_wins
from .solver import Solver


def _seat_and_board(view: JSON) -> tuple[int, JSON]:
    seat = view["seat"]
    if type(seat) is not int:
        raise ValueError("a bot plays a seat: a spectator's view has no cards to choose")
    return seat, view["board"]


def _legal_cards(view: JSON) -> list[str]:
    cards = [str(a["card"]) for a in view["legal"]]
    if not cards:
        raise ValueError("the bot's seat has nothing to do now")
    return cards


class RandomBot:
    """Commits a uniformly random card of its hand."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: JSON) -> JSON:
        return {"type": "commit", "card": self._rng.choice(_legal_cards(view))}


def _beats(mine: str, theirs: str) -> bool:
    a, b = VALUE[mine], VALUE[theirs]
    return low_wins(a, b) if a < b else not low_wins(b, a)


class GreedyBot:
    """Commits the card that beats the most of the opponent's cards (lowest on ties)."""

    def __init__(self, seed: int) -> None:
        del seed  # deterministic

    def choose(self, view: JSON) -> JSON:
        seat, board = _seat_and_board(view)
        theirs = board["seats"][1 - seat]["cards"]
        cards = _legal_cards(view)
        best = max(cards, key=lambda c: (sum(_beats(c, t) for t in theirs), -VALUE[c]))
        return {"type": "commit", "card": best}


class EquilibriumBot:
    """Plays the optimal mixed strategy of the state its view shows (see ``solver``)."""

    def __init__(self, seed: int, objective: str = "game") -> None:
        self._rng = random.Random(seed)
        self.objective = objective
        #: The solution of the current deal, kept while the game lasts: solving a deal
        #: is the first decision's cost (standard deck ~50 ms, long deck ~2 s), every
        #: later decision is a look-up. Each bot keeps its own, so tables playing other
        #: deals never evict it.
        self._solver: Solver | None = None

    def strategy(self, view: JSON) -> dict[str, float]:
        """The probability of each legal card in this view (they add up to 1)."""
        seat, board = _seat_and_board(view)
        cards = _legal_cards(view)
        solve = self._solver
        if solve is None or solve.deck != board["deck"]:
            solve = self._solver = Solver(board["deck"], self.objective)
        mine = solve.mask(cards)
        theirs = solve.mask(board["seats"][1 - seat]["cards"])
        lead = board["seats"][seat]["wins"] - board["seats"][1 - seat]["wins"]
        dealt = solve.mask(board["seats"][seat]["dealt"])
        _, mixed, _ = solve.solve(dealt, mine, theirs, lead, board["half"] == 2)
        ordered = sorted(cards, key=solve.codes.index)
        return dict(zip(ordered, mixed, strict=True))

    def choose(self, view: JSON) -> JSON:
        mixed = self.strategy(view)
        cards = list(mixed)
        card = self._rng.choices(cards, weights=[mixed[c] for c in cards])[0]
        return {"type": "commit", "card": card}

