"""Bingo's bots: they get only the seat's view, choose legal actions, and the heuristic
bot beats the random bot."""

from __future__ import annotations

import inspect
import json
from typing import Any

from app.games.bingo import GAME, bots
from app.games.bingo.state import BingoMatch, check_setup


def play_deals(deals: int, seed: int) -> tuple[int, int]:
    """Heuristic against random, seats changing every match: deals won by each."""
    won = [0, 0]
    played = 0
    m = 0
    while played < deals:
        match = GAME.new_match(seed * 1000 + m, {})
        players = [GAME.bots["heuristic"](seed + m), GAME.bots["random"](seed + m + 1)]
        seat_of = [m % 2, 1 - m % 2]
        while not match.over and played < deals:
            if match.between_games:
                match.start_next_game()
                continue
            (seat,) = match.to_act()
            who = seat_of.index(seat)
            view = json.loads(json.dumps(match.view(seat)))  # plain data, nothing else
            action = players[who].choose(view)
            assert action in view["legal"]
            match.apply(seat, action)
            result = match.view(None)["board"]["result"]
            if result is not None:
                played += 1
                if result["winner"] is not None:
                    won[seat_of.index(result["winner"])] += 1
        m += 1
    return won[0], won[1]


def test_heuristic_beats_random() -> None:
    heuristic, random_bot = play_deals(200, seed=1)
    assert heuristic >= 0.65 * 200, (heuristic, random_bot)


def test_bots_see_only_the_view() -> None:
    source = inspect.getsource(bots)
    assert "from .state" not in source and "import state" not in source
    for kind in ("random", "heuristic"):
        params = list(inspect.signature(GAME.bots[kind](0).choose).parameters)
        assert params == ["view"]


def _emperor_match() -> BingoMatch:
    hands = [["1-2", "1-3", "1-4", "1-5", "1-6", "2-3", "2-4"],
             ["0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "6-6"]]
    used = {*hands[0], *hands[1], "4-5"}
    stock = [f"{a}-{b}" for a in range(7) for b in range(a, 7) if f"{a}-{b}" not in used]
    return BingoMatch(1, {}, [check_setup(hands, stock, "4-5", 0)])


def test_heuristic_declares_its_doubles_and_claims_when_it_counts_70() -> None:
    match = _emperor_match()
    match.apply(0, {"type": "play", "tile": "1-2"})
    bot: Any = GAME.bots["heuristic"](0)
    assert bot.choose(match.view(1))["type"] == "play"
    match.apply(1, {"type": "play", "tile": "0-0"})
    action = bot.choose(match.view(1))
    assert action["type"] == "declare"
    match.apply(1, action)
    assert bot.choose(match.view(1)) == {"type": "claim"}


def test_heuristic_does_not_claim_short_of_70() -> None:
    match = BingoMatch(2, {})
    (seat,) = match.to_act()
    bot: Any = GAME.bots["heuristic"](0)
    assert bot.choose(match.view(seat))["type"] != "claim"
