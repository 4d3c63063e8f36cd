"""The engine's fast paths make exactly the moves and answers of the long ways."""

from __future__ import annotations

import json
import random

import pytest

from app.game import Game
from app.game.actions import _FAST, Action, read_action
from app.game.bots import RandomBot
from app.game.cards import codes
from app.game.replay import replay_line


def test_play_random_is_pick_after_pick() -> None:
    for n in range(300):
        fast, slow = (Game.new(n, n % 4, record_events=False) for _ in range(2))
        if n % 3 == 0:  # also from the middle of the exchange or the hunts
            bot = RandomBot(-n)
            for _ in range(n % 35):
                if fast.to_act is None:
                    break
                action = bot.pick(fast.legal_actions())
                fast.apply(action)
                slow.apply(action)
        fast_bots, slow_bots = [RandomBot(n * 4 + s) for s in range(4)], [
            RandomBot(n * 4 + s) for s in range(4)]
        fast.play_random([b.uniform for b in fast_bots])
        while (seat := slow.to_act) is not None:
            slow.apply(slow_bots[seat].pick(slow.legal_actions()))
        assert fast.actions == slow.actions
        assert fast.result() == slow.result()
        assert fast.view(0) == slow.view(0)
        assert fast.passed == slow.passed and fast.received == slow.received


def test_play_random_wants_a_game_without_a_log() -> None:
    with pytest.raises(ValueError):
        Game.new(1, 0).play_random([random.random] * 4)


def test_the_fast_action_table_reads_as_from_dict() -> None:
    assert len(_FAST) > 400
    for key, action in _FAST.items():
        seat, kind, *cards = key
        data = ({"seat": seat, "type": kind, "cards": cards} if kind == "play"
                else {"seat": seat, "type": kind, "card": cards[0]})
        assert read_action(data) is action and Action.from_dict(data) == action
        bare = {k: v for k, v in data.items() if k != "seat"}
        assert read_action(bare, seat) is action
    # Anything spelled otherwise takes the long way, with from_dict's answer.
    for odd in ({"seat": True, "type": "pass", "card": "7H"}, {"seat": 1, "type": "pass",
                "card": "7h"}, {"seat": 1, "type": "play", "cards": [["7C"]]},
                {"seat": 1, "type": "play", "card": "7C"}, [1, "pass", "7H"],
                {"seat": 1, "type": "play", "cards": ["7C", "7S", "8C"]}):
        try:
            expected: object = Action.from_dict(odd)
        except ValueError as e:
            expected = str(e)
        try:
            got: object = read_action(odd)
        except ValueError as e:
            got = str(e)
        assert got == expected


def test_a_discard_record_with_stray_cards_reads_its_card() -> None:
    game = Game.new(3, 0, record_events=False)
    bot = RandomBot(3)
    while game.to_act is not None:
        game.apply(bot.pick(game.legal_actions()))
    actions = [a.to_dict() for a in game.actions]
    other = next(c for c in codes(game.initial_hands[0]) if c != actions[0]["card"])
    actions[0] = {**actions[0], "cards": [other]}
    line = json.dumps({"dealer": 0, "hands": [codes(h) for h in game.initial_hands],
                       "actions": actions})
    assert replay_line(line) == {k: game.result()[k] for k in (
        "scores", "score_piles", "penalty_piles", "dead_rabbits", "hands", "winner")}
