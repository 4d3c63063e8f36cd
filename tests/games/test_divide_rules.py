"""Divide and Conquer's engine against the rules page (../shared/rules/divide-and-conquer.md):
the win tables, the worked game, every ruling (R1-R14), every refusal, views and the match."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from app import games
from app.games.contract import Event, GameError, Illegal, Malformed, OutOfTurn
from app.games.divide import GAME, invariants, redeal
from app.games.divide.cards import DECKS, battle
from app.games.divide.state import DivideMatch, Game, check_state

# --- helpers ------------------------------------------------------------------------------

DEALT = (["2", "4", "7", "9", "Q"], ["3", "5", "6", "8", "T"])  # the worked game's deal
LONG_DEAL = (["2", "3", "4", "5", "6", "7", "8"], ["9", "T", "r2", "r4", "r5", "r6", "r8"])
WORKED = [("9", "5"), ("Q", "6"), ("2", "8"), ("4", "T"), ("7", "3"),
          ("T", "9"), ("3", "Q"), ("6", "7"), ("5", "2"), ("8", "4")]


def commit(card: str) -> dict[str, Any]:
    return {"type": "commit", "card": card}


def match_with(hands: Sequence[Sequence[str]], deck: int = 10, target: int = 3) -> DivideMatch:
    """A match whose current game has the given deal (the seed would pick another)."""
    match = DivideMatch(0, {"deck": deck, "target_wins": target})
    match.games[-1] = Game(deck, hands)
    return match


def play(match: DivideMatch, pairs: Sequence[tuple[str, str]], first: int = 0) -> list[Event]:
    events: list[Event] = []
    for a, b in pairs:
        cards = (a, b)
        events += match.apply(first, commit(cards[first]))
        events += match.apply(1 - first, commit(cards[1 - first]))
        check_state(match)
    return events


def encoded(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def snapshot(match: DivideMatch) -> str:
    return encoded([match.view(0), match.view(1), match.view(None), match.record(),
                    match.scoreboard()])


# --- who wins a battle --------------------------------------------------------------------

STANDARD_BEATS = ("2: 3 4 6 8 T Q · 3: 4 6 9 Q · 4: 5 8 Q · 5: 2 3 6 T · 6: 4 7 Q · "
                  "7: 2 3 4 5 8 · 8: 3 5 6 9 · 9: 2 4 5 6 7 T · T: 3 4 6 7 8 · Q: 5 7 8 9 T")

# The rules page's long-deck table, row by row (cell = the winning card, "." the diagonal).
LONG_TABLE = """
2 . 2 2 5 2 7 2 9 2 2 2 r5 2 2
3 2 . 3 5 3 7 8 3 T 3 r4 3 r6 3
4 2 3 . 4 6 7 4 9 T 4 r4 r5 4 r8
5 5 5 4 . 5 7 8 9 5 r2 r4 5 r6 r8
6 2 3 6 5 . 6 8 9 T 6 r4 r5 r6 6
7 7 7 7 7 6 . 7 9 T r2 7 r5 r6 r8
8 2 8 4 8 8 7 . 8 T r2 r4 r5 8 r8
9 9 3 9 9 9 9 8 . 9 r2 r4 r5 r6 9
T 2 T T 5 T T T 9 . r2 r4 r5 r6 r8
r2 2 3 4 r2 6 r2 r2 r2 r2 . r4 r5 r6 r8
r4 2 r4 r4 r4 r4 7 r4 r4 r4 r4 . r4 r6 r8
r5 r5 3 r5 5 r5 r5 r5 r5 r5 r5 r4 . r5 r8
r6 2 r6 4 r6 r6 r6 8 r6 r6 r6 r6 r5 . r8
r8 2 3 r8 r8 6 r8 r8 9 r8 r8 r8 r8 r8 .
"""


def winner_card(a: str, b: str) -> str:
    return (a, b)[battle(a, b)[0]]


def test_the_standard_table_is_the_rules_page_s_45_pairs() -> None:
    expected = {}
    for part in STANDARD_BEATS.split(" · "):
        card, beaten = part.split(": ")
        expected[card] = set(beaten.split())
    codes = DECKS[10]
    got = {a: {b for b in codes if b != a and winner_card(a, b) == a} for a in codes}
    assert got == expected
    assert sum(len(v) for v in got.values()) == 45


def test_the_long_table_is_the_rules_page_s_91_pairs() -> None:
    codes = DECKS[14]
    rows = [line.split() for line in LONG_TABLE.strip().splitlines()]
    assert [r[0] for r in rows] == list(codes)
    for row in rows:
        for col, cell in zip(codes, row[1:], strict=True):
            if col == row[0]:
                assert cell == "."
            else:
                assert winner_card(row[0], col) == cell, (row[0], col)
                assert winner_card(col, row[0]) == cell  # either order


@pytest.mark.parametrize(("a", "b", "winner", "why"), [
    ("9", "5", "9", "9 is higher"),                 # the source's examples
    ("Q", "6", "6", "6 divides queen (12)"),
    ("T", "9", "9", "9 is one below 10"),
    ("9", "3", "3", "3 divides 9"),
    ("2", "3", "2", "2 is one below 3"),            # R1: either exception is enough
    ("2", "4", "2", "2 divides 4"),
    ("2", "T", "2", "2 divides 10"),
    ("5", "T", "5", "5 divides 10"),
    ("4", "6", "6", "6 is higher"),                 # R2: only the exceptions help the low card
    ("8", "Q", "Q", "queen is higher"),
    ("T", "Q", "Q", "queen is higher"),             # R3: nothing is one below the queen
    ("r4", "r5", "r4", "red 4 is one below red 5 (15)"),  # R4
    ("r5", "r6", "r5", "red 5 is one below red 6 (16)"),
    ("r4", "7", "7", "7 divides red 4 (14)"),
    ("r2", "T", "r2", "red 2 is higher"),
    ("r8", "9", "9", "9 divides red 8 (18)"),
    ("r6", "8", "8", "8 divides red 6 (16)"),
    ("r2", "2", "2", "2 divides red 2 (12)"),
    ("r2", "r4", "r4", "red 4 is higher"),
])
def test_battles_and_their_reasons(a: str, b: str, winner: str, why: str) -> None:
    seat, said = battle(a, b)
    assert (a, b)[seat] == winner and said == why
    assert (b, a)[battle(b, a)[0]] == winner


def test_the_queen_loses_only_to_2_3_4_and_6() -> None:
    assert {c for c in DECKS[10][:-1] if winner_card(c, "Q") == c} == {"2", "3", "4", "6"}


# --- the worked game, R7-R10 --------------------------------------------------------------

def test_the_worked_game() -> None:
    match = match_with(DEALT)
    events = play(match, WORKED[:5])
    # Ruling R9: after battle 5 each seat holds exactly what the other was dealt.
    assert match.game.hands == [DEALT[1], DEALT[0]]
    assert match.view(0)["board"]["hand"] == DEALT[1]
    swap = [e for e in events if e.kind == "swap"]
    assert len(swap) == 1 and swap[0].public["hands"] == [DEALT[1], DEALT[0]]
    assert match.view(0)["board"]["half"] == 2 and match.view(0)["board"]["battle"] == 6
    events += play(match, WORKED[5:])
    game = match.game
    assert [b.to_list() for b in game.battles] == [
        ["9", "5", 0], ["Q", "6", 1], ["2", "8", 0], ["4", "T", 1], ["7", "3", 0],
        ["T", "9", 1], ["3", "Q", 0], ["6", "7", 0], ["5", "2", 0], ["8", "4", 1]]
    assert game.wins == [6, 4] and game.winner == 0 and game.over
    says = [e.public["say"] for e in events]
    assert "Battle 3: 2 against 8 — 2 divides 8, {0} wins." in says
    assert "Battle 7: 3 against queen — 3 divides queen (12), {0} wins." in says
    assert says[-1] == "{0} wins the game, 6 battles to 4."
    board = match.view(None)["board"]
    assert board["over"] and board["battle"] is None
    assert board["result"] == {"winner": 0, "wins": [6, 4], "say": says[-1]}
    assert match.between_games and not match.over and match.to_act() == frozenset()
    assert match.scoreboard()["game_wins"] == [1, 0]


def test_a_drawn_game_five_all() -> None:
    match = match_with(DEALT)
    play(match, [*WORKED[:8], ("5", "4"), ("8", "2")])
    assert match.game.wins == [5, 5] and match.game.winner is None and match.game.over
    board = match.scoreboard()
    assert board["draws"] == 1 and board["game_wins"] == [0, 0]
    assert board["games"][0]["winner"] is None


def test_r7_the_second_commit_reveals_both_and_either_seat_may_go_first() -> None:
    match = match_with(DEALT)
    first = match.apply(1, commit("5"))
    assert [e.kind for e in first] == ["commit"]
    assert match.to_act() == frozenset({0})
    second = match.apply(0, commit("9"))
    assert [e.kind for e in second] == ["commit", "battle"]
    battle_event = second[1].public
    assert battle_event["cards"] == ["9", "5"] and battle_event["winner"] == 0
    assert match.to_act() == frozenset({0, 1})  # R7: the next battle begins at once
    assert match.record()["games"][0]["battles"][0]["first"] == 1


def test_r8_the_last_card_is_committed_by_its_seat() -> None:
    match = match_with(DEALT)
    play(match, WORKED[:4])
    assert match.legal(0) == [commit("7")] and match.legal(1) == [commit("3")]
    assert match.to_act() == frozenset({0, 1})
    match.apply(0, commit("7"))
    assert len(match.game.battles) == 4  # nothing is played on seat 1's behalf
    assert match.to_act() == frozenset({1})


def test_r9_cards_dealt_to_you_are_the_opponent_s_after_the_swap() -> None:
    match = match_with(DEALT)
    play(match, WORKED[:5])
    before = snapshot(match)
    with pytest.raises(Illegal, match="in your hand in the first half"):
        match.apply(0, commit("9"))
    assert snapshot(match) == before
    assert match.legal(0) == [commit(c) for c in DEALT[1]]


def test_r10_all_battles_are_fought_after_a_majority() -> None:
    match = match_with(DEALT)
    play(match, [("2", "3"), ("4", "5"), ("9", "6"), ("7", "8"), ("Q", "T"), ("5", "2")])
    assert match.game.wins == [6, 0]
    assert not match.game.over and match.to_act() == frozenset({0, 1})
    play(match, [("3", "4"), ("6", "7"), ("8", "9"), ("T", "Q")])
    assert match.game.wins == [9, 1] and match.game.over and match.game.winner == 0


# --- refusals (R5, "Actions and records") ------------------------------------------------

@pytest.mark.parametrize("action", [
    None, "commit", ["commit", "9"], {}, {"card": "9"}, {"type": "play", "card": "9"},
    {"type": "Commit", "card": "9"}, {"type": None, "card": "9"}, {"type": ["commit"]},
    {"type": "commit"}, {"type": "commit", "card": None}, {"type": "commit", "card": 9},
    {"type": "commit", "card": "10"}, {"type": "commit", "card": "t"},
    {"type": "commit", "card": "q"}, {"type": "commit", "card": "R2"},
    {"type": "commit", "card": "J"}, {"type": "commit", "card": "r2"},
    {"type": "commit", "card": [[[[]]]]}, {"type": "commit", "card": "9" * 10_000},
])
def test_malformed_actions_are_refused_and_change_nothing(action: Any) -> None:
    match = match_with(DEALT)
    before = snapshot(match)
    with pytest.raises(Malformed) as refused:
        match.apply(0, action)
    assert str(refused.value) and len(str(refused.value)) < 200
    assert snapshot(match) == before


def test_the_queen_is_not_a_card_of_the_long_deck() -> None:
    match = match_with(LONG_DEAL, deck=14)
    with pytest.raises(Malformed, match="not a card of the long deck"):
        match.apply(0, commit("Q"))


def test_r5_a_commitment_is_final() -> None:
    match = match_with(DEALT)
    match.apply(0, commit("9"))
    before = snapshot(match)
    for card in ("9", "2", "Q"):  # the same card, another held card: refused alike
        with pytest.raises(OutOfTurn, match="already committed"):
            match.apply(0, commit(card))
        assert snapshot(match) == before
    assert match.legal(0) == []


@pytest.mark.parametrize(("seat", "card", "why"), [
    (0, "5", "one of your opponent's cards"),   # in the opponent's hand
    (1, "9", "one of your opponent's cards"),
])
def test_a_card_of_the_other_hand_is_refused(seat: int, card: str, why: str) -> None:
    match = match_with(DEALT)
    before = snapshot(match)
    with pytest.raises(Illegal, match=why):
        match.apply(seat, commit(card))
    assert snapshot(match) == before


def test_a_card_shown_earlier_this_half_is_refused() -> None:
    match = match_with(DEALT)
    play(match, WORKED[:1])
    with pytest.raises(Illegal, match="you showed the 9 earlier in this half"):
        match.apply(0, commit("9"))


def test_r14_refusing_the_opponent_s_face_down_card_says_nothing_new() -> None:
    """The 5 face down and the 6 in hand are refused in the same words (Ruling R14)."""
    match = match_with(DEALT)
    match.apply(1, commit("5"))
    messages = []
    for card in ("5", "6"):
        with pytest.raises(Illegal) as refused:
            match.apply(0, commit(card))
        messages.append(str(refused.value).replace(card, "#"))
    assert messages[0] == messages[1]


def test_between_games_and_after_the_match_everything_is_refused() -> None:
    match = match_with(DEALT, target=1)
    with pytest.raises(Illegal, match="not over yet"):
        match.start_next_game()
    play(match, WORKED)
    assert match.over and match.winner == 0 and not match.between_games
    before = snapshot(match)
    with pytest.raises(Illegal, match="match is over"):
        match.apply(1, commit("2"))
    with pytest.raises(Malformed):
        match.apply(1, {"type": "fold"})
    with pytest.raises(Illegal, match="match is over"):
        match.start_next_game()
    assert snapshot(match) == before
    assert match.prompt(0) == "The match is over: {0} won it."


def test_a_finished_game_refuses_commits_until_the_next_deal() -> None:
    match = match_with(DEALT)
    play(match, WORKED)
    before = snapshot(match)
    with pytest.raises(Illegal, match="wait for the next game"):
        match.apply(0, commit("2"))
    assert snapshot(match) == before
    assert match.prompt(0) == match.prompt(None) == "The game is over; game 2 is next."
    game = match.game
    with pytest.raises(Illegal, match="the game is over"):
        game.apply(0, commit("2"))


def test_a_seat_that_does_not_exist_is_refused() -> None:
    match = match_with(DEALT)
    for seat in (2, -1, True):
        with pytest.raises(Malformed, match="no seat"):
            match.apply(seat, commit("9"))
    with pytest.raises(Malformed):
        match.view(2)


# --- views (R6, R13, R14) -----------------------------------------------------------------

def test_the_rules_page_s_view_of_seat_1_while_seat_0_has_committed() -> None:
    match = match_with(DEALT)
    events = match.apply(0, commit("9"))
    one = match.view(1)
    board = one["board"]
    assert board["hand"] == ["3", "5", "6", "8", "T"]
    assert board["seats"][0]["cards"] == ["2", "4", "7", "9", "Q"]  # the 9 among them
    assert board["seats"][0]["committed"] is True
    assert board["seats"][1]["committed"] is False and board["commitment"] is None
    assert one["to_act"] == [1] and one["legal"] == [commit(c) for c in DEALT[1]]
    assert one["prompt"] == "Choose a card to commit face down."
    zero = match.view(0)
    assert zero["board"]["hand"] == ["2", "4", "7", "Q"] and zero["board"]["commitment"] == "9"
    assert zero["legal"] == [] and zero["prompt"] == "Waiting for {1} to commit a card."
    # The event: public says only that seat 0 committed; the card only in seat 0's form.
    (event,) = events
    assert event.for_seat(1) == event.for_seat(None) == {
        "type": "commit", "seat": 0, "say": "{0} has committed a card."}
    assert event.for_seat(0)["card"] == "9"


def test_no_view_event_or_log_of_the_others_depends_on_the_face_down_card() -> None:
    """Every card seat 0 may commit in battle 1: what seat 1 and spectators get is the same."""
    seen: set[str] = set()
    for card in DEALT[0]:
        match = match_with(DEALT)
        events = match.apply(0, commit(card))
        seen.add(encoded([match.view(1), match.view(None), match.scoreboard(),
                          [e.for_seat(1) for e in events], [e.for_seat(None) for e in events],
                          match.prompt(1), match.prompt(None)]))
    assert len(seen) == 1


def test_spectators_see_both_committed_flags_and_no_hand() -> None:
    match = match_with(DEALT)
    match.apply(1, commit("T"))
    view = match.view(None)
    assert view["legal"] == [] and view["board"]["hand"] is None
    assert view["board"]["commitment"] is None
    assert [s["committed"] for s in view["board"]["seats"]] == [False, True]
    assert view["board"]["seats"][1]["cards"] == ["3", "5", "6", "8", "T"]
    assert "T" not in encoded(view).replace('"T"]', "")  # only in the unmarked list
    assert view["prompt"] == "Waiting for {0} to commit a card."


def test_the_view_holds_what_the_rules_page_lists() -> None:
    match = match_with(DEALT)
    play(match, WORKED[:2])
    view = match.view(0)
    assert view["options"] == {"deck": 10, "target_wins": 3}
    assert view["match"]["game_number"] == 1 and view["match"]["game_wins"] == [0, 0]
    board = view["board"]
    assert (board["half"], board["battle"]) == (1, 3)
    assert [s["wins"] for s in board["seats"]] == [1, 1]
    assert board["battles"][1] == {"number": 2, "half": 1, "cards": ["Q", "6"], "winner": 1,
                                   "why": "6 divides queen (12)"}
    assert board["seats"][1]["cards"] == ["3", "8", "T"]
    assert board["swap"] == {"after_battle": 5, "done": False}


def test_redeal_rechooses_only_the_hidden_face_down_card() -> None:
    rng = random.Random(5)
    match = GAME.new_match(5, GAME.check_options({}))
    assert isinstance(match, DivideMatch)
    dealt = match.game.dealt[0]
    match.apply(0, commit(dealt[-1]))
    cards = set()
    for _ in range(40):
        other = redeal(match, 1, rng)
        assert isinstance(other, DivideMatch)
        assert other.view(1) == match.view(1) and other.view(None) == match.view(None)
        assert other.game.dealt == match.game.dealt
        cards.add(other.game.pending[0])
    assert cards > {dealt[-1]} and cards <= set(dealt)
    for seat in (0, None):  # its owner knows it; for a spectator it changes
        again = redeal(match, seat, rng)
        assert isinstance(again, DivideMatch)
        assert (again.game.pending[0] == dealt[-1]) == (seat == 0) or seat is None


# --- the match (R11, R12) -----------------------------------------------------------------

def test_r11_first_to_three_and_draws_count_for_neither() -> None:
    match = match_with(DEALT)
    results = []
    while not match.over:
        if results:
            events = match.start_next_game()
            assert events[0].public["type"] == "game_start"
            match.games[-1] = Game(10, DEALT)
        draw = len(results) == 1  # game 2 is drawn 5-5
        events = play(match, [*WORKED[:8], ("5", "4"), ("8", "2")] if draw else WORKED)
        results.append(match.game.winner)
    assert results == [0, None, 0, 0]
    assert match.over and match.winner == 0 and len(match.games) == 4
    board = match.scoreboard()
    assert board["game_wins"] == [3, 0] and board["draws"] == 1
    assert [(g["game_wins"], g["draws"]) for g in board["games"]] == [
        ([1, 0], 0), ([1, 0], 1), ([2, 0], 1), ([3, 0], 1)]
    assert board["rule"] == "first to win 3 games; a drawn game counts for neither seat"
    assert events[-1].public["say"] == "{0} wins the match, 3 games to 0, with 1 drawn game."
    record = match.record()
    assert [g["after"] for g in record["games"]] == [
        {"game_wins": [1, 0], "draws": 0}, {"game_wins": [1, 0], "draws": 1},
        {"game_wins": [2, 0], "draws": 1}, {"game_wins": [3, 0], "draws": 1}]
    assert [g["winner"] for g in record["games"]] == [0, None, 0, 0]
    assert record["games"][0]["battles"][2] == {"cards": ["2", "8"], "winner": 0,
                                                "why": "2 divides 8", "first": 0}


def test_a_match_of_one_game_says_one_game() -> None:
    match = match_with(DEALT, target=1)
    events = play(match, WORKED)
    assert match.over
    assert events[-1].public["say"] == "{0} wins the match, 1 game to 0."


def test_the_match_record_replays() -> None:
    match = GAME.new_match(11, GAME.check_options({"target_wins": 2}))
    rng = random.Random(3)
    while not match.over:
        if match.between_games:
            match.start_next_game()
            continue
        seat = rng.choice(sorted(match.to_act()))
        match.apply(seat, rng.choice(match.legal(seat)))
    record = match.record()
    again = DivideMatch.replay(record["seed"], record["options"],
                               [[(s, a) for s, a in g["actions"]] for g in record["games"]])
    assert encoded(again.record()) == encoded(record)
    assert all(len(g["battles"]) == 10 for g in record["games"])
    assert record["games"][0]["setup"]["deck"] == 10


def test_r12_the_long_game() -> None:
    match = GAME.new_match(4, GAME.check_options({"deck": 14, "target_wins": 1}))
    assert len(match.game.hands[0]) == 7 and match.view(0)["board"]["battles_per_half"] == 7
    rng = random.Random(4)
    while not match.between_games and not match.over:
        seat = rng.choice(sorted(match.to_act()))
        match.apply(seat, rng.choice(match.legal(seat)))
        if len(match.game.battles) == 7 and match.to_act() == frozenset({0, 1}) \
                and not match.game.pending[0] and not match.game.pending[1]:
            assert match.game.hands == [list(match.game.dealt[1]), list(match.game.dealt[0])]
    game = match.game
    assert len(game.battles) == 14 and sum(game.wins) == 14
    assert game.winner == (None if game.wins[0] == 7 else int(game.wins[1] > 7))
    assert match.over == (game.winner is not None)


def test_long_game_draw_at_seven_all_and_win_at_eight() -> None:
    # a real long game: every result is counted from the battles
    rng = random.Random(8)
    for _ in range(30):
        game = Game(14, LONG_DEAL)
        while not game.over:
            for seat in (0, 1):
                game.apply(seat, commit(rng.choice(game.hands[seat])))
        w0, w1 = game.wins
        assert game.winner == (None if w0 == w1 else (0 if w0 >= 8 else 1))


@pytest.mark.parametrize(("given", "error"), [
    ({"deck": 12}, "Cards in the deck must be one of 10, 14"),
    ({"deck": True}, "Cards in the deck"),
    ({"target_wins": 0}, "from 1 to 9"), ({"target_wins": 10}, "from 1 to 9"),
    ({"target_wins": 2.0}, "whole number"), ({"target_wins": False}, "whole number"),
    ({"speed": 1}, "unknown option"),
])
def test_options_are_checked(given: dict[str, Any], error: str) -> None:
    with pytest.raises(Malformed, match=error):
        GAME.check_options(given)


def test_options_defaults_and_registry() -> None:
    assert GAME.check_options({}) == {"deck": 10, "target_wins": 3}
    assert games.get("divide") is GAME and GAME.seats == 2 and GAME.playable
    assert set(GAME.bot_order) == set(GAME.bots)


# --- the invariants can fail --------------------------------------------------------------

def test_the_invariants_catch_a_lost_card_and_a_miscount() -> None:
    match = match_with(DEALT)
    play(match, WORKED[:2])
    invariants(match)
    match.game.hands[0].pop()
    with pytest.raises(AssertionError, match="conserved"):
        invariants(match)
    match = match_with(DEALT)
    play(match, WORKED[:2])
    match.game.wins = [2, 0]
    with pytest.raises(AssertionError):
        invariants(match)
    match = match_with(DEALT)
    match.game.pending = ["9", "5"]
    match.game.hands[0].remove("9")
    match.game.hands[1].remove("5")
    with pytest.raises(AssertionError, match="two face-down"):
        invariants(match)


def test_every_refusal_is_a_game_error_with_a_message() -> None:
    match = match_with(DEALT)
    for seat, action in [(0, {"type": "commit", "card": "3"}), (0, {"type": "x"})]:
        with pytest.raises(GameError) as refused:
            match.apply(seat, action)
        assert refused.value.code in ("illegal", "malformed")
