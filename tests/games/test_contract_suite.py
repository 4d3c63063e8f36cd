"""The shared test suite of the game contract: it runs for every registered game.

- random legal playouts to the end of a match, with the game's invariants checked
  after every action and every view JSON-ready and consistent with ``legal``;
- replaying the recorded (seat, action) list rebuilds the same state;
- a refused action changes nothing;
- a view cannot leak by construction: re-dealing what a seat may not know (the game's
  ``redeal``) leaves that seat's view byte-identical, at every step of a playout.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from app import games
from app.games.contract import GameError, GameSpec, MatchState, SplitViews, ViewKeys

GAMES = games.names()
SEEDS = (1, 2, 3)


def _has_view_keys(name: str) -> bool:
    spec = games.get(name)
    probe = spec.new_match(1, spec.check_options({}))
    return isinstance(probe, ViewKeys) and isinstance(probe, SplitViews)


#: The games that say when parts of their views are unchanged (the optional ``ViewKeys``).
KEYED = [name for name in GAMES if _has_view_keys(name)]

pytestmark = pytest.mark.skipif(not GAMES, reason="no game is registered on the contract yet")


@pytest.fixture(params=GAMES)
def spec(request: pytest.FixtureRequest) -> GameSpec:
    return games.get(request.param)


def encoded(value: Any) -> str:
    return json.dumps(value, sort_keys=True, allow_nan=False)


def all_views(spec: GameSpec, match: MatchState) -> list[str]:
    return [encoded(match.view(s)) for s in [*range(spec.seats), None]]


Step = tuple[int, dict[str, Any]] | None  # an action, or None for "start the next game"


def playout(spec: GameSpec, seed: int, on_step: Any = None) -> tuple[MatchState, list[Step]]:
    """A whole match of random legal actions; ``on_step(match)`` after each change."""
    match = spec.new_match(seed, spec.check_options({}))
    rng = random.Random(seed)
    steps: list[Step] = []
    for _ in range(100_000):
        if match.over:
            return match, steps
        if match.between_games:
            assert not match.to_act()
            match.start_next_game()
            steps.append(None)
        else:
            seats = sorted(match.to_act())
            assert seats, "nobody may act, but the match is neither over nor between games"
            seat = rng.choice(seats)
            legal = match.legal(seat)
            assert legal, f"seat {seat} is to act but has no legal action"
            action = rng.choice(legal)
            match.apply(seat, action)
            steps.append((seat, action))
        if spec.invariants is not None:
            spec.invariants(match)
        if on_step is not None:
            on_step(match)
    raise AssertionError("the match did not end in 100,000 steps")


def rebuild(spec: GameSpec, seed: int, steps: list[Step]) -> MatchState:
    match = spec.new_match(seed, spec.check_options({}))
    for step in steps:
        if step is None:
            match.start_next_game()
        else:
            match.apply(*step)
    return match


@pytest.mark.parametrize("seed", SEEDS)
def test_random_matches_end_with_consistent_views(spec: GameSpec, seed: int) -> None:
    def check(match: MatchState) -> None:
        acting = match.to_act()
        for seat in [*range(spec.seats), None]:
            view = match.view(seat)
            encoded(view)  # JSON-ready, no NaN
            assert isinstance(view["prompt"], str) and view["prompt"]
            assert {a["type"] for a in view["legal"]} <= spec.actions
            assert all(set(a) - {"type"} <= spec.fields[a["type"]] for a in view["legal"])
            expected = match.legal(seat) if seat is not None else []
            assert view["legal"] == expected
            if seat is not None and seat not in acting:
                assert expected == []

    match, _ = playout(spec, seed, check)
    assert match.over
    board = match.scoreboard()
    encoded(board)
    assert isinstance(board.get("rule"), str) and board["rule"]


@pytest.mark.parametrize("name", KEYED)
def test_equal_view_keys_mean_equal_views(name: str) -> None:
    """``ViewKeys``: over a whole match, a key never stands for two different values (a
    table reuses what it built at an equal key instead of building it again)."""
    spec = games.get(name)
    seen: dict[Any, str] = {}

    def check(match: MatchState) -> None:
        assert isinstance(match, ViewKeys) and isinstance(match, SplitViews)
        for name, key, value in [("scoreboard", match.scoreboard_key(), match.scoreboard()),
                                 *[(f"private {seat}", match.private_key(seat),
                                    match.private_view(seat))
                                   for seat in [*range(spec.seats), None]]]:
            if key is not None:
                assert seen.setdefault(f"{name} {key!r}", encoded(value)) == encoded(value), (
                    f"{name}: one key for two values")

    playout(spec, 2, check)


@pytest.mark.parametrize("seed", SEEDS)
def test_replaying_the_actions_rebuilds_the_match(spec: GameSpec, seed: int) -> None:
    match, steps = playout(spec, seed)
    again = rebuild(spec, seed, steps)
    assert all_views(spec, again) == all_views(spec, match)
    assert encoded(again.record()) == encoded(match.record())
    assert again.winner == match.winner


def bad_actions(spec: GameSpec, match: MatchState, rng: random.Random) -> list[tuple[int, Any]]:
    """Actions that must be refused now: wrong seat, unknown shapes, and mangled legal ones."""
    acting = match.to_act()
    bad: list[tuple[int, Any]] = []
    for seat in range(spec.seats):
        legal = match.legal(seat)
        if seat not in acting:
            for other in acting:
                bad += [(seat, a) for a in match.legal(other)[:3]]
        bad += [(seat, {}), (seat, {"type": "nonsense"}), (seat, {"type": None}),
                (seat, {"type": ["deep" * 3]}), (seat, "play"), (seat, None)]
        for action in legal[:3]:
            for key in action:
                if key != "type":
                    bad.append((seat, {**action, key: "ZZ"}))
                    bad.append((seat, {**action, key: [[[[]]]]}))
    rng.shuffle(bad)
    return [(s, a) for s, a in bad if a not in match.legal(s)]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_refused_action_changes_nothing(spec: GameSpec, seed: int) -> None:
    rng = random.Random(seed)

    def check(match: MatchState) -> None:
        if match.over or match.between_games or rng.random() > 0.3:
            return
        before = all_views(spec, match), encoded(match.record())
        for seat, action in bad_actions(spec, match, rng)[:12]:
            with pytest.raises(GameError) as refused:
                match.apply(seat, action)
            assert str(refused.value), "a refusal says why"
            assert (all_views(spec, match), encoded(match.record())) == before

    playout(spec, seed, check)


@pytest.mark.parametrize("seed", SEEDS)
def test_views_cannot_leak_by_construction(spec: GameSpec, seed: int) -> None:
    assert spec.redeal is not None, "a game on the contract declares redeal"
    redeal = spec.redeal
    rng = random.Random(seed)
    seen_different = 0

    def check(match: MatchState) -> None:
        nonlocal seen_different
        if rng.random() > 0.25:
            return
        for seat in [*range(spec.seats), None]:
            mine = encoded(match.view(seat))
            for _ in range(2):
                other = redeal(match, seat, rng)
                assert encoded(other.view(seat)) == mine, f"seat {seat}'s view shows hidden cards"
                if encoded(other.record()) != encoded(match.record()):
                    seen_different += 1

    playout(spec, seed, check)
    assert seen_different, "redeal never changed anything: the leak check checked nothing"
