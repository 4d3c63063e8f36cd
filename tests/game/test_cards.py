"""Cards and actions: codes, values, masks, the text and JSON forms of actions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.game import DISCARD, PASS, PLAY, Action, MalformedAction, code, codes, parse_card
from app.game.cards import AD, PACK, PENALTY_VALUE, RABBITS, SCORE_VALUE, cards_in, describe


def test_codes_round_trip_and_name_rank_then_suit() -> None:
    assert [parse_card(code(c)) for c in range(52)] == list(range(52))
    assert codes([parse_card(c) for c in ("2C", "TS", "AD", "7H")]) == ["2C", "TS", "AD", "7H"]
    assert parse_card(" 7h ") == parse_card("7H")
    assert describe(parse_card("TS")) == "10 of spades"


@pytest.mark.parametrize("bad", ["1C", "7X", "", "10S", "AHH", 7, None, ["7H"]])
def test_bad_card_codes_say_why(bad: object) -> None:
    with pytest.raises(ValueError, match="card"):
        parse_card(bad)


def test_the_pack_is_forty_cards_and_the_rabbits_twelve() -> None:
    assert len(PACK) == 40 and AD in PACK
    assert codes(RABBITS) == [f"{r}D" for r in "23456789TJQK"]
    assert not set(PACK) & set(RABBITS)


def test_card_values() -> None:
    assert [SCORE_VALUE[parse_card(f"{r}S")] for r in "23456789TJQKA"] == (
        [1] * 8 + [2] * 4 + [3])
    assert SCORE_VALUE[AD] == 10 and PENALTY_VALUE[AD] == 3
    assert SCORE_VALUE[parse_card("KD")] == 2 and PENALTY_VALUE[parse_card("AH")] == 3


@given(st.sets(st.integers(0, 51)))
def test_cards_in_lists_a_mask_lowest_first(cards: set[int]) -> None:
    assert cards_in(sum(1 << c for c in cards)) == sorted(cards)


ACTIONS = [
    (Action(2, DISCARD, (parse_card("7H"),)), "2 discard 7H",
     {"seat": 2, "type": "discard", "card": "7H"}),
    (Action(0, PASS, (parse_card("KS"),)), "0 pass KS", {"seat": 0, "type": "pass", "card": "KS"}),
    (Action(3, PLAY, (parse_card("7C"), parse_card("7S"))), "3 play 7C 7S",
     {"seat": 3, "type": "play", "cards": ["7C", "7S"]}),
    (Action(1, PLAY, ()), "1 play -", {"seat": 1, "type": "play", "cards": []}),
]


@pytest.mark.parametrize(("action", "text", "data"), ACTIONS)
def test_actions_print_and_parse_in_text_and_json(action: Action, text: str,
                                                  data: dict[str, object]) -> None:
    assert str(action) == text and Action.parse(text) == action
    assert action.to_dict() == data and Action.from_dict(data) == action


def test_an_action_built_with_a_list_of_cards_holds_a_tuple() -> None:
    action = Action(1, PLAY, [parse_card("7C")])  # type: ignore[arg-type]
    assert action.cards == (parse_card("7C"),) and hash(action)


@pytest.mark.parametrize(("data", "why"), [
    ("2 discard 7H", "an action must be an object"),
    ({"seat": 4, "type": "discard", "card": "7H"}, "seat must be 0, 1, 2 or 3, not 4"),
    ({"seat": True, "type": "discard", "card": "7H"}, "seat must be 0, 1, 2 or 3"),
    ({"seat": 10**40, "type": "pass", "card": "7H"}, "a number that large"),
    ({"seat": 1, "type": "bid", "card": "7H"}, "unknown action type 'bid'"),
    ({"seat": 1, "type": "discard"}, "a discard needs a card"),
    ({"seat": 1, "type": "discard", "card": "7X"}, "is not a card code"),
    ({"seat": 1, "type": "play", "cards": "7C"}, "a play needs a list of cards"),
    ({"seat": 1, "type": "play", "cards": ["7C", "7S", "7H"]}, "at most two wolves"),
    ({"seat": 1, "type": ["x"] * 1000, "card": "7H"}, r"unknown action type \['x', 'x'"),
])
def test_malformed_action_data_says_why(data: object, why: str) -> None:
    with pytest.raises(MalformedAction, match=why):
        Action.from_dict(data)


@pytest.mark.parametrize(("text", "why"), [
    ("2 discard", "expected 'SEAT TYPE CARD"),
    ("x discard 7H", "seat must be"),
    ("2 discard 7H 8H", "names exactly one card"),
    ("2 hop 7H", "unknown action type"),
])
def test_malformed_action_text_says_why(text: str, why: str) -> None:
    with pytest.raises(MalformedAction, match=why):
        Action.parse(text)


@pytest.mark.parametrize(("seat", "kind", "cards"), [
    (5, DISCARD, (0,)), (0, "bid", (0,)), (0, DISCARD, (52,)), (0, DISCARD, (True,)),
    (0, DISCARD, "7H"),
])
def test_actions_check_their_fields_when_built(seat: object, kind: object, cards: object) -> None:
    with pytest.raises(MalformedAction):
        Action(seat, kind, cards)  # type: ignore[arg-type]
