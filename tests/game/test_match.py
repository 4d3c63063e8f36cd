"""A match: games until a seat reaches the target, the deal passing left."""

from __future__ import annotations

import random

import pytest

from app.game import IllegalAction, MalformedAction, Match, MatchOptions, NotYourTurn


def finish_game(match: Match, rng: random.Random) -> list[str]:
    """Play the current game with random legal moves; the kinds of the last action's events."""
    kinds: list[str] = []
    while not match.game.over:
        kinds = [e.kind for e in match.apply(rng.choice(match.game.legal_actions()))]
    return kinds


def play_match(match: Match, seed: int = 0) -> None:
    rng = random.Random(seed)
    finish_game(match, rng)
    while not match.over:
        match.start_next_game()
        finish_game(match, rng)


def test_the_first_dealer_comes_from_the_seed() -> None:
    firsts = {Match(seed).first_dealer for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    for seed in range(10):
        assert Match(seed).first_dealer == random.Random(seed).randrange(4)
        assert Match(seed).game.dealer == Match(seed).first_dealer
        assert Match(seed).game.initial_hands == Match(seed).game.initial_hands


def test_the_deal_passes_left_after_every_game() -> None:
    match = Match(5, MatchOptions(games_to_win=3))
    play_match(match)
    dealers = [g.dealer for g in match.games]
    assert dealers == [(match.first_dealer + i) % 4 for i in range(len(dealers))]
    assert [g["dealer"] for g in match.summary()["games"]] == dealers


def test_the_match_ends_when_a_seat_wins_the_target_number_of_games() -> None:
    match = Match(9, MatchOptions(games_to_win=2))
    play_match(match)
    assert match.winner is not None and match.game_wins[match.winner] == 2
    assert sorted(match.game_wins)[-2] < 2
    wins = [g.winner for g in match.games]
    assert wins[-1] == match.winner and wins.count(match.winner) == 2
    assert match.draws == wins.count(None)
    assert match.totals == [sum(g.scores[s] for g in match.games if g.scores) for s in range(4)]


def test_five_games_is_the_default_target() -> None:
    match = Match(2)
    assert match.options.games_to_win == 5
    play_match(match, seed=2)
    assert match.winner is not None and match.game_wins[match.winner] == 5
    assert max(w for s, w in enumerate(match.game_wins) if s != match.winner) < 5


def test_a_points_threshold_ends_the_match_with_the_single_highest_total() -> None:
    match = Match(4, MatchOptions(points_to_win=25))
    play_match(match, seed=4)
    assert match.winner is not None
    assert match.totals[match.winner] >= 25
    assert all(t < match.totals[match.winner] for s, t in enumerate(match.totals)
               if s != match.winner)
    # Before the last game nobody had reached the threshold alone at the top.
    before = [sum(g.scores[s] for g in match.games[:-1] if g.scores) for s in range(4)]
    assert max(before) < 25 or before.count(max(before)) > 1


def test_match_over_event_and_no_further_games() -> None:
    match = Match(1, MatchOptions(games_to_win=1))
    rng = random.Random(1)
    kinds = finish_game(match, rng)
    while match.winner is None:  # a drawn game credits nobody: play on
        match.start_next_game()
        kinds = finish_game(match, rng)
    assert kinds[-2:] == ["game_over", "match_over"]
    assert match.over and not match.between_games
    with pytest.raises(IllegalAction, match="the match is over"):
        match.start_next_game()


def test_between_games_the_next_game_starts_only_when_asked() -> None:
    match = Match(3)
    rng = random.Random(3)
    finish_game(match, rng)
    assert match.between_games
    with pytest.raises(NotYourTurn, match="the game is over"):
        match.apply(match.game.actions[0])
    (event,) = match.start_next_game()
    assert event.public == {"type": "game_start", "number": 2, "dealer": match.game.dealer}
    assert match.game_start_event().public == event.public
    with pytest.raises(IllegalAction, match="not over yet"):
        match.start_next_game()


def test_a_match_replays_from_its_seed_and_actions() -> None:
    match = Match(12, MatchOptions(games_to_win=2, open_discards=True))
    play_match(match, seed=12)
    again = Match.replay(12, match.options, [g.actions for g in match.games])
    assert again.summary() == match.summary()
    assert again.game.open_discards


def test_the_view_holds_the_scoreboard_and_the_seats_game_view() -> None:
    match = Match(6)
    view = match.view(1)
    assert view["match"]["game_number"] == 1 and view["game"]["seat"] == 1
    assert "hand" not in match.view(None)["game"]


@pytest.mark.parametrize("options", [
    {"games_to_win": 0}, {"games_to_win": 51}, {"games_to_win": True}, {"games_to_win": "5"},
    {"points_to_win": 0}, {"points_to_win": 1001}, {"points_to_win": 2.5},
    {"open_discards": "yes"},
])
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(MalformedAction):
        MatchOptions(**options)  # type: ignore[arg-type]
