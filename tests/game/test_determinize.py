"""Determinization: every sampled deal reproduces the seat's view, and every placement occurs."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from app.game import Game
from app.game.bots import HeuristicBot, RandomBot
from app.game.cards import ACE, HEARTS, PACK
from app.game.determinize import known_cards, sample


def positions(count: int, seed: int) -> list[tuple[Game, int]]:
    """(game, seat) at a spread of moments of heuristic games: exchange and hunts."""
    out = []
    rng = random.Random(seed)
    for n in range(count):
        game = Game.new(seed * 1000 + n, n % 4, record_events=False)
        bots = [HeuristicBot(n * 4 + s) for s in range(4)]
        stop = rng.randrange(34)
        moves = 0
        while game.to_act is not None and moves < stop:
            s = game.to_act
            game.apply(bots[s].choose(game.view(s)))
            moves += 1
        if game.to_act is not None:
            out.append((game, rng.randrange(4)))
    return out


def test_every_sample_reproduces_the_view_and_plays_to_the_end() -> None:
    rng = random.Random(1)
    checked = 0
    for game, seat in positions(120, 1):
        view = game.view(seat)
        for _ in range(5):
            sampled = sample(view, rng)
            assert sampled is not game
            assert sampled.view(seat) == view
            places = sampled.location_of_every_card()
            assert len(places) == 52
            bot = RandomBot(checked)
            while sampled.to_act is not None:
                sampled.apply(bot.pick(sampled.legal_actions()))
            assert sampled.scores is not None
            checked += 1
    assert checked > 300


def test_known_discards_are_kept_on_the_pile() -> None:
    game = Game.new(7, 0, record_events=False)
    bot = RandomBot(1)
    mine = []
    while game.step < 12:  # discard 1, pass left, discard 2
        action = bot.pick(game.legal_actions())
        if action.seat == 2 and action.kind == "discard":
            mine.append(action.card)
        game.apply(action)
    view = game.view(2)
    for _ in range(50):
        sampled = sample(view, random.Random(_), known_discards=mine)
        assert sampled.view(2) == view
        assert set(mine) <= set(sampled.discards)


def test_aces_and_hunted_dingoes_go_where_the_rules_put_them() -> None:
    rng = random.Random(3)
    for game, seat in positions(60, 3):
        view = game.view(seat)
        sampled = sample(view, rng)
        for c in sampled.discards:
            assert c >> 2 != ACE
        if sampled.hunt is not None:
            for s in range(4):
                for c in PACK:
                    if sampled.hands[s] >> c & 1 and c & 3 == HEARTS:
                        assert c >> 2 > sampled.hunt.rank, "a hunted dingo is never in a hand"


def test_every_consistent_place_of_a_card_occurs() -> None:
    """Early in the exchange, an unseen card can be in each opponent's hand or discarded."""
    game = Game.new(11, 0, record_events=False)
    bot = RandomBot(2)
    for _ in range(6):  # discard 1 of every seat, then two passes
        game.apply(bot.pick(game.legal_actions()))
    seat = 1
    view = game.view(seat)
    seen, _ = known_cards(view)
    hidden = [c for c in PACK if c not in seen and c >> 2 != ACE]
    ace = next(c for c in PACK if c >> 2 == ACE and c not in seen)
    where: dict[int, Counter[str]] = {c: Counter() for c in [*hidden, ace]}
    rng = random.Random(4)
    for _ in range(600):
        sampled = sample(view, rng)
        for c, counts in where.items():
            counts[sampled.location_of_every_card()[c]] += 1
    opponents = {f"hand {s}" for s in range(4) if s != seat}
    for c in hidden:
        assert set(where[c]) == opponents | {"discards"}, (c, where[c])
    assert set(where[ace]) == opponents, "an ace is never discarded"


def test_a_hunt_sample_gives_the_seat_to_act_a_wolf() -> None:
    rng = random.Random(5)
    for game, seat in positions(80, 5):
        if game.hunt is None or game.to_act == seat:
            continue
        sampled = sample(game.view(seat), rng)
        assert sampled.legal_actions(), "the seat to act has something to decide"


def test_a_spectator_or_finished_view_cannot_be_sampled() -> None:
    game = Game.new(1, 0)
    with pytest.raises(ValueError):
        sample(game.view(None), random.Random(0))
    bot = RandomBot(0)
    while game.to_act is not None:
        game.apply(bot.pick(game.legal_actions()))
    with pytest.raises(ValueError):
        sample(game.view(0), random.Random(0))
