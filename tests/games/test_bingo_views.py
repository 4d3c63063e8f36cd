"""What each Bingo seat sees (rules, section 16): the other hand and the stock order in no
view and no event form before the deal ends, a drawn tile only in the drawer's forms,
earlier tricks and running points only with ``open_tally``, everything at the end."""

from __future__ import annotations

import json
import random
from typing import Any

from app.games.bingo import GAME, redeal
from app.games.bingo.state import BingoMatch, Deal
from app.games.bingo.tiles import CODES, mask_codes
from app.games.contract import Event


def secret_from(deal: Deal, seat: int | None) -> set[str]:
    """Codes ``seat`` may not know now: unseen tiles of the other hand(s), the stock."""
    turn_up = deal.setup.turn_up
    hidden = 0
    for s in (0, 1):
        if s != seat:
            hidden |= deal.hands[s] & ~deal.declared_mask[s]
    for t in deal.order[deal.drawn:]:
        hidden |= 1 << t
    hidden &= ~(1 << turn_up)
    return set(mask_codes(hidden))


def shows(form: Any, codes: set[str]) -> set[str]:
    text = json.dumps(form)
    return {c for c in codes if f'"{c}"' in text or f"the {c}" in text}


def run(seed: int, options: dict[str, Any], check: Any, only_play: bool = False) -> BingoMatch:
    match = GAME.new_match(seed, GAME.check_options(options))
    assert isinstance(match, BingoMatch)
    rng = random.Random(seed)
    while not match.over:
        if match.between_games:
            match.start_next_game()
            continue
        (seat,) = match.to_act()
        legal = match.legal(seat)
        if only_play:
            legal = [a for a in legal if a["type"] == "play"]
        events = match.apply(seat, rng.choice(legal))
        check(match, events)
    return match


def test_no_view_or_event_form_shows_a_secret() -> None:
    checked = 0

    def check(match: BingoMatch, events: list[Event]) -> None:
        nonlocal checked
        deal = match.deal
        if deal.over:
            return
        for seat in (0, 1, None):
            secret = secret_from(deal, seat)
            assert not shows(match.view(seat), secret), (seat, shows(match.view(seat), secret))
            for event in events:
                assert not shows(event.for_seat(seat), secret)
            checked += 1

    for seed in range(8):
        run(seed, {}, check)
    assert checked > 500


def test_a_drawn_tile_is_only_in_the_drawers_form() -> None:
    seen = {"private": 0, "turn_up": 0}

    def check(match: BingoMatch, events: list[Event]) -> None:
        for event in events:
            if event.kind != "draw":
                continue
            drawer = event.public["seat"]
            if event.public["turn_up"]:
                assert event.public["tile"] == CODES[match.deal.setup.turn_up]
                seen["turn_up"] += 1
                continue
            assert "tile" not in event.public
            assert "tile" not in event.for_seat(1 - drawer)
            assert "tile" not in event.for_seat(None)
            assert event.for_seat(drawer)["tile"] in match.view(drawer)["board"]["hand"]
            assert "from the stock." in event.public["say"]
            seen["private"] += 1

    run(4, {}, check, only_play=True)
    assert seen["private"] and seen["turn_up"]


def test_mental_count_without_open_tally() -> None:
    def check(match: BingoMatch, events: list[Event]) -> None:
        for seat in (0, 1, None):
            board = match.view(seat)["board"]
            if match.deal.over:
                assert board["tally"] is not None and board["reveal"] is not None
                assert board["result"]["say"]
            else:
                assert board["tally"] is None and board["reveal"] is None
                assert "points" not in json.dumps(board["trick"])
                assert "card_points" not in json.dumps(board)

    run(2, {}, check)


def test_open_tally_shows_points_and_all_tricks_to_everyone() -> None:
    def check(match: BingoMatch, events: list[Event]) -> None:
        deal = match.deal
        for seat in (0, 1, None):
            tally = match.view(seat)["board"]["tally"]
            assert tally is not None
            assert tally["points"] == [deal.points(0), deal.points(1)]
            assert len(tally["tricks"]) == sum(t.winner is not None for t in deal.tricks)

    run(2, {"open_tally": True}, check)


def test_view_board_holds_what_the_page_lists() -> None:
    match = BingoMatch(7, {})
    view = match.view(match.deal.turn)
    assert {"to_act", "legal", "prompt", "match", "board"} <= set(view)
    board = view["board"]
    for key in ("trump", "turn_up", "stock_count", "closed_by", "trick", "last_trick",
                "tricks_won", "declarations", "hand", "hand_sizes", "bingo_bonus"):
        assert key in board
    assert board["stock_count"] == 14 and len(board["hand"]) == 7
    spectator = match.view(None)
    assert "hand" not in spectator["board"] and spectator["legal"] == []


def test_end_of_deal_explains_itself() -> None:
    match = BingoMatch(11, {})
    seat = match.deal.turn
    assert seat is not None
    match.apply(seat, {"type": "claim"})
    result = match.view(None)["board"]["result"]
    assert result["say"].startswith(f"{{{seat}}} claims with 0 points: wrong")
    assert "2 game points" in result["say"]
    reveal = match.view(1 - seat)["board"]["reveal"]
    assert len(reveal["stock"]) == 13 and len(reveal["dealt"][seat]) == 7
    board = match.scoreboard()
    assert board["rule"] and board["games"][0]["game_points"][1 - seat] == 2


def test_redeal_changes_only_what_the_seat_may_not_know() -> None:
    rng = random.Random(3)
    match = BingoMatch(5, {})
    changed = 0
    for _ in range(12):
        (seat,) = match.to_act()
        plays = [a for a in match.legal(seat) if a["type"] == "play"]
        match.apply(seat, rng.choice(plays))
        for who in (0, 1, None):
            other = redeal(match, who, rng)
            assert json.dumps(other.view(who)) == json.dumps(match.view(who))
            if json.dumps(other.record()) != json.dumps(match.record()):
                changed += 1
            if who is not None:
                assert other.deal.setup.hands[who] == match.deal.setup.hands[who]
    assert changed
