"""Mate's bots: legal and view-only; the solver agrees with a plain minimax over the
engine itself; the perfect bot picks the best line in known positions (the rules page's
examples) and averages over the face-down cards it cannot see."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from app.games.kit import RandomBot
from app.games.mate import GAME, redeal
from app.games.mate.bots import GreedyBot, PerfectBot, best_average
from app.games.mate.solver import Solver
from app.games.mate.state import Game, MateMatch, check_deal

EX4 = ("AC TC QC AS TS AH TH AD TD KD", "KC 7C KS QS 7S KH QH 7H QD 7D")
EX5 = ("AC TC AS KS 7S TH KH AD TD QD", "KC QC 7C TS QS AH QH 7H KD 7D")


def match_with(hands: tuple[str, str], first: str | None, second: str | None,
               moves: str) -> MateMatch:
    m = MateMatch(0, {}, [check_deal([h.split() for h in hands], 0)], first_dealer=0)
    for seat, card in ((0, first), (1, second)):
        m.apply(seat, {"type": "decline"} if card is None else
                {"type": "foreplace", "card": card})
    for code in moves.split():
        (seat,) = m.to_act()
        m.apply(seat, {"type": "play", "card": code})
    return m


def roundtrip(view: dict[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(json.dumps(view))
    return loaded


def test_example_5_the_perfect_bot_waits_for_move_10() -> None:
    # Move 9, Bob to lead AH or 7C. 7C mates now (63); AH draws Ann's ace and mates with
    # 7C on move 10 (70) -- or, if Ann's ace is face down, mates at once (99).
    m = match_with(EX5, "KS", None, "AS QS AC QC TC KC TH QH QD 7D TD KD KH 7H 7S TS")
    view = roundtrip(m.view(1))
    assert view["legal"] == [{"type": "play", "card": "7C"}, {"type": "play", "card": "AH"}]
    assert PerfectBot(1).choose(view) == {"type": "play", "card": "AH"}


def test_example_4_the_perfect_bot_keeps_two_spades() -> None:
    # Move 8, Bob answers QC with QS or QH: QS loses to an overmate (242) if Ann holds AS;
    # QH keeps KS QS, a draw then. The bot cannot see which of AS, KD is face down.
    m = match_with(EX4, "KD", None, "AH KH TC 7C TS 7S TH 7H AD 7D AC KC TD QD QC")
    view = roundtrip(m.view(1))
    assert [a["card"] for a in view["legal"]] == ["QS", "QH"]
    assert PerfectBot(2).choose(view) == {"type": "play", "card": "QH"}


def test_the_perfect_bot_mates_when_waiting_cannot_pay() -> None:
    # Seat 1 holds no club and no queen: QC mates on move 1.  Waiting gains nothing when
    # every later line lets seat 1 mate: the bot's value of QC is at least 3.
    m = match_with(("AC TC KC QC 7C AS QS AH QH QD", "TS KS 7S TH KH 7H AD TD KD 7D"),
                   None, None, "")
    bot = PerfectBot(3)
    choice = bot.choose(m.view(0))
    solver = Solver((0, 0))
    hands = (m.game.hands[0], m.game.hands[1])
    from app.games.mate.cards import BY_CODE
    values = {a["card"]: solver.lead_value(hands, 0, BY_CODE[a["card"]])
              for a in m.legal(0)}
    assert values["QC"] == 3
    assert values[choice["card"]] == max(values.values())


# --- the solver against a plain minimax over the engine --------------------------------

def plain_value(g: Game) -> int:
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
        values.append(plain_value(h))
    return max(values) if seat == 0 else min(values)


def positions(count: int, left: int) -> list[Game]:
    """Games at the start of a move with ``left`` or fewer cards in a hand, of every kind of
    foreplacement (none, either seat, both)."""
    rng = random.Random(5)
    out: list[Game] = []
    kinds = [(False, False), (True, False), (False, True), (True, True)]
    while len(out) < count:
        from app.games.mate.state import deal
        g = Game(deal(rng, 0), rng.randrange(2))
        for seat_fore in kinds[len(out) % 4][::1 if g.leader == 0 else -1]:
            seat = g.turn
            assert seat is not None
            if seat_fore:
                g.apply(seat, g.legal(seat)[1 + rng.randrange(10)])
            else:
                g.apply(seat, {"type": "decline"})
        while not g.over and (g.current is not None or min(
                h.bit_count() for h in g.hands) > left):
            seat = g.turn
            assert seat is not None
            g.apply(seat, rng.choice(g.legal(seat)))
        if not g.over:
            out.append(g)
    return out


@pytest.mark.parametrize("index", range(24))
def test_the_solver_agrees_with_a_plain_minimax(index: int) -> None:
    g = positions(24, 3)[index]
    fore = (int(g.foreplaced(0)), int(g.foreplaced(1)))
    solver = Solver(fore)
    assert g.turn is not None
    value = solver.value((g.hands[0], g.hands[1]), g.turn)
    expected = plain_value(g)
    assert (value if g.turn == 0 else -value) == expected
    # And through a narrow window: a bound on the right side.
    for alpha in (expected - 1, expected, expected + 1):
        bounded = solver.value((g.hands[0], g.hands[1]), g.turn, alpha, alpha + 1) \
            if g.turn == 0 else -solver.value((g.hands[0], g.hands[1]), g.turn,
                                              -alpha - 1, -alpha)
        if alpha < expected:
            assert bounded >= alpha + 1
        elif alpha > expected:
            assert bounded <= alpha
        else:
            assert bounded <= alpha + 1 and bounded >= alpha


def test_best_average_finds_the_best_option() -> None:
    rng = random.Random(1)
    for _ in range(200):
        table = [[rng.randrange(-50, 50) for _ in range(4)] for _ in range(5)]

        def value(i: int, w: int, alpha: int, beta: int, table: Any = table) -> int:
            """Fail-hard, the least a fail-soft search may say: a bound at the window."""
            v = int(table[i][w])
            return min(max(v, alpha), beta)

        scores = best_average(5, 4, value)
        sums = [sum(row) / 4 for row in table]
        assert max(scores) == max(sums)
        assert scores.index(max(scores)) in [i for i, s in enumerate(sums) if s == max(sums)]


# --- bots see the view only -----------------------------------------------------------

@pytest.mark.parametrize("kind", ["random", "greedy", "perfect"])
def test_bots_play_legal_actions_from_the_view_only(kind: str) -> None:
    m = GAME.new_match(4, {})
    assert isinstance(m, MateMatch)
    bots = [GAME.bots[kind](10), GAME.bots[kind](11)]
    steps = 0
    while not m.over and steps < 25:
        if m.between_games:
            m.start_next_game()
            continue
        (seat,) = m.to_act()
        view = roundtrip(m.view(seat))
        action = bots[seat].choose(view)
        assert action in view["legal"]
        m.apply(seat, action)
        steps += 1


def test_the_perfect_bot_does_not_peek() -> None:
    # The same view gives the same choice whichever card the other player has face down.
    rng = random.Random(3)
    m = match_with(EX5, "KS", None, "AS QS AC QC TC KC TH QH QD")
    view = m.view(1)
    assert len(view["legal"]) == 2
    for _ in range(5):
        other = redeal(m, 1, rng)
        assert json.dumps(other.view(1)) == json.dumps(view)
        assert PerfectBot(7).choose(roundtrip(other.view(1))) == PerfectBot(7).choose(view)


def test_greedy_and_random_rules() -> None:
    m = match_with(("AC TC KC QC 7C AS QS AH QH QD", "TS KS 7S TH KH 7H AD TD KD 7D"),
                   None, None, "")
    assert GreedyBot(1).choose(m.view(0)) == {"type": "play", "card": "QC"}  # mates
    assert RandomBot(1).choose(m.view(0)) in m.legal(0)
    fresh = MateMatch(1)
    (seat,) = fresh.to_act()
    assert GreedyBot(1).choose(fresh.view(seat)) == {"type": "decline"}
