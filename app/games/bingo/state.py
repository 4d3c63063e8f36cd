"""One deal of Bingo (``Deal``) and the match to 7 game points (``BingoMatch``, the
contract's ``MatchState``). The rules and every ruling: ``docs/rules-bingo.md``.

``Deal`` is a deal (both hands, the stock in drawing order, the turn-up, the leader, the
match score before it) plus its list of actions. ``apply`` checks everything before it
changes anything, so a refusal leaves the state as it was. What the rules make automatic
happens inside ``apply``: deciding and storing a trick, drawing (winner first), the bingo
bonus and the settlement once both hands are empty, so the state always rests on a real
decision or on the end of the deal.

Secrecy (rules, section 16) is built in here rather than left to callers. The hidden
things are the other hand, the stock order, the tiles of tricks before the last one and
the running points. A drawn face-down tile is named only in the drawer's private event
form and the drawer's view; the turn-up is public all along (everyone saw it, and
everyone knows the loser of trick 7 takes it). A refusal a seat provokes with a tile
it does not hold says the same whether that tile is in the other hand or in the stock.
Earlier tricks and points appear only with the ``open_tally`` option, or once the deal
is over.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..contract import JSON, Event, Illegal, Malformed, OutOfTurn, shown
from ..kit import (
    acting_keys,
    check_seat,
    mask_of,
    plural,
    replay_games,
    seat_ref,
    seats_to_act,
)
from .tiles import (
    BINGO,
    CODES,
    DOUBLE_MASK,
    SUIT_NAMES,
    Tile,
    beats,
    double_of,
    duty_step,
    follows,
    is_trump,
    mask_codes,
    parse_tile,
    tiles_in,
    trump_of,
    value,
)

PLAY, DECLARE, CLOSE, CLAIM = "play", "declare", "close", "claim"
TYPES = (PLAY, DECLARE, CLOSE, CLAIM)
TARGET = 7
HAND = 7
STOCK = 13
CLAIM_AT = 70
LAST_TRICK_BONUS = 10
#: Declaration values by the number of doubles shown (7: invincible, game points instead).
DECLARATIONS = {2: ("double", 20), 3: ("triplet", 40), 4: ("double doublet", 50),
                5: ("king", 60), 6: ("emperor", 70), 7: ("invincible", 0)}
RULE = ("first to 7 game points wins the match; a deal's winner scores 1, 2 or 3 game "
        "points (3 if the loser took no trick, 2 if the loser has fewer than 30 points, else 1; "
        "closing and wrong claims change this), invincible scores 3, and the bingo taking "
        "the trump double scores 1 at once")

END_CLAIM, END_PLAYED_OUT, END_INVINCIBLE, END_MATCH_WON = (
    "claim", "played_out", "invincible", "match_won")


def parse_action(action: object) -> tuple[str, Tile | None, list[Tile] | None]:
    """``(type, tile, tiles)`` of a wire-form action, or ``Malformed`` (extra keys ignored)."""
    if not isinstance(action, Mapping):
        raise Malformed('an action is an object such as {"type": "play", "tile": "2-5"}')
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise Malformed(f"unknown action type {shown(kind)}: it is one of \"play\", "
                        "\"declare\", \"close\", \"claim\"")
    if kind == PLAY:
        if "tile" not in action:
            raise Malformed('a play names a tile, e.g. {"type": "play", "tile": "2-5"}')
        return kind, _tile(action["tile"]), None
    if kind == DECLARE:
        given = action.get("tiles")
        if not isinstance(given, list):
            raise Malformed('a declaration lists the doubles shown, e.g. {"type": "declare", '
                            '"tiles": ["1-1", "4-4"]}')
        tiles = [_tile(code) for code in given]
        if len(set(tiles)) != len(tiles):
            raise Malformed("a declaration names each double once")
        return kind, None, tiles
    return kind, None, None


def _tile(text: object) -> Tile:
    try:
        return parse_tile(text)
    except ValueError as e:
        raise Malformed(str(e)) from None


def check_setup(hands: object, stock: object, turn_up: object, leader: object,
                match_points: object = (0, 0)) -> Setup:
    """The deal a setup describes, or ``Malformed`` saying what is wrong with it."""
    if not isinstance(hands, list | tuple) or len(hands) != 2:
        raise Malformed("a deal has two hands of seven tiles")
    seen = 0

    def take(code: object) -> Tile:
        nonlocal seen
        tile = _tile(code)
        if seen >> tile & 1:
            raise Malformed(f"the tile {CODES[tile]} is dealt twice")
        seen |= 1 << tile
        return tile

    dealt = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list | tuple) or len(hand) != HAND:
            raise Malformed(f"seat {seat}'s hand must be a list of seven tiles")
        dealt.append(mask_of(take(c) for c in hand))
    if not isinstance(stock, list | tuple) or len(stock) != STOCK:
        raise Malformed("the stock must be a list of 13 face-down tiles")
    order = tuple(take(c) for c in stock)
    up = take(turn_up)
    if type(leader) is not int or leader not in (0, 1):
        raise Malformed(f"the leader must be seat 0 or 1, not {shown(leader)}")
    if (not isinstance(match_points, list | tuple) or len(match_points) != 2
            or any(type(p) is not int or not 0 <= p < TARGET for p in match_points)):
        raise Malformed("match_points must be two whole numbers from 0 to 6")
    return Setup((dealt[0], dealt[1]), order, up, leader,
                 (int(match_points[0]), int(match_points[1])))


@dataclass(frozen=True)
class Setup:
    """A deal fully described (rules, section 5): both hands (masks), the thirteen face-down
    stock tiles in drawing order, the turn-up, who leads, and the match score before it."""

    hands: tuple[int, int]
    stock: tuple[Tile, ...]
    turn_up: Tile
    leader: int
    match_points: tuple[int, int] = (0, 0)

    def to_dict(self) -> JSON:
        return {"hands": [mask_codes(h) for h in self.hands],
                "stock": [CODES[t] for t in self.stock], "turn_up": CODES[self.turn_up],
                "leader": self.leader, "match_points": list(self.match_points)}


def shuffle(rng: random.Random, leader: int, match_points: tuple[int, int]) -> Setup:
    """All 28 tiles shuffled: seven each, thirteen face down, the turn-up (ruling 18)."""
    tiles = list(range(28))
    rng.shuffle(tiles)
    return Setup((mask_of(tiles[:7]), mask_of(tiles[7:14])), tuple(tiles[14:27]), tiles[27],
                 leader, match_points)


@dataclass
class Trick:
    number: int
    leader: int
    lead: Tile
    follow: Tile | None = None
    winner: int | None = None

    def to_dict(self) -> JSON:
        return {"trick": self.number, "leader": self.leader, "lead": CODES[self.lead],
                "follow": None if self.follow is None else CODES[self.follow],
                "winner": self.winner}


@dataclass(frozen=True)
class Declaration:
    seat: int
    tiles: int  # mask
    trick: int  # the trick it was declared before

    @property
    def size(self) -> int:
        return self.tiles.bit_count()

    @property
    def name(self) -> str:
        return DECLARATIONS[self.size][0]

    @property
    def points(self) -> int:
        """Declared points (0 for invincible, which scores game points instead)."""
        base = DECLARATIONS[self.size][1]
        if self.size < 7 and self.tiles >> BINGO & 1:
            base += 10
        return base

    def to_dict(self) -> JSON:
        return {"seat": self.seat, "tiles": mask_codes(self.tiles), "name": self.name,
                "value": self.points, "bingo": bool(self.tiles >> BINGO & 1),
                "trick": self.trick}


@dataclass
class Result:
    end: str
    winner: int | None
    game_points: tuple[int, int]
    claimed_by: int | None = None
    claim_correct: bool | None = None
    say: str = ""
    why: list[str] = field(default_factory=list)


class Deal:
    """One deal, played from its ``Setup``; see the module docstring."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.trump = trump_of(setup.turn_up)
        self.hands = [setup.hands[0], setup.hands[1]]
        #: Stock in drawing order, the turn-up last; ``drawn`` of them have been taken.
        self.order: tuple[Tile, ...] = (*setup.stock, setup.turn_up)
        self.drawn = 0
        #: Who drew each stock position (index into ``order``).
        self.drawer: list[int] = []
        self.closed_by: int | None = None
        #: The closer's opponent's tricks and points when the stock was closed.
        self.at_close: tuple[int, int] | None = None
        self.tricks: list[Trick] = []
        self.piles = [0, 0]
        self.declarations: list[Declaration] = []
        self.declared_mask = [0, 0]
        #: At the current lead: declared doubles (mask) and whether the leader closed.
        self.lead_declared = 0
        self.lead_closed = False
        self.turn: int | None = setup.leader
        self.bingo_bonus: int | None = None
        self.last_trick: int | None = None
        self.result: Result | None = None
        self.actions: list[tuple[int, JSON]] = []

    # --- reading -----------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def current(self) -> Trick | None:
        """The trick whose lead waits for the follow."""
        if self.tricks and self.tricks[-1].winner is None:
            return self.tricks[-1]
        return None

    @property
    def trick_number(self) -> int:
        """The trick in progress or about to be led."""
        if self.current is not None:
            return self.current.number
        return len(self.tricks) + 1

    @property
    def stock_left(self) -> int:
        """Stock tiles not drawn, the turn-up included (face up or, after a close, down)."""
        return len(self.order) - self.drawn

    @property
    def stock_open(self) -> bool:
        """Phase one: the turn-up is still face up in the stock (section 7)."""
        return self.closed_by is None and self.stock_left > 0

    def tricks_won(self, seat: int) -> int:
        return sum(1 for t in self.tricks if t.winner == seat)

    def card_points(self, seat: int) -> int:
        return sum(value(t, self.trump) for t in tiles_in(self.piles[seat]))

    def declared(self, seat: int) -> int:
        """Declaration points announced by ``seat``, counted or not."""
        return sum(d.points for d in self.declarations if d.seat == seat)

    def points(self, seat: int) -> int:
        """Card points + declarations once a trick is won + the last-trick bonus (section 13)."""
        p = self.card_points(seat)
        if self.tricks_won(seat):
            p += self.declared(seat)
        if self.last_trick == seat:
            p += LAST_TRICK_BONUS
        return p

    def undeclared_doubles(self, seat: int) -> int:
        return self.hands[seat] & DOUBLE_MASK & ~self.declared_mask[seat]

    def can_close(self, seat: int) -> bool:
        return (self.turn == seat and self.current is None and self.stock_open
                and len(self.tricks) >= 1 and not self.lead_closed)

    def can_declare(self, seat: int) -> bool:
        return (self.turn == seat and self.current is None and not self.lead_declared
                and self.undeclared_doubles(seat).bit_count() >= 2)

    def legal(self, seat: int) -> list[JSON]:
        if self.over or self.turn != seat:
            return []
        trick = self.current
        if trick is not None:
            allowed = self.hands[seat]
            if not self.stock_open:
                allowed = follows(allowed, trick.lead, self.trump)
            return [{"type": PLAY, "tile": CODES[t]} for t in tiles_in(allowed)]
        actions: list[JSON] = []
        if self.can_close(seat):
            actions.append({"type": CLOSE})
        if self.can_declare(seat):
            actions.append({"type": DECLARE,
                            "tiles": mask_codes(self.undeclared_doubles(seat))})
        actions.append({"type": CLAIM})
        leads = self.lead_declared or self.hands[seat]
        actions += [{"type": PLAY, "tile": CODES[t]} for t in tiles_in(leads)]
        return actions

    def prompt(self, seat: int | None) -> str:
        """Who must do what, in plain words (seats as ``{0}``, ``{1}``, as in ``say``)."""
        if self.result is not None:
            return self.result.say
        turn = self.turn
        assert turn is not None
        who = "You" if seat == turn else seat_ref(turn)
        trick = self.current
        if trick is not None:
            if self.stock_open:
                return f"{who} must answer the {CODES[trick.lead]}: any tile may be played."
            return (f"{who} must answer the {CODES[trick.lead]}: beat it if possible, else "
                    "follow its suit, else trump or play the bingo.")
        extras = []
        if self.can_close(turn):
            extras.append("close the stock")
        if seat == turn and self.can_declare(turn):  # whether he can is his secret
            extras.append("declare doubles")
        if self.lead_declared:
            lead = "lead one of the doubles just declared"
        else:
            lead = f"lead to trick {self.trick_number}"
        first = f" (first {'you' if seat == turn else 'they'} may {' or '.join(extras)})" \
            if extras else ""
        return f"{who} must {lead}{first}, or claim 70."

    # --- acting ------------------------------------------------------------------------

    def apply(self, seat: int, action: object) -> list[Event]:
        """Apply ``seat``'s action; ``GameError`` (nothing changed) if it is refused."""
        kind, tile, tiles = parse_action(action)
        check_seat(seat)
        if self.over:
            raise OutOfTurn("the deal is over: nobody is to act")
        trick = self.current
        if self.turn != seat:
            doing = "lead" if trick is None else "answer the lead"
            # Refusals carry no seat placeholders: they are plain text for the one seat.
            raise OutOfTurn(f"it is not your turn: the other player is to {doing}")
        if trick is not None and kind != PLAY:
            raise Illegal(f"only the player on lead may {kind}, before leading: you must "
                          f"answer the {CODES[trick.lead]} with a tile")
        if kind == PLAY:
            assert tile is not None
            self._check_play(seat, tile, trick)
        elif kind == CLOSE:
            self._check_close(seat)
        elif kind == DECLARE:
            assert tiles is not None
            self._check_declare(seat, tiles)
        # Checked: from here on nothing is refused.
        if kind == PLAY:
            assert tile is not None
            self.actions.append((seat, {"type": PLAY, "tile": CODES[tile]}))
            return self._lead(seat, tile) if trick is None else self._follow(seat, trick, tile)
        if kind == DECLARE:
            assert tiles is not None
            wire = {"type": DECLARE, "tiles": mask_codes(mask_of(tiles))}
            self.actions.append((seat, wire))
            return self._declare(seat, mask_of(tiles))
        self.actions.append((seat, {"type": kind}))
        if kind == CLOSE:
            return self._close(seat)
        return self._claim(seat)

    def _check_play(self, seat: int, tile: Tile, trick: Trick | None) -> None:
        if not self.hands[seat] >> tile & 1:
            for t in self.tricks:
                if tile in (t.lead, t.follow):
                    raise Illegal(f"the {CODES[tile]} was played in trick {t.number}")
            if tile == self.setup.turn_up and self.drawn < len(self.order):
                raise Illegal(f"the {CODES[tile]} is the turn-up: it is still in the stock")
            # In the other hand or face down in the stock: the same words either way.
            raise Illegal(f"you do not hold the {CODES[tile]}")
        if trick is None:
            if self.lead_declared and not self.lead_declared >> tile & 1:
                raise Illegal(f"after declaring you must lead one of the doubles just "
                              f"declared ({', '.join(mask_codes(self.lead_declared))}), not "
                              f"the {CODES[tile]}")
            return
        if self.stock_open:
            return
        allowed = follows(self.hands[seat], trick.lead, self.trump)
        if not allowed >> tile & 1:
            raise Illegal(f"the stock is {'closed' if self.closed_by is not None else 'gone'}"
                          f", so you must {self._duty(seat, trick.lead, allowed)}: "
                          f"the {CODES[tile]} is not allowed")

    def _duty(self, seat: int, lead: Tile, allowed: int) -> str:
        """Which step of the phase-two ladder binds, in words, with the tiles it allows."""
        tiles = ", ".join(mask_codes(allowed))
        step = duty_step(self.hands[seat], lead, self.trump)
        if is_trump(lead, self.trump):
            words = {1: "play a higher trump", 2: "play a trump",
                     3: "play the bingo, having no trump"}
        else:
            words = {1: f"beat the {CODES[lead]} in its suit",
                     2: f"follow the suit of the {CODES[lead]}",
                     3: "play a trump or the bingo, having none of its suit"}
        return f"{words.get(step, 'play a tile')} ({tiles})"

    def _check_close(self, seat: int) -> None:
        if self.closed_by is not None:
            raise Illegal("the stock is already closed")
        if self.stock_left == 0:
            raise Illegal("the stock is gone: there is nothing left to close")
        if not self.tricks:
            raise Illegal("you may not close before the first trick: closing needs a trick "
                          "won (tricks 2 to 7)")

    def _check_declare(self, seat: int, tiles: list[Tile]) -> None:
        if self.lead_declared:
            raise Illegal("you have already declared at this lead")
        mine = self.undeclared_doubles(seat)
        if mine.bit_count() < 2:
            raise Illegal("declaring needs at least two doubles in your hand that were "
                          "never declared")
        given = mask_of(tiles)
        if given != mine:
            raise Illegal(f"a declaration shows every undeclared double you hold, no other "
                          f"tile: {', '.join(mask_codes(mine))}")

    def _lead(self, seat: int, tile: Tile) -> list[Event]:
        number = self.trick_number
        self.hands[seat] ^= 1 << tile
        self.tricks.append(Trick(number, seat, tile))
        self.lead_declared = 0
        self.lead_closed = False
        self.turn = 1 - seat
        return [Event({"type": "lead", "seat": seat, "trick": number, "tile": CODES[tile],
                       "say": f"Trick {number}: {seat_ref(seat)} leads the {CODES[tile]}."})]

    def _follow(self, seat: int, trick: Trick, tile: Tile) -> list[Event]:
        self.hands[seat] ^= 1 << tile
        trick.follow = tile
        winner = seat if beats(trick.lead, tile, self.trump) else trick.leader
        trick.winner = winner
        self.piles[winner] |= (1 << tile) | (1 << trick.lead)
        events = [Event({"type": "follow", "seat": seat, "trick": trick.number,
                         "tile": CODES[tile], "winner": winner,
                         "say": f"{seat_ref(seat)} plays the {CODES[tile]}: {seat_ref(winner)} "
                                f"wins trick {trick.number}."})]
        self.turn = winner
        bingo_by = self._bingo_bonus(trick)
        if bingo_by is not None:
            self.bingo_bonus = bingo_by
            events.append(Event({"type": "bingo_bonus", "seat": bingo_by,
                                 "say": f"The bingo takes the trump double: {seat_ref(bingo_by)} "
                                        "scores 1 game point at once."}))
            if self.setup.match_points[bingo_by] + 1 >= TARGET:
                gp = (1, 0) if bingo_by == 0 else (0, 1)
                say = (f"{seat_ref(bingo_by)} reaches {TARGET} game points with the bingo bonus: "
                       "the match ends on the spot, and nobody wins this deal.")
                self.result = Result(END_MATCH_WON, None, gp, say=say, why=[say])
                return events + self._end()
        if self.stock_open:
            events += self._draw(winner)
        if not self.hands[0] and not self.hands[1]:
            if self.closed_by is None:
                self.last_trick = winner
            return events + self._settle()
        return events

    def _bingo_bonus(self, trick: Trick) -> int | None:
        if self.trump == 0:
            return None
        pair = {trick.lead, trick.follow}
        if pair != {BINGO, double_of(self.trump)}:
            return None
        return trick.leader if trick.lead == BINGO else 1 - trick.leader

    def _draw(self, winner: int) -> list[Event]:
        events = []
        for seat in (winner, 1 - winner):
            tile = self.order[self.drawn]
            self.drawn += 1
            self.drawer.append(seat)
            self.hands[seat] |= 1 << tile
            if self.drawn == len(self.order):
                events.append(Event({"type": "draw", "seat": seat, "tile": CODES[tile],
                                     "turn_up": True, "stock": 0,
                                     "say": f"{seat_ref(seat)} takes the turn-up, the "
                                            f"{CODES[tile]}: the stock is gone."}))
                continue
            public = {"type": "draw", "seat": seat, "turn_up": False,
                      "stock": self.stock_left,
                      "say": f"{seat_ref(seat)} draws from the stock."}
            private = {**public, "tile": CODES[tile],
                       "say": f"{seat_ref(seat)} draws the {CODES[tile]} from the stock."}
            events.append(Event(public, {seat: private}))
        return events

    def _declare(self, seat: int, tiles: int) -> list[Event]:
        decl = Declaration(seat, tiles, self.trick_number)
        self.declarations.append(decl)
        self.declared_mask[seat] |= tiles
        self.lead_declared = tiles
        codes = ", ".join(mask_codes(tiles))
        if decl.size == 7:
            self.result = Result(END_INVINCIBLE, seat, (3, 0) if seat == 0 else (0, 3))
            say = (f"{seat_ref(seat)} declares invincible, all seven doubles, and scores 3 game "
                   "points without further play.")
            self.result.say = say
            self.result.why = [say]
            return [Event({"type": "declare", **decl.to_dict(), "say": say}), *self._end()]
        counts = ("it counts, as a trick is already won" if self.tricks_won(seat)
                  else "it counts once a trick is won")
        bonus = " with the bingo" if tiles >> BINGO & 1 else ""
        article = "an" if decl.name[0] in "aeiou" else "a"
        return [Event({"type": "declare", **decl.to_dict(),
                       "say": f"{seat_ref(seat)} declares {article} {decl.name}{bonus} "
                              f"({codes}) for {decl.points} points; {counts}."})]

    def _close(self, seat: int) -> list[Event]:
        other = 1 - seat
        self.closed_by = seat
        self.lead_closed = True
        self.at_close = (self.tricks_won(other), self.points(other))
        return [Event({"type": "close", "seat": seat, "stock": self.stock_left,
                       "say": f"{seat_ref(seat)} closes the stock: the turn-up is turned face "
                              "down, nobody draws again, and the follower must now follow "
                              "and beat."})]

    def _claim(self, seat: int) -> list[Event]:
        other = 1 - seat
        mine = self.points(seat)
        correct = mine >= CLAIM_AT
        why = [f"{seat_ref(seat)} claims with {mine} points: "
               + ("correct, 70 or more." if correct else "wrong, short of 70.")]
        if self.closed_by is None:
            if correct:
                winner = seat
                gp, reason = self._scale(self.tricks_won(other), self.points(other), other)
            else:
                winner, gp = other, 2
                reason = "a wrong claim gives the other player 2"
        elif self.closed_by == seat:
            assert self.at_close is not None
            if correct:
                winner = seat
                gp, reason = self._scale(*self.at_close, other, when="when the stock was closed")
            else:
                winner = other
                gp, reason = self._closer_failed(seat)
        else:
            winner = seat if correct else other
            gp = 2
            reason = ("the closer's opponent claiming correctly scores 2" if correct
                      else "a wrong claim by the closer's opponent gives the closer 2")
        why.append(f"{seat_ref(winner)} wins the deal and scores {plural(gp, 'game point')}: "
                   f"{reason}.")
        self.result = Result(END_CLAIM, winner, (gp, 0) if winner == 0 else (0, gp),
                             claimed_by=seat, claim_correct=correct)
        return self._finish(why)

    def _closer_failed(self, closer: int) -> tuple[int, str]:
        assert self.at_close is not None
        if self.at_close[0] == 0:
            return 3, (f"{seat_ref(1 - closer)} had no trick when {seat_ref(closer)} closed the "
                       "stock, so 3")
        return 2, f"the closer fell short of 70, so {seat_ref(1 - closer)} scores 2"

    def _scale(self, tricks: int, points: int, loser: int,
               when: str | None = None) -> tuple[int, str]:
        """Game points by what the loser has (section 13): 3, 2 or 1, with the reason;
        ``when``: the moment it is told of ("at the end"), else now ("has")."""
        who = f"{seat_ref(loser)} has" if when is None else f"{seat_ref(loser)} had"
        at = "" if when is None else f" {when}"
        if tricks == 0:
            return 3, f"{who} no trick{at}"
        if points < 30:
            return 2, f"{who} {points} points{at}, fewer than 30"
        return 1, f"{who} {points} points{at}, 30 or more"

    def _settle(self) -> list[Event]:
        """Both hands empty: the server settles (section 12, ruling 14)."""
        why: list[str] = []
        if self.closed_by is None:
            last = self.last_trick
            assert last is not None
            other = 1 - last
            mine = self.points(last)
            why.append(f"All tiles are played; {seat_ref(last)} won the last trick: 10 extra "
                       f"points, {mine} in all.")
            if mine >= CLAIM_AT:
                winner, loser = last, other
                why.append(f"{seat_ref(last)} has 70 or more and wins the deal.")
            else:
                winner, loser = other, last
                why.append(f"{seat_ref(last)} is short of 70, so {seat_ref(other)} wins the deal "
                           f"with {self.points(other)}.")
            gp, reason = self._scale(self.tricks_won(loser), self.points(loser), loser,
                                     when="at the end")
        else:
            closer = self.closed_by
            mine = self.points(closer)
            why.append(f"All tiles are played after {seat_ref(closer)} closed the stock; "
                       f"{seat_ref(closer)} has {mine} points.")
            if mine >= CLAIM_AT:
                winner = closer
                assert self.at_close is not None
                gp, reason = self._scale(*self.at_close, 1 - closer,
                                         when="when the stock was closed")
            else:
                winner = 1 - closer
                gp, reason = self._closer_failed(closer)
        why.append(f"{seat_ref(winner)} scores {plural(gp, 'game point')}: {reason}.")
        self.result = Result(END_PLAYED_OUT, winner, (gp, 0) if winner == 0 else (0, gp))
        return self._finish(why)

    def _finish(self, why: list[str]) -> list[Event]:
        assert self.result is not None
        if self.bingo_bonus is not None:
            gp = list(self.result.game_points)
            gp[self.bingo_bonus] += 1
            self.result.game_points = (gp[0], gp[1])
            why.append(f"{seat_ref(self.bingo_bonus)} also keeps the 1 game point of the bingo "
                       "bonus.")
        self.result.why = why
        self.result.say = " ".join(why)
        return self._end()

    def _end(self) -> list[Event]:
        self.turn = None
        return [Event({"type": "deal_over", **self.summary(), "reveal": self.reveal()})]

    # --- what is shown -----------------------------------------------------------------

    def summary(self) -> JSON:
        """The end of the deal in the replay command's words (plus ``say``)."""
        r = self.result
        return {
            "end": None if r is None else r.end,
            "winner": None if r is None else r.winner,
            "claimed_by": None if r is None else r.claimed_by,
            "claim_correct": None if r is None else r.claim_correct,
            "closed_by": self.closed_by,
            "trump": self.trump,
            "tricks": [self.tricks_won(s) for s in (0, 1)],
            "card_points": [self.card_points(s) for s in (0, 1)],
            "declared": [self.declared(s) for s in (0, 1)],
            "last_trick": self.last_trick,
            "points": [self.points(s) for s in (0, 1)],
            "game_points": [0, 0] if r is None else list(r.game_points),
            "bingo_bonus": self.bingo_bonus,
            "say": "" if r is None else r.say,
            "why": [] if r is None else list(r.why),
        }

    def game_points(self) -> tuple[int, int]:
        """Game points scored in this deal so far (the bingo bonus counts at once)."""
        if self.result is not None:
            return self.result.game_points
        if self.bingo_bonus is not None:
            return (1, 0) if self.bingo_bonus == 0 else (0, 1)
        return (0, 0)

    def reveal(self) -> JSON:
        """Everything hidden, for the end of the deal."""
        return {"dealt": [mask_codes(h) for h in self.setup.hands],
                "hands": [mask_codes(h) for h in self.hands],
                "stock": [CODES[t] for t in self.setup.stock],
                "turn_up": CODES[self.setup.turn_up],
                "stock_left": [CODES[t] for t in self.order[self.drawn:]],
                "tricks": [t.to_dict() for t in self.tricks]}

    def board(self, seat: int | None, open_tally: bool) -> JSON:
        """The table as ``seat`` sees it (``None``: a spectator)."""
        trick = self.current
        done = [t for t in self.tricks if t.winner is not None]
        show_all = open_tally or self.over
        board: JSON = {
            "trump": self.trump,
            "trump_name": SUIT_NAMES[self.trump],
            "turn_up": CODES[self.setup.turn_up],
            "turn_up_face_up": self.stock_open,
            "turn_up_drawn_by": (self.drawer[-1] if self.drawn == len(self.order) else None),
            "stock_count": self.stock_left,
            "phase": 1 if self.stock_open else 2,
            "closed_by": self.closed_by,
            "leader": self.setup.leader,
            "trick_number": min(self.trick_number, 14),
            "trick": (None if trick is None
                      else {"leader": trick.leader, "lead": CODES[trick.lead]}),
            "last_trick": done[-1].to_dict() if done else None,
            "tricks_won": [self.tricks_won(s) for s in (0, 1)],
            "hand_sizes": [h.bit_count() for h in self.hands],
            "declarations": [d.to_dict() for d in self.declarations],
            "bingo_bonus": self.bingo_bonus,
            "open_tally": open_tally,
            "tally": None,
            "result": None,
            "reveal": None,
        }
        if show_all:
            board["tally"] = {
                "card_points": [self.card_points(s) for s in (0, 1)],
                "declared": [self.declared(s) for s in (0, 1)],
                "declared_counting": [self.declared(s) if self.tricks_won(s) else 0
                                      for s in (0, 1)],
                "last_trick_bonus": self.last_trick,
                "points": [self.points(s) for s in (0, 1)],
                "tricks": [t.to_dict() for t in done],
            }
        if self.over:
            board["result"] = self.summary()
            board["reveal"] = self.reveal()
        if seat is not None:
            board["hand"] = mask_codes(self.hands[seat])
            board["declared_tiles"] = mask_codes(self.declared_mask[seat])
        return board


# --- the match -----------------------------------------------------------------------------

class BingoMatch:
    """Deals until a seat has 7 game points; deals come from ``seed`` (or, rebuilding a
    record, from its setups)."""

    def __init__(self, seed: int, options: Mapping[str, Any] | None = None,
                 setups: Sequence[Setup] | None = None) -> None:
        self.seed = seed
        self.options: JSON = dict(options or {})
        self.open_tally = bool(self.options.get("open_tally", False))
        self._rng = random.Random(seed)
        self._first_leader = self._rng.randrange(2)
        self._setups = list(setups or [])
        #: Deals before the first of ``deals``, and the game points they left (``joined``).
        self._before: tuple[int, tuple[int, int]] = (0, (0, 0))
        self.deals: list[Deal] = []
        self._opening = self._new_deal()

    @classmethod
    def joined(cls, options: Mapping[str, Any], setup: Setup, deal_number: int) -> BingoMatch:
        """A match seen from deal ``deal_number`` on, dealt ``setup``: the deals before it are
        known only by the score they left (``setup.match_points``), as a seat's view shows
        them. A determinized world (``sample_world``) is one."""
        match = cls(0, options, [setup])
        match._before = (deal_number - 1, setup.match_points)
        return match

    def _next_setup(self) -> Setup:
        index = len(self.deals)
        totals = self.totals()
        if self.deals:
            prev = self.deals[-1].result
            assert prev is not None and prev.winner is not None
            leader = prev.winner
        else:
            leader = self._first_leader
        # The rng is advanced for every deal, given or not, so a record rebuilt from its
        # setups deals later deals exactly as the live match would.
        drawn = shuffle(self._rng, leader, (totals[0], totals[1]))
        if index < len(self._setups):
            return self._setups[index]
        return drawn

    def _new_deal(self) -> list[Event]:
        setup = self._next_setup()
        self.deals.append(Deal(setup))
        n = len(self.deals)
        say = (f"Deal {n}: the turn-up is the {CODES[setup.turn_up]}, so "
               f"{SUIT_NAMES[trump_of(setup.turn_up)]} are trumps; {seat_ref(setup.leader)} leads.")
        events = [Event({"type": "deal", "deal": n, "leader": setup.leader,
                         "turn_up": CODES[setup.turn_up], "trump": trump_of(setup.turn_up),
                         "say": say},
                        {s: {"type": "deal", "deal": n, "leader": setup.leader,
                             "turn_up": CODES[setup.turn_up],
                             "trump": trump_of(setup.turn_up),
                             "hand": mask_codes(setup.hands[s]), "say": say}
                         for s in (0, 1)})]
        return events

    @property
    def deal(self) -> Deal:
        return self.deals[-1]

    def totals(self) -> list[int]:
        t = list(self._before[1])
        for d in self.deals:
            gp = d.game_points()
            t[0] += gp[0]
            t[1] += gp[1]
        return t

    # --- the contract ----------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.deal.over and max(self.totals()) >= TARGET

    @property
    def between_games(self) -> bool:
        return self.deal.over and not self.over

    @property
    def winner(self) -> int | None:
        if not self.over:
            return None
        t = self.totals()
        return 0 if t[0] >= TARGET else 1

    def to_act(self) -> frozenset[int]:
        return seats_to_act(self.deal.turn)

    def legal(self, seat: int) -> list[JSON]:
        return self.deal.legal(seat)

    def apply(self, seat: int, action: Mapping[str, Any]) -> list[Event]:
        if self.between_games:
            parse_action(action)
            raise OutOfTurn("this deal is over and the next one has not been dealt")
        if self.over:
            parse_action(action)
            raise OutOfTurn("the match is over")
        events = self.deal.apply(seat, action)
        if self.over:
            events.append(Event(self._match_over()))
        return events

    def _match_over(self) -> JSON:
        t = self.totals()
        winner = self.winner
        assert winner is not None
        return {"type": "match_over", "totals": t, "winner": winner,
                "say": f"{seat_ref(winner)} wins the match, {max(t)} game points to {min(t)}."}

    def opening_events(self) -> list[Event]:
        return list(self._opening)

    def why(self) -> JSON | None:
        # The board's ``result`` in every view carries the deal's ``why`` lines with their
        # ``{0}``/``{1}``, which each reader's page puts in its own words ("you claim").
        return None

    def start_next_game(self) -> list[Event]:
        if not self.between_games:
            raise Illegal("the next deal starts only after a deal has ended, before the "
                          "match is over")
        return self._new_deal()

    def prompt(self, seat: int | None) -> str:
        if self.over:
            return f"{self.deal.prompt(seat)} {self._match_over()['say']}"
        if self.between_games:
            return f"{self.deal.prompt(seat)} Deal {len(self.deals) + 1} is next."
        return self.deal.prompt(seat)

    def view(self, seat: int | None) -> JSON:
        return {
            "game": "bingo",
            "seat": seat,
            **acting_keys(self, seat),
            "match": {
                "deal_number": self._before[0] + len(self.deals),
                "target": TARGET,
                "match_points": self.totals(),
                "before_deal": list(self.deal.setup.match_points),
                "over": self.over,
                "winner": self.winner,
            },
            "board": self.deal.board(seat, self.open_tally),
        }

    def scoreboard(self) -> JSON:
        rows = []
        for index, d in enumerate(self.deals):
            rows.append({"deal": index + 1, "leader": d.setup.leader, "trump": d.trump,
                         "game_points": list(d.game_points()),
                         "result": d.summary() if d.over else None})
        return {"games": rows, "totals": self.totals(), "standing": self.totals(),
                "rule": RULE, "target": TARGET,
                "over": self.over, "winner": self.winner}

    def record(self) -> JSON:
        return {"game": "bingo", "seed": self.seed, "options": dict(self.options),
                "games": [{"setup": d.setup.to_dict(),
                           "actions": [[s, dict(a)] for s, a in d.actions],
                           "result": d.summary() if d.over else None,
                           "winner": None if d.result is None else d.result.winner}
                          for d in self.deals]}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> BingoMatch:
        """Rebuild a match from ``record()`` (its setups, not its seed, deal the games)."""
        setups = []
        for d in record["games"]:
            s = d["setup"]
            setups.append(check_setup(s["hands"], s["stock"], s["turn_up"], s["leader"],
                                      s["match_points"]))
        match = cls(record["seed"], record["options"], setups)
        return replay_games(match, (d["actions"] for d in record["games"]))


def check_state(match: BingoMatch) -> None:
    """The invariants of the rules page (section 18); ``AssertionError`` if one is broken."""
    totals = [0, 0]
    for index, d in enumerate(match.deals):
        assert d.setup.match_points == (totals[0], totals[1]), "match points carried wrongly"
        places = [d.hands[0], d.hands[1], d.piles[0], d.piles[1],
                  mask_of(d.order[d.drawn:])]
        trick = d.current
        if trick is not None:
            places.append(1 << trick.lead)
        total = 0
        for m in places:
            assert total & m == 0, "a tile is in two places"
            total |= m
        assert total == (1 << 28) - 1, "a tile is missing"
        if d.current is None and not d.over:
            assert d.hands[0].bit_count() == d.hands[1].bit_count(), "hands differ at a lead"
        assert d.drawn == len(d.drawer)
        assert d.drawn % 2 == 0 and d.drawn <= 14
        cp = [d.card_points(s) for s in (0, 1)]
        if not d.hands[0] and not d.hands[1]:
            left = sum(value(t, d.trump) for t in d.order[d.drawn:])
            assert sum(cp) + left == sum(value(t, d.trump) for t in range(28)), \
                "points do not add up"
        assert sum(t.winner is not None for t in d.tricks) == sum(d.tricks_won(s)
                                                                   for s in (0, 1))
        for s in (0, 1):
            assert d.declared_mask[s] & ~d.setup.hands[s] & ~mask_of(
                d.order[:d.drawn]) == 0, "a declared double was never held"
        for t in d.tricks:
            if t.winner is not None:
                assert t.follow is not None
                w = t.leader if not beats(t.lead, t.follow, d.trump) else 1 - t.leader
                assert w == t.winner, "a trick went to the wrong seat"
        r = d.result
        if r is not None:
            assert d.turn is None
            if r.end == END_MATCH_WON:
                assert r.winner is None and d.bingo_bonus is not None
            else:
                assert r.winner in (0, 1)
                assert sum(r.game_points) - (d.bingo_bonus is not None) in (1, 2, 3)
        else:
            assert index == len(match.deals) - 1
            assert d.turn in (0, 1)
        gp = d.game_points()
        totals[0] += gp[0]
        totals[1] += gp[1]
        if index < len(match.deals) - 1:
            assert d.over and max(totals) < TARGET
    assert match.totals() == totals
    if match.over:
        assert max(totals) >= TARGET and min(totals) < TARGET
