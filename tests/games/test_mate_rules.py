"""Mate's rules and rulings (docs/rules-mate.md, ../shared/rules/mate.md): the worked
examples of the rules page played through the engine, every scoring case, every
refusal, and the four-game match."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from app.games.contract import GameError, Illegal, Malformed, OutOfTurn
from app.games.kit import mask_of
from app.games.mate import GAME
from app.games.mate.cards import BY_CODE, CODES, answers, beats
from app.games.mate.state import Game, MateMatch, check_deal, check_state, deal

EX2 = ("AC 7C AS 7S AH TH KH QH AD 7D", "TC KC QC TS KS QS 7H TD KD QD")
EX4 = ("AC TC QC AS TS AH TH AD TD KD", "KC 7C KS QS 7S KH QH 7H QD 7D")
EX5 = ("AC TC AS KS 7S TH KH AD TD QD", "KC QC 7C TS QS AH QH 7H KD 7D")
EX6 = ("AC TC KC AS KS 7S AH KH AD QD", "QC 7C TS QS TH QH 7H TD KD 7D")


def game(hands: tuple[str, str], leader: int = 0) -> Game:
    masks, lead = check_deal([h.split() for h in hands], leader)
    return Game(masks, lead)


def play(g: Game, moves: str, first: int = 0) -> None:
    """Play ``moves`` ("AC QC AS QS ..."), seats taken from whose turn it is."""
    for code in moves.split():
        assert g.turn is not None, f"the game ended before {code}"
        g.apply(g.turn, {"type": "play", "card": code})


def decide(g: Game, first: str | None, second: str | None) -> None:
    for card in (first, second):
        assert g.turn is not None
        if card is None:
            g.apply(g.turn, {"type": "decline"})
        else:
            g.apply(g.turn, {"type": "foreplace", "card": card})


def snapshot(g: Game) -> str:
    return json.dumps([g.board(0), g.board(1), g.board(None), g.legal(0), g.legal(1),
                       g.actions, g.turn], sort_keys=True)


def mask(text: str) -> int:
    return mask_of(BY_CODE[c] for c in text.split())


# --- cards ---------------------------------------------------------------------------

def test_pack_order_codes_strength_and_value() -> None:
    assert " ".join(CODES) == ("AC TC KC QC 7C AS TS KS QS 7S AH TH KH QH 7H "
                               "AD TD KD QD 7D")
    assert beats(BY_CODE["7C"], BY_CODE["AS"]) is False  # rank before suit
    assert beats(BY_CODE["QC"], BY_CODE["QS"]) and beats(BY_CODE["QS"], BY_CODE["QH"])
    assert beats(BY_CODE["TS"], BY_CODE["KS"]) and beats(BY_CODE["KD"], BY_CODE["QD"])
    assert beats(BY_CODE["7S"], BY_CODE["7H"])


def test_example_1_answering() -> None:
    bob = mask("TS QS QH 7D")
    assert answers(bob, BY_CODE["QC"]) == mask("QS QH")  # no club: a queen, not TS
    assert answers(bob, BY_CODE["7H"]) == mask("QH")  # a heart held: not 7D
    assert answers(bob, BY_CODE["TD"]) == mask("7D")  # not TS
    assert answers(bob, BY_CODE["7S"]) == mask("TS QS")
    assert answers(bob, BY_CODE["KC"]) == 0  # mated


# --- the worked examples --------------------------------------------------------------

def test_example_2_queen_mate_on_move_5() -> None:
    g = game(EX2)
    decide(g, None, None)
    play(g, "AC QC AS QS AD QD AH 7H QH")
    r = g.result
    assert r is not None and g.over
    assert (r.mated, r.move, CODES[r.card or 0], r.overmate, r.scores) == (1, 5, "QH", False,
                                                                            (15, 0))
    assert "3 \u00d7 5 = 15" in r.say


def test_example_3_foreplacement_bonus() -> None:
    g = game(EX2)
    decide(g, "7D", None)
    play(g, "AC QC AS QS AD QD AH 7H QH")
    assert g.result is not None and g.result.scores == (18, 0)
    assert g.result.multiplier == 6


def test_example_3_only_the_mated_player_foreplaced() -> None:
    g = game(EX2)
    decide(g, None, "TC")
    play(g, "AC QC AS QS AD QD AH 7H QH")
    assert g.result is not None and g.result.scores == (15, 0)


def test_example_4_ace_overmate() -> None:
    g = game(EX4)
    decide(g, "KD", None)
    play(g, "AH KH TC 7C TS 7S TH 7H AD 7D AC KC TD QD")
    # Move 8: Bob has no club; a queen is due, QS or QH but not KS.
    play(g, "QC")
    assert g.legal(1) == [{"type": "play", "card": "QS"}, {"type": "play", "card": "QH"}]
    with pytest.raises(Illegal, match="queen"):
        g.apply(1, {"type": "play", "card": "KS"})
    play(g, "QS AS KS")
    r = g.result
    assert r is not None
    assert (r.mated, r.move, CODES[r.card or 0], r.overmate, r.scores) == (1, 10, "AS", True,
                                                                            (242, 0))
    assert len(g.piles[0]) == 9  # the repeat is not put on the pile twice
    assert g.moves[-1].repeat == 0 and g.moves[-1].lead == BY_CODE["AS"]
    check_state_of(g)


def test_example_4_variation_draw_when_bob_keeps_two_spades() -> None:
    g = game(EX4)
    decide(g, "KD", None)
    play(g, "AH KH TC 7C TS 7S TH 7H AD 7D AC KC TD QD QC QH AS KS")
    # Move 10: AS again, Bob answers with his last spade (his action), a draw.
    assert g.turn == 1 and g.legal(1) == [{"type": "play", "card": "QS"}]
    with pytest.raises(OutOfTurn, match="automatically"):
        g.apply(0, {"type": "play", "card": "AS"})
    play(g, "QS")
    assert g.result is not None and g.result.mated is None and g.result.scores == (0, 0)


def test_example_5_lone_foreplacer_mated_on_move_10() -> None:
    g = game(EX5)
    decide(g, "KS", None)
    play(g, "AS QS AC QC TC KC TH QH QD 7D TD KD KH 7H 7S TS")
    # Move 9: Bob leads AH, Ann has no heart and answers with her ace.
    play(g, "AH")
    assert g.legal(0) == [{"type": "play", "card": "AD"}]
    play(g, "AD")
    assert g.moves[-1].winner == 1 and g.turn == 1
    play(g, "7C")
    r = g.result
    assert r is not None
    assert (r.mated, r.move, CODES[r.card or 0], r.overmate, r.scores) == (0, 10, "7C", False,
                                                                            (0, 70))


def test_example_5_mate_on_move_9_instead() -> None:
    g = game(EX5)
    decide(g, "KS", None)
    play(g, "AS QS AC QC TC KC TH QH QD 7D TD KD KH 7H 7S TS 7C")
    assert g.result is not None and g.result.scores == (0, 63) and g.result.move == 9


def test_example_6_both_foreplace_draw_after_nine_moves() -> None:
    g = game(EX6)
    decide(g, "KC", "TD")
    play(g, "TC QC QD 7D AD KD KS QS AH TH KH QH AS TS AC 7C 7S")
    assert g.legal(1) == [{"type": "play", "card": "7H"}]  # no spade: by rank
    play(g, "7H")
    assert g.moves[-1].winner == 0
    r = g.result
    assert r is not None and r.mated is None and r.scores == (0, 0) and r.move is None
    assert g.over and g.turn is None


def test_draw_after_ten_moves_without_foreplacement() -> None:
    g = game(("KC QC 7C KS QS 7S KH 7H TD KD", "AC TC AS TS AH TH QH AD QD 7D"))
    decide(g, None, None)
    play(g, "KD QD KC TC TS KS AD TD TH 7H AH KH 7D 7C 7S AS AC QC QH")
    assert not g.over and g.move_number == 10
    play(g, "QS")
    r = g.result
    assert r is not None and r.mated is None and r.scores == (0, 0)
    assert len(g.moves) == 10 and g.hands == [0, 0]
    check_state_of(g)


MATE_ON_1 = ("AC TC KC QC 7C AS QS AH QH QD", "TS KS 7S TH KH 7H AD TD KD 7D")


def test_mate_on_move_1() -> None:
    # Seat 1 holds no club and no queen: QC mates at once, 3 x 1.
    g = game(MATE_ON_1)
    decide(g, None, None)
    play(g, "QC")
    assert g.result is not None and g.result.scores == (3, 0) and g.result.move == 1
    assert g.turn is None and g.legal(1) == []  # the mated player takes no action


def test_mate_on_move_1_with_foreplacement_and_any_card_may_be_led() -> None:
    g = game(MATE_ON_1)
    decide(g, "AS", "TS")
    assert g.multiplier(0) == 2 and g.multiplier(1) == 2
    play(g, "AC")  # not a mate: AD answers by rank (no obligation to mate)
    assert g.turn == 1 and g.legal(1) == [{"type": "play", "card": "AD"}]
    play(g, "AD QC")
    assert g.result is not None and g.result.scores == (9, 0)  # 3 x (2 + 1), on move 2
    assert g.result.move == 2 and g.result.multiplier == 3


def test_no_negative_points_and_the_mated_foreplacer_scores_nothing() -> None:
    g = game(EX2)
    decide(g, None, "TD")  # Bob foreplaced; Ann mates him: Bob scores 0, not less.
    play(g, "AC QC AS QS AD QD AH 7H QH")
    assert g.result is not None and g.result.scores == (15, 0)


# --- refusals -------------------------------------------------------------------------

def refused(g: Game, seat: int, action: Any, kind: type[GameError], words: str) -> str:
    before = snapshot(g)
    with pytest.raises(kind) as e:
        g.apply(seat, action)
    assert words in str(e.value), str(e.value)
    assert snapshot(g) == before, "a refusal changed the state"
    return str(e.value)


def test_refusals_before_the_first_lead() -> None:
    g = game(EX2)
    refused(g, 1, {"type": "decline"}, OutOfTurn, "not your turn")
    refused(g, 0, {"type": "play", "card": "AC"}, Illegal, "decide on foreplacement first")
    refused(g, 0, {"type": "foreplace", "card": "TC"}, Illegal, "you do not hold the ten "
                                                                  "of clubs")
    g.apply(0, {"type": "foreplace", "card": "7D"})
    refused(g, 0, {"type": "foreplace", "card": "7C"}, Illegal, "already decided")
    refused(g, 0, {"type": "decline"}, Illegal, "already decided")
    refused(g, 1, {"type": "play", "card": "TC"}, Illegal, "decide on foreplacement first")
    g.apply(1, {"type": "decline"})
    refused(g, 1, {"type": "foreplace", "card": "TC"}, Illegal, "too late")
    refused(g, 0, {"type": "foreplace", "card": "AC"}, Illegal, "too late")
    refused(g, 0, {"type": "decline"}, Illegal, "too late")


def test_refusals_during_the_play() -> None:
    g = game(EX2)
    decide(g, "7D", "QD")
    refused(g, 1, {"type": "play", "card": "TC"}, OutOfTurn, "not your turn")
    refused(g, 0, {"type": "play", "card": "7D"}, Illegal, "your face-down card")
    refused(g, 0, {"type": "play", "card": "TC"}, Illegal, "you do not hold the ten of clubs")
    # The other player's face-down card: the same words as a card in its hand.
    hidden = refused(g, 0, {"type": "play", "card": "QD"}, Illegal, "you do not hold")
    in_hand = refused(g, 0, {"type": "play", "card": "KD"}, Illegal, "you do not hold")
    assert hidden.replace("queen", "X") == in_hand.replace("king", "X")
    g.apply(0, {"type": "play", "card": "AC"})
    refused(g, 0, {"type": "play", "card": "AS"}, OutOfTurn, "not your turn")
    refused(g, 1, {"type": "play", "card": "TS"}, Illegal, "you must follow suit: you hold "
                                                           "clubs")
    refused(g, 1, {"type": "play", "card": "AC"}, Illegal, "played by the other player")
    g.apply(1, {"type": "play", "card": "QC"})
    refused(g, 0, {"type": "play", "card": "AC"}, Illegal, "you played the ace of clubs on "
                                                           "move 1")
    while not g.over:
        assert g.turn is not None
        g.apply(g.turn, g.legal(g.turn)[0])
    refused(g, 1, {"type": "play", "card": "TC"}, OutOfTurn, "the game is over")


def test_rank_answer_refusal_names_the_rank() -> None:
    g = game(EX2)
    decide(g, None, None)
    play(g, "AH 7H")  # Bob's only heart
    play(g, "TH")  # Ann won; Bob has no heart: a ten (TC, TS or TD)
    assert [a["card"] for a in g.legal(1)] == ["TC", "TS", "TD"]
    refused(g, 1, {"type": "play", "card": "KD"}, Illegal,
            "you hold no hearts, so you must answer the ten of hearts with a ten")


@pytest.mark.parametrize("action", [
    None, "play", [], {}, {"type": "nonsense"}, {"type": None}, {"type": ["play"]},
    {"type": "play"}, {"type": "foreplace"}, {"type": "play", "card": "ZZ"},
    {"type": "play", "card": "ac"}, {"type": "play", "card": " AC"}, {"type": "play", "card": 7},
    {"type": "play", "card": [[[[]]]]}, {"type": "play", "card": None},
    {"type": "PLAY", "card": "AC"},
])
def test_malformed_actions(action: Any) -> None:
    g = game(EX2)
    refused(g, 0, action, Malformed, "")


# --- the match -------------------------------------------------------------------------

def test_the_first_dealer_is_drawn_from_the_seed() -> None:
    firsts = {MateMatch(seed).first_dealer for seed in range(40)}
    assert firsts == {0, 1}


def test_deal_in_batches_of_five_non_dealer_first() -> None:
    import random
    rng = random.Random(7)
    pack = list(range(20))
    random.Random(7).shuffle(pack)
    hands = deal(rng, 0)
    assert hands[1] == mask_of(pack[0:5] + pack[10:15])
    assert hands[0] == mask_of(pack[5:10] + pack[15:20])


def finish(m: MateMatch) -> None:
    """Play the game in progress to its end with the first legal action."""
    while not m.game.over:
        (seat,) = m.to_act()
        m.apply(seat, m.legal(seat)[0])


def test_match_order_leaders_and_exchanged_hands() -> None:
    m = MateMatch(3)
    d, n = m.first_dealer, 1 - m.first_dealer
    leaders = []
    for index in range(4):
        if index:
            with pytest.raises(Illegal):
                m.start_next_game()
            finish(m)
            assert m.between_games and not m.to_act()
            with pytest.raises(OutOfTurn):
                m.apply(0, {"type": "decline"})
            m.start_next_game()
        leaders.append(m.game.leader)
        assert m.to_act() == {m.game.leader}
    finish(m)
    assert leaders == [d, n, n, d]
    g1, g2, g3, g4 = m.games
    assert g2.dealt == (g1.dealt[1], g1.dealt[0])
    assert g4.dealt == (g3.dealt[1], g3.dealt[0])
    assert m.over and not m.between_games
    t = m.totals()
    assert t == [sum(g.result.scores[s] for g in m.games if g.result) for s in (0, 1)]
    assert m.winner == (None if t[0] == t[1] else int(t[1] > t[0]))
    board = m.scoreboard()
    assert board["totals"] == t and "difference" in board["rule"]
    with pytest.raises(Illegal):
        m.start_next_game()


def test_example_7_match_totals() -> None:
    # Ann (seat 0) deals first: game 1 is example 2 (15), game 2 Bob mates for 70, game 3
    # a draw, game 4 an overmate for Ann (242): 257 to 70, Ann wins by 187.
    results = [(15, 0), (0, 70), (0, 0), (242, 0)]
    m = MateMatch(0, first_dealer=0)
    from app.games.mate.state import Result
    for index, scores in enumerate(results):
        if index:
            m.start_next_game()
        g = m.game
        g.phase, g.turn = "over", None
        g.result = Result(None, None, None, False, 0, scores, "")
    assert [g.leader for g in m.games] == [0, 1, 1, 0]
    assert m.totals() == [257, 70] and m.winner == 0
    assert m.scoreboard()["margin"] == 187
    assert "wins the match by 187 (257 to 70)" in m.prompt(None)


def test_equal_totals_draw_the_match() -> None:
    from app.games.mate.state import Result
    m = MateMatch(0)
    for index in range(4):
        if index:
            m.start_next_game()
        g = m.game
        g.phase, g.turn = "over", None
        g.result = Result(None, None, None, False, 0, (0, 0), "")
    assert m.over and m.winner is None and "draw" in m.prompt(0)


def test_record_rebuilds_the_match() -> None:
    m = MateMatch(11)
    finish(m)
    m.start_next_game()
    m.apply(m.game.leader, {"type": "decline"})
    again = MateMatch.from_record(json.loads(json.dumps(m.record())))
    assert json.dumps(again.record()) == json.dumps(m.record())
    assert again.view(0) == m.view(0) and again.view(None) == m.view(None)


def test_options_there_are_none() -> None:
    assert GAME.check_options({}) == {}
    with pytest.raises(Malformed):
        GAME.check_options({"rounds": 3})


def check_state_of(g: Game) -> None:
    m = MateMatch(0)
    m.games = [g]
    check_state(m)


def test_the_invariants_catch_a_broken_state() -> None:
    from dataclasses import replace
    g = game(EX4)
    decide(g, "KD", None)
    play(g, "AH KH TC 7C TS 7S TH 7H AD 7D AC KC TD QD QC QS AS KS")
    check_state_of(g)
    assert g.result is not None
    for broken in (replace(g.result, scores=(242, 1)), replace(g.result, scores=(243, 0)),
                   replace(g.result, move=9), replace(g.result, mated=0, scores=(0, 242))):
        h = copy.deepcopy(g)
        h.result = broken
        with pytest.raises(AssertionError):
            check_state_of(h)
    h = copy.deepcopy(g)
    h.hands[1] |= 1 << BY_CODE["KD"]  # a card in two places
    with pytest.raises(AssertionError):
        check_state_of(h)
