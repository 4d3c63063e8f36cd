"""Exact values of Mate positions in which both hands are known (the perfect bot's search).

Once the foreplacement decisions are made, Mate is a game of perfect information except
for the opponent's face-down card, which takes no part in the play. For one guess of that
card the rest is a finite two-person zero-sum game: ``Solver.value`` is its minimax value,
found by alpha-beta search with a transposition table keyed on the cards left (two
20-bit masks and who leads; the move number follows from the cards left).

Values are *net* points of the player to lead: what it scores minus what the other
scores (only the mater scores, so a game is worth ``+points`` to the mater and
``-points`` to the mated). Net points are what a match is decided by (the difference of
the totals), which is why the bot maximises them rather than its own points alone.
"""

from __future__ import annotations

from .cards import RANK_OF_MASK, SUIT_OF_MASK, VALUE

_EXACT, _LOWER, _UPPER = 0, 1, 2
_BIG = 1 << 20
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
    searched once (the bot asks again after every move, with fewer cards left).
    """

    __slots__ = ("fore", "nodes", "size", "table")

    def __init__(self, fore: tuple[int, int]) -> None:
        self.fore = fore
        #: Cards each seat holds at move 1.
        self.size = (10 - fore[0], 10 - fore[1])
        #: key -> value << 2 | bound kind (an int, not a tuple: millions of entries, no GC)
        self.table: dict[int, int] = {}
        self.nodes = 0

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
        for a in _cards(follow):
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
        self.nodes += 1
        key = lh | ah << 20 | leader << 40
        table = self.table
        hit = table.get(key)
        if hit is not None:
            v = hit >> 2
            flag = hit & 3
            if flag == _EXACT:
                return v
            if flag == _LOWER:
                if v >= beta:
                    return v
                if v > alpha:
                    alpha = v
            else:
                if v <= alpha:
                    return v
                if v < beta:
                    beta = v
        start_alpha = alpha
        best = -_BIG
        mult = n + self.fore[leader]
        leads = _cards(lh)
        # Mating leads first: their value needs no search and often cuts the rest off.
        for c in leads:
            if not ah & (SUIT_OF_MASK[c] | RANK_OF_MASK[c]) and VALUE[c] * mult > best:
                best = VALUE[c] * mult
        if best > alpha:
            alpha = best
        if best < beta:
            other = 1 - leader
            stronger = _STRONGER
            search = self._search
            for c in leads:
                follow = ah & SUIT_OF_MASK[c]
                if not follow:
                    follow = ah & RANK_OF_MASK[c]
                    if not follow:
                        continue  # a mate: counted above
                rest = lh ^ (1 << c)
                worst = _BIG  # the answerer minimises the leader's value
                beats = stronger[c]
                for a in _cards(follow):
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
                    if best > alpha:
                        alpha = best
                        if alpha >= beta:
                            break
        if best <= start_alpha:
            table[key] = best << 2 | _UPPER
        elif best >= beta:
            table[key] = best << 2 | _LOWER
        else:
            table[key] = best << 2 | _EXACT
        return best
