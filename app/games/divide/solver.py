"""Solving Divide and Conquer exactly: a matrix-game solver and backward induction.

Both hands are always known, so a state is only the cards each seat has left, the
battles each has won, and (in the first half) the deal, which fixes the hands of the
second half. In every state both seats choose a card at once: a small matrix game
whose entries are the values of the states that follow. Solving those from the end
backwards gives the value of the game and, at every battle, a mixed strategy that
guarantees it whatever the other seat does (the minimax theorem); no way of playing,
fixed or not, does better than the value against it on average.

Two objectives are offered, because the rules page scores a game by its result only:

- ``"game"`` (the equilibrium bot's): +1 for winning the game, 0 for a draw, -1 for
  losing it. Battles beyond a majority are worth nothing (Ruling R10 makes them be
  played, not count) and a drawn game counts for neither seat in the match (R11), so
  it sits halfway between a win and a loss.
- ``"battles"``: the expected number of battles won, the figure a table of battles
  would show; offered for comparison and for the tests.

States are memoised per deal (see ``Solver``). Cards are indices into the deck (lowest
value first) and sets of cards are bit masks.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from .cards import DECKS, VALUE, low_wins

EPS = 1e-12

Strategy = tuple[float, ...]
Answer = tuple[float, Strategy, Strategy]
Key = tuple[int, bool, int, int, int]


def solve_matrix(payoff: Sequence[Sequence[float]]) -> tuple[float, Strategy, Strategy]:
    """Value and optimal mixed strategies of a matrix game: ``(value, rows, columns)``.

    The row player receives ``payoff[i][j]`` and maximises; the column player minimises.
    A saddle point is answered directly; otherwise the payoffs are shifted to be
    positive and the linear program max sum(y) s.t. A y <= 1, y >= 0 is solved by the
    simplex method with Bland's rule (so it cannot cycle on the many ties these games
    have). Its optimum gives the column strategy; the final reduced costs of the slack
    variables are the dual, the row strategy.
    """
    rows, cols = len(payoff), len(payoff[0])
    row_min = [min(r) for r in payoff]
    col_max = [max(payoff[i][j] for i in range(rows)) for j in range(cols)]
    lower, upper = max(row_min), min(col_max)
    if upper - lower <= 1e-12:
        i, j = row_min.index(lower), col_max.index(upper)
        return (lower, tuple(float(k == i) for k in range(rows)),
                tuple(float(k == j) for k in range(cols)))
    shift = 1.0 - min(row_min)
    width = cols + rows
    table = [[payoff[i][j] + shift for j in range(cols)]
             + [float(k == i) for k in range(rows)] + [1.0] for i in range(rows)]
    cost = [-1.0] * cols + [0.0] * rows + [0.0]
    basis = [cols + i for i in range(rows)]
    while True:
        enter = next((j for j in range(width) if cost[j] < -1e-11), -1)
        if enter < 0:
            break
        leave, best = -1, 0.0
        for i in range(rows):
            a = table[i][enter]
            if a > 1e-11:
                ratio = table[i][-1] / a
                if leave < 0 or ratio < best - 1e-12 or (
                        ratio <= best + 1e-12 and basis[i] < basis[leave]):
                    leave, best = i, ratio
        assert leave >= 0, "the program is bounded: every payoff is positive"
        pivot_row = table[leave]
        p = pivot_row[enter]
        for k in range(width + 1):
            pivot_row[k] /= p
        for i in range(rows):
            if i != leave:
                f = table[i][enter]
                if f:
                    row = table[i]
                    for k in range(width + 1):
                        row[k] -= f * pivot_row[k]
        f = cost[enter]
        for k in range(width + 1):
            cost[k] -= f * pivot_row[k]
        basis[leave] = enter
    total = cost[-1]
    value = 1.0 / total
    dual = [max(cost[cols + i], 0.0) for i in range(rows)]
    primal = [0.0] * cols
    for i, b in enumerate(basis):
        if b < cols:
            primal[b] = max(table[i][-1], 0.0)
    sd, sp = sum(dual), sum(primal)
    return (value - shift, tuple(d / sd for d in dual), tuple(p / sp for p in primal))


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


class Solver:
    """The exact solution of one deck under one objective, from either seat's side.

    A state is seen from "me": ``dealt`` is the mask of the cards I was dealt (which
    fixes both hands of both halves), ``mine`` and ``theirs`` the masks of the cards
    each side has left, ``lead`` my battles won minus theirs so far in this game, and
    ``second`` whether the hands have changed (Ruling R9: in the second half I hold the
    cards they were dealt and they hold mine).

    Solved states are kept per deal, for the ``keep`` deals used most recently: a deal
    of the standard deck has some 2,000 states (about 1 MB), one of the long deck some
    34,000 (about 18 MB), and a server plays many deals, so an unbounded memo would only
    grow. Both seats' sides of a deal share one table.
    """

    def __init__(self, deck: int, objective: str = "game", keep: int = 1) -> None:
        if objective not in ("game", "battles"):
            raise ValueError(f"unknown objective {objective!r}")
        if keep < 1:
            raise ValueError("a solver keeps at least one deal")
        self.deck = deck
        self.objective = objective
        self.keep = keep
        self.codes = DECKS[deck]
        self.full = (1 << deck) - 1
        values = [VALUE[c] for c in self.codes]
        #: beats[i][j]: card i beats card j.
        self.beats = [[i != j and (low_wins(values[i], values[j]) if values[i] < values[j]
                                   else not low_wins(values[j], values[i]))
                       for j in range(deck)] for i in range(deck)]
        self._tables: OrderedDict[int, dict[Key, Answer]] = OrderedDict()

    def mask(self, cards: Sequence[str]) -> int:
        return sum(1 << self.codes.index(c) for c in cards)

    def _terminal(self, lead: int) -> float:
        return float((lead > 0) - (lead < 0)) if self.objective == "game" else 0.0

    def solve(self, dealt: int, mine: int, theirs: int, lead: int, second: bool = False
              ) -> Answer:
        """``(value, my strategy, their strategy)`` in the state described above.

        The strategies are over my cards and their cards in mask order (lowest value
        first). Under ``"game"`` the value is the expected result (+1 win, 0 draw, -1
        loss); under ``"battles"`` it is the expected number of battles I win from here
        on, so ``lead`` plays no part and is taken as 0.
        """
        if dealt.bit_count() * 2 != self.deck or dealt & ~self.full:
            raise ValueError("the dealt cards must be half the deck")
        canonical = min(dealt, self.full ^ dealt)
        table = self._tables.get(canonical)
        if table is None:
            table = self._tables[canonical] = {}
            while len(self._tables) > self.keep:
                self._tables.popitem(last=False)
        else:
            self._tables.move_to_end(canonical)
        return self._lookup(table, dealt, mine, theirs, lead, second)

    def _lookup(self, table: dict[Key, Answer], dealt: int, mine: int, theirs: int,
                lead: int, second: bool) -> Answer:
        if self.objective == "battles":
            lead = 0
        key = (dealt, second, mine, theirs, lead)
        known = table.get(key)
        if known is not None:
            return known
        mirror = table.get((self.full ^ dealt, second, theirs, mine, -lead))
        if mirror is not None:  # the same state from the other side
            answer = (-mirror[0] if self.objective == "game"
                      else self._battles_left(second, mine) - mirror[0], mirror[2], mirror[1])
        else:
            answer = self._solve(table, dealt, mine, theirs, lead, second)
        table[key] = answer
        return answer

    def _battles_left(self, second: bool, mine: int) -> float:
        return float(mine.bit_count() + (0 if second else self.deck // 2))

    def _solve(self, table: dict[Key, Answer], dealt: int, mine: int, theirs: int,
               lead: int, second: bool) -> Answer:
        if not mine:
            if not second:  # the end of the first half: the hands change (Ruling R9)
                return self._lookup(table, dealt, self.full ^ dealt, dealt, lead, True)
            return (self._terminal(lead), (), ())
        if self.objective == "game" and abs(lead) > self._battles_left(second, mine):
            # Decided: the rest cannot change the result; any card will do.
            k = mine.bit_count()
            return (self._terminal(lead), (1.0 / k,) * k, (1.0 / k,) * k)
        battles = self.objective == "battles"
        payoff = []
        for i in _bits(mine):
            row = []
            for j in _bits(theirs):
                won = self.beats[i][j]
                after = self._lookup(table, dealt, mine ^ 1 << i, theirs ^ 1 << j,
                                     lead + (1 if won else -1), second)[0]
                row.append(after + (1.0 if won else 0.0) if battles else after)
            payoff.append(row)
        return solve_matrix(payoff)

    def states(self) -> int:
        """How many states are memoised (for the benchmark)."""
        return sum(len(t) for t in self._tables.values())
