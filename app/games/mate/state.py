"""One game of Mate (``Game``) and the four-game match (``MateMatch``, the contract's
``MatchState``). The rules and every ruling: ``docs/rules-mate.md``.

``Game`` is a deal plus its list of actions. ``apply`` checks everything before it
changes anything, so a refusal leaves the state as it was. What the rules make
automatic happens inside ``apply``, so the state always rests on a real decision or on
the end of the game: a mate is declared the moment an unanswerable card is led, and a
lone foreplacer's move-9 card is played again on move 10 without an action.

Secrecy (rules, section 7) is built in here rather than left to callers. The one
secret is which card a player foreplaced, and the only places it is read are the
owner's private event form, the owner's view, the owner's refusals and the end-of-game
reveal. Everything public about a foreplacement has a fixed form ("{0} foreplaces a
card face down"), every list of cards is in pack order, and a refusal a seat provokes
with a card of the opponent says the same thing whether that card is in the opponent's
hand or face down.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..contract import JSON, Event, Illegal, Malformed, OutOfTurn, shown
from ..kit import acting_keys, check_seat, mask_of, replay_games, seat_ref, seats_to_act
from .cards import (
    BY_CODE,
    CODES,
    NAME,
    RANK_NAMES,
    RANK_OF_MASK,
    SUIT_NAMES,
    SUIT_OF_MASK,
    VALUE,
    Card,
    answers,
    beats,
    cards_in,
    mask_codes,
    rank_of,
    suit_of,
)

FOREPLACE, DECLINE, PLAY = "foreplace", "decline", "play"
TYPES = (FOREPLACE, DECLINE, PLAY)
#: Phases of a game.
DECIDING, PLAYING, OVER = "foreplace", "play", "over"
GAMES = 4
#: The multiplication sign, spaced, for the narration ("3 x 5 = 15" with a real times).
TIMES = " \u00d7 "
HAND = 10
RULE = ("four games, two rounds of two: the hands are exchanged for the second game of "
        "each round; only the mater scores (card value times the move number, + 1 if the mater "
        "foreplaced, doubled for an overmate); the higher total of the four games wins "
        "the match, by the difference; equal totals are a draw")


def parse_action(action: object) -> tuple[str, Card | None]:
    """``(type, card)`` of a wire-form action, or ``Malformed`` (extra keys are ignored)."""
    if not isinstance(action, Mapping):
        raise Malformed('an action is an object such as {"type": "play", "card": "7H"}')
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        raise Malformed(f"unknown action type {shown(kind)}: "
                        "it is one of \"foreplace\", \"decline\", \"play\"")
    if kind == DECLINE:
        return kind, None
    if "card" not in action:
        raise Malformed(f"a {kind} action names a card, e.g. {{\"type\": \"{kind}\", "
                        "\"card\": \"7H\"}")
    return kind, parse_card(action["card"])


def parse_card(text: object) -> Card:
    """A card code such as ``TC`` (exactly: rank A T K Q 7, then suit C S H D)."""
    if isinstance(text, str):
        card = BY_CODE.get(text)
        if card is not None:
            return card
    raise Malformed(f"{shown(text)} is not a card of the Mate pack "
                    "(rank A T K Q 7, then suit C S H D, e.g. \"TC\")")


def check_deal(hands: object, leader: object) -> tuple[tuple[int, int], int]:
    """``(hand masks, leader)`` of a deal, or ``Malformed`` saying what is wrong with it."""
    if type(leader) is not int or leader not in (0, 1):
        raise Malformed(f"the leader must be seat 0 or 1, not {shown(leader)}")
    if not isinstance(hands, list | tuple) or len(hands) != 2:
        raise Malformed("a deal is two hands of ten cards")
    masks = []
    seen = 0
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list | tuple) or len(hand) != HAND:
            raise Malformed(f"seat {seat}'s hand must be a list of ten cards")
        mask = 0
        for code in hand:
            card = parse_card(code)
            if (seen | mask) >> card & 1:
                raise Malformed(f"the {NAME[card]} is dealt twice")
            mask |= 1 << card
        seen |= mask
        masks.append(mask)
    return (masks[0], masks[1]), leader


def deal(rng: random.Random, dealer: int) -> tuple[int, int]:
    """Shuffle the pack and deal it in batches of five, the non-dealer first (hand masks)."""
    pack = list(range(20))
    rng.shuffle(pack)
    hands = [0, 0]
    for batch in range(4):
        seat = 1 - dealer if batch % 2 == 0 else dealer
        hands[seat] |= mask_of(pack[batch * 5:batch * 5 + 5])
    return hands[0], hands[1]


def _a(noun: str) -> str:
    """``noun`` with its indefinite article: "an ace", "a ten"."""
    return ("an " if noun[0] in "aeiou" else "a ") + noun


@dataclass
class Move:
    """One move: the lead and its answer; ``repeat`` is the seat whose card was played again
    (a lone foreplacer's move 10), ``answer`` is ``None`` until answered (or after a mate)."""

    number: int
    leader: int
    lead: Card
    answer: Card | None = None
    winner: int | None = None
    repeat: int | None = None

    def to_dict(self) -> JSON:
        return {"move": self.number, "leader": self.leader, "lead": CODES[self.lead],
                "answer": None if self.answer is None else CODES[self.answer],
                "winner": self.winner, "repeat": self.repeat}


@dataclass(frozen=True)
class Result:
    """How a game ended: the mated seat (``None`` for a draw), the move, the mating card."""

    mated: int | None
    move: int | None
    card: Card | None
    overmate: bool
    multiplier: int
    scores: tuple[int, int]
    say: str

    def to_dict(self) -> JSON:
        return {"mated": self.mated, "mater": None if self.mated is None else 1 - self.mated,
                "move": self.move, "card": None if self.card is None else CODES[self.card],
                "overmate": self.overmate, "multiplier": self.multiplier,
                "scores": list(self.scores), "say": self.say}


class Game:
    """One play-through of one deal; see the module docstring."""

    def __init__(self, hands: tuple[int, int], leader: int) -> None:
        self.dealt = hands
        self.leader = leader
        self.hands = [hands[0], hands[1]]
        self.fore: list[Card | None] = [None, None]
        self.decided = [False, False]
        self.piles: list[list[tuple[int, Card]]] = [[], []]
        self.moves: list[Move] = []
        self.phase = DECIDING
        #: The seat to act (``None`` when the game is over).
        self.turn: int | None = leader
        self.result: Result | None = None
        self.actions: list[tuple[int, JSON]] = []

    # --- reading -----------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def current(self) -> Move | None:
        """The move whose lead waits for its answer."""
        if self.moves and self.moves[-1].winner is None and self.phase == PLAYING:
            return self.moves[-1]
        return None

    @property
    def move_number(self) -> int:
        """The move in progress or about to be led (the last one once the game is over)."""
        if not self.moves:
            return 1
        last = self.moves[-1]
        return last.number + 1 if last.winner is not None and not self.over else last.number

    def foreplaced(self, seat: int) -> bool:
        return self.fore[seat] is not None

    def unplayed(self, seat: int) -> int:
        """The cards ``seat`` has not played: its hand and its face-down card (a mask)."""
        card = self.fore[seat]
        return self.hands[seat] | (0 if card is None else 1 << card)

    def multiplier(self, seat: int) -> int:
        """What a mate given by ``seat`` on the current move is worth per point of card value."""
        n = self.move_number
        lone = self.foreplaced(seat) and not self.foreplaced(1 - seat)
        if lone and n == 10:
            return 22  # the repeat: (10 + 1) times 2, an overmate
        return n + (1 if self.foreplaced(seat) else 0)

    def legal(self, seat: int) -> list[JSON]:
        if self.turn != seat:
            return []
        if self.phase == DECIDING:
            return [{"type": DECLINE}] + [{"type": FOREPLACE, "card": CODES[c]}
                                          for c in cards_in(self.hands[seat])]
        move = self.current
        allowed = self.hands[seat] if move is None else answers(self.hands[seat], move.lead)
        return [{"type": PLAY, "card": CODES[c]} for c in cards_in(allowed)]

    def prompt(self, seat: int | None) -> str:
        """Who must do what, in plain words (seats as ``{0}``, ``{1}``, as in ``say``)."""
        if self.result is not None:
            return self.result.say
        turn = self.turn
        assert turn is not None
        who = "You" if seat == turn else seat_ref(turn)
        if self.phase == DECIDING:
            return f"{who} must decide: foreplace a card face down, or decline."
        move = self.current
        if move is None:
            return f"{who} must lead to move {self.move_number}."
        lead = move.lead
        return (f"{who} must answer the {NAME[lead]} (a {SUIT_NAMES[suit_of(lead)][:-1]} if "
                f"possible, else {_a(RANK_NAMES[rank_of(lead)])}).")

    # --- acting ------------------------------------------------------------------------

    def apply(self, seat: int, action: object) -> list[Event]:
        """Apply ``seat``'s action; ``GameError`` (nothing changed) if it is refused."""
        kind, card = parse_action(action)
        check_seat(seat)
        if self.over:
            raise OutOfTurn("the game is over: nobody is to act")
        if self.phase == DECIDING:
            if self.decided[seat]:
                own = self.fore[seat]
                done = ("declined" if own is None else f"foreplaced the {NAME[own]}")
                raise Illegal(f"you have already decided on foreplacement (you {done}): "
                              "each player decides once and foreplaces at most one card")
            if self.turn != seat:
                raise OutOfTurn("it is not your turn: the other player decides on "
                                "foreplacement first")
            if kind == PLAY:
                raise Illegal("decide on foreplacement first: foreplace a card face down, "
                              "or decline; move 1 is led after both decisions")
        else:
            if kind != PLAY:
                raise Illegal(f"foreplacement is decided before move 1: it is move "
                              f"{self.move_number}, too late to {kind}")
            if self.turn != seat:
                if not self.hands[seat] and self.foreplaced(seat):
                    raise OutOfTurn("you have no card left: your move-9 card is played again "
                                    "automatically")
                raise OutOfTurn("it is not your turn: the other player is to "
                                f"{'lead' if self.current is None else 'answer'}")
        assert card is not None or kind == DECLINE
        if card is not None:
            self._check_held(seat, card)
        move = self.current
        if kind == PLAY and move is not None:
            assert card is not None
            self._check_answer(seat, move.lead, card)
        # Checked: from here on nothing is refused.
        self.actions.append((seat, _wire(kind, card)))
        if kind == DECLINE:
            return self._decide(seat, None)
        assert card is not None
        if kind == FOREPLACE:
            return self._decide(seat, card)
        if move is None:
            return self._lead(seat, card)
        return self._answer(seat, move, card)

    def _check_held(self, seat: int, card: Card) -> None:
        if self.hands[seat] >> card & 1:
            return
        if self.fore[seat] == card:
            raise Illegal(f"the {NAME[card]} is your face-down card: a foreplaced card takes "
                          "no further part in the game")
        for number, played in self.piles[seat]:
            if played == card:
                raise Illegal(f"you played the {NAME[card]} on move {number}: you no longer "
                              "hold it")
        for number, played in self.piles[1 - seat]:
            if played == card:
                raise Illegal(f"the {NAME[card]} was played by the other player on move "
                              f"{number}")
        # In the other hand or face down there: the same words either way (section 7).
        raise Illegal(f"you do not hold the {NAME[card]}")

    def _check_answer(self, seat: int, lead: Card, card: Card) -> None:
        hand = self.hands[seat]
        suit, rank = suit_of(lead), rank_of(lead)
        if hand & SUIT_OF_MASK[lead]:
            if suit_of(card) != suit:
                raise Illegal(f"you must follow suit: you hold {SUIT_NAMES[suit]}, so the "
                              f"{NAME[card]} may not answer the {NAME[lead]}")
            return
        if rank_of(card) != rank:
            raise Illegal(f"you hold no {SUIT_NAMES[suit]}, so you must answer the "
                          f"{NAME[lead]} with {_a(RANK_NAMES[rank])}, not the {NAME[card]}")

    def _decide(self, seat: int, card: Card | None) -> list[Event]:
        self.decided[seat] = True
        if card is None:
            events = [Event({"type": DECLINE, "seat": seat,
                             "say": f"{seat_ref(seat)} does not foreplace."})]
        else:
            self.hands[seat] ^= 1 << card
            self.fore[seat] = card
            public = {"type": FOREPLACE, "seat": seat,
                      "say": f"{seat_ref(seat)} foreplaces a card face down."}
            events = [Event(public, {seat: {**public, "card": CODES[card],
                                            "say": f"{seat_ref(seat)} foreplaces the "
                                                   f"{NAME[card]} face down."}})]
        if self.decided[1 - seat]:
            self.phase = PLAYING
            self.turn = self.leader
        else:
            self.turn = 1 - seat
        return events

    def _lead(self, seat: int, card: Card) -> list[Event]:
        number = self.move_number
        self.hands[seat] ^= 1 << card
        self.piles[seat].append((number, card))
        move = Move(number, seat, card)
        self.moves.append(move)
        events = [Event({"type": "lead", "seat": seat, "move": number, "card": CODES[card],
                         "say": f"Move {number}: {seat_ref(seat)} leads the {NAME[card]}."})]
        other = 1 - seat
        if not self.hands[other] and self.fore[other] is not None:
            # Move 10: the lone foreplacer's move-9 card answers, if it can.
            repeat = self.piles[other][-1][1]
            move.repeat = other
            if (1 << repeat) & (SUIT_OF_MASK[card] | RANK_OF_MASK[card]):
                return events + self._finish_move(move, repeat, again=True)
            return events + self._mate(move, again=True)
        if not answers(self.hands[other], card):
            return events + self._mate(move)
        self.turn = other
        return events

    def _answer(self, seat: int, move: Move, card: Card) -> list[Event]:
        self.hands[seat] ^= 1 << card
        self.piles[seat].append((move.number, card))
        return self._finish_move(move, card)

    def _finish_move(self, move: Move, card: Card, again: bool = False) -> list[Event]:
        """``card`` answers ``move``; then the game ends, or the next move is led."""
        move.answer = card
        seat = 1 - move.leader
        move.winner = move.leader if beats(move.lead, card) else seat
        verb = "plays the" if not again else "has no card left and plays again the"
        event = Event({"type": "answer", "seat": seat, "move": move.number,
                       "card": CODES[card], "winner": move.winner, "again": again,
                       "say": f"{seat_ref(seat)} {verb} {NAME[card]}: {seat_ref(move.winner)} wins "
                              f"move {move.number}."})
        events = [event]
        left = self.hands
        if move.repeat is not None or (not left[0] and not left[1]):
            return events + self._draw(move.number)
        if not left[0] or not left[1]:
            # After move 9 a lone foreplacer has no card left: move 10 all the same.
            fore = 0 if not left[0] else 1
            if move.winner == fore:
                return events + self._repeat_lead(fore)
        self.turn = move.winner
        return events

    def _repeat_lead(self, fore: int) -> list[Event]:
        """The lone foreplacer won move 9: it leads its move-9 card again on move 10."""
        card = self.piles[fore][-1][1]
        move = Move(10, fore, card, repeat=fore)
        self.moves.append(move)
        events = [Event({"type": "lead", "seat": fore, "move": 10, "card": CODES[card],
                         "again": True,
                         "say": f"Move 10: {seat_ref(fore)} has no card left and leads the "
                                f"{NAME[card]} again."})]
        other = 1 - fore
        if not answers(self.hands[other], card):
            return events + self._mate(move, overmate=True)
        self.turn = other
        return events

    def _mate(self, move: Move, again: bool = False, overmate: bool = False) -> list[Event]:
        mater = move.leader
        mated = 1 - mater
        card = move.lead
        multiplier = move.number + (1 if self.foreplaced(mater) else 0)
        if overmate:
            multiplier *= 2
        points = VALUE[card] * multiplier
        scores = (points, 0) if mater == 0 else (0, points)
        how = ("Overmate" if overmate else "Mate") + f" on move {move.number}"
        if again:
            why = (f"{seat_ref(mated)}'s only answer would be the {NAME[self.piles[mated][-1][1]]} "
                   "again, which is neither")
        else:
            why = f"{seat_ref(mated)} has neither"
        sum_text = f"{VALUE[card]}{TIMES}{move.number}"
        if self.foreplaced(mater):
            sum_text = f"{VALUE[card]}{TIMES}({move.number} + 1)"
        if overmate:
            sum_text += f"{TIMES}2"
        say = (f"{how}: {why} a {SUIT_NAMES[suit_of(card)][:-1]} nor "
               f"{_a(RANK_NAMES[rank_of(card)])} to answer the {NAME[card]}; {seat_ref(mater)} "
               f"scores {sum_text} = {points}.")
        self.result = Result(mated, move.number, card, overmate, multiplier, scores, say)
        return self._end()

    def _draw(self, number: int) -> list[Event]:
        say = f"Draw: every card was played out by move {number} without a mate; 0 to 0."
        self.result = Result(None, None, None, False, 0, (0, 0), say)
        return self._end()

    def _end(self) -> list[Event]:
        self.phase = OVER
        self.turn = None
        assert self.result is not None
        return [Event({"type": "game_over", **self.result.to_dict(), "reveal": self.reveal()})]

    def reveal(self) -> JSON:
        """Every hidden card, for the end of the game: face-down cards and hands left."""
        return {"foreplaced": [None if c is None else CODES[c] for c in self.fore],
                "remaining": [mask_codes(h) for h in self.hands],
                "dealt": [mask_codes(h) for h in self.dealt]}

    # --- views ---------------------------------------------------------------------------

    def board(self, seat: int | None) -> JSON:
        """The table as ``seat`` sees it (``None``: a spectator)."""
        move = self.current
        board: JSON = {
            "phase": self.phase,
            "leader": self.leader,
            "move": self.move_number,
            "decided": list(self.decided),
            "foreplaced": [self.foreplaced(s) if self.decided[s] else None for s in (0, 1)],
            "hand_sizes": [h.bit_count() for h in self.hands],
            "unplayed": [mask_codes(self.unplayed(s)) for s in (0, 1)],
            "piles": [[{"move": n, "card": CODES[c]} for n, c in pile] for pile in self.piles],
            "moves": [m.to_dict() for m in self.moves],
            "lead": None if move is None else {"seat": move.leader, "card": CODES[move.lead]},
            "to_lead": self.turn if self.phase == PLAYING and move is None else None,
            "mate_worth": self.mate_worth(),
            "result": None if self.result is None else self.result.to_dict(),
            "reveal": self.reveal() if self.over else None,
        }
        if seat is not None:
            own = self.fore[seat]
            board["hand"] = mask_codes(self.hands[seat])
            board["face_down"] = None if own is None else CODES[own]
        return board

    def mate_worth(self) -> JSON | None:
        """What a mate would be worth now, per seat: the multiplier of the card's value."""
        if self.over or self.phase == DECIDING:
            return None
        n = self.move_number
        multipliers = [self.multiplier(s) for s in (0, 1)]
        say = (f"A mate on move {n} is worth the mating card's value{TIMES}{multipliers[0]} "
               f"to {{0}},{TIMES}{multipliers[1]} to {{1}} (ace 11, ten 10, seven 7, king 4, "
               "queen 3).")
        return {"multipliers": multipliers, "say": say}


def _wire(kind: str, card: Card | None) -> JSON:
    return {"type": kind} if card is None else {"type": kind, "card": CODES[card]}


# --- the match -----------------------------------------------------------------------------

def leaders(first_dealer: int) -> tuple[int, int, int, int]:
    """Who leads games 1-4: D, N, N, D (D the first dealer)."""
    d, n = first_dealer, 1 - first_dealer
    return (d, n, n, d)


def dealers(first_dealer: int) -> tuple[int, int, int, int]:
    """Who dealt the cards of games 1-4 (games 2 and 4 replay the deal of 1 and 3)."""
    d, n = first_dealer, 1 - first_dealer
    return (d, d, n, n)


class MateMatch:
    """Four games; the deals come from ``seed`` (or, rebuilding a record, its setups)."""

    def __init__(self, seed: int, options: Mapping[str, Any] | None = None,
                 setups: Sequence[tuple[tuple[int, int], int]] | None = None,
                 first_dealer: int | None = None) -> None:
        self.seed = seed
        self.options: JSON = dict(options or {})
        rng = random.Random(seed)
        drawn = rng.randrange(2)
        self.first_dealer = drawn if first_dealer is None else first_dealer
        self._deals = (deal(rng, self.first_dealer), deal(rng, 1 - self.first_dealer))
        self._setups = list(setups or [])
        self.games: list[Game] = []
        self._opening = self._new_game()

    def _setup(self, index: int) -> tuple[tuple[int, int], int]:
        if index < len(self._setups):
            return self._setups[index]
        lead = leaders(self.first_dealer)[index]
        if index % 2 == 0:
            return self._deals[index // 2], lead
        first = self.games[index - 1].dealt
        return (first[1], first[0]), lead

    def _new_game(self) -> list[Event]:
        index = len(self.games)
        hands, lead = self._setup(index)
        self.games.append(Game(hands, lead))
        swapped = index % 2 == 1
        if swapped:
            say = (f"Game {index + 1}: the hands of game {index} are exchanged; "
                   f"{seat_ref(lead)} leads.")
        else:
            say = (f"Game {index + 1}: {seat_ref(dealers(self.first_dealer)[index])} deals; "
                   f"{seat_ref(lead)} leads.")
        return [Event({"type": "deal", "game": index + 1, "leader": lead,
                       "dealer": dealers(self.first_dealer)[index], "swapped": swapped,
                       "hands": [mask_codes(h) for h in hands], "say": say})]

    @property
    def game(self) -> Game:
        return self.games[-1]

    # --- the contract ----------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return len(self.games) == GAMES and self.game.over

    @property
    def between_games(self) -> bool:
        return self.game.over and not self.over

    def totals(self) -> list[int]:
        return [sum(g.result.scores[s] for g in self.games if g.result is not None)
                for s in (0, 1)]

    @property
    def winner(self) -> int | None:
        if not self.over:
            return None
        t = self.totals()
        return None if t[0] == t[1] else (0 if t[0] > t[1] else 1)

    def to_act(self) -> frozenset[int]:
        return seats_to_act(self.game.turn)

    def legal(self, seat: int) -> list[JSON]:
        return self.game.legal(seat)

    def apply(self, seat: int, action: Mapping[str, Any]) -> list[Event]:
        if self.between_games:
            raise OutOfTurn("this game is over and the next one has not been dealt")
        events = self.game.apply(seat, action)
        if self.over:
            events.append(Event(self._match_over()))
        return events

    def _match_over(self) -> JSON:
        t = self.totals()
        winner = self.winner
        if winner is None:
            say = f"The match is a draw, {t[0]} to {t[1]}."
        else:
            say = (f"{seat_ref(winner)} wins the match by {abs(t[0] - t[1])} "
                   f"({max(t)} to {min(t)}).")
        return {"type": "match_over", "totals": t, "winner": winner, "say": say}

    def opening_events(self) -> list[Event]:
        return list(self._opening)

    def why(self) -> JSON | None:
        return None  # the game_over event's ``say`` and the revealed view tell it all

    def start_next_game(self) -> list[Event]:
        if not self.between_games:
            raise Illegal("the next game starts only after a game has ended, before the "
                          "match is over")
        return self._new_game()

    def prompt(self, seat: int | None) -> str:
        if self.over:
            return str(self._match_over()["say"])
        if self.between_games:
            return f"{self.game.prompt(seat)} Game {len(self.games) + 1} is next."
        return self.game.prompt(seat)

    def view(self, seat: int | None) -> JSON:
        game = self.game
        return {
            "game": "mate",
            "seat": seat,
            **acting_keys(self, seat),
            "match": {
                "game_number": len(self.games),
                "games": GAMES,
                "round": (len(self.games) + 1) // 2,
                "first_dealer": self.first_dealer,
                "dealer": dealers(self.first_dealer)[len(self.games) - 1],
                "leaders": list(leaders(self.first_dealer)),
                "scores": [list(g.result.scores) for g in self.games if g.result is not None],
                "totals": self.totals(),
                "over": self.over,
                "winner": self.winner,
            },
            "board": game.board(seat),
        }

    def scoreboard(self) -> JSON:
        rows = []
        for index, g in enumerate(self.games):
            rows.append({"game": index + 1, "dealer": dealers(self.first_dealer)[index],
                         "leader": g.leader, "swapped": index % 2 == 1,
                         "scores": None if g.result is None else list(g.result.scores),
                         "result": None if g.result is None else g.result.to_dict()})
        t = self.totals()
        return {"games": rows, "totals": t, "standing": t, "rule": RULE, "over": self.over,
                "winner": self.winner, "margin": abs(t[0] - t[1]) if self.over else None}

    def record(self) -> JSON:
        return {"game": "mate", "seed": self.seed, "options": dict(self.options),
                "first_dealer": self.first_dealer,
                "games": [{"setup": {"hands": [mask_codes(h) for h in g.dealt],
                                     "leader": g.leader},
                           "actions": [[s, dict(a)] for s, a in g.actions],
                           "result": None if g.result is None else g.result.to_dict(),
                           "winner": None if g.result is None or g.result.mated is None
                           else 1 - g.result.mated}
                          for g in self.games]}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> MateMatch:
        """Rebuild a match from ``record()`` (its setups, not its seed, deal the games)."""
        setups = [check_deal(g["setup"]["hands"], g["setup"]["leader"])
                  for g in record["games"]]
        match = cls(record["seed"], record["options"], setups, record["first_dealer"])
        return replay_games(match, (g["actions"] for g in record["games"]))


def check_state(match: MateMatch) -> None:
    """The invariants of the rules page (section 9); ``AssertionError`` if one is broken."""
    for g in match.games:
        places = [g.hands[0], g.hands[1], mask_of(c for _, c in g.piles[0]),
                  mask_of(c for _, c in g.piles[1])]
        places += [0 if c is None else 1 << c for c in g.fore]
        total = 0
        for m in places:
            assert total & m == 0, "a card is in two places"
            total |= m
        assert total == (1 << 20) - 1, "a card is missing"
        for s in (0, 1):
            assert (g.unplayed(s) | mask_of(c for _, c in g.piles[s])) == g.dealt[s]
            limit = 9 if g.foreplaced(s) else 10
            assert len(g.piles[s]) <= limit, "too many cards played"
        for mv in g.moves:
            if mv.answer is not None and mv.repeat is None:
                hand_then = g.hands[1 - mv.leader] | mask_of(
                    c for n, c in g.piles[1 - mv.leader] if n >= mv.number)
                assert (1 << mv.answer) & answers(hand_then, mv.lead), "an answer broke the rule"
        r = g.result
        if r is not None:
            assert g.over
            assert min(r.scores) == 0 and max(r.scores) <= 242
            if r.mated is None:
                assert r.scores == (0, 0)
            else:
                assert r.scores[r.mated] == 0 and r.scores[1 - r.mated] > 0
                last = g.moves[-1]
                assert last.answer is None and CODES[last.lead] == CODES[r.card or 0]
                if last.repeat == r.mated:  # a lone foreplacer's repeat could not answer
                    again = g.piles[r.mated][-1][1]
                    assert not (1 << again) & (SUIT_OF_MASK[last.lead] | RANK_OF_MASK[last.lead])
                else:
                    assert not answers(g.hands[r.mated], last.lead), "a mated seat could answer"
            if r.overmate:
                assert r.move == 10 and r.mated is not None
                assert g.foreplaced(1 - r.mated) and not g.foreplaced(r.mated)
        else:
            assert not g.over
    assert len(match.games) <= GAMES
    for g in match.games[:-1]:
        assert g.over
