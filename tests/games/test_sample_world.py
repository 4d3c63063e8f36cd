"""The contract's determinization hook, ``GameSpec.sample_world``: every sampled world shows
the seat exactly its view, respects what the seat saw, and every consistent place of an
unseen card occurs. (Dingo's: Mate's and Divide and Conquer's modules say why they have
none.)"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from app.game.bots import HeuristicBot
from app.game.cards import PACK, WOLVES, code, parse_card
from app.game.determinize import knowledge
from app.games import get
from app.games.dingo import DingoMatch, engine_view

DINGO = get("dingo")
JSON = dict[str, Any]


def plain(value: JSON) -> JSON:
    """A view or event as a browser gets it: JSON, sharing nothing with the state."""
    return json.loads(json.dumps(value))  # type: ignore[no-any-return]


def dingo_positions(seed: int, open_discards: bool = False):  # type: ignore[no-untyped-def]
    """Every moment of a heuristic game of Dingo: (match, what each seat saw before it)."""
    match = DINGO.new_match(seed, DINGO.check_options({"open_discards": open_discards}))
    assert isinstance(match, DingoMatch)
    bots = [HeuristicBot(seed * 4 + s) for s in range(4)]
    seen: list[list[JSON]] = [[e.for_seat(s) for e in match.opening_events()] for s in range(4)]
    while not match.inner.game.over:
        yield match, seen
        (seat,) = match.to_act()
        for s in range(4):
            seen[s].append(plain(match.view(s)))
        action = bots[seat].choose(match.inner.game.view(seat)).to_dict()
        for event in match.apply(seat, action):
            for s in range(4):
                seen[s].append(plain(event.for_seat(s)))


@pytest.mark.parametrize("open_discards", [False, True])
def test_every_sampled_world_shows_the_seat_its_view(open_discards: bool) -> None:
    rng = random.Random(1)
    checked = 0
    for seed in range(8):
        for match, seen in dingo_positions(seed, open_discards):
            (seat,) = match.to_act()
            view = plain(match.view(seat))
            world = DINGO.sample_world(view, rng, seen[seat])  # type: ignore[misc]
            assert world is not match
            assert world.view(seat) == view
            assert plain(world.view(seat)) == view
            checked += 1
    assert checked > 200


def test_a_world_keeps_what_the_seat_saw_where_it_saw_it() -> None:
    """Its own discards and the tops it saw stay on the pile; a seat passed over in a
    hunt is never dealt a wolf of that rank."""
    rng = random.Random(2)
    lacking_seen = 0
    for seed in range(4):
        for match, seen in dingo_positions(seed):
            (seat,) = match.to_act()
            view = plain(match.view(seat))
            known, lacks = knowledge(seen[seat], engine_view(view))
            lacking_seen += len(lacks)
            world = DINGO.sample_world(view, rng, seen[seat])  # type: ignore[misc]
            assert isinstance(world, DingoMatch)
            game = world.inner.game
            assert known <= set(game.discards)
            for s, rank in lacks:
                assert not game.hands[s] & WOLVES[rank], (s, rank)
    assert lacking_seen > 5


def test_knowledge_reads_passed_over_seats_and_seen_discards() -> None:
    events: list[JSON] = [
        {"type": "discard", "seat": 1, "round": 0, "card": "7H"},  # its own: named
        {"type": "discard", "seat": 2, "round": 0},  # another's: not named
        {"phase": "exchange", "discard_top": "9C", "discards": None},  # a view's top
        {"type": "dingo", "seat": 3, "card": "5H"},  # due: 0, 1, 2
        {"type": "wolves", "seat": 1, "cards": [], "rank": "5"},
        {"type": "hunt_result", "rank": "5"},  # 0 and 2 were passed over
        {"type": "dingo", "seat": 0, "card": "6H"},  # due: 1, 2, 3
        {"type": "wolves", "seat": 1, "cards": ["6C"], "rank": "6"},
        {"type": "wolves", "seat": 3, "cards": ["6S"], "rank": "6"},
        {"type": "hunt_result", "rank": "6"},  # both out: nothing learned of seat 2
        {"type": "dingo", "seat": 2, "card": "8H"},  # due: 3, 0, 1; seat 3 passed over
    ]
    view = {"hunt": {"rank": "8"}, "to_act": 0}
    known, lacks = knowledge(events, view)
    assert {code(c) for c in known} == {"7H", "9C"}
    assert lacks == {(0, 3), (2, 3), (3, 6)}


def test_every_consistent_place_of_an_unseen_card_occurs() -> None:
    """After the first round of discards and two passes, for a seat shown only its events:
    an unseen card may be in each opponent's hand or on the pile, an ace in each
    opponent's hand, the seat's own discard only on the pile."""
    positions = dingo_positions(11)
    for _ in range(6):
        match, seen = next(positions)
    (seat,) = match.to_act()
    view = plain(match.view(seat))
    events = [e for e in seen[seat] if "phase" not in e]  # no views: other discards unseen
    mine = next(e["card"] for e in events if e.get("type") == "discard" and "card" in e)
    hand = set(view["hand"]) | {e["card"] for e in view["passed"]}
    unseen = [code(c) for c in PACK if code(c) not in hand and code(c) != mine
              and code(c) != view["discard_top"]]
    where: dict[str, Counter[str]] = {c: Counter() for c in [*unseen, mine]}
    rng = random.Random(4)
    for _ in range(800):
        world = DINGO.sample_world(view, rng, events)  # type: ignore[misc]
        assert isinstance(world, DingoMatch)
        places = world.inner.game.location_of_every_card()
        for c in where:
            where[c][places[parse_card(c)]] += 1
    opponents = {f"hand {s}" for s in range(4) if s != seat}
    for c in unseen:
        expected = opponents if c[0] == "A" else opponents | {"discards"}
        assert set(where[c]) == expected, (c, where[c])
    assert set(where[mine]) == {"discards"}


def test_a_spectator_or_a_finished_game_has_no_world() -> None:
    match = DINGO.new_match(1, DINGO.check_options({}))
    with pytest.raises(ValueError):
        DINGO.sample_world(plain(match.view(None)), random.Random(0), ())  # type: ignore[misc]


def test_a_world_is_sampled_for_the_seat_to_act_only() -> None:
    """Another seat's view does not say who acts (the table's ``to_act`` does; in a hunt it
    is the next holder of a wolf): sampling from it would have to guess."""
    match = DINGO.new_match(1, DINGO.check_options({}))
    (acting,) = match.to_act()
    for seat in range(4):
        view = plain(match.view(seat))
        if seat == acting:
            assert DINGO.sample_world(view, random.Random(0), ()).view(seat) == view  # type: ignore[misc]
        else:
            with pytest.raises(ValueError, match="turn"):
                DINGO.sample_world(view, random.Random(0), ())  # type: ignore[misc]

