"""The engine's fast paths make exactly the moves and answers of the long ways."""

from __future__ import annotations

import json
import random

import pytest

from app.game import Game
from app.game.actions import _FAST, Action, read_action
from app.game.bots import RandomBot
from app.game.cards import PACK, codes, parse_card
from app.game.dealing import shuffled
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


def test_the_deals_shuffle_draws_as_random_shuffle() -> None:
    for seed in range(500):
        ours, theirs = random.Random(seed), random.Random(seed)
        pack = list(PACK)
        theirs.shuffle(pack)
        assert shuffled(ours) == pack
        assert ours.random() == theirs.random()  # and leaves the generator in the same state


def _slow_replay(record: dict[str, object]) -> dict[str, object]:
    """What ``replay_line`` answered before ``Game.apply_plain``: every action read and applied."""
    hands = record["hands"]
    assert isinstance(hands, list)
    game = Game([[parse_card(c) for c in hand] for hand in hands], record["dealer"],  # type: ignore[arg-type]
                record_events=False)
    actions = record["actions"]
    assert isinstance(actions, list)
    for index, data in enumerate(actions):
        try:
            game.apply(read_action(data))
        except ValueError as e:
            return {"error": str(e), "action_index": index}
    if not game.over:
        return {"error": f"the game is not over after its {len(actions)} actions: {game.prompt}",
                "action_index": None}
    result = game.result()
    return {key: result[key] for key in
            ("scores", "score_piles", "penalty_piles", "dead_rabbits", "hands", "winner")}


def test_apply_plain_answers_every_record_as_apply_does() -> None:
    rng = random.Random(4)
    odd_values: list[object] = [True, 1.0, None, "7h", " 7H", ["7C"], "XX", 5, "AD", "AC", "7C",
                                0, 1, 2, 3, "play", "pass", "discard"]
    for n in range(400):
        game = Game.new(n, n % 4, record_events=False)
        bot = RandomBot(n)
        while game.to_act is not None:
            game.apply(bot.pick(game.legal_actions()))
        actions = [a.to_dict() for a in game.actions]
        if n % 5:  # one action changed: a field, its seat, a card, a key, its type
            i = rng.randrange(len(actions))
            field = rng.choice(["seat", "type", "card", "cards", "extra"])
            actions[i] = {**actions[i], field: rng.choice(odd_values)}
            plays = [j for j, a in enumerate(actions)
                     if isinstance(a.get("cards"), list) and len(a["cards"]) == 1]
            if plays and rng.random() < 0.3:  # both wolves of the rank, one not held
                j = rng.choice(plays)
                wolf = actions[j]["cards"][0]
                pair = [wolf, wolf[0] + ("S" if wolf[1] == "C" else "C")]
                actions[j] = {**actions[j], "cards": pair[::rng.choice([1, -1])]}
            aces = [c for c in codes(game.initial_hands[game.dealer]) if c[0] == "A"]
            if aces and rng.random() < 0.2:  # the first discard names an ace it holds
                actions[0] = {**actions[0], "card": rng.choice(aces)}
            if rng.random() < 0.2:
                actions.insert(rng.randrange(len(actions)), rng.choice(actions))
        record = {"dealer": game.dealer, "hands": [codes(h) for h in game.initial_hands],
                  "actions": actions}
        assert replay_line(json.dumps(record)) == _slow_replay(record)


def test_apply_plain_wants_a_game_without_a_log() -> None:
    with pytest.raises(ValueError):
        Game.new(1, 0).apply_plain([])
