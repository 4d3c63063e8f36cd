"""Bingo's determinization hook (``GameSpec.sample_world``): from a seat's view and its forms
of the deal's events, a world that shows the seat exactly its view, keeps every tile the
seat knows where it knows it, and can put an unseen tile in every place it could be."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from app.games import get
from app.games.bingo import BingoMatch
from app.games.bingo.tiles import CODES

BINGO = get("bingo")
JSON = dict[str, Any]


def plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def positions(seed: int, open_tally: bool = False
              ) -> Iterator[tuple[BingoMatch, list[list[JSON]]]]:
    """Every moment of a match of heuristic bots (several deals): the match, and each seat's
    forms of every event so far."""
    match = BINGO.new_match(seed, BINGO.check_options({"open_tally": open_tally}))
    assert isinstance(match, BingoMatch)
    bots = [BINGO.bots["heuristic"](seed * 2 + s) for s in range(2)]
    seen = [[plain(e.for_seat(s)) for e in match.opening_events()] for s in range(2)]
    while not match.over:
        if match.between_games:
            for event in match.start_next_game():
                for s in range(2):
                    seen[s].append(plain(event.for_seat(s)))
            continue
        yield match, seen
        (seat,) = match.to_act()
        for event in match.apply(seat, bots[seat].choose(plain(match.view(seat)))):
            for s in range(2):
                seen[s].append(plain(event.for_seat(s)))


@pytest.mark.parametrize("open_tally", [False, True])
def test_every_sampled_world_shows_the_seat_its_view(open_tally: bool) -> None:
    rng = random.Random(2)
    checked, deals = 0, set()
    for seed in range(3):
        for match, seen in positions(seed, open_tally):
            for seat in (0, 1):
                view = plain(match.view(seat))
                world = BINGO.sample_world(view, rng, seen[seat])  # type: ignore[misc]
                assert world is not match and world.view(seat) == view
                deals.add(view["match"]["deal_number"])
                checked += 1
    assert checked > 200 and len(deals) > 2  # later deals too (scores carried)


def test_what_the_seat_knows_stays_and_every_unseen_place_occurs() -> None:
    """Mid-deal: the seat's own hand and draws never move; the other seat's shown tiles are
    always with it; a tile the seat never saw lands in the other hand and in the stock."""
    moments = positions(5)
    for _ in range(9):
        match, seen = next(moments)
    seat, other = 1, 0
    view = plain(match.view(seat))
    deal = match.deal
    real_hand = set(view["board"]["hand"])
    played_by_other = {CODES[t.lead] for t in deal.tricks if t.leader == other} | {
        CODES[t.follow] for t in deal.tricks if t.leader != other and t.follow is not None}
    # Every tile the seat was shown: its dealt hand, the turn-up, and every tile an event
    # named to it (plays, declarations, its own draws).
    told = {c for e in seen[seat] for c in [e.get("tile"), e.get("turn_up"),
                                             *e.get("tiles", []), *e.get("hand", [])]}
    unseen = [c for c in CODES if c not in told]
    where: dict[str, Counter[str]] = {c: Counter() for c in unseen}
    rng = random.Random(7)
    for _ in range(300):
        world = BINGO.sample_world(view, rng, seen[seat])  # type: ignore[misc]
        assert isinstance(world, BingoMatch)
        w = world.deal
        assert {CODES[t] for t in range(28) if w.hands[seat] >> t & 1} == real_hand
        for c in unseen:
            t = CODES.index(c)
            where[c]["other hand" if w.hands[other] >> t & 1 else
                     "stock" if t in w.order[w.drawn:] else "played"] += 1
    assert played_by_other  # the other seat had shown something by then
    for c in unseen:
        assert set(where[c]) == {"other hand", "stock"}, (c, where[c])


def test_a_spectator_a_finished_deal_or_unseen_events_have_no_world() -> None:
    match, seen = next(positions(1))
    with pytest.raises(ValueError):
        BINGO.sample_world(plain(match.view(None)), random.Random(0), seen[0])  # type: ignore[misc]
    with pytest.raises(ValueError):
        BINGO.sample_world(plain(match.view(0)), random.Random(0), [])  # type: ignore[misc]
