"""Determinization: from one seat's view, a whole ``Game`` the engine can play on.

``sample(view, rng)`` deals the cards that seat cannot see at random, consistently
with everything the view shows: its hand, what it passed and received, the top
discard and the discard count, the piles, the hunt in progress and the hand sizes.
A search bot plays its candidate moves on such samples; it never sees the real state.

What a seat knows and the sample respects:

- its hand, its passes and the cards it received (its own cards are never dealt
  elsewhere), the top of the discard pile, the score, penalty and dead piles and
  the plays of the hunt in progress, which are all placed where the view shows them;
- ``known_discards``: cards the seat saw go onto the discard pile (its own discards
  and the tops it saw, which only its memory holds: the view shows the top alone);
- aces are never discarded: an unseen ace is in an opponent's hand;
- a dingo of a rank already hunted that is on no pile was discarded (its hunt was
  void), and one of the rank being hunted is in the hunt's plays;
- ``lacks``: (seat, rank) pairs of seats that showed they hold no wolf of a rank
  (a seat that had no turn in a hunt it was due to play in), and the seat to act
  holds a wolf of the hunted rank, since only such seats are asked;
- every opponent still to discard keeps enough cards that are not aces to do so.

Each opponent hand gets exactly its shown size and the pile exactly its count;
among the placements meeting those constraints every one can be drawn (forced cards
first, then a uniform shuffle of the rest, and a redraw when a check fails).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from .cards import ACE, HEARTS, PACK, RABBITS, RANKS, WOLVES, Card, parse_card
from .dealing import Deal, deal
from .phases import DIRECTIONS, EXCHANGE, HUNT, OVER, ROUND_NAMES, ROUNDS
from .state import Game, HuntRecord, HuntState

_ROUND_OF_DIRECTION = {DIRECTIONS[offset]: r for r, (_, offset) in enumerate(ROUNDS) if offset}
_ACES = frozenset(c for c in PACK if c >> 2 == ACE)
_TEMPLATE: Deal = deal(0, 0)


def _cards(texts: Iterable[str]) -> list[Card]:
    return [parse_card(t) for t in texts]


def known_cards(view: dict[str, Any]) -> tuple[set[Card], set[Card]]:
    """(cards whose place the seat sees, of them those on the discard pile it sees)."""
    seen: set[Card] = set(_cards(view["hand"]))
    discards: set[Card] = set()
    if view["discard_top"]:
        discards.add(parse_card(view["discard_top"]))
    discards.update(_cards(view["discards"] or []))
    seen |= discards
    for pile in (*view["score_piles"], *view["penalty_piles"], view["dead_rabbits"]):
        seen.update(_cards(pile))
    if view["hunt"] is not None:
        for play in view["hunt"]["plays"]:
            seen.update(_cards(play["cards"]))
    return seen, discards


def knowledge(seen: Iterable[dict[str, Any]], view: dict[str, Any]
              ) -> tuple[set[Card], set[tuple[int, int]]]:
    """What seat ``view["seat"]`` learned in this game beyond its view: ``sample``'s
    ``known_discards`` and ``lacks``.

    ``seen`` is what the seat was shown this game, in order: its form of every event
    and any earlier views. Known discards: its own (its form of a discard names the
    card), every discard an open pile showed, and each top of the pile a view showed.
    Lacks: a seat due a turn in a hunt (after the dingo player, or any seat in the ace
    hunt) that got none, while a wolf of the rank was still out, holds none of that
    rank's wolves; so does one passed over so far in the hunt ``view`` shows.
    """
    discards: set[Card] = set()
    lacks: set[tuple[int, int]] = set()
    hunt: tuple[int, list[int]] | None = None  # (rank, seats due a turn, in order)
    had_turn: set[int] = set()
    wolves_out = 0
    for item in seen:
        kind = item.get("type")
        if "phase" in item:  # a view
            if item.get("discard_top"):
                discards.add(parse_card(item["discard_top"]))
            discards.update(_cards(item.get("discards") or []))
        elif kind == "discard" and "card" in item:
            discards.add(parse_card(item["card"]))
        elif kind == "dingo":
            rank, holder = parse_card(item["card"]) >> 2, item["seat"]
            due = [(holder + i) & 3 for i in (1, 2, 3)] + ([holder] if rank == ACE else [])
            hunt, had_turn, wolves_out = (rank, due), set(), 0
        elif kind == "wolves" and hunt is not None:
            had_turn.add(item["seat"])
            wolves_out += len(item["cards"])
        elif kind == "hunt_result" and hunt is not None:
            rank, due = hunt
            if wolves_out < 2:
                lacks.update((s, rank) for s in due if s not in had_turn)
            hunt = None
    if hunt is not None and view["hunt"] is not None and view["to_act"] is not None:
        rank, due = hunt
        if RANKS.index(view["hunt"]["rank"]) == rank and view["to_act"] in due:
            passed_over = due[:due.index(view["to_act"])]
            lacks.update((s, rank) for s in passed_over if s not in had_turn)
    return discards, lacks


def sample(view: dict[str, Any], rng: random.Random, *,
           known_discards: Iterable[str | Card] = (),
           lacks: Iterable[tuple[int, int]] = (),
           tries: int = 1000) -> Game:
    """A game consistent with seat ``view["seat"]``'s view; see the module docstring.

    The game records no events; it has no past actions (it cannot be replayed), but
    ``game.view(seat)`` equals ``view`` and ``apply`` plays on from it.
    """
    seat = view["seat"]
    if seat is None:
        raise ValueError("a spectator's view hides every hand: nothing to sample from")
    if view["phase"] == OVER:
        raise ValueError("the game is over: every card is shown")
    seen, discards = known_cards(view)
    discards.update(c if isinstance(c, int) else parse_card(c) for c in known_discards)
    discards -= set(_cards(view["hand"]))
    seen |= discards
    hand = set(_cards(view["hand"]))
    unseen = [c for c in PACK if c not in seen and c not in hand]
    # A card this seat passed and later received back is in its hand: ``hand`` wins.
    sizes = view["hand_sizes"]
    others = [s for s in range(4) if s != seat]
    hidden_discards = view["discard_count"] - len(discards)
    if hidden_discards < 0 or sum(sizes[s] for s in others) + hidden_discards != len(unseen):
        raise ValueError("the view and the known discards do not add up")
    hunt = view["hunt"]
    hunted = (RANKS.index(hunt["rank"]) if hunt is not None
              else len(RABBITS) - len(view["rabbits"]) if view["phase"] == HUNT else -1)
    to_discard = sorted(c for c in unseen
                        if c & 3 == HEARTS and c >> 2 < ACE and c >> 2 < hunted)
    to_hands = sorted(c for c in unseen if c in _ACES)
    free = [c for c in unseen if c not in to_discard and c not in to_hands]
    lacking = set(lacks)
    for _ in range(tries):
        hands: dict[int, set[Card]] = {s: set() for s in others}
        slots = [s for s in others for _ in range(sizes[s])]
        rng.shuffle(slots)
        pile: list[Card] = []
        if len(to_hands) > len(slots) or len(to_discard) > hidden_discards:
            raise ValueError("no deal is consistent with the view")
        for c in to_hands:
            hands[slots.pop()].add(c)
        pile.extend(to_discard)
        rest = slots + [-1] * (hidden_discards - len(to_discard))
        rng.shuffle(rest)
        for c, where in zip(free, rest, strict=True):
            if where < 0:
                pile.append(c)
            else:
                hands[where].add(c)
        if _consistent(view, hands, hunted, lacking):
            rng.shuffle(pile)
            return _build(view, hand, hands, pile, discards)
    raise ValueError(f"no consistent deal found in {tries} tries")


def _consistent(view: dict[str, Any], hands: dict[int, set[Card]], hunted: int,
                lacking: set[tuple[int, int]]) -> bool:
    for (s, rank) in lacking:
        if s in hands and any(WOLVES[rank] >> c & 1 for c in hands[s]):
            return False
    to_act = view["to_act"]
    if view["phase"] == EXCHANGE:
        count = view["discard_count"]
        dealer = view["dealer"]
        for s, held in hands.items():
            done = count // 4 + ((s - dealer) % 4 < count % 4)
            if sum(c not in _ACES for c in held) < 4 - done:
                return False
        return True
    if to_act is not None and to_act in hands:
        mask = WOLVES[hunted] if hunted <= ACE else 0
        if not any(mask >> c & 1 for c in hands[to_act]):
            return False
    return True


def _build(view: dict[str, Any], hand: set[Card], hands: dict[int, set[Card]],
           pile: list[Card], known: set[Card]) -> Game:
    seat = view["seat"]
    dealer = view["dealer"]
    game = Game(_TEMPLATE, dealer, open_discards=view["open_discards"], record_events=False)
    masks = [0, 0, 0, 0]
    for s in range(4):
        for c in (hand if s == seat else hands[s]):
            masks[s] |= 1 << c
    game.hands = masks
    game.initial_hands = ()
    # The pile: the hidden and the known-but-buried cards, then the top where the view shows it.
    top = parse_card(view["discard_top"]) if view["discard_top"] else None
    if view["discards"] is not None:
        game.discards = _cards(view["discards"])
    else:
        buried = [c for c in known if c != top] + pile
        game.discards = buried + ([top] if top is not None else [])
    game.dead = _cards(view["dead_rabbits"])
    game.score_piles = [_cards(p) for p in view["score_piles"]]
    game.penalty_piles = [_cards(p) for p in view["penalty_piles"]]
    for entry in view["passed"]:
        r, to, c = _ROUND_OF_DIRECTION[entry["direction"]], entry["to"], parse_card(entry["card"])
        game.passed[seat].append((r, to, c))
        game.received[to].append((r, seat, c))
    for entry in view["received"]:
        r, frm = _ROUND_OF_DIRECTION[entry["direction"]], entry["from"]
        c = parse_card(entry["card"])
        game.received[seat].append((r, frm, c))
        game.passed[frm].append((r, seat, c))
    game.phase = view["phase"]
    game.to_act = view["to_act"]
    if view["phase"] == EXCHANGE:
        rnd = ROUND_NAMES.index(view["stage"])
        game.step = rnd * 4 + (view["to_act"] - dealer) % 4
    else:
        game.step = len(ROUNDS) * 4
        game.last_hunt_record = _record(view["last_hunt"])
        hunt = view["hunt"]
        if hunt is not None:
            rank = RANKS.index(hunt["rank"])
            plays = [(p["seat"], tuple(_cards(p["cards"]))) for p in hunt["plays"]]
            wolves = [(s, c) for s, cs in plays for c in cs
                      if WOLVES[rank] >> c & 1]
            holder = hunt["dingo_seat"]
            order = [(holder + i) & 3 for i in (1, 2, 3)] + ([holder] if rank == ACE else [])
            after = order[order.index(view["to_act"]) + 1:]
            if rank < ACE:
                after = [s for s in after if masks[s] & WOLVES[rank]]
                game.next_rank = rank + 1
            else:
                game.next_rank = ACE + 1
            game.hunt = HuntState(rank, holder, after, plays, wolves)
    return game


def _record(data: dict[str, Any] | None) -> HuntRecord | None:
    if data is None:
        return None
    rank = RANKS.index(data["rank"])
    return HuntRecord(
        rank, data["dingo_seat"],
        tuple((p["seat"], tuple(_cards(p["cards"]))) for p in data["plays"]),
        data["rule"], data["caught_by"],
        tuple((s, tuple(_cards(cs))) for s, cs in enumerate(data["to_score"]) if cs),
        tuple((s, tuple(_cards(cs))) for s, cs in enumerate(data["to_penalty"]) if cs),
    )


__all__ = ["knowledge", "known_cards", "sample"]
