"""Bots: the interface the table drives, the random bot, and the heuristic bot's play."""

from __future__ import annotations

import random
from typing import Any

import pytest
from gamekit import card_codes, deal_with, exchange, known_to, play

from app.game import Action, Game, parse_card
from app.game.bots import (
    BOT_KINDS,
    DENIAL_WEIGHT,
    GIFT_WEIGHT,
    OUR_CARDS_KEPT,
    Bot,
    HeuristicBot,
    RandomBot,
    _others_stake,
    hand_value,
    make_bot,
)
from app.game.cards import PACK
from app.game.simulate import simulate


def test_make_bot_knows_every_kind() -> None:
    assert BOT_KINDS == ("random", "heuristic")
    assert isinstance(make_bot("random", 1), RandomBot)
    assert isinstance(make_bot("heuristic", 1), HeuristicBot)
    assert [make_bot(k).name for k in BOT_KINDS] == list(BOT_KINDS)
    with pytest.raises(ValueError, match="unknown bot kind 'genius'"):
        make_bot("genius")


def test_the_random_bot_picks_uniformly() -> None:
    bot = RandomBot(3)
    counts = [0] * 4
    for _ in range(40_000):
        counts[bot.pick([0, 1, 2, 3])] += 1
    assert all(9_600 < n < 10_400 for n in counts)


def test_a_seeded_random_bot_repeats_its_choices() -> None:
    view = Game.new(1, 0).view(0)
    assert [RandomBot(5).choose(view) for _ in range(3)] == [RandomBot(5).choose(view)] * 3
    assert {RandomBot(s).choose(view) for s in range(200)} == {
        Action.from_dict(a) for a in view["legal"]}


class Spy:
    """Wraps a bot and checks it is shown only what its seat may see."""

    def __init__(self, bot: Bot, game: Game, seat: int) -> None:
        self.bot, self.game, self.seat, self.name = bot, game, seat, bot.name
        self.choices = 0

    def observe(self, event: dict[str, Any]) -> None:
        assert card_codes(event) <= known_to(self.game, self.seat)
        self.bot.observe(event)

    def choose(self, view: dict[str, Any]) -> Action:
        assert view["seat"] == self.seat and self.game.to_act == self.seat
        assert card_codes(view) <= known_to(self.game, self.seat)
        action = self.bot.choose(view)
        assert action.to_dict() in view["legal"]
        self.choices += 1
        return action


@pytest.mark.parametrize("open_discards", [False, True])
def test_bots_play_whole_games_seeing_only_their_seats_view_and_log(open_discards: bool) -> None:
    for number in range(1, 13):
        game = Game.new(number, number % 4, open_discards=open_discards)
        spies = [Spy(make_bot(BOT_KINDS[s % 2], s), game, s) for s in range(4)]
        for watcher, spy in enumerate(spies):
            spy.observe(game.start_event(number).for_seat(watcher))
        while not game.over:
            seat = game.to_act
            assert seat is not None
            for event in game.apply(spies[seat].choose(game.view(seat))):
                for other, spy in enumerate(spies):
                    spy.observe(event.for_seat(other))
        assert all(spy.choices for spy in spies)


def test_the_heuristic_bot_copes_without_the_log() -> None:
    bots = [HeuristicBot(s) for s in range(4)]
    for number in range(6):  # no observe() at all: it notices new games from the views
        game = Game.new(number, number % 4)
        while not game.over:
            seat = game.to_act
            assert seat is not None
            action = bots[seat].choose(game.view(seat))
            assert action in game.legal_actions()
            game.apply(action)


def test_the_heuristic_bot_beats_three_random_bots() -> None:
    report = simulate(300, ["heuristic", "random", "random", "random"], seed=2024)
    assert report.results[0].wins / report.games >= 0.5
    assert report.results[0].total_score > max(r.total_score for r in report.results[1:])


def at_hunt(placed: dict[str, int], rank: str) -> Game:
    """A scripted game at the first turn of the ``rank`` hunt (other turns declined)."""
    game = Game(deal_with(placed), 0)
    exchange(game, keep=placed)
    while not game.over and "23456789TJQKA"[game.hunt.rank] != rank:  # type: ignore[union-attr]
        game.apply(Action(game.to_act, "play", ()))  # type: ignore[arg-type]
    return game


def test_holding_both_wolves_it_plays_exactly_one() -> None:
    game = at_hunt({"7H": 0, "7C": 2, "7S": 2}, "7")
    assert game.to_act == 2
    assert len(HeuristicBot(1).choose(game.view(2)).cards) == 1


def test_as_the_last_wolf_it_catches_the_rabbit() -> None:
    game = at_hunt({"7H": 0, "7C": 1, "7S": 3}, "7")
    play(game, 1, "7C")
    assert HeuristicBot(1).choose(game.view(3)) == Action(3, "play", (parse_card("7S"),))


def test_with_the_ace_rabbit_it_plays_its_ace_wolf_when_that_frees_the_rabbit() -> None:
    game = at_hunt({"AH": 0, "AC": 1, "AS": 2, "AD": 2}, "A")
    play(game, 1, "AC")
    action = HeuristicBot(1).choose(game.view(2))
    assert action == Action(2, "play", (parse_card("AS"),))
    game.apply(action)
    assert game.scores is not None and game.scores[2] == 13


def test_it_discards_a_dingo_it_cannot_support() -> None:
    mine = ["7H", "7C", "7S", "AC", "AS", "2C", "3C", "4C", "5C", "6C"]
    rest = [c for c in PACK if c not in {parse_card(m) for m in mine}]
    random.Random(0).shuffle(rest)
    hands = [[parse_card(c) for c in mine], rest[0:10], rest[10:20], rest[20:30]]
    game = Game(hands, 0)
    assert HeuristicBot(0).choose(game.view(0)) == Action(0, "discard", (parse_card("7H"),))


def test_a_bot_asked_out_of_turn_says_so() -> None:
    view = Game.new(1, 0).view(2)
    for bot in (HeuristicBot(1), RandomBot(1)):
        with pytest.raises(ValueError, match="seat 2 has nothing to choose"):
            bot.choose(view)


def test_each_exchange_choice_is_valued_as_the_whole_hand_after_it() -> None:
    """The bot values a discard or pass from its rank alone; it must equal the whole hand's."""
    checked = 0
    for number in range(8):
        game = Game.new(number, number % 4, record_events=False)
        bots = [HeuristicBot(number * 4 + s) for s in range(4)]
        while game.decision in ("discard", "pass"):
            seat = game.to_act
            assert seat is not None
            bot = bots[seat]
            action = bot.choose(game.view(seat))
            memory = bot._memory
            live = memory.live_chances()
            receiver = (memory.seat + memory.discard_count // 4) % 4
            theirs = list(live)
            for c in memory.hand:
                theirs[c] = OUR_CARDS_KEPT
            gone = game.decision == "discard"
            for choice, value in bot.values.items():
                c = choice.card
                rest = memory.hand - {c}
                live[c] = 0.0 if gone else memory.kept_chance(c, receiver)
                expected = hand_value(rest, live) - 0.01 * (c >> 2)
                if gone:
                    expected += DENIAL_WEIGHT * _others_stake(c, rest, live)
                else:
                    theirs[c] = 0.0
                    expected -= GIFT_WEIGHT * hand_value({c}, theirs)
                    theirs[c] = OUR_CARDS_KEPT
                assert value == expected  # exactly: ties are broken on these values
                checked += 1
            game.apply(action)
    assert checked > 1000
