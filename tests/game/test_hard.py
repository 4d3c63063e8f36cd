"""The hard bot: honest by construction (no path to the state), legal, and searching."""

from __future__ import annotations

import gc
import types
from typing import Any

from app.game import Game, make_bot
from app.game.bots import ALL_BOT_KINDS, BOT_KINDS, HeuristicBot, RandomBot
from app.game.hard import HardBot
from app.game.simulate import simulate


def reachable(*roots: object) -> list[object]:
    """Every object reachable from ``roots`` through references, modules and classes aside.

    Modules and classes are code shared by everything; the state is held by none of them.
    """
    seen: set[int] = set()
    stack = list(roots)
    found = []
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (types.ModuleType, type)):
            continue
        seen.add(id(obj))
        found.append(obj)
        stack.extend(gc.get_referents(obj))
    return found


class Ticking:
    """A fake clock: each reading moves 1 ms on, so a search is deterministic in tests."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def play_game(game: Game, bots: list[Any]) -> list[tuple[object, dict[str, Any]]]:
    given: list[tuple[object, dict[str, Any]]] = []
    start = game.start_event(1)
    for s, bot in enumerate(bots):
        bot.observe(start.for_seat(s))
    while (seat := game.to_act) is not None:
        view = game.view(seat)
        given.append((bots[seat], view))
        action = bots[seat].choose(view)
        assert action.to_dict() in view["legal"]
        for event in game.apply(action):
            for s, bot in enumerate(bots):
                bot.observe(event.for_seat(s))
    return given


def test_a_bot_has_no_path_to_the_state() -> None:
    game = Game.new(3, 1)
    bots: list[Any] = [HardBot(1, budget_ms=40, clock=Ticking()), HeuristicBot(2),
                       RandomBot(3), HardBot(4, budget_ms=40, clock=Ticking())]
    given = play_game(game, bots)
    hands = [id(h) for h in (game.hands, game.score_piles, game.penalty_piles, game.discards)]
    for bot, view in given[::3]:
        objects = reachable(bot, view)
        assert all(obj is not game for obj in objects)
        assert not any(id(obj) in hands for obj in objects)
    # The walk does find a state when one is reachable: a bot that kept the game.
    cheat = HeuristicBot(5)
    cheat.__dict__["peek"] = game
    assert any(obj is game for obj in reachable(cheat))


def test_hard_is_a_bot_kind_and_plays_legal_games() -> None:
    assert "hard" in ALL_BOT_KINDS
    assert "hard" not in BOT_KINDS, "tables seat only bots that do not block their loop"
    bot = make_bot("hard", 7)
    assert isinstance(bot, HardBot) and bot.name == "hard"
    bot.budget_ms = 20
    bots: list[Any] = [bot, HeuristicBot(1), HeuristicBot(2), HeuristicBot(3)]
    play_game(Game.new(9, 0), bots)
    assert len(bot.decision_ms) > 0


def test_the_search_can_overrule_the_heuristic() -> None:
    """Over a few games the searched move sometimes differs from the heuristic's choice."""
    hard = HardBot(0, budget_ms=60, clock=Ticking())
    for n in range(4):
        play_game(Game.new(100 + n, n % 4), [hard, HeuristicBot(1), HeuristicBot(2),
                                               HeuristicBot(3)])
    assert hard.overruled > 0


def test_simulate_reports_the_hard_bot(capsys: Any) -> None:
    report = simulate(2, ["hard", "heuristic", "heuristic", "heuristic"], seed=3,
                      hard_budget_ms=5).to_dict()
    hard = report["hard"]
    assert isinstance(hard, dict)
    assert list(hard) == ["seats", "wins", "win_rate", "decisions", "mean_ms_per_decision",
                          "p99_ms_per_decision"]
    assert hard["seats"] == [0] and hard["decisions"] > 0
    assert list(report)[:3] == ["games", "games_per_second", "results"]
    plain = simulate(2, ["heuristic"] * 4, seed=3).to_dict()
    assert "hard" not in plain
