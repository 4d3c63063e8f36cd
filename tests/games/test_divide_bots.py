"""Divide and Conquer's bots: the matrix-game solver, the equilibrium bot against its best
response (it must hold the game's value), and bots that see only their seat's view."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from app.games.divide import GAME
from app.games.divide.bots import EquilibriumBot, GreedyBot, RandomBot
from app.games.divide.solver import Solver, solve_matrix
from app.games.divide.state import DivideMatch, Game

DEALT = (["2", "4", "7", "9", "Q"], ["3", "5", "6", "8", "T"])


def match_with(hands: Sequence[Sequence[str]], deck: int = 10) -> DivideMatch:
    match = DivideMatch(0, {"deck": deck, "target_wins": 3})
    match.games[-1] = Game(deck, hands)
    return match


# --- the matrix-game solver ---------------------------------------------------------------

@pytest.mark.parametrize(("payoff", "value", "rows"), [
    ([[1, -1], [-1, 1]], 0.0, (0.5, 0.5)),                     # matching pennies
    ([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], 0.0, (1 / 3,) * 3),  # rock, paper, scissors
    ([[3, -1], [-2, 1]], 1 / 7, (3 / 7, 4 / 7)),
    ([[2, 3], [1, 4]], 2.0, (1.0, 0.0)),                       # a saddle point
    ([[5]], 5.0, (1.0,)),
])
def test_known_matrix_games(payoff: list[list[float]], value: float,
                            rows: tuple[float, ...]) -> None:
    got, mine, _ = solve_matrix(payoff)
    assert got == pytest.approx(value, abs=1e-9)
    assert mine == pytest.approx(rows, abs=1e-9)


def test_random_matrix_games_are_solved_exactly() -> None:
    """Each strategy guarantees the value against every pure reply (the minimax theorem)."""
    rng = random.Random(7)
    for _ in range(300):
        rows, cols = rng.randint(1, 7), rng.randint(1, 7)
        payoff = [[float(rng.choice([-1, 0, 1, rng.uniform(-3, 3)])) for _ in range(cols)]
                  for _ in range(rows)]
        value, x, y = solve_matrix(payoff)
        assert sum(x) == pytest.approx(1) and sum(y) == pytest.approx(1)
        assert min(x) >= 0 and min(y) >= 0
        for j in range(cols):
            assert sum(x[i] * payoff[i][j] for i in range(rows)) >= value - 1e-9
        for i in range(rows):
            assert sum(y[j] * payoff[i][j] for j in range(cols)) <= value + 1e-9


def test_the_game_is_fair_over_the_deal() -> None:
    """Each deal and its mirror (hands exchanged) are equally likely and opposite in value,
    so the game is worth 0 to each seat before the deal; battles average 5 each."""
    solver = Solver(10, "battles")
    total = 0.0
    for cards in itertools.combinations(range(10), 5):
        dealt = sum(1 << i for i in cards)
        total += solver.solve(dealt, dealt, solver.full ^ dealt, 0)[0]
    assert total / 252 == pytest.approx(5.0)
    game = Solver(10, "game")
    dealt = game.mask(DEALT[0])
    here = game.solve(dealt, dealt, game.full ^ dealt, 0)[0]
    mirror = game.solve(game.full ^ dealt, game.full ^ dealt, dealt, 0)[0]
    assert here == pytest.approx(-mirror)


def test_the_solver_keeps_a_bounded_number_of_deals() -> None:
    solver = Solver(10, "game", keep=2)
    for cards in list(itertools.combinations(range(10), 5))[:5]:
        dealt = sum(1 << i for i in cards)
        solver.solve(dealt, dealt, solver.full ^ dealt, 0)
    assert len(solver._tables) == 2
    with pytest.raises(ValueError, match="half the deck"):
        solver.solve(0b111, 0b111, 0, 0)


# --- the equilibrium bot against its best response ----------------------------------------

def clone(match: DivideMatch) -> DivideMatch:
    """A copy of a match in its first game that ``apply`` can change independently."""
    game = Game(match.deck, match.game.dealt)
    game.hands = [list(h) for h in match.game.hands]
    game.pending = list(match.game.pending)
    game.first = match.game.first
    game.battles = list(match.game.battles)
    game.wins = list(match.game.wins)
    game.actions = list(match.game.actions)
    other = DivideMatch(0, {"deck": match.deck, "target_wins": match.target})
    other.games[-1] = game
    return other


def best_response_value(bot: EquilibriumBot, match: DivideMatch, seat: int,
                        memo: dict[Any, float]) -> float:
    """The bot's expected result (``seat``'s objective) when the other seat knows the bot's
    mixed strategy at every battle and answers each with the card that hurts it most.

    The bot's strategy is read from its seat's view, as it plays; the reply cannot depend
    on the bot's card (it is face down), only on the state, so this is the best response.
    """
    game = match.game
    battles = bot.objective == "battles"
    if game.over:
        won, lost = game.wins[seat], game.wins[1 - seat]
        return float(won) if battles else float((won > lost) - (won < lost))
    key = (tuple(game.hands[0]), tuple(game.hands[1]), tuple(game.wins), game.half)
    if key in memo:
        return memo[key]
    mixed = bot.strategy(match.view(seat))
    assert sum(mixed.values()) == pytest.approx(1.0)
    replies = []
    for reply in game.hands[1 - seat]:
        expected = 0.0
        for card, p in mixed.items():
            if p <= 0:
                continue
            after = clone(match)
            after.apply(seat, {"type": "commit", "card": card})
            after.apply(1 - seat, {"type": "commit", "card": reply})
            expected += p * best_response_value(bot, after, seat, memo)
        replies.append(expected)
    memo[key] = min(replies)
    return memo[key]


@pytest.mark.parametrize(("objective", "hands", "seat"), [
    ("game", DEALT, 0),
    ("game", DEALT, 1),
    ("game", (["3", "5", "6", "9", "T"], ["2", "4", "7", "8", "Q"]), 0),
    ("game", (["2", "3", "4", "5", "6"], ["7", "8", "9", "T", "Q"]), 1),
    ("battles", DEALT, 0),
    ("battles", (["2", "6", "7", "8", "T"], ["3", "4", "5", "9", "Q"]), 1),
])
def test_the_best_response_gets_no_more_than_the_game_s_value(
        objective: str, hands: tuple[list[str], list[str]], seat: int) -> None:
    bot = EquilibriumBot(1, objective)
    solver = Solver(10, objective)
    dealt = solver.mask(hands[seat])
    value = solver.solve(dealt, dealt, solver.full ^ dealt, 0)[0]
    got = best_response_value(bot, match_with(hands), seat, {})
    assert got == pytest.approx(value, abs=0.01)


def test_a_fixed_way_of_playing_is_beaten_by_its_best_response() -> None:
    """The check above can fail: greedy's result against its best response is far below
    the value (a deterministic bot is read like a book)."""

    class Fixed(EquilibriumBot):
        def strategy(self, view: dict[str, Any]) -> dict[str, float]:
            card = GreedyBot(0).choose(view)["card"]
            return {card: 1.0}

    solver = Solver(10, "game")
    dealt = solver.mask(DEALT[0])
    value = solver.solve(dealt, dealt, solver.full ^ dealt, 0)[0]
    got = best_response_value(Fixed(0), match_with(DEALT), 0, {})
    assert got == -1.0 and value > -0.99


def test_uniformly_random_play_also_holds_the_value() -> None:
    """Against a uniform reply each half pairs the hands by a uniformly random matching
    whatever one does, and the swap makes the two halves mirror each other, so the
    random bot cannot be exploited either (docs/benchmarks.md has it over every deal)."""

    class Uniform(EquilibriumBot):
        def strategy(self, view: dict[str, Any]) -> dict[str, float]:
            cards = [a["card"] for a in view["legal"]]
            return {c: 1 / len(cards) for c in cards}

    for hands in (DEALT, (["2", "3", "4", "5", "6"], ["7", "8", "9", "T", "Q"])):
        got = best_response_value(Uniform(0), match_with(hands), 0, {})
        assert got == pytest.approx(0.0, abs=1e-9)


def test_the_equilibrium_bot_mixes() -> None:
    match = match_with(DEALT)
    bot = EquilibriumBot(3)
    mixed = bot.strategy(match.view(0))
    assert set(mixed) <= set(DEALT[0]) and sum(mixed.values()) == pytest.approx(1)
    assert sum(p > 1e-9 for p in mixed.values()) >= 2
    drawn = {bot.choose(match.view(0))["card"] for _ in range(200)}
    assert drawn == {c for c, p in mixed.items() if p > 1e-9}


# --- bots see only the view ---------------------------------------------------------------

def test_bots_choose_from_a_copy_of_the_view_alone() -> None:
    """A view that went through JSON (no path back to the state) is all a bot needs; what
    the other seat has face down does not change its choice."""
    for kind, factory in GAME.bots.items():
        match = match_with(DEALT)
        match.apply(0, {"type": "commit", "card": "9"})
        view = json.loads(json.dumps(match.view(1)))
        choice = factory(4).choose(view)
        assert choice in match.legal(1), kind
        other = match_with(DEALT)
        other.apply(0, {"type": "commit", "card": "Q"})
        assert other.view(1) == view
        assert factory(4).choose(json.loads(json.dumps(other.view(1)))) == choice


def test_greedy_plays_the_card_that_beats_most() -> None:
    match = match_with(DEALT)
    assert GreedyBot(0).choose(match.view(0)) == {"type": "commit", "card": "2"}


def test_a_bot_refuses_a_view_with_nothing_to_do() -> None:
    match = match_with(DEALT)
    for bot in (RandomBot(0), GreedyBot(0), EquilibriumBot(0)):
        with pytest.raises(ValueError):
            bot.choose(match.view(None))
    match.apply(0, {"type": "commit", "card": "9"})
    for bot in (RandomBot(0), GreedyBot(0), EquilibriumBot(0)):
        with pytest.raises(ValueError):
            bot.choose(match.view(0))


@pytest.mark.parametrize("deck", [10, 14])
def test_bots_play_whole_matches_through_views(deck: int) -> None:
    match = GAME.new_match(9, GAME.check_options({"deck": deck, "target_wins": 1}))
    bots = [GAME.bots["equilibrium"](1), GAME.bots["greedy"](2)] if deck == 10 else \
        [GAME.bots["random"](1), GAME.bots["greedy"](2)]
    while not match.over:
        if match.between_games:
            match.start_next_game()
            continue
        for seat in sorted(match.to_act()):
            match.apply(seat, bots[seat].choose(match.view(seat)))
    assert match.winner in (0, 1)
