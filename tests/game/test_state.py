"""One game of Dingo: scripted deals checking each rule of docs/rules.md."""

from __future__ import annotations

import random

import pytest
from gamekit import deal_with, decline_all, exchange, hunt_result, play, snapshot

from app.game import (
    DISCARD,
    PASS,
    PLAY,
    Action,
    Deal,
    DingoError,
    Game,
    IllegalAction,
    MalformedAction,
    NotYourTurn,
    deal,
    deal_from,
    parse_card,
)
from app.game.cards import PACK, codes


def scripted(placed: dict[str, int], dealer: int = 0) -> Game:
    """A game dealt with ``placed`` cards in their seats, played to the first hunt decision."""
    game = Game(deal_with(placed), dealer)
    exchange(game, keep=placed)
    return game


def hunt_rank(game: Game) -> str | None:
    return None if game.hunt is None else "23456789TJQKA"[game.hunt.rank]


def decline_until(game: Game, rank: str) -> None:
    """Decline every hunt turn of other ranks until a turn of ``rank`` comes (or the end)."""
    while not game.over and hunt_rank(game) != rank:
        assert game.to_act is not None
        game.apply(Action(game.to_act, PLAY, ()))


# -- the deal -------------------------------------------------------------------


def test_deal_is_ten_cards_each_from_the_dealers_left() -> None:
    game = Game.new(7, dealer=2)
    hands = [set(h) for h in game.initial_hands]
    assert [len(h) for h in hands] == [10] * 4
    assert set().union(*hands) == set(range(52)) - {parse_card(f"{r}D") for r in "23456789TJQK"}
    again = Game.new(7, dealer=2)
    assert again.initial_hands == game.initial_hands
    assert Game.new(8, dealer=2).initial_hands != game.initial_hands


def test_the_same_seed_deals_the_same_cards_one_seat_further_for_the_next_dealer() -> None:
    # Dealing starts at the dealer's left: moving the dealer rotates the hands.
    a, b = Game.new(3, dealer=0).initial_hands, Game.new(3, dealer=1).initial_hands
    assert [b[(s + 1) % 4] for s in range(4)] == list(a)


def test_a_deal_from_a_generator_is_sorted_hands_of_the_pack() -> None:
    hands = deal_from(random.Random(4), dealer=3)
    assert isinstance(hands, Deal) and all(list(h) == sorted(h) for h in hands)
    assert sorted(c for h in hands for c in h) == sorted(PACK)
    assert deal_from(random.Random(4), dealer=3) == hands
    assert deal(4, 3) == deal_from(random.Random(4), 3) == Game.new(4, 3).initial_hands


def test_hands_that_are_not_a_deal_are_checked_and_sorted() -> None:
    hands = [list(reversed(h)) for h in deal(6, 0)]
    game = Game(hands, 0)
    assert isinstance(game.initial_hands, Deal)
    assert game.initial_hands == deal(6, 0)


@pytest.mark.parametrize(("hands", "why"), [
    ([[0] * 10] * 4, "dealt twice"),
    ([list(range(i * 10, i * 10 + 10)) for i in range(4)], "is a rabbit"),
    ([[0, 1]] * 4, "four hands of ten"),
    ("not hands", "four hands of ten"),
    ([["7H"] * 10] * 4, "not a card number"),
])
def test_a_bad_deal_is_refused(hands: object, why: str) -> None:
    with pytest.raises(MalformedAction, match=why):
        Game(hands, 0)  # type: ignore[arg-type]


def test_a_bad_dealer_is_refused() -> None:
    hands = Game.new(1, 0).initial_hands
    for dealer in (4, -1, True, "0", 10**40):
        with pytest.raises(MalformedAction, match="dealer must be a seat 0-3"):
            Game(hands, dealer)  # type: ignore[arg-type]


# -- discards and exchanges --------------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_exchange_order_and_pass_directions(dealer: int) -> None:
    game = Game.new(11, dealer)
    seen = []
    while game.phase == "exchange":
        seat, decision = game.to_act, game.decision
        assert seat is not None and decision is not None
        info = game.public_view()["decision"]
        action = game.legal_actions()[-1]
        before = game.hand_counts
        game.apply(action)
        if decision == PASS:
            assert action.card in [parse_card(c) for c in game.hand(info["to"])]
            seen.append((decision, (info["to"] - seat) % 4))
        else:
            assert game.hand_counts[seat] == before[seat] - 1
            seen.append((decision, 0))
        assert seat == (dealer + len(seen) - 1) % 4  # each round starts with the dealer
    rounds = [seen[i:i + 4] for i in range(0, 28, 4)]
    assert rounds == [
        [(DISCARD, 0)] * 4, [(PASS, 1)] * 4, [(DISCARD, 0)] * 4, [(PASS, 2)] * 4,
        [(DISCARD, 0)] * 4, [(PASS, 3)] * 4, [(DISCARD, 0)] * 4,
    ]


def _to_round(game: Game, stage: str) -> None:
    while game.public_view()["stage"] != stage:
        game.apply(game.legal_actions()[0])


def test_a_left_pass_reaches_its_receiver_before_it_passes() -> None:
    game = Game.new(5, dealer=1)
    _to_round(game, "pass left")
    card = game.legal_actions()[0].card
    game.apply(Action(1, PASS, (card,)))
    assert Action(2, PASS, (card,)) in game.legal_actions()  # seat 2 may pass it straight on
    assert game.view(2)["received"] == [{"direction": "left", "from": 1, "card": codes([card])[0]}]
    game.apply(Action(2, PASS, (card,)))
    assert codes([card])[0] in game.hand(3)
    assert game.view(1)["passed"] == [{"direction": "left", "to": 2, "card": codes([card])[0]}]


def test_across_passes_go_to_the_opposite_seat_in_dealer_order() -> None:
    game = Game.new(5, dealer=3)
    _to_round(game, "pass across")
    order = []
    while game.public_view()["stage"] == "pass across":
        info = game.public_view()["decision"]
        order.append((info["seat"], info["to"], info["direction"]))
        game.apply(game.legal_actions()[0])
    assert order == [(3, 1, "across"), (0, 2, "across"), (1, 3, "across"), (2, 0, "across")]


def test_in_the_right_pass_only_the_last_seat_has_its_card_before_passing() -> None:
    dealer = 2
    game = Game.new(9, dealer)
    _to_round(game, "pass right")
    received_before_passing = {}
    while game.public_view()["stage"] == "pass right":
        seat = game.to_act
        assert seat is not None
        received_before_passing[seat] = [r for r in game.view(seat)["received"]
                                         if r["direction"] == "right"]
        assert game.public_view()["decision"]["to"] == (seat + 3) % 4
        game.apply(game.legal_actions()[0])
    assert [len(received_before_passing[(dealer + i) % 4]) for i in range(4)] == [0, 0, 0, 1]
    assert received_before_passing[(dealer + 3) % 4][0]["from"] == dealer


def test_aces_may_not_be_discarded_but_may_be_passed() -> None:
    game = Game(deal_with({"AC": 0, "AH": 0, "AS": 1, "AD": 2}), 0)
    assert all(a.card >> 2 != 12 for a in game.legal_actions())
    before = snapshot(game)
    with pytest.raises(IllegalAction, match=r"^aces may not be discarded$"):
        game.apply(Action(0, DISCARD, (parse_card("AC"),)))
    assert snapshot(game) == before
    _to_round(game, "pass left")
    assert Action(0, PASS, (parse_card("AC"),)) in game.legal_actions()
    game.apply(Action(0, PASS, (parse_card("AC"),)))
    assert "AC" in game.hand(1)


def test_only_the_top_discard_shows_unless_discards_are_open() -> None:
    closed = Game.new(4, 0)
    opened = Game.new(4, 0, open_discards=True)
    for game in (closed, opened):
        for _ in range(5):
            game.apply(game.legal_actions()[0])
    first = codes(closed.discards)
    assert closed.view(1)["discards"] is None and closed.view(1)["discard_top"] == first[-1]
    assert opened.view(1)["discards"] == first and opened.view(None)["discards"] == first


def test_the_discard_event_names_its_card_only_to_the_discarder() -> None:
    game = Game.new(4, 0)
    (event,) = game.apply(game.legal_actions()[0])
    assert event.for_seat(0)["card"] == game.view(0)["discard_top"]
    for seat in (1, 2, 3, None):
        assert "card" not in event.for_seat(seat)
    opened = Game.new(4, 0, open_discards=True)
    (event,) = opened.apply(opened.legal_actions()[0])
    assert all("card" in event.for_seat(s) for s in (0, 1, 2, 3, None))


def test_a_pass_event_names_its_card_to_giver_and_receiver_only() -> None:
    game = Game.new(4, 0)
    _to_round(game, "pass left")
    (event,) = game.apply(game.legal_actions()[0])
    assert event.kind == PASS
    assert "card" in event.for_seat(0) and "card" in event.for_seat(1)
    assert all("card" not in event.for_seat(s) for s in (2, 3, None))


# -- the hunts 2-K ------------------------------------------------------------------


def test_a_discarded_dingo_voids_its_hunt_and_nobody_is_asked() -> None:
    game = scripted({"7C": 1, "7S": 2})  # 7H is not kept, so it is discarded
    assert "7H" in codes(game.discards)
    asked = []
    while not game.over:
        asked.append(hunt_rank(game))
        game.apply(Action(game.to_act, PLAY, ()))  # type: ignore[arg-type]
    assert "7" not in asked
    result = hunt_result(game, "7")
    assert result["rule"] == "void" and result["dead"] and result["plays"] == []
    assert "7D" in game.result()["dead_rabbits"]
    assert "7C" in game.hand(1) and "7S" in game.hand(2)


def test_no_wolf_played_kills_the_rabbit_and_the_dingo_is_a_penalty() -> None:
    game = scripted({"7H": 0, "7C": 1, "7S": 2})
    decline_until(game, "7")
    play(game, 1)
    play(game, 2)
    result = hunt_result(game, "7")
    assert result["rule"] == "no_wolf" and result["dead"]
    assert result["to_penalty"][0] == ["7H"] and result["points"] == [-1, 0, 0, 0]
    assert "7H" in codes(game.penalty_piles[0]) and "7D" in codes(game.dead)


def test_one_wolf_catches_the_rabbit_and_the_dingo_scores() -> None:
    game = scripted({"7H": 0, "7C": 1, "7S": 2})
    decline_until(game, "7")
    play(game, 1, "7C")
    play(game, 2)
    result = hunt_result(game, "7")
    assert result["rule"] == "one_wolf" and result["caught_by"] == 1
    assert result["to_score"] == [["7H"], ["7C", "7D"], [], []]
    assert result["points"] == [1, 2, 0, 0]


def test_two_wolves_the_first_goes_to_the_dingo_player_the_second_catches() -> None:
    game = scripted({"TH": 0, "TC": 1, "TS": 2})
    decline_until(game, "T")
    play(game, 1, "TC")
    play(game, 2, "TS")
    result = hunt_result(game, "T")
    assert result["rule"] == "two_wolves" and result["caught_by"] == 2
    assert result["to_score"] == [["TH", "TC"], [], ["TS", "TD"], []]
    assert result["points"] == [4, 0, 4, 0]


def test_one_seat_playing_both_wolves_gives_its_first_to_the_dingo_player() -> None:
    game = scripted({"QH": 3, "QC": 1, "QS": 1})
    decline_until(game, "Q")
    events = play(game, 1, "QS", "QC")
    assert hunt_rank(game) != "Q"  # both wolves are out: the hunt is over at once
    assert [e["type"] for e in events][:2] == ["wolves", "hunt_result"]
    result = hunt_result(game, "Q")
    assert result["to_score"] == [[], ["QC", "QD"], [], ["QH", "QS"]]


def test_turns_go_clockwise_from_the_dingo_players_left_skipping_seats_without_wolves() -> None:
    game = scripted({"5H": 2, "5C": 1, "5S": 3})
    decline_until(game, "5")
    assert game.to_act == 3  # seat 2's left; seat 0 holds no wolf of 5 and is skipped
    play(game, 3)
    assert game.to_act == 1 and hunt_rank(game) == "5"
    play(game, 1, "5C")
    assert hunt_result(game, "5")["caught_by"] == 1


def test_the_dingo_player_may_not_play_its_own_wolves() -> None:
    game = scripted({"9H": 0, "9C": 0, "9S": 2})
    decline_until(game, "9")
    assert game.to_act == 2  # seat 0 has no turn in its own hunt
    with pytest.raises(NotYourTurn, match="it is seat 2's turn"):
        game.apply(Action(0, PLAY, (parse_card("9C"),)))
    play(game, 2)
    decline_all(game)
    assert hunt_result(game, "9")["rule"] == "no_wolf"
    assert "9C" in game.result()["hands"][0]  # it simply stays in the hand


def test_a_dingo_player_holding_both_wolves_is_never_saved() -> None:
    game = scripted({"8H": 1, "8C": 1, "8S": 1})
    decline_until(game, "8")
    assert hunt_rank(game) != "8"
    decline_all(game)
    assert hunt_result(game, "8")["rule"] == "no_wolf"
    assert {"8C", "8S"} <= set(game.result()["hands"][1])


def test_only_wolves_of_the_hunted_rank_may_be_played() -> None:
    game = scripted({"7H": 0, "7C": 1, "7S": 2, "8C": 1})
    decline_until(game, "7")
    before = snapshot(game)
    with pytest.raises(IllegalAction, match=r"^8C is not a wolf of this hunt: you may play "
                                            r"7C, or no wolf$"):
        game.apply(Action(1, PLAY, (parse_card("8C"),)))
    with pytest.raises(IllegalAction, match="7S is not in your hand"):
        game.apply(Action(1, PLAY, (parse_card("7S"),)))
    with pytest.raises(IllegalAction, match="7C is named twice"):
        game.apply(Action(1, PLAY, (parse_card("7C"), parse_card("7C"))))
    with pytest.raises(IllegalAction, match="must play in the hunt now, not discard"):
        game.apply(Action(1, DISCARD, (parse_card("7C"),)))
    assert snapshot(game) == before


# -- the ace hunt ------------------------------------------------------------------------


def ace_game(placed: dict[str, int]) -> Game:
    """All 2-K dingoes discarded, the aces where ``placed`` says: the ace hunt comes first."""
    game = scripted(placed)
    assert game.over or hunt_rank(game) == "A"
    assert len(game.dead) == 12
    return game


def test_example_1_the_last_wolf_holder_plays_wolf_and_rabbit() -> None:
    # East (1) plays AH, South (2) a wolf, West (3) passes, North (0) holds AD and a wolf.
    game = ace_game({"AH": 1, "AS": 2, "AC": 0, "AD": 0})
    assert game.to_act == 2
    play(game, 2, "AS")
    assert game.to_act == 0  # West holds no ace wolf: skipped
    events = play(game, 0, "AC")
    assert [e["type"] for e in events][:2] == ["wolves", "ace_rabbit"]
    assert game.over
    assert game.scores == [13, 3, 3, 0] and game.winner == 0


def test_example_2_the_rabbit_cannot_wait_for_a_later_wolf() -> None:
    # West (3) plays AH; North (0) holds AD and a wolf; East (1) passes; South (2) a wolf.
    game = ace_game({"AH": 3, "AD": 0, "AC": 0, "AS": 2})
    play(game, 0, "AC")
    assert game.to_act == 2
    play(game, 2, "AS")
    assert game.over
    assert game.scores == [0, 0, 3, 3]  # North: +3 for the wolf, -3 for the rabbit
    assert codes(game.penalty_piles[0]) == ["AD"]
    assert game.winner is None and game.tie_break == "draw"  # nobody tied holds a rabbit


def test_example_3_the_dingo_player_plays_wolf_and_rabbit_last() -> None:
    # East (1) holds AH, a wolf and AD; South and West pass; North (0) holds the other wolf.
    game = ace_game({"AH": 1, "AC": 1, "AD": 1, "AS": 0})
    assert game.to_act == 0
    play(game, 0, "AS")
    play(game, 1, "AC")
    assert game.over and game.scores == [3, 16, 0, 0]


def test_example_3_when_north_passes_east_scores_only_its_wolf() -> None:
    game = ace_game({"AH": 1, "AC": 1, "AD": 1, "AS": 0})
    play(game, 0)
    play(game, 1, "AC")
    assert game.over and game.scores == [0, 3, 0, 0]  # 3 + 3 - 3
    assert codes(game.penalty_piles[1]) == ["AD"]


def test_example_4_all_four_aces_score_19() -> None:
    game = ace_game({"AH": 2, "AC": 2, "AS": 2, "AD": 2})
    assert game.to_act == 2  # the others hold no ace wolf
    play(game, 2, "AC", "AS")
    assert game.over and game.scores == [0, 0, 19, 0]
    assert codes(game.score_piles[2]) == ["AH", "AC", "AS", "AD"]


def test_no_ace_wolf_played_makes_the_ace_dingo_a_penalty() -> None:
    game = ace_game({"AH": 0, "AC": 1, "AS": 2, "AD": 3})
    play(game, 1)
    play(game, 2)
    assert game.over and game.scores == [-3, 0, 0, -3]
    assert hunt_result(game, "A")["rule"] == "ace_no_wolf"


def test_the_rabbit_waits_for_its_holders_own_turn() -> None:
    # AD (seat 1) has its turn before the wolves are out, so it stays in the hand.
    game = ace_game({"AH": 0, "AD": 1, "AC": 2, "AS": 3})
    assert game.to_act == 2
    play(game, 2, "AC")
    play(game, 3, "AS")
    assert game.over and game.scores == [3, -3, 3, 3]


def test_the_rabbit_is_played_on_a_skipped_turn_once_both_wolves_are_out() -> None:
    # Seat 3 holds AD and no wolf: its turn comes after both wolves, so AD goes out.
    game = ace_game({"AH": 0, "AC": 1, "AS": 2, "AD": 3})
    play(game, 1, "AC")
    events = play(game, 2, "AS")
    assert {"type": "ace_rabbit", "seat": 3, "card": "AD"} in events
    assert game.over and game.scores == [3, 3, 3, 10]


def test_the_ace_dingo_player_may_play_its_wolves_on_its_last_turn() -> None:
    game = ace_game({"AH": 0, "AC": 0, "AS": 1, "AD": 2})
    play(game, 1)
    assert game.to_act == 0
    play(game, 0, "AC")
    assert game.over and game.scores == [6, 0, -3, 0]


# -- the end of the game ------------------------------------------------------------------


def test_a_tie_is_won_by_the_higher_rabbit() -> None:
    game = scripted({"2H": 2, "2C": 0, "2S": 2, "3H": 3, "3S": 1, "3C": 3, "AH": 2, "AD": 2})
    decline_until(game, "2")
    play(game, 0, "2C")
    assert hunt_rank(game) == "3" and game.to_act == 1
    play(game, 1, "3S")
    decline_all(game)
    assert game.scores == [2, 2, -5, 1]
    assert game.winner == 1 and game.tie_break == "3D"
    assert game.result()["winner"] == 1


def test_a_tie_without_rabbits_is_a_draw() -> None:
    game = ace_game({"AH": 1, "AD": 1, "AC": 2, "AS": 3})
    decline_all(game)
    assert game.scores == [0, -6, 0, 0]
    assert game.winner is None and game.tie_break == "draw"
    assert game.result()["winner"] is None


def test_the_ace_rabbit_left_in_a_hand_costs_three() -> None:
    game = ace_game({"AH": 0, "AD": 2, "AC": 1, "AS": 3})
    play(game, 1, "AC")
    play(game, 3)
    assert game.over
    assert codes(game.penalty_piles[2]) == ["AD"] and game.result()["scores"][2] == -3
    assert "AD" not in game.result()["hands"][2]


def test_card_values_in_the_final_score() -> None:
    # Dingo 7H (1) + 7C and 7D (1 + 1); KH (2) + KS and KD (2 + 2); aces 3 each.
    game = scripted({"7H": 0, "7C": 1, "KH": 2, "KS": 3, "AH": 0, "AC": 1, "AS": 2, "AD": 3})
    decline_until(game, "7")
    play(game, 1, "7C")
    decline_until(game, "K")
    play(game, 3, "KS")
    decline_until(game, "A")
    play(game, 1, "AC")
    play(game, 2, "AS")
    assert game.over
    assert game.scores == [1 + 3, 2 + 3, 2 + 3, 4 + 10]


def test_after_the_game_nobody_may_act_and_everything_is_shown() -> None:
    game = ace_game({"AH": 2, "AC": 2, "AS": 2, "AD": 2})
    play(game, 2, "AC", "AS")
    with pytest.raises(NotYourTurn, match="the game is over"):
        game.apply(Action(0, PLAY, ()))
    view = game.view(None)
    assert view["result"]["hands"] == [game.hand(s) for s in range(4)]
    assert view["discards"] == codes(game.discards)
    assert game.legal_actions() == [] and game.decision is None and game.prompt is None


# -- errors ---------------------------------------------------------------------------------


def test_errors_say_what_and_why_and_have_a_code() -> None:
    game = Game.new(21, dealer=2)
    hand = [parse_card(c) for c in game.hand(2)]
    missing = next(c for c in range(52) if c not in hand and c & 3 != 1)
    cases = [
        (Action(3, DISCARD, (hand[0],)), NotYourTurn, "it is seat 2's turn, not seat 3's"),
        (Action(2, PASS, (hand[0],)), IllegalAction,
         "seat 2 must discard a card now, not pass a card"),
        (Action(2, DISCARD, (missing,)), IllegalAction,
         f"{codes([missing])[0]} is not in your hand"),
        (Action(2, DISCARD, ()), MalformedAction, "a discard names exactly one card"),
        ("2 discard 7H", MalformedAction, "not an action"),
    ]
    before = snapshot(game)
    for action, kind, message in cases:
        with pytest.raises(kind) as caught:
            game.apply(action)  # type: ignore[arg-type]
        assert str(caught.value) == message
        assert isinstance(caught.value, DingoError) and isinstance(caught.value, ValueError)
        assert snapshot(game) == before
    assert (NotYourTurn.code, IllegalAction.code, MalformedAction.code) == (
        "not_your_turn", "illegal", "malformed")


def test_the_prompt_says_who_must_do_what() -> None:
    game = Game.new(1, dealer=3)
    assert game.prompt == "seat 3 must discard a card"


def test_views_refuse_a_seat_that_does_not_exist() -> None:
    with pytest.raises(MalformedAction):
        Game.new(1, 0).view(4)


@pytest.mark.parametrize("seed", range(12))
def test_views_built_along_a_game_equal_views_of_the_same_position_built_afresh(seed: int) -> None:
    """Views reuse parts built for earlier positions (piles, hands, legal choices);
    a game replayed to the same position, never asked before, must show the same."""
    rng = random.Random(seed)
    game = Game.new(seed, seed % 4)
    while True:
        fresh = Game.replay(game.initial_hands, game.dealer, game.actions)
        for seat in (None, 0, 1, 2, 3):
            assert game.view(seat) == fresh.view(seat)
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))
