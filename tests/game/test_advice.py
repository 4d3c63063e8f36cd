"""The advice after a game: a known blunder is marked, with the better choice; the seats
judged are the people's; every judged decision was a real choice; the same seed gives the
same advice."""

from __future__ import annotations

import pytest

from app.game.actions import Action
from app.game.advice import advise_game
from app.game.cards import parse_card
from app.game.state import Game

#: A game (dealer 0) in which seat 0 played at random and the others as heuristic bots.
#: At step 13 seat 0 passes its A♠ (aces catch the ace rabbit and can never be lost),
#: keeping K♠, a plain wolf: a blunder of several points.
HANDS = [["2H", "4C", "5H", "8H", "TH", "JC", "QC", "QH", "KS", "AS"],
         ["2C", "3C", "3S", "7S", "9C", "9S", "KC", "AC", "AD", "AH"],
         ["4S", "5C", "5S", "6C", "7C", "8S", "9H", "TC", "TS", "JH"],
         ["2S", "3H", "4H", "6H", "6S", "7H", "8C", "JS", "QS", "KH"]]
ACTIONS = [
    {"seat": 0, "type": "discard", "card": "JC"}, {"seat": 1, "type": "discard", "card": "3C"},
    {"seat": 2, "type": "discard", "card": "JH"}, {"seat": 3, "type": "discard", "card": "KH"},
    {"seat": 0, "type": "pass", "card": "QH"}, {"seat": 1, "type": "pass", "card": "KC"},
    {"seat": 2, "type": "pass", "card": "KC"}, {"seat": 3, "type": "pass", "card": "6H"},
    {"seat": 0, "type": "discard", "card": "QC"}, {"seat": 1, "type": "discard", "card": "QH"},
    {"seat": 2, "type": "discard", "card": "9H"}, {"seat": 3, "type": "discard", "card": "3H"},
    {"seat": 0, "type": "pass", "card": "AS"}, {"seat": 1, "type": "pass", "card": "3S"},
    {"seat": 2, "type": "pass", "card": "5S"}, {"seat": 3, "type": "pass", "card": "3S"},
    {"seat": 0, "type": "discard", "card": "8H"}, {"seat": 1, "type": "discard", "card": "3S"},
    {"seat": 2, "type": "discard", "card": "TC"}, {"seat": 3, "type": "discard", "card": "4H"},
    {"seat": 0, "type": "pass", "card": "KS"}, {"seat": 1, "type": "pass", "card": "9S"},
    {"seat": 2, "type": "pass", "card": "4S"}, {"seat": 3, "type": "pass", "card": "JS"},
    {"seat": 0, "type": "discard", "card": "2H"}, {"seat": 1, "type": "discard", "card": "2C"},
    {"seat": 2, "type": "discard", "card": "JS"}, {"seat": 3, "type": "discard", "card": "7H"},
    {"seat": 2, "type": "play", "cards": ["5C"]}, {"seat": 2, "type": "play", "cards": ["6C"]},
    {"seat": 3, "type": "play", "cards": ["6S"]}, {"seat": 2, "type": "play", "cards": ["TS"]},
    {"seat": 2, "type": "play", "cards": ["AS"]}, {"seat": 1, "type": "play", "cards": ["AC"]},
]
BLUNDER = 13


def _choices() -> list[int]:
    """How many legal choices the actor had at each recorded step."""
    game = Game([[parse_card(c) for c in h] for h in HANDS], 0)
    counts = []
    for data in ACTIONS:
        counts.append(len(game.view(game.to_act)["legal"]))
        game.apply(Action.from_dict(data))
    return counts


def test_a_known_blunder_is_a_mistake_with_the_better_choice() -> None:
    advice = advise_game(HANDS, 0, ACTIONS, [0], seed=1, deals=16, playouts=2)
    by_step = {d["index"]: d for d in advice["decisions"]}
    blunder = by_step[BLUNDER]
    assert blunder["played"] == {"seat": 0, "type": "pass", "card": "AS"}
    assert blunder["mistake"] and blunder["known"]["lost"] >= 2
    assert blunder["best"]["card"] != "AS" and blunder["hindsight"]["best"]["card"] != "AS"
    assert blunder["hindsight"]["lost"] > 0
    assert (blunder["known"]["best_value"] - blunder["known"]["played_value"]
            == pytest.approx(blunder["known"]["lost"], abs=0.011))
    assert advice["mistakes"][0] == sum(d["mistake"] for d in advice["decisions"]) >= 1
    assert advice["mistakes"][1:] == [0, 0, 0]
    # A decision that lost less than a point is not a mistake.
    assert all(d["mistake"] == (d["known"]["lost"] >= 1) for d in advice["decisions"])


def test_only_the_people_and_only_real_choices_are_judged() -> None:
    """Every step of the people with a choice is judged, nothing else. (Dingo's forced moves
    are played by the rules themselves and are never recorded as steps: every recorded step
    was a choice.)"""
    choices = _choices()
    assert min(choices) > 1
    advice = advise_game(HANDS, 0, ACTIONS, [1, 2], seed=2, deals=2, playouts=1)
    judged = [d["index"] for d in advice["decisions"]]
    assert judged == [i for i, a in enumerate(ACTIONS, start=1)
                      if a["seat"] in (1, 2) and choices[i - 1] > 1]
    assert {d["seat"] for d in advice["decisions"]} == {1, 2}
    assert all(d["played"] == ACTIONS[d["index"] - 1] for d in advice["decisions"])
    assert advise_game(HANDS, 0, ACTIONS, [], deals=2)["decisions"] == []


def test_a_step_a_stand_in_played_is_not_judged() -> None:
    """The blunder was the timer's bot's, not Ann's: it is left out, and counted nowhere."""
    advice = advise_game(HANDS, 0, ACTIONS, [0], skip=[BLUNDER], seed=1, deals=2, playouts=1)
    assert BLUNDER not in [d["index"] for d in advice["decisions"]]
    assert len(advice["decisions"]) == sum(1 for a in ACTIONS if a["seat"] == 0) - 1


def test_the_same_seed_gives_the_same_advice() -> None:
    one = advise_game(HANDS, 0, ACTIONS[:12], [3], seed=9, deals=3, playouts=1)
    assert one == advise_game(HANDS, 0, ACTIONS[:12], [3], seed=9, deals=3, playouts=1)
    assert one["deals"] == 3 and one["playouts"] == 1
