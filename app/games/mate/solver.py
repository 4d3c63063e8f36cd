"""Exact values of Mate positions in which both hands are known (the perfect bot's search).

Once the foreplacement decisions are made, Mate is a game of perfect information except
for the opponent's face-down card, which takes no part in the play. For one guess of that
card the rest is a finite two-person zero-sum game: ``Solver.value`` is its minimax value,
found by alpha-beta search with a transposition table keyed on the cards left (two
20-bit masks and who leads; the move number follows from the cards left).

Move ordering decides how much of the game alpha-beta has to look at, so at every
position the leads are tried in this order: a mate at once (no search), the lead found
best the last time this position was searched (kept in the table), then the leads the
other player can answer with the fewest cards (forcing leads); answers are tried the
cheapest card that wins the move first, then the weakest card that loses it. The table
keeps both a lower and an upper bound per position, so a position searched again with
another window (the bot asks many narrow questions about the same game) starts from
everything learnt so far.

Values are *net* points of the player to lead: what it scores minus what the other
scores (only the mater scores, so a game is worth ``+points`` to the mater and
``-points`` to the mated). Net points are what a match is decided by (the difference of
the totals), which is why the bot maximises them rather than its own points alone.
"""

from __future__ import annotations

from .cards import RANK_OF_MASK, SUIT_OF_MASK, VALUE

_BIG = 1 << 20
#: Beyond any value (the most a game is worth is 242): a bound not known yet.
_INF = 500
#: No move stored.
_NONE = 31
#: Cards of a mask in a fixed order, precomputed for 10-bit halves (search hot path).
_LOW_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(10) if m >> i & 1) for m in range(1 << 10))


_HIGH_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(c + 10 for c in t) for t in _LOW_BITS)


def _cards(mask: int) -> tuple[int, ...]:
    """The cards of a mask in pack order."""
    return _LOW_BITS[mask & 1023] + _HIGH_BITS[mask >> 10]


#: The card of a one-card mask.
_ONE: dict[int, int] = {1 << c: c for c in range(20)}
_STRONGER: tuple[tuple[bool, ...], ...] = tuple(
    tuple((a % 5 < b % 5) if a % 5 != b % 5 else a < b for b in range(20)) for a in range(20))


class Solver:
    """The game after the foreplacement decisions: ``fore[s]`` is 1 if seat ``s`` foreplaced.

    One solver keeps its table between calls, so the positions of a whole game are
    searched once (the bot asks again after every move, with fewer cards left). A
    position is keyed on what decides its value, which does not include the seats: the
    two hands (the leader's first), and whether the leader and whether the other player
    foreplaced (the move number follows from the leader's hand). So solvers of every
    foreplacement may share one ``table``, and the second game of a round, which deals
    the same hands the other way round with the other player leading, finds the
    positions of the first already searched.
    """

    __slots__ = ("fore", "size", "table", "tag")

    def __init__(self, fore: tuple[int, int], table: dict[int, int] | None = None) -> None:
        self.fore = fore
        #: Cards each seat holds at move 1.
        self.size = (10 - fore[0], 10 - fore[1])
        #: key -> (lower bound + 512) << 15 | (upper bound + 512) << 5 | best lead (or
        #: ``_NONE``): an int, not a tuple (millions of entries, nothing for the GC)
        self.table: dict[int, int] = {} if table is None else table
        #: Per leading seat, the key's foreplacement bits: the leader's, the other's.
        self.tag = (fore[0] << 40 | fore[1] << 41, fore[1] << 40 | fore[0] << 41)

    def move_number(self, hands: tuple[int, int]) -> int:
        """The number of the move about to be led (both hands shrink by one a move)."""
        return 1 + self.size[0] - hands[0].bit_count()

    def value(self, hands: tuple[int, int], leader: int,
              alpha: int = -_BIG, beta: int = _BIG) -> int:
        """Net points of ``leader`` with best play from the start of a move.

        Within the window ``(alpha, beta)`` the value is exact; outside it, it is a bound
        on the same side (fail-soft alpha-beta), which is all a caller comparing options
        needs.
        """
        n = self.move_number(hands)
        return self._search(hands[leader], hands[1 - leader], leader, n, alpha, beta)

    def answer_value(self, hands: tuple[int, int], leader: int, lead: int, answer: int,
                     alpha: int = -_BIG, beta: int = _BIG) -> int:
        """Net points of ``leader`` if ``lead`` (still in its hand) is answered by ``answer``
        (fail-soft in the window, as ``value``)."""
        n = self.move_number(hands)
        lh, ah = hands[leader] ^ (1 << lead), hands[1 - leader] ^ (1 << answer)
        return self._after(lh, ah, leader, n, lead, answer, alpha, beta)

    def lead_value(self, hands: tuple[int, int], leader: int, lead: int,
                   alpha: int = -_BIG, beta: int = _BIG) -> int:
        """Net points of ``leader`` for leading ``lead`` (still in its hand) now (fail-soft
        in the window, as ``value``)."""
        n = self.move_number(hands)
        lh, ah = hands[leader], hands[1 - leader]
        follow = ah & SUIT_OF_MASK[lead] or ah & RANK_OF_MASK[lead]
        if not follow:
            return VALUE[lead] * (n + self.fore[leader])
        worst = _BIG
        for a in _ANSWERS[follow << 5 | lead]:
            v = self._after(lh ^ (1 << lead), ah ^ (1 << a), leader, n, lead, a, alpha,
                            min(beta, worst))
            if v < worst:
                worst = v
                if worst <= alpha:
                    break
        return worst

    def _after(self, lh: int, ah: int, leader: int, n: int, c: int, a: int,
               alpha: int, beta: int) -> int:
        """Leader's value once move ``n`` is ``c`` answered by ``a`` (both out of the hands)."""
        if not lh or not ah:
            if lh == ah:  # both played out: a draw
                return 0
            return self._tenth(lh, ah, c, a, _STRONGER[c][a])
        if _STRONGER[c][a]:
            return self._search(lh, ah, leader, n + 1, alpha, beta)
        return -self._search(ah, lh, 1 - leader, n + 1, -beta, -alpha)

    @staticmethod
    def _tenth(lh: int, ah: int, c: int, a: int, leader_won: bool) -> int:
        """Move 10 of a lone foreplacer (whose hand is empty): its move-9 card again.

        The value is the move-9 leader's: ``lh``/``ah`` are the hands after move 9.
        """
        if not lh:  # the move-9 leader is the foreplacer; it repeats ``c``
            repeat, last, fore_won, sign = c, ah, leader_won, 1
        else:
            repeat, last, fore_won, sign = a, lh, not leader_won, -1
        if last & (SUIT_OF_MASK[repeat] | RANK_OF_MASK[repeat]):
            return 0  # the repeat and the last card share a suit or a rank: a draw
        if fore_won:  # the foreplacer led the repeat and it cannot be answered: overmate
            return sign * VALUE[repeat] * 22
        # The other player leads its last card and the repeat cannot answer it.
        return -sign * VALUE[_cards(last)[0]] * 10

    def _search(self, lh: int, ah: int, leader: int, n: int, alpha: int, beta: int) -> int:
        """Negamax with a transposition table: the leader's value at the start of move n."""
        key = lh | ah << 20 | self.tag[leader]
        table = self.table
        hit = table.get(key)
        if hit is not None:
            lo = (hit >> 15) - 512
            hi = ((hit >> 5) & 1023) - 512
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
            mv = hit & 31
        else:
            lo, hi, mv = -_INF, _INF, _NONE
        start_alpha = alpha
        best = -_BIG
        best_move = _NONE
        mult = n + self.fore[leader]
        # Mating leads are valued at once (they often cut the rest off); the others are
        # sorted: the stored best lead first, then by how few cards can answer them.
        order: list[int] = []
        for c in _cards(lh):
            follow = ah & SUIT_OF_MASK[c] or ah & RANK_OF_MASK[c]
            if not follow:
                if VALUE[c] * mult > best:
                    best = VALUE[c] * mult
                    best_move = c
            elif c == mv:
                order.append(c)
            else:
                order.append(follow.bit_count() << 5 | c)
        if best > alpha:
            alpha = best
        if best < beta:
            order.sort()
            other = 1 - leader
            stronger = _STRONGER
            search = self._search
            answers_of = _ANSWERS
            for c in order:
                c &= 31
                # (The answers: the suit if held, else the rank; none is a mate, done above.)
                follow = ah & SUIT_OF_MASK[c] or ah & RANK_OF_MASK[c]
                rest = lh ^ (1 << c)
                worst = _BIG  # the answerer minimises the leader's value
                beats = stronger[c]
                for a in answers_of[follow << 5 | c]:
                    left = ah ^ (1 << a)
                    if not rest or not left:
                        v = 0 if rest == left else self._tenth(rest, left, c, a, beats[a])
                    elif not (rest & (rest - 1) or left & (left - 1)):
                        # The last move with a card each: the winner leads its card.
                        if beats[a]:
                            x, y, w = _ONE[rest], left, leader
                        else:
                            x, y, w = _ONE[left], rest, other
                        if y & (SUIT_OF_MASK[x] | RANK_OF_MASK[x]):
                            v = 0
                        else:
                            v = VALUE[x] * (n + 1 + self.fore[w])
                            if w != leader:
                                v = -v
                    elif beats[a]:
                        v = search(rest, left, leader, n + 1, alpha,
                                   worst if worst < beta else beta)
                    else:
                        v = -search(left, rest, other, n + 1,
                                    -worst if worst < beta else -beta, -alpha)
                    if v < worst:
                        worst = v
                        if worst <= alpha:
                            break
                if worst > best:
                    best = worst
                    best_move = c
                    if best > alpha:
                        alpha = best
                        if alpha >= beta:
                            break
        if best <= start_alpha:
            if best < hi:
                hi = best
        elif best >= beta:
            if best > lo:
                lo = best
        else:
            lo = hi = best
        table[key] = (lo + 512) << 15 | (hi + 512) << 5 | best_move
        return best


def _answer_order(c: int, follow: int) -> tuple[int, ...]:
    """The cards of ``follow`` in the order to try them as answers to ``c``: the cheapest
    that wins the move first, then the weakest that loses it (the stronger cards are kept
    for later)."""
    weakest_first = _cards(follow)[::-1]
    return tuple(sorted(weakest_first, key=lambda a: _STRONGER[c][a]))


def _answer_orders() -> dict[int, tuple[int, ...]]:
    """``follow << 5 | lead`` -> the answers in search order, for every lead and every
    set of answers it can meet (some cards of its suit, or else of its rank)."""
    out = {}
    for c in range(20):
        for group in (SUIT_OF_MASK[c], RANK_OF_MASK[c]):
            cards = _cards(group)
            for sub in range(1, 1 << len(cards)):
                follow = sum(1 << x for i, x in enumerate(cards) if sub >> i & 1)
                out[follow << 5 | c] = _answer_order(c, follow)
    return out


_ANSWERS: dict[int, tuple[int, ...]] = _answer_orders()
