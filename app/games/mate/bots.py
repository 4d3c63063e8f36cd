"""Bots for Mate: a greedy rule and the perfect bot (the random bot is ``kit.RandomBot``).

A bot sees what its seat's browser sees and nothing else: ``choose`` gets the seat's
view (``MateMatch.view(seat)``) and answers one of ``view["legal"]``. Each bot has its
own ``random.Random`` from its seed (the perfect bot needs none: of equally good
actions it takes the first it found best, so it is deterministic).

The perfect bot (issue 15) rebuilds the position from the view: its own hand, the
other player's unplayed cards (the view lists them, rules section 7) and the piles.
The one thing it does not know is the other player's face-down card, so it considers
every card that could be face down (every unplayed card of that player that is
consistent with how they answered so far), solves the rest of the game exactly for each
(``solver.Solver``: alpha-beta with a transposition table over the cards left), and
plays the action with the best average. Scores are net points (its own minus the
other's), since the match is decided by the difference of the totals.

Foreplacement is decided the same way, one level up: the leader takes, for each of its
choices, the other player's best reply (as if that player knew the choice; it only
knows *whether*), and the second player averages over the cards the leader could have
put face down.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from ..contract import JSON
from .cards import BY_CODE, CODES, VALUE, answers, beats, cards_in
from .solver import Solver

_BIG = 1 << 20
#: Past this many positions kept, the table starts afresh (memory bound).
TABLE_LIMIT = 1_500_000


def _mask(codes: Sequence[str]) -> int:
    m = 0
    for code in codes:
        m |= 1 << BY_CODE[code]
    return m


class GreedyBot:
    """A simple rule, no look-ahead: never foreplace; lead the most valuable card that
    mates at once (judged on the other player's unplayed cards), else its strongest card;
    answer with the weakest card that wins the move, else its weakest card."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: JSON) -> JSON:
        legal: list[JSON] = view["legal"]
        board = view["board"]
        cards = [BY_CODE[a["card"]] for a in legal if a["type"] == "play"]
        if not cards:
            return {"type": "decline"}
        seat = view["seat"]
        lead = board["lead"]
        if lead is None:
            other = _mask(board["unplayed"][1 - seat])
            mating = [c for c in cards if not answers(other, c)]
            if mating:
                best = max(mating, key=lambda c: (VALUE[c], -c))
            else:
                best = min(cards, key=lambda c: (c % 5, c))  # highest rank, highest suit
        else:
            led = BY_CODE[lead["card"]]
            winning = [c for c in cards if beats(c, led)]
            pool = winning or cards
            best = max(pool, key=lambda c: (c % 5, c))  # the weakest of them
        return {"type": "play", "card": CODES[best]}


class PerfectBot:
    """Exact search of the rest of the game, averaged over the possible face-down cards."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        #: One table of positions for every solver (keyed without seats, see ``Solver``).
        self.table: dict[int, int] = {}
        self.solvers: dict[tuple[int, int], Solver] = {}
        self.deal: tuple[int, int] = (0, 0)

    def solver(self, fore: tuple[int, int]) -> Solver:
        if len(self.table) > TABLE_LIMIT:
            self.table = {}
            self.solvers.clear()
        s = self.solvers.get(fore)
        if s is None:
            s = self.solvers[fore] = Solver(fore, self.table)
        return s

    def _same_deal(self, board: JSON) -> None:
        """Keep the table for one deal only: positions of another deal never recur, and a
        table of millions of entries costs memory and time to grow. The second game of a
        round deals the same two hands the other way round, so it keeps the first game's
        table (the positions coincide: see ``Solver``)."""
        dealt = [_mask(board["unplayed"][s]) | _mask([p["card"] for p in board["piles"][s]])
                 for s in (0, 1)]
        key = (min(dealt), max(dealt))
        if key != self.deal:
            self.deal = key
            self.table = {}
            self.solvers.clear()

    def choose(self, view: JSON) -> JSON:
        legal: list[JSON] = view["legal"]
        if len(legal) == 1:
            return legal[0]
        board = view["board"]
        self._same_deal(board)
        if board["phase"] == "foreplace":
            scored = self._foreplacement(view["seat"], board, legal)
        else:
            scored = self._play(view["seat"], board, legal)
        # The first best: other options' scores may be bounds that only tie it.
        return legal[scored.index(max(scored))]

    # --- playing -------------------------------------------------------------------------

    def _play(self, me: int, board: JSON, legal: list[JSON]) -> list[float]:
        op = 1 - me
        fore = (int(bool(board["foreplaced"][0])), int(bool(board["foreplaced"][1])))
        mine = _mask(board["hand"])
        worlds = self.worlds(op, board)
        lead = board["lead"]
        solver = self.solver(fore)
        cards = [BY_CODE[a["card"]] for a in legal]

        def value(i: int, w: int, alpha: int, beta: int) -> int:
            theirs = worlds[w]
            card = cards[i]
            if lead is None:
                hands = (mine, theirs) if me == 0 else (theirs, mine)
                return solver.lead_value(hands, me, card, alpha, beta)
            led = 1 << BY_CODE[lead["card"]]
            back = (mine, theirs | led) if me == 0 else (theirs | led, mine)
            return -solver.answer_value(back, op, BY_CODE[lead["card"]], card, -beta, -alpha)

        return best_average(len(legal), len(worlds), value)

    @staticmethod
    def worlds(op: int, board: JSON) -> list[int]:
        """The other player's possible hands: its unplayed cards less each card that could be
        face down (a card it could not have held when it answered by rank is face down)."""
        unplayed = _mask(board["unplayed"][op])
        if not board["foreplaced"][op]:
            return [unplayed]
        later = [0] * 12  # the other player's cards played on moves >= n
        for entry in board["piles"][op]:
            for n in range(entry["move"] + 1):
                later[n] |= 1 << BY_CODE[entry["card"]]
        answered = [(m["move"], BY_CODE[m["lead"]], BY_CODE[m["answer"]])
                    for m in board["moves"]
                    if m["leader"] != op and m["answer"] is not None
                    and m["repeat"] is None]
        out = []
        for c in cards_in(unplayed):
            hand = unplayed ^ (1 << c)
            if all((1 << a) & answers(hand | later[n], led) for n, led, a in answered):
                out.append(hand)
        return out

    # --- foreplacement -------------------------------------------------------------------

    def _foreplacement(self, me: int, board: JSON, legal: list[JSON]) -> list[float]:
        op = 1 - me
        leader = board["leader"]
        mine = _mask(board["hand"])
        theirs = _mask(board["unplayed"][op])
        options = [None if a["type"] == "decline" else BY_CODE[a["card"]] for a in legal]

        def value(fm: int | None, fo: int | None, alpha: int = -_BIG, beta: int = _BIG) -> int:
            """My net points with both decisions known, I lead iff I am the leader."""
            m = mine ^ (0 if fm is None else 1 << fm)
            o = theirs ^ (0 if fo is None else 1 << fo)
            hands = (m, o) if me == 0 else (o, m)
            fore = (int(fm is not None), int(fo is not None))
            if me == 1:
                fore = (fore[1], fore[0])
            solver = self.solver(fore)
            if leader == me:
                return solver.value(hands, me, alpha, beta)
            return -solver.value(hands, op, -beta, -alpha)

        if not board["decided"][op]:
            # I decide first: each choice against the other player's best reply. After the
            # first, a choice is only asked whether every reply leaves it better than the
            # best so far (yes-or-no questions, the reply that last said no asked first);
            # only a choice that passes is valued exactly. A choice that merely ties is
            # scored no higher than the earlier one, which is then the first best.
            replies: list[int | None] = [None, *cards_in(theirs)]
            scored: list[float] = []
            best = -_BIG
            for fm in options:
                refuted = False
                if best > -_BIG:
                    for k, fo in enumerate(replies):
                        bound = value(fm, fo, best, best + 1)
                        if bound <= best:
                            refuted = True
                            replies.insert(0, replies.pop(k))
                            scored.append(bound)
                            break
                if not refuted:
                    worst = _BIG
                    for fo in replies:
                        worst = min(worst, value(fm, fo, best, worst))
                    scored.append(worst)
                    best = worst
            return scored
        if not board["foreplaced"][op]:
            return best_average(len(options), 1,
                                lambda i, w, alpha, beta: value(options[i], None, alpha, beta))
        faces = cards_in(theirs)
        return best_average(len(options), len(faces),
                            lambda i, w, alpha, beta: value(options[i], faces[w], alpha, beta))


def best_average(options: int, worlds: int,
                 value: Callable[[int, int, int, int], int]) -> list[float]:
    """Each option's average value over the worlds, exact for the best option; for the
    others it may be an upper bound below the best, which is all a choice needs. An
    option that only ties the best is not searched further, so the first option with the
    highest score (``scores.index(max(scores))``) is a best one.

    ``value(option, world, alpha, beta)`` is fail-soft alpha-beta: exact inside the
    window, a bound on the same side outside it. A search with a narrow window is much
    cheaper than an exact one, so nearly every question asked is a yes-or-no one (a
    null window). Every option is first searched in world 0 with the window starting at
    the best value found there so far, and the options are then taken best first. The
    first is valued exactly in every world (``exact``: null windows that close in on the
    value from a guess, the value of the world before). Each later one is asked, world by
    world, only whether it does better than the best option there: where it does not,
    that answer is an upper bound; where it does, its value there is settled exactly.
    If those upper bounds add up to no more than the best total the option is done
    (most are); otherwise the rest of its worlds are settled exactly too.
    """

    def exact(i: int, w: int, lo: int, hi: int, guess: int) -> int:
        """The value of option ``i`` in world ``w`` known to lie in ``[lo, hi]`` (MTD(f))."""
        g = min(max(guess, lo), hi)
        while lo < hi:
            b = g + 1 if g == lo else g
            g = value(i, w, b - 1, b)
            if g < b:
                hi = g
            else:
                lo = g
        return lo

    first: list[int] = []
    exact0: list[bool] = []
    alpha = -_BIG
    for i in range(options):
        v = value(i, 0, alpha, _BIG)
        first.append(v)
        exact0.append(v > alpha)
        alpha = max(alpha, v)
    order = sorted(range(options), key=lambda i: -first[i])  # stable: exact ones first
    scores = [0.0] * options
    best_values: list[int] = []
    best_total = -_BIG
    best_i = order[0]
    for i in order:
        lo = [-_BIG] * worlds
        hi = [_BIG] * worlds
        if exact0[i]:
            lo[0] = hi[0] = first[i]
        else:
            hi[0] = first[i]  # no better than an earlier option there
        if not best_values:
            for w in range(worlds):
                lo[w] = hi[w] = exact(i, w, lo[w], hi[w], first[i] if w == 0 else lo[w - 1])
        else:
            for w in range(1, worlds):
                t = best_values[w]
                v = value(i, w, t, t + 1)
                if v <= t:
                    hi[w] = v
                else:
                    lo[w] = hi[w] = exact(i, w, v, _BIG, v)
            if sum(hi) > best_total:  # it may do better: settle the bounds
                for w in range(worlds):
                    if lo[w] < hi[w]:
                        lo[w] = hi[w] = exact(i, w, lo[w], hi[w], hi[w])
        total = sum(hi)
        if total > best_total:
            best_total, best_values, best_i = total, hi, i
        scores[i] = total / worlds
    top = best_total / worlds
    # An option whose score (exact, or an upper bound) reaches the best only ties it.
    return [top if i == best_i else min(s, math.nextafter(top, -math.inf))
            for i, s in enumerate(scores)]
