"""Helpers for scripted Dingo games: deals with chosen cards in chosen seats, and drivers.

A scripted test names its key cards and their seats; ``deal_with`` spreads
the other cards so that no seat holds more than three hearts besides its key
cards, and ``exchange`` plays the seven exchange rounds without ever moving a
key card, discarding hearts first. So every dingo that is not a key card is
discarded and its hunt is void, and the test decides only the hunts it is about.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable
from typing import Any

from app.game import DISCARD, EXCHANGE, Action, Game, parse_card
from app.game.cards import ACE, CODES, HEARTS, PACK, RABBITS, Card, codes


def deal_with(placed: dict[str, int]) -> list[list[Card]]:
    """Four hands of ten: each code of ``placed`` in its seat, hearts spread evenly."""
    hands: list[list[Card]] = [[], [], [], []]
    for name, seat in placed.items():
        hands[seat].append(parse_card(name))
    rest = [c for c in PACK if CODES[c] not in placed]
    for c in (c for c in rest if c & 3 == HEARTS):
        seat = min((s for s in range(4) if len(hands[s]) < 10),
                   key=lambda s: (sum(x & 3 == HEARTS for x in hands[s]), s))
        hands[seat].append(c)
    for c in (c for c in rest if c & 3 != HEARTS):
        seat = min((s for s in range(4) if len(hands[s]) < 10), key=lambda s: (len(hands[s]), s))
        hands[seat].append(c)
    assert all(len(h) == 10 for h in hands), "too many cards placed in one seat"
    return hands


def exchange(game: Game, keep: Iterable[str] = ()) -> None:
    """Play the exchange rounds harmlessly: never move a ``keep`` card, discard hearts first."""
    kept = {parse_card(c) for c in keep}
    while game.phase == EXCHANGE:
        legal = [a for a in game.legal_actions() if a.card not in kept]
        if game.decision == DISCARD:
            hearts = [a for a in legal if a.card & 3 == HEARTS]
            choice = (hearts or legal)[0]
        else:
            plain = [a for a in legal if a.card & 3 != HEARTS and a.card >> 2 != ACE]
            choice = (plain or legal)[0]
        game.apply(choice)


def play(game: Game, seat: int, *cards: str) -> list[Any]:
    """Seat ``seat`` plays ``cards`` in the hunt (none: declines); returns the events' dicts."""
    assert game.to_act == seat, f"seat {game.to_act} is to act, not {seat}"
    events = game.apply(Action(seat, "play", tuple(parse_card(c) for c in cards)))
    return [e.public for e in events]


def decline_all(game: Game) -> None:
    """Decline every hunt turn until the game ends."""
    while not game.over:
        assert game.to_act is not None
        game.apply(Action(game.to_act, "play", ()))


def hunt_result(game: Game, rank: str) -> dict[str, Any]:
    """The log's ``hunt_result`` of ``rank``, found by replaying the game with events."""
    replayed = Game(game.initial_hands, game.dealer, open_discards=game.open_discards)
    for action in game.actions:
        for event in replayed.apply(action):
            if event.kind == "hunt_result" and event.public["rank"] == rank:
                return event.public
    raise AssertionError(f"no {rank} hunt has finished")


def snapshot(game: Game) -> dict[str, Any]:
    """Everything a game holds, deep-copied, for before/after comparisons (not its view cache)."""
    return copy.deepcopy({k: v for k, v in vars(game).items()
                          if k not in ("_events", "seed", "record_events", "_piles_seen",
                                       "_exchanges_seen", "_hunt_emitted")})


def random_game(seed: int, *, open_discards: bool = False, dealer: int | None = None) -> Game:
    """A finished game of uniformly random legal moves."""
    rng = random.Random(seed)
    game = Game.new(seed, rng.randrange(4) if dealer is None else dealer,
                    open_discards=open_discards)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    return game


def card_codes(obj: object) -> set[str]:
    """Every card code appearing as a string anywhere in a JSON-like value.

    A ``"rabbit"`` field is skipped: it names the rabbit of a hunt (``"AD"`` in
    the ace hunt), which everyone knows, not where that card is.
    """
    found: set[str] = set()
    if isinstance(obj, str):
        if obj in CODES:
            found.add(obj)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            if key != "rabbit":
                found |= card_codes(value)
    elif isinstance(obj, list):
        for value in obj:
            found |= card_codes(value)
    return found


def public_cards(game: Game) -> set[str]:
    """What every seat and spectator may see: piles, rabbits, hunt plays, visible discards."""
    if game.over:
        return set(card_codes(game.result())) | set(codes(game.discards)) | set(codes(RABBITS))
    cards = set(codes(RABBITS))
    for pile in (*game.score_piles, *game.penalty_piles):
        cards |= set(codes(pile))
    if game.hunt is not None:
        cards |= {c for _, played in game.hunt.plays for c in codes(played)}
    if game.open_discards:
        cards |= set(codes(game.discards))
    elif game.discards:
        cards.add(codes(game.discards)[-1])
    return cards


def known_to(game: Game, seat: int) -> set[str]:
    """What ``seat`` may see: the public cards, its hand, the passes it took part in."""
    passes = [c for _, _, c in game.passed[seat]] + [c for _, _, c in game.received[seat]]
    return public_cards(game) | set(game.hand(seat)) | set(codes(passes))
