"""The perfect Mate bot stays exactly perfect: on many positions, including the slowest
decisions (foreplacement and the first lead), the action it chooses has the best expected
value as a plain memoised minimax computes it, a search with no pruning, no move
ordering and no windows (checked here against a minimax over the engine itself)."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from app.games.mate import GAME
from app.games.mate.bots import PerfectBot, _mask
from app.games.mate.cards import BY_CODE, VALUE, answers, beats, cards_in
from app.games.mate.state import Game, MateMatch, deal

JSONView = dict[str, Any]


@cache
def lead_value(lh: int, ah: int, lf: int, af: int) -> int:
    """Net points of the player to lead, holding ``lh`` (``lf`` = 1 if it foreplaced),
    against ``ah`` (``af``), with best play by both: every lead, every answer."""
    n = 11 - lf - lh.bit_count()  # the move number: each foreplacer starts with 9 cards
    return max(led_value(lh, ah, lf, af, n, c) for c in cards_in(lh))


def led_value(lh: int, ah: int, lf: int, af: int, n: int, c: int) -> int:
    """The leader's net points once it leads ``c`` (still in ``lh``) on move ``n``."""
    follow = answers(ah, c)
    if not follow:
        return VALUE[c] * (n + lf)
    return min(after(lh ^ 1 << c, ah ^ 1 << a, lf, af, c, a) for a in cards_in(follow))


def after(lh: int, ah: int, lf: int, af: int, c: int, a: int) -> int:
    """The leader's net points once ``c`` was answered by ``a`` (both out of the hands)."""
    if not lh and not ah:
        return 0  # played out: a draw
    if not lh or not ah:  # a lone foreplacer's tenth move (rules: "The tenth move")
        if not lh:  # the leader foreplaced and repeats c
            repeat, last, foreplacer_won, sign = c, ah, beats(c, a), 1
        else:
            repeat, last, foreplacer_won, sign = a, lh, not beats(c, a), -1
        (other,) = cards_in(last)
        if repeat // 5 == other // 5 or repeat % 5 == other % 5:
            return 0
        if foreplacer_won:
            return sign * VALUE[repeat] * 11 * 2  # overmate
        return -sign * VALUE[other] * 10
    if beats(c, a):
        return lead_value(lh, ah, lf, af)
    return -lead_value(ah, lh, af, lf)


# --- the reference itself against the engine -------------------------------------------

def engine_value(g: Game) -> int:
    """Seat 0's net points with best play, by trying every action on copies of ``g``."""
    if g.over:
        assert g.result is not None
        return g.result.scores[0] - g.result.scores[1]
    seat = g.turn
    assert seat is not None
    values = []
    for action in g.legal(seat):
        h = copy.deepcopy(g)
        h.apply(seat, action)
        values.append(engine_value(h))
    return max(values) if seat == 0 else min(values)


def endgame(rng: random.Random, fores: tuple[bool, bool]) -> Game:
    """A game at the start of a move with at most three cards in a hand, foreplaced as
    ``fores`` says (the leader's decision first)."""
    while True:
        g = Game(deal(rng, 0), rng.randrange(2))
        for fore in fores:
            seat = g.turn
            assert seat is not None
            g.apply(seat, g.legal(seat)[1 + rng.randrange(10)] if fore
                    else {"type": "decline"})
        while not g.over and (g.current is not None
                              or min(h.bit_count() for h in g.hands) > 3):
            seat = g.turn
            assert seat is not None
            g.apply(seat, rng.choice(g.legal(seat)))
        if not g.over:
            return g


@pytest.mark.parametrize("index", range(16))
def test_the_reference_agrees_with_the_engine(index: int) -> None:
    kinds = [(False, False), (True, False), (False, True), (True, True)]
    g = endgame(random.Random(100 + index), kinds[index % 4])
    leader = g.turn
    assert leader is not None
    fl, fa = int(g.foreplaced(leader)), int(g.foreplaced(1 - leader))
    v = lead_value(g.hands[leader], g.hands[1 - leader], fl, fa)
    assert (v if leader == 0 else -v) == engine_value(g)


# --- the bot's choices against the reference --------------------------------------------

def reference_totals(view: JSONView) -> list[int]:
    """For each legal action, the sum over the worlds the bot considers (the other
    player's possible hands; one world when nothing of theirs is face down) of the seat's
    net points with best play: what the bot's average compares, times the world count."""
    board = view["board"]
    me = view["seat"]
    op = 1 - me
    mine = _mask(board["hand"])
    theirs = _mask(board["unplayed"][op])
    i_lead = board["leader"] == me

    def game_value(m: int, mf: int, o: int, of: int) -> int:
        """My net points from move 1 with hands ``m`` and ``o`` (the leader leads)."""
        return lead_value(m, o, mf, of) if i_lead else -lead_value(o, m, of, mf)

    if board["phase"] == "foreplace":
        mine_options = [None if a["type"] == "decline" else BY_CODE[a["card"]]
                        for a in view["legal"]]
        if not board["decided"][op]:  # I decide first: against their best reply
            replies = [None, *cards_in(theirs)]
        elif board["foreplaced"][op]:
            replies = list(cards_in(theirs))
        else:
            replies = [None]
        values = [[game_value(mine ^ (0 if g is None else 1 << g), int(g is not None),
                              theirs ^ (0 if f is None else 1 << f), int(f is not None))
                   for f in replies] for g in mine_options]
        if not board["decided"][op]:
            return [min(row) * len(replies) for row in values]
        return [sum(row) for row in values]
    fore = board["foreplaced"]
    mf, of = int(bool(fore[me])), int(bool(fore[op]))
    worlds = PerfectBot.worlds(op, board)
    cards = [BY_CODE[a["card"]] for a in view["legal"]]
    lead = board["lead"]
    totals = []
    for card in cards:
        total = 0
        for o in worlds:
            if lead is None:  # I lead card now
                n = 11 - mf - mine.bit_count()
                total += led_value(mine, o, mf, of, n, card)
            else:  # I answer their lead with card
                c = BY_CODE[lead["card"]]
                total -= after(o, mine ^ 1 << card, of, mf, c, card)
        totals.append(total)
    return totals


def views(seed: int, keep: Callable[[JSONView], bool], count: int) -> list[JSONView]:
    """Views of the seat to act, from matches played at random, that ``keep`` selects."""
    rng = random.Random(seed)
    out: list[JSONView] = []
    while len(out) < count:
        m = GAME.new_match(rng.randrange(1 << 30), {})
        assert isinstance(m, MateMatch)
        while not m.over and len(out) < count:
            if m.between_games:
                m.start_next_game()
                continue
            (seat,) = m.to_act()
            view = m.view(seat)
            if len(view["legal"]) > 1 and keep(view):
                out.append(view)
            m.apply(seat, rng.choice(view["legal"]))
    return out


def check_choice(view: JSONView) -> None:
    totals = reference_totals(view)
    choice = PerfectBot(1).choose(view)
    assert totals[view["legal"].index(choice)] == max(totals), (view, totals, choice)


def _moves_done(view: JSONView) -> int:
    return len(view["board"]["moves"])


def test_exact_choices_in_the_middle_of_games() -> None:
    for view in views(1, lambda v: v["board"]["phase"] == "play" and _moves_done(v) >= 3,
                      200):
        check_choice(view)


def test_exact_choices_early_in_games() -> None:
    for view in views(2, lambda v: v["board"]["phase"] == "play" and 1 <= _moves_done(v) <= 2,
                      6):
        check_choice(view)


@pytest.mark.parametrize("kind", ["leader", "second after a foreplacement",
                                  "second after a decline", "first lead"])
def test_exact_choices_in_the_slowest_decisions(kind: str) -> None:
    def keep(view: JSONView) -> bool:
        board = view["board"]
        op = 1 - view["seat"]
        if kind == "first lead":
            return (board["phase"] == "play" and not board["moves"]
                    and board["lead"] is None and bool(board["foreplaced"][op]))
        if board["phase"] != "foreplace":
            return False
        if kind == "leader":
            return not board["decided"][op]
        return bool(board["decided"][op]) and (
            bool(board["foreplaced"][op]) == (kind == "second after a foreplacement"))

    (view,) = views(3 + len(kind), keep, 1)  # each from another match
    check_choice(view)
