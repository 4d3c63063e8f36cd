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
from collections.abc import Mapping, Sequence

from ..contract import JSON, GameError, GameSpec, MatchState, Option
from ..kit import RandomBot, mask_of
from .bots import HeuristicBot
from .replay import replay_line
from .state import HAND, STOCK, BingoMatch, Deal, Setup, check_state, parse_action
from .tiles import parse_tile, tiles_in

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


#: Deals tried per world before ``sample_world`` gives up (each is checked by replaying).
SAMPLE_TRIES = 400


def sample_world(view: JSON, rng: random.Random, seen: Sequence[JSON] = ()) -> BingoMatch:
    """A match seat ``view["seat"]`` cannot tell from the real one (see ``GameSpec``).

    What the seat knows of the deal in progress comes from ``seen``, its forms of the deal's
    events: its own dealt hand, the turn-up and the leader (``deal``), every play,
    declaration and close of both seats (all public, so the deal's actions are known), and
    the tiles it drew itself, in order. What it does not know: the other seat's dealt hand
    and what the other seat drew, and the stock still face down. Those places get the
    unknown tiles at random: first each tile the other seat played or declared, into a
    place it could have come from (its hand, or a draw it made before showing it), then the
    rest shuffled; the deal is replayed, and a deal under which the other seat broke a rule
    (a follow that should have beaten) is drawn again. Earlier deals count only by their
    score (``BingoMatch.joined``). ``ValueError``: a spectator's view, a finished deal, or
    events that do not lead to this view.
    """
    seat = view.get("seat")
    board = view.get("board") or {}
    if seat not in (0, 1):
        raise ValueError("a spectator's view hides both hands: nothing to sample from")
    if board.get("result") is not None:
        raise ValueError("the deal is over: every tile is shown")
    number = view["match"]["deal_number"]
    forms = [e for e in seen if isinstance(e, Mapping) and isinstance(e.get("type"), str)]
    starts = [i for i, e in enumerate(forms) if e["type"] == "deal" and e.get("deal") == number]
    if not starts or "hand" not in forms[starts[-1]]:
        raise ValueError("the events of this deal, from its deal, were not seen")
    dealt = forms[starts[-1]]
    mine = mask_of(parse_tile(c) for c in dealt["hand"])
    turn_up, leader, other = parse_tile(dealt["turn_up"]), dealt["leader"], 1 - seat
    actions: list[tuple[int, JSON]] = []
    draws: list[int | None] = []  # stock positions in drawing order: my tile, or None (other's)
    other_draws: list[tuple[int, int]] = []  # (stock position, actions before it)
    shown: dict[int, int] = {}  # a tile the other seat showed -> actions before it showed it
    for e in forms[starts[-1] + 1:]:
        kind = e["type"]
        if kind in ("lead", "follow", "declare", "close"):
            who = e["seat"]
            tiles = ([e["tile"]] if kind in ("lead", "follow")
                     else list(e["tiles"]) if kind == "declare" else [])
            if who == other:
                for t in map(parse_tile, tiles):
                    shown.setdefault(t, len(actions))
            action: JSON = ({"type": "play", "tile": e["tile"]} if kind in ("lead", "follow")
                            else {"type": "declare", "tiles": tiles} if kind == "declare"
                            else {"type": "close"})
            actions.append((who, action))
        elif kind == "draw" and not e.get("turn_up"):
            if e["seat"] == other:
                other_draws.append((len(draws), len(actions)))
                draws.append(None)
            else:
                draws.append(parse_tile(e["tile"]))
    known = mine | (1 << turn_up) | mask_of(t for t in draws if t is not None)
    unknown = [t for t in range(28) if not known >> t & 1]
    shown = {t: before for t, before in shown.items() if not known >> t & 1}  # (the turn-up)
    for _ in range(SAMPLE_TRIES):
        world = _try_world(view, rng, seat, mine, turn_up, leader, number, actions, draws,
                           other_draws, shown, unknown)
        if world is not None:
            return world
    raise ValueError("no deal consistent with what the seat saw was found")


def _try_world(view: JSON, rng: random.Random, seat: int, mine: int, turn_up: int,
               leader: int, number: int, actions: list[tuple[int, JSON]],
               draws: list[int | None], other_draws: list[tuple[int, int]],
               shown: dict[int, int], unknown: list[int]) -> BingoMatch | None:
    """One random deal of the unknown tiles to the places the seat cannot see, replayed; None
    if the replay breaks a rule or does not give ``view``."""
    hand_slots = HAND  # the other seat's dealt hand, still to fill
    other_hand = 0
    drawn_by_other: dict[int, int] = {}  # stock position -> tile
    free_draws = [(pos, before) for pos, before in other_draws]
    for tile, before in sorted(shown.items(), key=lambda item: item[1]):
        choices = ["hand"] * hand_slots + [pos for pos, b in free_draws if b <= before]
        if not choices:
            return None
        place = rng.choice(choices)
        if place == "hand":
            other_hand |= 1 << tile
            hand_slots -= 1
        else:
            drawn_by_other[int(place)] = tile
            free_draws = [(pos, b) for pos, b in free_draws if pos != place]
    rest = [t for t in unknown if t not in shown]
    rng.shuffle(rest)
    for _ in range(hand_slots):
        other_hand |= 1 << rest.pop()
    stock: list[int] = []
    for pos in range(STOCK):
        if pos < len(draws) and draws[pos] is not None:
            stock.append(draws[pos])  # type: ignore[arg-type]
        elif pos in drawn_by_other:
            stock.append(drawn_by_other[pos])
        else:
            stock.append(rest.pop())
    hands = (mine, other_hand) if seat == 0 else (other_hand, mine)
    before_deal = view["match"]["before_deal"]
    setup = Setup(hands, tuple(stock), turn_up, leader, (before_deal[0], before_deal[1]))
    world = BingoMatch.joined({"open_tally": bool(view["board"]["open_tally"])}, setup, number)
    try:
        for who, action in actions:
            world.apply(who, action)
    except GameError:
        return None
    return world if world.view(seat) == view else None


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
    how=("Twenty-eight dominoes: seven each and a stock. A turned-up tile sets the trump number, "
         "and a blank counts as seven.",
         "Take tricks: the bingo (0-0) beats everything, then the trumps; otherwise the led "
         "tile's higher end is the suit. The trick's winner draws first and leads.",
         "On lead you may show two or more doubles, worth 20 to 70 points once you win a "
         "trick, and after your first trick you may close the stock. Once the stock is closed "
         "or used up, the follower must follow suit, beating the lead if possible, else trump.",
         "On lead, claim when you think your points reach 70: right, you win the deal; short, "
         "your opponent does. The first to 7 game points wins the match."),
    playable=True,
    standing_unit=lambda options: ("game point", "game points"),
    bot_order=("random", "heuristic"),
    redeal=redeal,
    sample_world=sample_world,
    invariants=invariants,
)
