"""Bingo's rules (``docs/rules-bingo.md``): the worked examples of section 17 as tests,
scripted deals for the rulings, and every refusal."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from app.games.bingo import GAME
from app.games.bingo.state import BingoMatch, Deal, Setup, check_setup
from app.games.bingo.tiles import (
    BY_CODE,
    CODES,
    beats,
    follows,
    mask_codes,
    rank_in,
    set_value,
    trump_of,
    value,
)
from app.games.contract import GameError, Illegal, Malformed, OutOfTurn


def T(code: str) -> int:
    return BY_CODE[code]


def make(hand0: str, hand1: str, turn_up: str, leader: int = 0, stock: str = "",
         match_points: tuple[int, int] = (0, 0)) -> Deal:
    """A deal from two hands, the turn-up and the first stock tiles (the rest in code order)."""
    h0, h1, first = hand0.split(), hand1.split(), stock.split()
    used = {*h0, *h1, *first, turn_up}
    assert len(used) == len(h0) + len(h1) + len(first) + 1
    rest = [c for c in CODES if c not in used]
    return Deal(check_setup([h0, h1], first + rest, turn_up, leader, list(match_points)))


def play(deal: Deal, *moves: Any) -> None:
    """Apply ``(seat, "tile")`` plays or ``(seat, {action})`` actions in order."""
    for seat, what in moves:
        action = {"type": "play", "tile": what} if isinstance(what, str) else what
        deal.apply(seat, action)


def allowed(hand: str, lead: str, trump: int) -> set[str]:
    mask = sum(1 << T(c) for c in hand.split())
    return set(mask_codes(follows(mask, T(lead), trump)))


# --- example 1: values ------------------------------------------------------------------------

def test_example_1_values() -> None:
    trump = trump_of(T("1-2"))
    assert trump == 2
    expected = {"2-2": 28, "0-2": 9, "2-6": 8, "1-2": 3, "0-0": 14, "6-6": 12, "4-6": 10,
                "0-3": 10, "1-5": 0}
    assert {c: value(T(c), trump) for c in expected} == expected
    assert set_value(2) == 138
    assert value(T("0-0"), 0) == 28
    assert value(T("0-4"), 4) == 11
    assert value(T("2-4"), 4) == 6
    assert [trump_of(T(c)) for c in ("0-5", "4-4", "3-6")] == [0, 4, 6]


def test_set_values_per_trump() -> None:
    assert [set_value(t) for t in range(7)] == [143, 135, 138, 131, 134, 147, 140]


def test_other_doubles_are_worth_their_ends_blank_seven() -> None:
    assert [value(T(f"{n}-{n}"), 3) for n in (0, 1, 2, 4, 5, 6)] == [14, 2, 4, 8, 10, 12]
    assert value(T("3-3"), 3) == 28


# --- example 2: ranking -----------------------------------------------------------------------

def test_example_2_ranking() -> None:
    trumps = ["2-2", "0-2", "2-6", "2-5", "2-4", "2-3", "1-2"]
    assert sorted(trumps, key=lambda c: -rank_in(T(c), 2)) == trumps
    fives = ["5-5", "0-5", "5-6", "4-5", "3-5", "1-5"]
    assert sorted(fives, key=lambda c: -rank_in(T(c), 5)) == fives
    for higher, lower in itertools.pairwise(trumps):
        assert beats(T(lower), T(higher), 2) and not beats(T(higher), T(lower), 2)


# --- example 3: tricks ------------------------------------------------------------------------

@pytest.mark.parametrize("follow", ["1-6", "0-5", "5-5", "0-0"])
def test_example_3_follower_wins(follow: str) -> None:
    assert beats(T("3-5"), T(follow), 6)


@pytest.mark.parametrize("follow", ["2-5", "3-4", "4-4"])
def test_example_3_follower_loses(follow: str) -> None:
    assert not beats(T("3-5"), T(follow), 6)


def test_example_3_blank_suit_and_bingo() -> None:
    assert not beats(T("0-4"), T("0-1"), 6)
    assert beats(T("0-4"), T("0-5"), 6)
    assert beats(T("6-6"), T("0-0"), 6)
    assert not beats(T("0-0"), T("6-6"), 6)


def test_ruling_3_no_lower_end_and_no_pip_count() -> None:
    # Engel's rule rejected: with fives trumps 2-4 led, 2-6 shows only the lower end.
    assert not beats(T("2-4"), T("2-6"), 5)
    # "more pips wins" rejected: 6-6 does not beat 0-1 (blank suit) unless it shows a blank.
    assert not beats(T("0-1"), T("6-6"), 5)
    # the source's examples, fives trumps, 3-4 led (suit four)
    assert beats(T("3-4"), T("1-5"), 5)
    assert beats(T("3-4"), T("4-6"), 5)
    assert beats(T("3-4"), T("0-4"), 5)
    assert not beats(T("3-4"), T("1-4"), 5)
    assert not beats(T("3-4"), T("3-6"), 5)


# --- example 4: phase-two duties --------------------------------------------------------------

HAND4 = "0-0 3-6 1-3 5-5 2-5 1-4 0-1"


@pytest.mark.parametrize(("lead", "expected"), [
    ("3-4", {"3-6"}),
    ("0-3", {"1-3", "3-6"}),
    ("5-6", {"1-3", "3-6", "0-0"}),
    ("4-5", {"5-5"}),
    ("0-6", {"0-0"}),
    ("2-4", {"1-4"}),
    ("1-2", {"2-5"}),
])
def test_example_4_duties(lead: str, expected: set[str]) -> None:
    assert allowed(HAND4, lead, 3) == expected


def test_example_4_other_hands() -> None:
    assert allowed("1-3 2-5 4-6", "0-0", 3) == {"1-3"}
    assert allowed("0-4 1-3 2-5", "0-0", 3) == {"0-4"}
    assert allowed("0-0 2-5 4-6", "1-3", 3) == {"0-0"}
    assert allowed("2-5 4-6 1-1", "1-3", 3) == {"2-5", "4-6", "1-1"}


def test_source_phase_two_examples_fours_trumps() -> None:
    hand = "0-0 4-5 1-4 6-6 2-6"
    assert allowed(hand, "3-4", 4) == {"4-5"}
    assert allowed(hand, "4-6", 4) == {"4-5", "1-4"}
    assert allowed(hand, "3-6", 4) == {"6-6"}
    assert allowed(hand, "0-6", 4) == {"0-0"}
    assert allowed(hand, "2-3", 4) == {"4-5", "1-4", "0-0"}


def test_ruling_2_bingo_follows_as_blank() -> None:
    # fives trumps, 5-5 led: the bingo is no trump, so the lower trump must follow
    assert allowed("0-0 3-5", "5-5", 5) == {"3-5"}
    # blanks trumps: the bingo is the top trump and must beat a led trump
    assert allowed("0-0 2-3", "0-4", 0) == {"0-0"}


# --- example 5: invincible --------------------------------------------------------------------

def test_example_5_invincible() -> None:
    deal = make("0-0 1-1 2-2 3-3 4-4 5-5 6-6", "0-1 0-2 0-3 0-4 0-5 0-6 1-2", "4-6")
    assert {"type": "declare", "tiles": mask_codes(deal.hands[0] & deal.setup.hands[0])} \
        in deal.legal(0)
    events = deal.apply(0, {"type": "declare",
                            "tiles": ["6-6", "0-0", "1-1", "2-2", "3-3", "4-4", "5-5"]})
    assert deal.over and deal.result is not None
    assert deal.result.end == "invincible" and deal.result.winner == 0
    assert deal.game_points() == (3, 0)
    assert not deal.tricks
    assert events[-1].kind == "deal_over"
    assert deal.declared(0) == 0


# --- example 6: emperor -----------------------------------------------------------------------

def test_example_6_emperor() -> None:
    deal = make("1-2 1-3 1-4 1-5 1-6 2-3 2-4", "0-0 1-1 2-2 3-3 4-4 5-5 6-6", "4-5")
    assert deal.trump == 5
    play(deal, (0, "1-2"), (1, "0-0"))
    assert deal.card_points(1) == 14 and deal.turn == 1
    play(deal, (1, {"type": "declare", "tiles": ["1-1", "2-2", "3-3", "4-4", "5-5", "6-6"]}))
    assert deal.declared(1) == 70
    play(deal, (1, {"type": "claim"}))
    r = deal.result
    assert r is not None and r.end == "claim" and r.claim_correct and r.winner == 1
    assert deal.points(1) == 84
    assert deal.game_points() == (0, 3)


# --- example 7: a declaration waits for a trick ------------------------------------------------

def test_example_7_declaration_waits_for_a_trick() -> None:
    deal = make("0-0 6-6 1-2 1-3 1-4 1-5 3-4", "0-1 2-3 2-4 2-5 2-6 3-5 4-5", "0-6")
    assert deal.trump == 0
    play(deal, (0, {"type": "declare", "tiles": ["0-0", "6-6"]}))
    assert deal.declared(0) == 30
    with pytest.raises(Illegal, match="doubles just declared"):
        deal.apply(0, {"type": "play", "tile": "1-2"})
    play(deal, (0, "6-6"), (1, "0-1"))
    assert deal.points(1) == 20 and deal.points(0) == 0
    play(deal, (1, "2-3"), (0, "0-0"))
    assert deal.card_points(0) == 28
    assert deal.points(0) == 58


# --- example 8: closing, then a wrong claim ----------------------------------------------------

def test_example_8_close_then_wrong_claim() -> None:
    deal = make("6-6 1-2 1-3 1-4 1-5 2-3 2-4", "5-6 0-1 0-2 0-3 0-4 0-5 2-5", "4-6")
    assert deal.trump == 6
    play(deal, (0, "6-6"), (1, "5-6"))
    assert deal.points(0) == 39
    play(deal, (0, {"type": "close"}))
    assert deal.stock_left == 12 and deal.at_close == (0, 0)
    play(deal, (0, {"type": "claim"}))
    r = deal.result
    assert r is not None and r.claimed_by == 0 and r.claim_correct is False
    assert r.winner == 1 and deal.game_points() == (0, 3)


# --- example 9: bingo bonus -------------------------------------------------------------------

def test_example_9_bingo_bonus_then_wrong_claim() -> None:
    deal = make("4-4 1-2 1-3 1-5 1-6 2-3 2-5", "0-0 0-1 0-2 0-3 0-5 0-6 2-6", "3-4")
    assert deal.trump == 4
    play(deal, (0, "4-4"), (1, "0-0"))
    assert deal.card_points(1) == 42
    assert deal.bingo_bonus == 1 and deal.game_points() == (0, 1) and not deal.over
    play(deal, (1, {"type": "claim"}))
    assert deal.result is not None and deal.result.winner == 0
    assert deal.game_points() == (2, 1)


def test_example_9_bingo_bonus_ends_the_match() -> None:
    deal = make("4-4 1-2 1-3 1-5 1-6 2-3 2-5", "0-0 0-1 0-2 0-3 0-5 0-6 2-6", "3-4",
                match_points=(5, 6))
    play(deal, (0, "4-4"), (1, "0-0"))
    r = deal.result
    assert r is not None and r.end == "match_won" and r.winner is None
    assert deal.game_points() == (0, 1)
    assert deal.hands[0].bit_count() == 6  # nobody drew: the deal stopped after the trick


def test_bingo_bonus_needs_blanks_not_trumps() -> None:
    deal = make("1-2 1-3 1-4 1-5 1-6 2-3 2-4", "0-0 0-1 0-2 0-3 0-4 0-5 2-5", "0-6")
    play(deal, (0, "1-2"), (1, "0-0"))
    assert deal.bingo_bonus is None


def test_bingo_bonus_when_the_bingo_leads() -> None:
    deal = make("0-0 1-2 1-3 1-5 1-6 2-3 2-5", "4-4 0-1 0-2 0-3 0-5 0-6 2-6", "3-4")
    play(deal, (0, "0-0"), (1, "4-4"))
    assert deal.bingo_bonus == 0


# --- example 10: a deal played to the end -------------------------------------------------------

EX10 = {"hands": ["1-3 3-6 4-4 1-5 6-6 2-3 5-6", "0-3 2-6 1-4 4-6 2-5 1-6 0-0"],
        "stock": "2-4 4-5 3-5 0-1 0-2 2-2 1-2 1-1 0-6 0-4 3-4 0-5 5-5", "turn_up": "3-3"}
EX10_TRICKS = [
    # lead, follow, winner, points after (0, 1), drawn by winner, by loser
    ((0, "4-4"), (1, "0-3"), 1, (0, 18), ("2-4", "4-5")),
    ((1, "2-5"), (0, "5-6"), 0, (20, 18), ("3-5", "0-1")),
    ((0, "4-5"), (1, "0-1"), 0, (20, 18), ("0-2", "2-2")),
    ((0, "1-3"), (1, "0-0"), 1, (20, 36), ("1-2", "1-1")),
    ((1, "2-4"), (0, "0-2"), 1, (20, 36), ("0-6", "0-4")),
    ((1, "2-2"), (0, "2-3"), 0, (29, 36), ("3-4", "0-5")),
    ((0, "1-1"), (1, "0-5"), 0, (31, 36), ("5-5", "3-3")),
    ((0, "0-4"), (1, "0-6"), 1, (31, 36), None),
    ((1, "1-2"), (0, "3-4"), 0, (38, 36), None),
    ((0, "1-5"), (1, "3-3"), 1, (38, 64), None),
    ((1, "2-6"), (0, "6-6"), 0, (50, 64), None),
    ((0, "3-6"), (1, "1-6"), 0, (59, 64), None),
    ((0, "3-5"), (1, "1-4"), 0, (67, 64), None),
    ((0, "5-5"), (1, "4-6"), 0, (97, 64), None),
]


def ex10_deal() -> Deal:
    return Deal(check_setup([h.split() for h in EX10["hands"]], EX10["stock"].split(),
                            EX10["turn_up"], 0))


def test_example_10_trick_by_trick() -> None:
    deal = ex10_deal()
    assert deal.trump == 3 and set_value(3) == 131
    deal.apply(0, {"type": "declare", "tiles": ["4-4", "6-6"]})
    for lead, follow, winner, after, drawn in EX10_TRICKS:
        before = [deal.hands[0], deal.hands[1]]
        # in phase two the follow is the forced one of the ladder (rows 8, 10, 11)
        play(deal, lead, follow)
        assert deal.tricks[-1].winner == winner
        assert (deal.points(0), deal.points(1)) == after
        if drawn is not None:
            for seat, code in ((winner, drawn[0]), (1 - winner, drawn[1])):
                new = deal.hands[seat] & ~before[seat]
                assert mask_codes(new) == [code]
    s = deal.summary()
    assert s["end"] == "played_out" and s["winner"] == 0 and s["last_trick"] == 0
    assert s["card_points"] == [67, 64] and s["points"] == [97, 64]
    assert s["game_points"] == [1, 0] and s["tricks"] == [9, 5]


def test_example_10_forced_follows_are_the_only_choices() -> None:
    deal = ex10_deal()
    deal.apply(0, {"type": "declare", "tiles": ["4-4", "6-6"]})
    for lead, follow, *_ in EX10_TRICKS[:7]:
        play(deal, lead, follow)
    play(deal, (0, "0-4"))
    assert deal.legal(1) == [{"type": "play", "tile": "0-6"}]
    play(deal, (1, "0-6"), (1, "1-2"))
    assert {a["tile"] for a in deal.legal(0)} == {"3-4", "3-5", "3-6"}  # no two: a trump
    play(deal, (0, "3-4"), (0, "1-5"))
    assert deal.legal(1) == [{"type": "play", "tile": "3-3"}]


# --- rulings ----------------------------------------------------------------------------------

def _opened() -> Deal:
    """Trick 1 played (seat 0 won it with no points); seat 0 is on lead at trick 2."""
    deal = make("1-1 2-2 2-3 1-3 0-1 0-2 1-4", "0-6 1-2 1-5 2-4 2-5 4-5 5-5", "1-6",
                stock="0-4 2-6")
    play(deal, (0, "2-3"), (1, "1-2"))
    assert deal.turn == 0
    return deal


def test_ruling_6_close_and_declare_in_either_order_once_each() -> None:
    deal = _opened()
    play(deal, (0, {"type": "close"}))
    with pytest.raises(Illegal, match="already closed"):
        deal.apply(0, {"type": "close"})
    play(deal, (0, {"type": "declare", "tiles": ["1-1", "2-2"]}))
    with pytest.raises(Illegal, match="already declared"):
        deal.apply(0, {"type": "declare", "tiles": ["1-1", "2-2"]})
    deal = _opened()
    play(deal, (0, {"type": "declare", "tiles": ["2-2", "1-1"]}), (0, {"type": "close"}))
    assert deal.closed_by == 0 and deal.declared(0) == 20


def test_ruling_8_declaration_shows_every_undeclared_double() -> None:
    deal = make("1-1 2-2 3-3 1-3 0-1 0-2 1-4", "0-6 1-2 1-5 2-4 2-5 4-5 3-4", "1-6")
    assert {"type": "declare", "tiles": ["1-1", "2-2", "3-3"]} in deal.legal(0)
    for wrong in (["1-1", "2-2"], ["1-1", "2-2", "3-3", "1-3"], ["1-1", "2-2", "4-4"]):
        with pytest.raises(Illegal, match="every undeclared double"):
            deal.apply(0, {"type": "declare", "tiles": wrong})
    play(deal, (0, {"type": "declare", "tiles": ["3-3", "1-1", "2-2"]}))
    assert deal.declared(0) == 40
    assert [a for a in deal.legal(0) if a["type"] == "play"] == [
        {"type": "play", "tile": c} for c in ("1-1", "2-2", "3-3")]


def test_ruling_8_a_double_is_declared_once() -> None:
    deal = make("1-1 2-2 2-3 1-3 0-1 0-2 1-4", "0-6 1-2 1-5 2-4 2-5 4-5 3-4", "1-6",
                stock="3-3 0-5")
    play(deal, (0, {"type": "declare", "tiles": ["1-1", "2-2"]}), (0, "1-1"), (1, "1-2"))
    assert deal.turn == 0 and deal.hands[0] >> T("3-3") & 1
    # 2-2 declared already, 3-3 alone is not enough
    assert all(a["type"] != "declare" for a in deal.legal(0))
    with pytest.raises(Illegal, match="at least two doubles"):
        deal.apply(0, {"type": "declare", "tiles": ["3-3"]})


def test_ruling_11_claim_at_the_first_lead_is_legal_and_wrong() -> None:
    deal = make("1-1 2-2 2-3 1-3 0-1 0-2 1-4", "0-6 1-2 1-5 2-4 2-5 4-5 3-4", "1-6")
    assert {"type": "claim"} in deal.legal(0)
    play(deal, (0, {"type": "claim"}))
    r = deal.result
    assert r is not None and r.claim_correct is False and deal.game_points() == (0, 2)


def test_ruling_12_close_at_trick_7_but_not_after() -> None:
    rng = random.Random(5)
    for _ in range(50):
        deal = ex10_deal()
        while not deal.over and len(deal.tricks) < 8:
            seat = deal.turn
            assert seat is not None
            if deal.current is None and len(deal.tricks) == 6:
                assert {"type": "close"} in deal.legal(seat)
                assert deal.stock_left == 2
            if deal.current is None and len(deal.tricks) == 7:
                assert {"type": "close"} not in deal.legal(seat)
                with pytest.raises(Illegal, match="stock is gone"):
                    deal.apply(seat, {"type": "close"})
            plays = [a for a in deal.legal(seat) if a["type"] == "play"]
            deal.apply(seat, rng.choice(plays))


def test_ruling_16_wrong_claim_by_the_closers_opponent() -> None:
    deal = make("2-3 1-3 5-5 0-0 4-4 0-1 0-2", "0-6 1-2 1-1 1-4 1-5 2-2 2-4", "1-6",
                stock="0-4 2-5")
    play(deal, (0, "2-3"), (1, "1-2"), (0, {"type": "close"}), (0, "1-3"))
    assert deal.legal(1) == [{"type": "play", "tile": "0-6"}]
    play(deal, (1, "0-6"), (1, {"type": "claim"}))
    r = deal.result
    assert r is not None and r.claim_correct is False and r.winner == 0
    assert deal.game_points() == (2, 0)


def test_closed_deal_phase_two_starts_with_the_closers_lead() -> None:
    deal = _opened()
    play(deal, (0, {"type": "close"}), (0, "1-3"))
    # seat 1 has no three and holds the trumps 0-6 and 2-6 (drawn): he must trump
    assert deal.legal(1) == [{"type": "play", "tile": "0-6"}, {"type": "play", "tile": "2-6"}]
    play(deal, (1, "2-6"))
    assert deal.stock_left == 12  # nobody drew after the close
    assert deal.hands[0].bit_count() == deal.hands[1].bit_count() == 6


def test_leader_of_next_deal_is_the_winner_and_first_is_random() -> None:
    firsts = {BingoMatch(seed, {}).deal.setup.leader for seed in range(20)}
    assert firsts == {0, 1}
    match = BingoMatch(3, {})
    match.apply(match.deal.turn or 0, {"type": "claim"})
    r = match.deal.result
    assert r is not None and r.winner is not None
    assert match.between_games and not match.to_act()
    match.start_next_game()
    assert match.deal.setup.leader == r.winner
    assert match.deal.setup.match_points == tuple(match.totals())


# --- settlement and game points against an independent reading of section 13 ------------------

def expected_game_points(deal: Deal) -> tuple[int | None, int]:
    """(winner, game points) as section 13's table gives them, bingo bonus apart."""
    r = deal.result
    assert r is not None

    def scale(tricks: int, points: int) -> int:
        return 3 if tricks == 0 else 2 if points < 30 else 1

    pts = [deal.points(0), deal.points(1)]
    tr = [deal.tricks_won(0), deal.tricks_won(1)]
    closer = deal.closed_by
    if r.end == "invincible":
        return r.winner, 3
    if r.end == "claim":
        c = r.claimed_by
        assert c is not None
        ok = pts[c] >= 70
        if closer is None:
            return (c, scale(tr[1 - c], pts[1 - c])) if ok else (1 - c, 2)
        assert deal.at_close is not None
        if closer == c:
            if ok:
                return c, scale(*deal.at_close)
            return 1 - c, 3 if deal.at_close[0] == 0 else 2
        return (c, 2) if ok else (1 - c, 2)
    if closer is None:
        last = deal.last_trick
        assert last is not None
        if pts[last] >= 70:
            return last, scale(tr[1 - last], pts[1 - last])
        assert pts[1 - last] >= 72
        return 1 - last, scale(tr[last], pts[last])
    assert deal.at_close is not None
    if pts[closer] >= 70:
        return closer, scale(*deal.at_close)
    return 1 - closer, 3 if deal.at_close[0] == 0 else 2


def test_every_ending_scores_as_section_13_says() -> None:
    spec = GAME
    seen: set[str] = set()
    for seed in range(150):
        match = spec.new_match(seed, {})
        bots = [spec.bots["heuristic"](seed), spec.bots["random"](seed + 1)]
        assert isinstance(match, BingoMatch)
        while not match.over:
            if match.between_games:
                match.start_next_game()
                continue
            (seat,) = match.to_act()
            match.apply(seat, bots[seat].choose(match.view(seat)))
            deal = match.deal
            if deal.over:
                r = deal.result
                assert r is not None
                if r.end == "match_won":
                    continue
                winner, gp = expected_game_points(deal)
                bonus = [0, 0]
                if deal.bingo_bonus is not None:
                    bonus[deal.bingo_bonus] = 1
                want = [bonus[0] + (gp if winner == 0 else 0), bonus[1] + (gp if winner == 1
                                                                           else 0)]
                assert r.winner == winner
                assert list(deal.game_points()) == want
                kind = r.end + ("/closed" if deal.closed_by is not None else "")
                if r.end == "claim":
                    kind += "/ok" if r.claim_correct else "/wrong"
                    if deal.closed_by is not None:
                        kind += "/closer" if deal.closed_by == r.claimed_by else "/other"
                seen.add(kind)
    # the bots reach the usual endings (the test is about the scoring of each)
    assert {"claim/ok", "claim/wrong", "played_out", "claim/closed/ok/closer"} <= seen


# --- refusals ---------------------------------------------------------------------------------

def _unchanged(deal: Deal, seat: int, action: Any, error: type[GameError], match: str) -> None:
    before = (deal.summary(), deal.board(0, True), deal.board(1, True), list(deal.actions))
    with pytest.raises(error, match=match) as refused:
        deal.apply(seat, action)
    # plain text for the one seat: no seat placeholders
    assert "{0}" not in str(refused.value) and "{1}" not in str(refused.value)
    assert (deal.summary(), deal.board(0, True), deal.board(1, True),
            list(deal.actions)) == before


def test_refusals_change_nothing() -> None:
    deal = _opened()
    _unchanged(deal, 0, {"type": "play", "tile": "0-6"}, Illegal, "you do not hold the 0-6")
    _unchanged(deal, 0, {"type": "play", "tile": "2-3"}, Illegal, "played in trick 1")
    _unchanged(deal, 0, {"type": "play", "tile": "1-6"}, Illegal, "turn-up")
    _unchanged(deal, 1, {"type": "play", "tile": "1-5"}, OutOfTurn, "not your turn")
    _unchanged(deal, 1, {"type": "claim"}, OutOfTurn, "not your turn")
    for bad in ("6-4", "4/6", "7-7", 64, None, ["1-1"]):
        _unchanged(deal, 0, {"type": "play", "tile": bad}, Malformed, "is not a tile")
    _unchanged(deal, 0, {"type": "play"}, Malformed, "names a tile")
    _unchanged(deal, 0, {"type": "pass"}, Malformed, "unknown action type")
    _unchanged(deal, 0, "claim", Malformed, "an action is an object")
    _unchanged(deal, 0, {"type": "declare", "tiles": "1-1"}, Malformed, "lists the doubles")
    _unchanged(deal, 0, {"type": "declare", "tiles": ["1-1", "1-1"]}, Malformed, "once")
    _unchanged(deal, 0, {"type": "declare", "tiles": ["1-1", "0-1"]}, Illegal,
               "every undeclared double")


def test_refused_close_at_trick_one() -> None:
    deal = make("1-1 2-2 2-3 1-3 0-1 0-2 1-4", "0-6 1-2 1-5 2-4 2-5 4-5 3-4", "1-6")
    assert {"type": "close"} not in deal.legal(0)
    _unchanged(deal, 0, {"type": "close"}, Illegal, "before the first trick")


def test_refused_follow_and_beat_duty() -> None:
    deal = _opened()
    play(deal, (0, {"type": "close"}), (0, "1-3"))
    # seat 1 holds the trump 0-6 and no three: playing a plain tile breaks the duty
    plain = next(c for c in mask_codes(deal.hands[1]) if "6" not in c)
    _unchanged(deal, 1, {"type": "play", "tile": plain}, Illegal, "trump or the bingo")


def test_refused_follower_may_not_close_declare_or_claim() -> None:
    deal = _opened()
    play(deal, (0, "1-1"))
    for kind in ("close", "claim"):
        _unchanged(deal, 1, {"type": kind}, Illegal, "only the player on lead")
    _unchanged(deal, 1, {"type": "declare", "tiles": ["2-2", "3-3"]}, Illegal,
               "only the player on lead")
    _unchanged(deal, 0, {"type": "play", "tile": "2-2"}, OutOfTurn, "not your turn")


def test_refused_after_the_deal_is_over() -> None:
    deal = _opened()
    play(deal, (0, {"type": "claim"}))
    _unchanged(deal, 1, {"type": "claim"}, OutOfTurn, "the deal is over")


def test_setup_refusals() -> None:
    good = [h.split() for h in EX10["hands"]]
    stock = EX10["stock"].split()
    with pytest.raises(Malformed, match="dealt twice"):
        check_setup([good[0], good[0]], stock, "3-3", 0)
    with pytest.raises(Malformed, match="13"):
        check_setup(good, stock[:-1], "3-3", 0)
    with pytest.raises(Malformed, match="leader"):
        check_setup(good, stock, "3-3", True)
    with pytest.raises(Malformed, match="match_points"):
        check_setup(good, stock, "3-3", 0, [7, 0])
    assert isinstance(check_setup(good, stock, "3-3", 1, [6, 6]), Setup)


def test_ruling_15_the_losers_declarations_count_on_the_scale() -> None:
    deal = make("6-6 0-0 4-6 0-6 5-6 3-6 4-5", "1-1 2-2 3-3 1-2 1-3 1-4 1-5", "1-6", leader=1,
                stock="0-1 0-2 0-3 0-4 0-5 2-3 2-4 2-5")
    play(deal, (1, {"type": "declare", "tiles": ["1-1", "2-2", "3-3"]}), (1, "3-3"), (0, "4-5"),
         (1, "1-2"), (0, "6-6"), (0, "0-0"), (1, "1-4"), (0, "4-6"), (1, "1-5"),
         (0, "0-6"), (1, "2-3"), (0, "5-6"), (1, "0-1"))
    assert deal.card_points(1) == 6 and deal.points(1) == 46  # 6 card points + a triplet
    assert deal.points(0) == 76
    play(deal, (0, {"type": "claim"}))
    assert deal.result is not None and deal.result.claim_correct
    assert deal.game_points() == (1, 0)  # 46 >= 30: 1, not the 2 that 6 points would give
    assert deal.result.why[-1] == ("{0} wins the deal and scores 1 game point: {1} has 46 "
                                   "points, 30 or more.")  # a claim tells of now: "has"


def test_the_open_tally_option() -> None:
    assert GAME.check_options({}) == {"open_tally": False}
    assert GAME.check_options({"open_tally": True}) == {"open_tally": True}
    for bad in (1, "yes", None):
        with pytest.raises(Malformed):
            GAME.check_options({"open_tally": bad})
    with pytest.raises(Malformed):
        GAME.check_options({"target": 5})


def test_the_leaders_choices_in_words_for_each_reader() -> None:
    """After a trick the leader may close the stock first: said to the leader as "you", to
    the other seat and spectators without a "he" (it may be anyone)."""
    deal = make("6-6 1-2 1-3 1-4 1-5 2-3 2-4", "5-6 0-1 0-2 0-3 0-4 0-5 2-5", "4-6")
    play(deal, (0, "6-6"), (1, "5-6"))
    assert deal.can_close(0)
    assert deal.prompt(0) == ("You must lead to trick 2 (first you may close the stock), "
                              "or claim 70.")
    for reader in (1, None):
        assert deal.prompt(reader) == ("{0} must lead to trick 2 (first they may close the "
                                       "stock), or claim 70.")
