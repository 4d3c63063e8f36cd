"""Bingo, the nineteenth-century domino game for two (the domino form of Sixty-six), on the
game contract.

Seven tiles each from a double-six set, a trump from the turn-up, free play while the
stock lasts, follow-and-beat once it is gone or closed, declarations of doubles, and a
claim of 70 points; game points to 7 make the match. The rules and every ruling:
``docs/rules-bingo.md`` (from ``../shared/rules/bingo.md``); the replay command:
``../shared/contracts/bingo.md``.
"""

from __future__ import annotations

import random

from ..contract import JSON, GameError, GameSpec, MatchState, Option
from ..kit import RandomBot, mask_of
from .bots import HeuristicBot
from .replay import replay_line
from .state import BingoMatch, Deal, Setup, check_state, parse_action
from .tiles import tiles_in

OPTIONS: tuple[Option, ...] = (
    Option(name="open_tally", title="Open tally",
           description="Show both players the running points and every stored trick, for "
                       "learners. Off: players count in their heads, as the game intends.",
           kind="bool", default=False),
)

#: Redeal attempts before giving up and returning the match unchanged.
REDEAL_TRIES = 40


def new_match(seed: int, options: JSON) -> BingoMatch:
    return BingoMatch(seed, options)


def _ours(match: MatchState) -> BingoMatch:
    if not isinstance(match, BingoMatch):
        raise TypeError("not a Bingo match")
    return match


def redeal(match: MatchState, seat: int | None, rng: random.Random) -> BingoMatch:
    """The same match with everything ``seat`` may not know dealt anew.

    Finished deals are revealed, so only the deal in progress changes. What ``seat``
    knows there: its own dealt hand, the tiles it drew (and when), the turn-up, and every
    tile the other seat has played or shown in a declaration. Those stay where they are;
    every other tile (the other hand's unseen tiles, whatever the other seat drew, the
    stock still face down) is shuffled among the places they fill, and the deal is
    replayed. A shuffle that makes the history illegal (a follow that broke the duty, a
    declaration that missed a double) is tried again; after ``REDEAL_TRIES`` the match is
    returned unchanged, which is always consistent.
    """
    ours = _ours(match)
    record = ours.record()
    deal = ours.deal
    if deal.over:
        return BingoMatch.from_record(record)
    setup = deal.setup
    fixed = 1 << setup.turn_up
    seen_from = [s for s in (0, 1) if s != seat]
    if seat is not None:
        fixed |= setup.hands[seat]
        fixed |= mask_of(t for t, who in zip(deal.order, deal.drawer, strict=False)
                         if who == seat)
    for s in seen_from:
        fixed |= deal.declared_mask[s]
        for trick in deal.tricks:
            if trick.leader == s:
                fixed |= 1 << trick.lead
            elif trick.follow is not None:
                fixed |= 1 << trick.follow
    slots: list[tuple[str, int]] = []  # ("hand", seat) or ("stock", index)
    free: list[int] = []
    for s in (0, 1):
        for t in tiles_in(setup.hands[s]):
            if not fixed >> t & 1:
                slots.append(("hand", s))
                free.append(t)
    for i, t in enumerate(setup.stock):
        if not fixed >> t & 1:
            slots.append(("stock", i))
            free.append(t)
    for _ in range(REDEAL_TRIES):
        tiles = free[:]
        rng.shuffle(tiles)
        hands = [setup.hands[0] & fixed, setup.hands[1] & fixed]
        stock = list(setup.stock)
        for (where, i), t in zip(slots, tiles, strict=True):
            if where == "hand":
                hands[i] |= 1 << t
            else:
                stock[i] = t
        trial = Deal(Setup((hands[0], hands[1]), tuple(stock), setup.turn_up, setup.leader,
                           setup.match_points))
        try:
            for s, action in deal.actions:
                trial.apply(s, action)
        except GameError:
            continue
        record["games"][-1]["setup"] = trial.setup.to_dict()
        return BingoMatch.from_record(record)
    return BingoMatch.from_record(record)


def invariants(match: MatchState) -> None:
    check_state(_ours(match))


GAME = GameSpec(
    name="bingo",
    title="Bingo",
    seats=2,
    options=OPTIONS,
    fields={"play": frozenset({"tile"}), "declare": frozenset({"tiles"}),
            "close": frozenset(), "claim": frozenset()},
    read_action=lambda action, options: parse_action(action),
    new_match=new_match,
    bots={"random": RandomBot, "heuristic": HeuristicBot},
    replay_line=replay_line,
    blurb="Dominoes played like Sixty-six: take tricks, declare your doubles, close the "
          "stock and claim 70 before your opponent does. First to 7 game points.",
    playable=True,
    bot_order=("random", "heuristic"),
    redeal=redeal,
    invariants=invariants,
)
