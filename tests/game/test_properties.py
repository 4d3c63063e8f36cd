"""Random legal games, with every invariant of docs/rules.md checked after every action."""

from __future__ import annotations

import random

from gamekit import card_codes, known_to, public_cards, snapshot
from hypothesis import given, settings
from hypothesis import strategies as st

from app.game import DISCARD, PASS, Action, DingoError, Event, Game
from app.game.cards import ACE, RED_MASK, cards_in


def check_views(game: Game) -> None:
    public = public_cards(game)
    spectator = game.view(None)
    assert card_codes(spectator) <= public
    assert not {"hand", "passed", "received", "legal"} & spectator.keys()
    for seat in range(4):
        view = game.view(seat)
        assert card_codes(view) <= known_to(game, seat), f"seat {seat} sees a hidden card"
        if not game.open_discards and not game.over:
            assert view["discards"] is None
        legal = [a.to_dict() for a in game.legal_actions()] if game.to_act == seat else []
        assert view["legal"] == legal


def check_events(game: Game, action: Action, events: list[Event]) -> None:
    for event in events:
        if event.private:
            if event.kind == PASS:
                assert sorted(event.private) == sorted((action.seat, event.public["to"]))
            else:
                assert event.kind == DISCARD and list(event.private) == [action.seat]
                assert not game.open_discards
            assert "card" not in event.public
            assert all("card" in form for form in event.private.values())
        for seat in (0, 1, 2, 3, None):
            shown = event.for_seat(seat)
            assert shown is (event.public if seat is None else event.private.get(seat,
                                                                                 event.public))
            if seat is None:
                assert card_codes(shown) <= public_cards(game)
            else:
                assert card_codes(shown) <= known_to(game, seat)


def check_rejections(game: Game, rng: random.Random) -> None:
    """Illegal actions raise an engine error and change nothing."""
    seat = game.to_act
    assert seat is not None
    kind = game.decision
    assert kind is not None
    hand = cards_in(game.hands[seat])
    missing = [c for c in range(52) if c not in hand]
    attempts = [Action((seat + 1) % 4, kind, (hand[0],) if kind != "play" else ()),
                Action(seat, kind, (rng.choice(missing),))]
    if kind == DISCARD and hand[-1] >> 2 == ACE:
        attempts.append(Action(seat, DISCARD, (hand[-1],)))
    before = snapshot(game)
    for attempt in attempts:
        try:
            game.apply(attempt)
        except DingoError:
            pass
        else:
            raise AssertionError(f"{attempt} was accepted")
        assert snapshot(game) == before


def check_replay(game: Game) -> None:
    replayed = Game.replay(game.initial_hands, game.dealer, game.actions,
                           open_discards=game.open_discards)
    assert snapshot(replayed) == snapshot(game)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**63), open_discards=st.booleans())
def test_random_games_keep_every_invariant(seed: int, open_discards: bool) -> None:
    rng = random.Random(seed)
    game = Game.new(seed, rng.randrange(4), open_discards=open_discards)
    check_views(game)
    while not game.over:
        check_rejections(game, rng)
        action = rng.choice(game.legal_actions())
        events = game.apply(action)
        assert len(game.location_of_every_card()) == 52
        check_events(game, action, events)
        check_views(game)
        check_replay(game)
    assert all(hand & RED_MASK == 0 for hand in game.hands), "caught red-handed"
    assert sum(len(p) for p in (*game.score_piles, *game.penalty_piles)) + len(game.dead) + sum(
        len(cards_in(h)) for h in game.hands) + len(game.discards) == 52
    assert game.scores == game.result()["scores"]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**63))
def test_no_event_log_changes_nothing_but_the_log(seed: int) -> None:
    rng = random.Random(seed)
    logged = Game.new(seed, 1)
    silent = Game.new(seed, 1, record_events=False)
    while not logged.over:
        action = rng.choice(logged.legal_actions())
        assert logged.apply(action)
        assert silent.apply(action) == []
        assert snapshot(silent) == snapshot(logged)
