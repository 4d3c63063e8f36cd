"""What each seat of a Mate table sees (rules section 7): the face-down card is the one
secret, everything else is shown, and every card is revealed when a game ends."""

from __future__ import annotations

import json
import random

from app.games.contract import Event
from app.games.mate import GAME, redeal
from app.games.mate.state import MateMatch

EX2 = [["AC", "7C", "AS", "7S", "AH", "TH", "KH", "QH", "AD", "7D"],
       ["TC", "KC", "QC", "TS", "KS", "QS", "7H", "TD", "KD", "QD"]]


def match_of(foreplace: str | None, other: str | None = None,
             moves: str = "") -> tuple[MateMatch, list[Event]]:
    """A match whose first game is the example-2 deal with seat 0 leading."""
    from app.games.mate.state import check_deal
    m = MateMatch(0, {}, [check_deal(EX2, 0)], first_dealer=0)
    events: list[Event] = []
    for seat, card in ((0, foreplace), (1, other)):
        action = {"type": "decline"} if card is None else {"type": "foreplace", "card": card}
        events += m.apply(seat, action)
    for code in moves.split():
        (seat,) = m.to_act()
        events += m.apply(seat, {"type": "play", "card": code})
    return m, events


def encoded(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def test_the_face_down_card_is_only_in_its_owners_view() -> None:
    a, _ = match_of("7D", moves="AC QC AS")
    b, _ = match_of("7C", moves="AC QC AS")
    assert a.view(0)["board"]["face_down"] == "7D"
    assert b.view(0)["board"]["face_down"] == "7C"
    for seat in (1, None):
        assert encoded(a.view(seat)) == encoded(b.view(seat))
    view = a.view(1)["board"]
    assert view["foreplaced"] == [True, False]
    assert "face_down" in view and view["face_down"] is None  # its own: none
    # The other player's unplayed cards, one sorted set with the face-down card unmarked.
    assert view["unplayed"][0] == ["7C", "7S", "AH", "TH", "KH", "QH", "AD", "7D"]
    assert view["hand_sizes"] == [7, 9]
    assert "hand" not in a.view(None)["board"]


def test_events_public_forms_never_name_the_face_down_card() -> None:
    _, events = match_of("7D", "TD", moves="AC QC AS QS")
    fore = [e for e in events if e.kind == "foreplace"]
    assert len(fore) == 2
    assert fore[0].for_seat(0)["card"] == "7D" and "seven of diamonds" in \
        fore[0].for_seat(0)["say"]
    for seat in (1, None):
        assert "card" not in fore[0].for_seat(seat)
        assert fore[0].for_seat(seat)["say"] == "{0} foreplaces a card face down."
    for e in events:
        for seat in (1, None):
            assert "7D" not in encoded(e.for_seat(seat))
            assert "seven of diamonds" not in encoded(e.for_seat(seat))
        for seat in (0, None):
            assert "TD" not in encoded(e.for_seat(seat))
            assert "ten of diamonds" not in encoded(e.for_seat(seat))


def test_the_end_of_a_game_reveals_everything_to_everyone() -> None:
    m, events = match_of("7D", None, moves="AC QC AS QS AD QD AH 7H QH")
    assert m.between_games
    over = [e for e in events if e.kind == "game_over"]
    assert len(over) == 1 and over[0].private == {}
    assert over[0].public["reveal"]["foreplaced"] == ["7D", None]
    assert over[0].public["say"].startswith("Mate on move 5")
    for seat in (0, 1, None):
        board = m.view(seat)["board"]
        assert board["reveal"]["foreplaced"] == ["7D", None]
        assert board["reveal"]["remaining"] == [["7C", "7S", "TH", "KH"],
                                                ["TC", "KC", "TS", "KS", "TD", "KD"]]
        assert board["result"]["scores"] == [18, 0]
        assert m.view(seat)["to_act"] == [] and m.view(seat)["legal"] == []


def test_the_board_shows_the_piles_the_move_and_what_a_mate_is_worth() -> None:
    m, _ = match_of("7D", None, moves="AC QC AS")
    view = m.view(1)
    assert view["to_act"] == [1] and view["legal"][0]["type"] == "play"
    assert view["prompt"].startswith("You must answer the ace of spades")
    assert m.view(0)["prompt"].startswith("{1} must answer the ace of spades")
    board = view["board"]
    assert board["piles"] == [[{"move": 1, "card": "AC"}, {"move": 2, "card": "AS"}],
                              [{"move": 1, "card": "QC"}]]
    assert board["move"] == 2 and board["lead"] == {"seat": 0, "card": "AS"}
    assert board["mate_worth"]["multipliers"] == [3, 2]  # move 2, +1 for the foreplacer
    assert board["moves"][0] == {"move": 1, "leader": 0, "lead": "AC", "answer": "QC",
                                 "winner": 0, "repeat": None}
    assert view["match"]["game_number"] == 1 and view["match"]["leaders"][0] == 0


def test_before_the_decisions_whether_not_which() -> None:
    from app.games.mate.state import check_deal
    assert MateMatch(0).view(None)["board"]["foreplaced"] == [None, None]
    m = MateMatch(0, {}, [check_deal(EX2, 0)], first_dealer=0)
    m.apply(0, {"type": "foreplace", "card": "KH"})
    view = m.view(1)
    assert view["board"]["foreplaced"] == [True, None]
    assert view["prompt"].startswith("You must decide")
    assert view["legal"][0] == {"type": "decline"} and len(view["legal"]) == 11


def test_redeal_keeps_every_view_of_the_seat_and_changes_what_it_may_not_know() -> None:
    rng = random.Random(1)
    m, _ = match_of("7D", "TD", moves="AC QC")
    changed = set()
    for _ in range(30):
        for seat in (0, 1, None):
            other = redeal(m, seat, rng)
            assert encoded(other.view(seat)) == encoded(m.view(seat))
            changed.add((seat, encoded(other.record()) != encoded(m.record())))
    assert (1, True) in changed and (0, True) in changed and (None, True) in changed


def test_redeal_respects_what_the_answers_showed() -> None:
    # Bob foreplaces his only heart, 7H, and answers TH with a ten: seat 0 can tell that
    # the 7H is face down, so a redeal for seat 0 must keep it there.
    from app.games.mate.state import check_deal
    m = MateMatch(0, {}, [check_deal(EX2, 0)], first_dealer=0)
    m.apply(0, {"type": "decline"})
    m.apply(1, {"type": "foreplace", "card": "7H"})
    m.apply(0, {"type": "play", "card": "TH"})
    m.apply(1, {"type": "play", "card": "TC"})  # no heart in hand: by rank
    rng = random.Random(2)
    for _ in range(20):
        again = redeal(m, 0, rng)
        # Bob held no heart: his face-down card must be the 7H in every redeal.
        assert again.game.fore[1] == m.game.fore[1]


def test_spec_declares_the_game() -> None:
    assert GAME.name == "mate" and GAME.seats == 2 and GAME.playable
    assert set(GAME.bots) == {"random", "greedy", "perfect"}
    assert GAME.bot_order == ("random", "greedy", "perfect")
