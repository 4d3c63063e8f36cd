"""The rules of one game of Dingo: discards and exchanges, the hunts, the result.

``Game`` is the authoritative state. It is built from a seed (or an explicit
deal, see ``dealing``) and changed only by ``apply``; compulsory plays (a
dingo, a playable ``AD``) and seats with nothing to decide are handled inside
``apply`` so the state always rests on a real decision or on the end of the
game. A game is therefore its deal plus its list of actions, and
``Game.replay`` rebuilds it.

This module holds what changes a game and what may change it: the legal
actions, ``apply`` and its checks, the exchange, the hunts and how each one is
scored, the end and its tie-break. What a seat may see of the state (``view``,
``views`` and their caches) is ``views.GameViews``, which ``Game`` inherits;
the phases and the order of the exchange rounds are ``phases``.

Hands are bit masks over card integers (see ``cards``); views and events turn
them into card codes. The same code serves the table server and the
simulator: ``record_events=False`` only skips building the game log, and the
legal actions are shared, prebuilt ``Action`` values, so a simulated game
allocates almost nothing per move.
"""
from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from .actions import DISCARD, PASS, PLAY, Action, plain_action
from .cards import (
    ACE,
    AD,
    AH,
    BY_CODE,
    DIAMONDS,
    HEARTS,
    PENALTY_VALUE,
    RABBITS,
    RANKS,
    SCORE_VALUE,
    WOLVES,
    Card,
    bit_lister,
    card,
    cards_in,
    code,
    codes,
    rank_of,
)
from .dealing import Deal, checked_deal, deal
from .errors import IllegalAction, MalformedAction, NotYourTurn, shown
from .events import Event
from .phases import DIRECTIONS, EXCHANGE, EXCHANGE_STEPS, HUNT, OVER, ROUNDS
from .views import GameViews

_ROUND_KINDS = tuple(kind for kind, _ in ROUNDS)
_ROUND_OFFSETS = tuple(offset for _, offset in ROUNDS)
_NOT_ACES = (1 << card(ACE, 0)) - 1  # aces are the four highest card numbers
_ACE_RANK_FIRST = card(ACE, 0)
_BITS = tuple(1 << c for c in range(52))
_BY_CODE = dict(BY_CODE)  # plain dict: the replay's fast path looks a code up per move


def _build_card_actions() -> dict[str, tuple[Callable[[int], list[Action]], ...]]:
    """Every discard and pass as a shared value, listed per hand: ``[kind][seat](hand)``."""
    return {kind: tuple(bit_lister([Action(seat, kind, (c,)) for c in range(52)])
                        for seat in range(4))
            for kind in (DISCARD, PASS)}


def _build_hunt_options() -> tuple[tuple[dict[int, tuple[Action, ...]], ...], ...]:
    """A hunt turn's choices as shared values: ``[seat][rank][wolves held as a mask]``."""
    table = []
    for seat in range(4):
        per_rank = []
        for rank in range(13):
            options: dict[int, tuple[Action, ...]] = {}
            club, spade = card(rank, 0), card(rank, 3)
            for held in (1 << club, 1 << spade, (1 << club) | (1 << spade)):
                wolves = tuple(cards_in(held))
                choices = [Action(seat, PLAY, ())] + [Action(seat, PLAY, (w,)) for w in wolves]
                if len(wolves) == 2:
                    choices += [Action(seat, PLAY, wolves), Action(seat, PLAY, wolves[::-1])]
                options[held] = tuple(choices)
            per_rank.append(options)
        table.append(tuple(per_rank))
    return tuple(table)


_CARD_ACTIONS = _build_card_actions()
#: ``[0 discard, 1 pass][seat][card]``: the shared action values, by card.
_SEAT_CARD_ACTIONS = tuple(tuple(tuple(Action(seat, kind, (c,)) for c in range(52))
                                 for seat in range(4)) for kind in (DISCARD, PASS))
_cards_in = bit_lister(range(52))
_HUNT_OPTIONS = _build_hunt_options()
#: ``[dealer][step]``: (seat to act, its round, the receiver of its pass or -1 for a discard).
_EXCHANGE_ORDER = tuple(tuple(
    ((dealer + step) & 3, step >> 2,
     ((dealer + step + _ROUND_OFFSETS[step >> 2]) & 3) if _ROUND_OFFSETS[step >> 2] else -1)
    for step in range(EXCHANGE_STEPS)) for dealer in range(4))
#: Per rank: the dingo's bit. Per seat: the seats after it, clockwise.
_DINGO_BITS = tuple(1 << card(rank, HEARTS) for rank in range(13))
_AFTER = tuple(((seat + 1) & 3, (seat + 2) & 3, (seat + 3) & 3) for seat in range(4))
#: ``[seat][rank]``: the play of that seat's dingo of that rank (plays are shared tuples).
_DINGO_PLAYS = tuple(tuple((seat, (card(rank, HEARTS),)) for rank in range(13))
                     for seat in range(4))


@dataclass(slots=True)
class HuntState:
    """The hunt in progress: its rank, the dingo player, who is still to play."""

    rank: int
    dingo_seat: int
    #: Seats still to have a turn, in order. In hunts 2-K only seats holding a
    #: wolf of the rank are listed: nobody else is ever asked.
    turns: list[int]
    plays: list[tuple[int, tuple[Card, ...]]]  # every card played, the dingo and AD included
    wolves: list[tuple[int, Card]]  # in the order played


class HuntRecord(NamedTuple):
    """How a finished hunt went; the log and the views show it as a dict."""

    rank: int
    dingo_seat: int | None
    plays: tuple[tuple[int, tuple[Card, ...]], ...]
    rule: str  # void, no_wolf, one_wolf, two_wolves, ace_caught, ace_no_wolf
    catcher: int | None
    score: tuple[tuple[int, tuple[Card, ...]], ...]
    penalty: tuple[tuple[int, tuple[Card, ...]], ...]

    def to_dict(self) -> dict[str, Any]:
        score, penalty = dict(self.score), dict(self.penalty)
        return {
            "type": "hunt_result",
            "rank": RANKS[self.rank],
            "rabbit": code(RABBITS[self.rank]) if self.rank < ACE else code(AD),
            "dingo_seat": self.dingo_seat,
            "rule": self.rule,
            "plays": [{"seat": s, "cards": codes(cs)} for s, cs in self.plays],
            "caught_by": self.catcher,
            "dead": self.rule in ("void", "no_wolf"),
            "to_score": [codes(score.get(s, ())) for s in range(4)],
            "to_penalty": [codes(penalty.get(s, ())) for s in range(4)],
            "points": [
                sum(SCORE_VALUE[c] for c in score.get(s, ()))
                - sum(PENALTY_VALUE[c] for c in penalty.get(s, ()))
                for s in range(4)
            ],
        }


class Game(GameViews):
    """The state of one game; see the module docstring."""

    def __init__(
        self,
        hands: Sequence[Iterable[Card]],
        dealer: int,
        *,
        seed: int | None = None,
        open_discards: bool = False,
        record_events: bool = True,
    ) -> None:
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer <= 3:
            raise MalformedAction(f"dealer must be a seat 0-3, not {shown(dealer)}")
        dealt = hands if type(hands) is Deal else checked_deal(hands)
        self.seed = seed
        self.dealer = dealer
        self.open_discards = open_discards
        self.record_events = record_events
        self.initial_hands: tuple[tuple[Card, ...], ...] = dealt
        bit = _BITS.__getitem__
        self.hands = [sum(map(bit, dealt[0])), sum(map(bit, dealt[1])), sum(map(bit, dealt[2])),
                      sum(map(bit, dealt[3]))]
        self.discards: list[Card] = []
        self.dead: list[Card] = []
        self.score_piles: list[list[Card]] = [[], [], [], []]
        self.penalty_piles: list[list[Card]] = [[], [], [], []]
        # (round index, other seat, card) per seat
        self.passed: list[list[tuple[int, int, Card]]] = [[], [], [], []]
        self.received: list[list[tuple[int, int, Card]]] = [[], [], [], []]
        self.actions: list[Action] = []
        self.phase = EXCHANGE
        self.step = 0  # exchange step: round * 4 + position after the dealer
        self.hunt: HuntState | None = None
        self.last_hunt_record: HuntRecord | None = None
        self.next_rank = 0  # the next rabbit to hunt
        self.to_act: int | None = dealer
        self.scores: list[int] | None = None
        self.winner: int | None = None
        self.tie_break: str | None = None
        self._events: list[Event] = []
        self._init_view_caches()

    # -- construction -----------------------------------------------------

    @classmethod
    def new(cls, seed: int, dealer: int, **options: Any) -> Game:
        return cls(deal(seed, dealer), dealer, seed=seed, **options)

    @classmethod
    def replay(
        cls,
        hands: Sequence[Iterable[Card]],
        dealer: int,
        actions: Iterable[Action],
        **options: Any,
    ) -> Game:
        """Rebuild a game from its deal and actions (raises on the first illegal one)."""
        game = cls(hands, dealer, **options)
        for action in actions:
            game.apply(action)
        return game

    def start_event(self, number: int) -> Event:
        """The log entry that opens this game (``number`` counts from 1 in a match)."""
        return Event({"type": "game_start", "number": number, "dealer": self.dealer})

    # -- what is asked now -------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def decision(self) -> str | None:
        """The kind of decision the seat to act faces: discard, pass, play, or None."""
        if self.phase == EXCHANGE:
            return _ROUND_KINDS[self.step >> 2]
        if self.phase == HUNT:
            return PLAY
        return None

    @property
    def prompt(self) -> str | None:
        """Who must do what now, in words (``"seat 2 must discard a card"``)."""
        if self.to_act is None:
            return None
        return f"seat {self.to_act} must {_verb(self.decision)}"

    @property
    def hand_counts(self) -> list[int]:
        return [h.bit_count() for h in self.hands]

    def legal_actions(self) -> list[Action]:
        """Every action the seat to act may take (empty when the game is over)."""
        seat = self.to_act
        if seat is None:
            return []
        hand = self.hands[seat]
        hunt = self.hunt
        if hunt is None:
            kind = _ROUND_KINDS[self.step >> 2]
            if kind == DISCARD:
                hand &= _NOT_ACES
            return _CARD_ACTIONS[kind][seat](hand)
        return list(_HUNT_OPTIONS[seat][hunt.rank][hand & WOLVES[hunt.rank]])

    # -- changing the state -------------------------------------------------

    def play_random(self, randoms: Sequence[Callable[[], float]]) -> None:
        """Play to the end, seat ``s`` choosing uniformly with ``randoms[s]()`` each time.

        Exactly what applying ``legal[int(randoms[seat]() * len(legal))]`` move after
        move does (``RandomBot.pick``), same draws, same actions, same end, without
        building the legal lists as ``Action`` values or checking moves made from
        them: the simulator's bot-only games and a search's playouts run here.
        Events are not recorded.
        """
        if self.record_events:
            raise ValueError("play_random records no events: use record_events=False")
        hands, actions = self.hands, self.actions
        if self.phase == EXCHANGE:
            self._exchange_random(randoms)
        while (to_act := self.to_act) is not None:
            hunt = self.hunt
            assert hunt is not None
            rank = hunt.rank
            seat = to_act
            options = _HUNT_OPTIONS[seat][rank][hands[seat] & WOLVES[rank]]
            action = options[int(randoms[seat]() * len(options))]
            actions.append(action)
            self._play(action)

    def _exchange_random(self, randoms: Sequence[Callable[[], float]]) -> None:
        """``play_random``'s exchange: each hand kept as a sorted list while it lasts.

        A seat's choices are its cards lowest first (aces last, and out of a discard's
        choices), so the card drawn is found in that list by index, and the lists are
        changed in place instead of being listed from the masks at every step.
        """
        hands, actions = self.hands, self.actions
        passed, received, discards = self.passed, self.received, self.discards
        dealt = self.initial_hands
        held = ([list(hand) for hand in dealt] if self.step == 0 and dealt
                else [_cards_in(hand) for hand in hands])
        discard_actions, pass_actions = _SEAT_CARD_ACTIONS
        for seat, rnd, to in _EXCHANGE_ORDER[self.dealer][self.step:]:
            cards = held[seat]
            hand = hands[seat]
            if to < 0:
                c = cards.pop(int(randoms[seat]() * (len(cards) - (hand >> _ACE_RANK_FIRST)
                                                     .bit_count())))
                hands[seat] = hand ^ _BITS[c]
                discards.append(c)
                actions.append(discard_actions[seat][c])
            else:
                c = cards.pop(int(randoms[seat]() * len(cards)))
                bit = _BITS[c]
                hands[seat] = hand ^ bit
                hands[to] |= bit
                insort(held[to], c)
                passed[seat].append((rnd, to, c))
                received[to].append((rnd, seat, c))
                actions.append(pass_actions[seat][c])
        self.step = EXCHANGE_STEPS
        self.phase = HUNT
        self._start_hunts_from(0)

    def apply_plain(self, records: Sequence[object], start: int = 0) -> int:
        """Apply the moves of ``records[start:]`` as long as each is plainly written and legal.

        ``records`` are actions in the replay file's form (``{"seat": 2, "type":
        "discard", "card": "7H"}``, see ``actions.plain_action``). Returns the index of
        the first record not applied (``len(records)`` if none is left): one spelled
        otherwise, or refused, for the caller to give to ``apply(read_action(record))``,
        which applies it or says why not. So every record gets ``apply``'s answer, and a
        replay costs one call per move instead of three. Events are not recorded.
        """
        if self.record_events:
            raise ValueError("apply_plain records no events: use record_events=False")
        hands, actions = self.hands, self.actions
        index, end = start, len(records)
        while index < end:
            seat = self.to_act
            data = records[index]
            if seat is None or type(data) is not dict:
                break
            given = data.get("seat")
            if type(given) is not int or given != seat:
                break
            hunt = self.hunt
            if hunt is None:
                text = data.get("card")
                c = _BY_CODE.get(text) if type(text) is str else None
                if c is None or not hands[seat] & _BITS[c]:
                    break
                kind = _ROUND_KINDS[self.step >> 2]
                if data.get("type") != kind:
                    break
                if kind == DISCARD:
                    if c >= _ACE_RANK_FIRST:
                        break
                    actions.append(_SEAT_CARD_ACTIONS[0][seat][c])
                else:
                    actions.append(_SEAT_CARD_ACTIONS[1][seat][c])
                self._exchange(seat, c)
            else:
                action = plain_action(data, seat)
                if action is None or action.kind != PLAY:
                    break
                cards = action.cards
                playable = hands[seat] & WOLVES[hunt.rank]
                if cards and not (playable & _BITS[cards[0]]
                                  and (len(cards) == 1 or playable & _BITS[cards[1]])):
                    break
                actions.append(action)
                self._play(action)
            index += 1
        return index

    def exchange_plain(self, moves: Sequence[Action]) -> bool:
        """Play the whole exchange from its start: ``moves`` are its 28 actions in order.

        True when every move is the one its step asks for (its seat, its kind, a card in
        that hand, no ace discarded): the game is then in the hunts, exactly as 28
        ``apply`` calls leave it (events are not recorded, ``actions`` is not written).
        False at the first move that is not: the game is then half changed and must be
        dropped (the replay's fast path then answers the record the long way).
        """
        if self.record_events or self.step or len(moves) != EXCHANGE_STEPS:
            raise ValueError("exchange_plain plays a whole exchange without a log")
        hands, discards = self.hands, self.discards
        passed, received = self.passed, self.received
        for (seat, rnd, to), action in zip(_EXCHANGE_ORDER[self.dealer], moves, strict=True):
            cards = action.cards
            if action.seat != seat or len(cards) != 1:
                return False
            c = cards[0]
            bit = _BITS[c]
            if not hands[seat] & bit:
                return False
            if to < 0:
                if action.kind != DISCARD or c >= _ACE_RANK_FIRST:
                    return False
                hands[seat] ^= bit
                discards.append(c)
            else:
                if action.kind != PASS:
                    return False
                hands[seat] ^= bit
                hands[to] |= bit
                passed[seat].append((rnd, to, c))
                received[to].append((rnd, seat, c))
        self.step = EXCHANGE_STEPS
        self.phase = HUNT
        self._start_hunts_from(0)
        return True

    def play_plain(self, plays: Sequence[Action]) -> bool:
        """Apply the hunt turns ``plays`` while each is the legal move of the seat to act.

        True when all were applied; False at the first that is not (the game must then be
        dropped, as after ``exchange_plain``). Events are not recorded, ``actions`` is not
        written.
        """
        hands = self.hands
        for action in plays:
            hunt = self.hunt
            seat = action.seat
            if hunt is None or seat != self.to_act or action.kind != PLAY:
                return False
            cards = action.cards
            if cards:
                playable = hands[seat] & WOLVES[hunt.rank]
                if not (playable & _BITS[cards[0]] and (len(cards) == 1 or (
                        len(cards) == 2 and cards[0] != cards[1]
                        and playable & _BITS[cards[1]]))):
                    return False
            self._play(action)
        return True

    def apply(self, action: Action) -> list[Event]:
        """Check and apply one action; return the events it caused.

        Raises a ``DingoError`` subclass, leaving the state untouched, if the
        action is not allowed now.
        """
        if self.hunt is None and type(action) is Action and action.seat == self.to_act:
            # The exchange's common case, checked in one go (``_check`` says what is wrong).
            cards = action.cards
            kind = _ROUND_KINDS[self.step >> 2]
            if (action.kind == kind and len(cards) == 1
                    and self.hands[action.seat] & (_BITS[cards[0]] if kind == PASS
                                                   else _NOT_ACES & _BITS[cards[0]])):
                self.actions.append(action)
                self._exchange(action.seat, cards[0])
                events, self._events = self._events, []
                return events
        self._check(action)
        self.actions.append(action)
        if self.hunt is None:
            self._exchange(action.seat, action.cards[0])
        else:
            self._play(action)
        events, self._events = self._events, []
        return events

    def _check(self, action: Action) -> None:
        if not isinstance(action, Action):
            raise MalformedAction("not an action")
        seat = self.to_act
        if seat is None:
            raise NotYourTurn("the game is over: nobody is to act")
        if action.seat != seat:
            raise NotYourTurn(f"it is seat {seat}'s turn, not seat {action.seat}'s")
        hand = self.hands[seat]
        cards = action.cards
        if self.hunt is None:
            kind = _ROUND_KINDS[self.step >> 2]
            if action.kind != kind:
                raise IllegalAction(f"seat {seat} must {_verb(kind)} now, not {_verb(action.kind)}")
            if len(cards) != 1:
                raise MalformedAction(f"a {kind} names exactly one card")
            c = cards[0]
            if not hand >> c & 1:
                raise IllegalAction(f"{code(c)} is not in your hand")
            if kind == DISCARD and c >= _ACE_RANK_FIRST:
                raise IllegalAction("aces may not be discarded")
            return
        if action.kind != PLAY:
            raise IllegalAction(f"seat {seat} must {_verb(PLAY)} now, not {_verb(action.kind)}")
        rank = self.hunt.rank
        if len(cards) > 2:
            raise MalformedAction("a hunt turn plays at most two wolves")
        if len(cards) == 2 and cards[0] == cards[1]:
            raise IllegalAction(f"{code(cards[0])} is named twice")
        for c in cards:
            if not WOLVES[rank] >> c & 1:
                # What this seat may play instead: its wolves of the rank (those still in
                # its hand: one played earlier in the hunt, or held by another, is not).
                held = codes(cards_in(WOLVES[rank] & hand))
                raise IllegalAction(
                    f"{code(c)} is not a wolf of this hunt: "
                    + (f"you may play {' or '.join(held)}, or no wolf" if held
                       else "you hold no wolf of it: play no wolf"))
            if not hand >> c & 1:
                raise IllegalAction(f"{code(c)} is not in your hand")

    def _emit(self, public: dict[str, Any], private: dict[str, Any] | None = None,
              seats: tuple[int, ...] = ()) -> None:
        self._events.append(Event(public, private, seats))

    def _exchange(self, seat: int, c: Card) -> None:
        step = self.step
        rnd = step >> 2
        offset = _ROUND_OFFSETS[rnd]
        hands = self.hands
        hands[seat] ^= 1 << c
        if offset:
            to = (seat + offset) & 3
            hands[to] |= 1 << c
            self.passed[seat].append((rnd, to, c))
            self.received[to].append((rnd, seat, c))
            if self.record_events:
                public = {"type": PASS, "seat": seat, "to": to, "direction": DIRECTIONS[offset]}
                self._emit(public, {**public, "card": code(c)}, (seat, to))
        else:
            self.discards.append(c)
            if self.record_events:
                public = {"type": DISCARD, "seat": seat, "round": rnd}
                private = {**public, "card": code(c)}
                if self.open_discards:
                    self._emit(private)
                else:
                    self._emit(public, private, (seat,))
        step += 1
        self.step = step
        if step < EXCHANGE_STEPS:
            self.to_act = (self.dealer + step) & 3
        else:
            self.phase = HUNT
            self._start_hunts_from(0)

    # -- the hunts ------------------------------------------------------------

    def _holder(self, c: Card) -> int | None:
        b = _BITS[c]
        h0, h1, h2, h3 = self.hands
        return 0 if h0 & b else 1 if h1 & b else 2 if h2 & b else 3 if h3 & b else None

    def _start_hunts_from(self, rank: int) -> None:
        """Start hunts from ``rank`` up, resolving those nobody decides, until a seat must.

        (The simulator's and a search's hottest loop: hands are read without a call.)
        """
        hands = self.hands
        while rank < ACE:
            self.next_rank = rank + 1
            bit = _DINGO_BITS[rank]
            holder = (0 if hands[0] & bit else 1 if hands[1] & bit else 2 if hands[2] & bit
                      else 3 if hands[3] & bit else None)
            if holder is None:
                self.dead.append(RABBITS[rank])
                self._finish_hunt(_VOID_RECORDS[rank])
            else:
                hands[holder] ^= bit
                wolves = WOLVES[rank]
                first, second, third = _AFTER[holder]
                turns = []
                if hands[first] & wolves:
                    turns.append(first)
                if hands[second] & wolves:
                    turns.append(second)
                if hands[third] & wolves:
                    turns.append(third)
                hunt = HuntState(rank, holder, turns, [_DINGO_PLAYS[holder][rank]], [])
                self.hunt = hunt
                if self.record_events:
                    self._emit({"type": "dingo", "seat": holder, "card": code(rank * 4 + HEARTS)})
                if turns:
                    self.to_act = turns.pop(0)
                    return
                self._resolve_hunt(hunt)
            rank += 1
        self._start_ace_hunt()

    def _resolve_hunt(self, hunt: HuntState) -> None:
        rank, holder = hunt.rank, hunt.dingo_seat
        dingo, rabbit = rank * 4 + HEARTS, RABBITS[rank]
        wolves = hunt.wolves
        # Records are built with ``tuple.__new__``: ``HuntRecord(...)`` adds a Python call.
        if not wolves:
            self.dead.append(rabbit)
            self.penalty_piles[holder].append(dingo)
            record = _new_record(HuntRecord, (rank, holder, tuple(hunt.plays), "no_wolf", None,
                                              (), (_DINGO_PLAYS[holder][rank],)))
        elif len(wolves) == 1:
            catcher, wolf = wolves[0]
            self.score_piles[holder].append(dingo)
            self.score_piles[catcher] += (wolf, rabbit)
            record = _new_record(HuntRecord, (
                rank, holder, tuple(hunt.plays), "one_wolf", catcher,
                (_DINGO_PLAYS[holder][rank], (catcher, (wolf, rabbit))), ()))
        else:
            (_, first), (catcher, second) = wolves
            self.score_piles[holder] += (dingo, first)
            self.score_piles[catcher] += (second, rabbit)
            record = _new_record(HuntRecord, (
                rank, holder, tuple(hunt.plays), "two_wolves", catcher,
                ((holder, (dingo, first)), (catcher, (second, rabbit))), ()))
        self._finish_hunt(record)

    def _finish_hunt(self, record: HuntRecord) -> None:
        self.hunt = None
        self.last_hunt_record = record
        if self.record_events:
            public = record.to_dict()
            self._hunt_emitted = (record, public)  # the view's ``last_hunt`` too
            self._emit(public)

    def _start_ace_hunt(self) -> None:
        self.next_rank = ACE + 1
        holder = self._holder(AH)
        assert holder is not None, "aces cannot be discarded"
        self.hands[holder] ^= 1 << AH
        turns = [(holder + 1) & 3, (holder + 2) & 3, (holder + 3) & 3, holder]
        hunt = HuntState(ACE, holder, turns, [(holder, (AH,))], [])
        self.hunt = hunt
        if self.record_events:
            self._emit({"type": "dingo", "seat": holder, "card": code(AH)})
        self._next_ace_turn(hunt)

    def _next_ace_turn(self, hunt: HuntState) -> None:
        """Ask the next seat holding an ace wolf; play AD on the way when it is due."""
        wolves = WOLVES[ACE]
        while hunt.turns:
            seat = hunt.turns.pop(0)
            if self.hands[seat] & wolves:
                self.to_act = seat
                return
            self._maybe_play_ace_rabbit(hunt, seat)
        self._resolve_ace_hunt(hunt)

    def _maybe_play_ace_rabbit(self, hunt: HuntState, seat: int) -> None:
        """Red cards are played when they can be: AD goes out once both ace wolves have."""
        if len(hunt.wolves) == 2 and self.hands[seat] >> AD & 1:
            self.hands[seat] ^= 1 << AD
            hunt.plays.append((seat, (AD,)))
            if self.record_events:
                self._emit({"type": "ace_rabbit", "seat": seat, "card": code(AD)})

    def _resolve_ace_hunt(self, hunt: HuntState) -> None:
        score: dict[int, list[Card]] = {}
        penalty: dict[int, list[Card]] = {}
        if hunt.wolves:
            rule = "ace_caught"
            for seat, cards in hunt.plays:
                score.setdefault(seat, []).extend(cards)
        else:
            rule = "ace_no_wolf"
            penalty[hunt.dingo_seat] = [AH]
        rabbit_holder = self._holder(AD)
        if rabbit_holder is not None:
            self.hands[rabbit_holder] ^= 1 << AD
            penalty.setdefault(rabbit_holder, []).append(AD)
        for seat, gained in score.items():
            self.score_piles[seat].extend(gained)
        for seat, lost in penalty.items():
            self.penalty_piles[seat].extend(lost)
        catcher = None
        for s, cs in hunt.plays:
            if AD in cs:
                catcher = s
                break
        self._finish_hunt(_new_record(HuntRecord, (
            ACE, hunt.dingo_seat, tuple(hunt.plays), rule, catcher,
            tuple([(s, tuple(cs)) for s, cs in score.items()]),
            tuple([(s, tuple(cs)) for s, cs in penalty.items()]),
        )))
        self._end_game()

    def _play(self, action: Action) -> None:
        hunt = self.hunt
        assert hunt is not None
        seat, cards = action.seat, action.cards
        if cards:
            hand = self.hands[seat]
            for c in cards:
                hand ^= _BITS[c]
                hunt.wolves.append((seat, c))
            self.hands[seat] = hand
            hunt.plays.append((seat, cards))
        if self.record_events:
            self._emit({"type": "wolves", "seat": seat, "cards": codes(cards),
                        "rank": RANKS[hunt.rank]})
        if hunt.rank == ACE:
            self._maybe_play_ace_rabbit(hunt, seat)
            self._next_ace_turn(hunt)
        elif hunt.turns and len(hunt.wolves) < 2:
            self.to_act = hunt.turns.pop(0)
        else:
            self._resolve_hunt(hunt)
            self._start_hunts_from(hunt.rank + 1)

    # -- the end ----------------------------------------------------------------

    def _end_game(self) -> None:
        self.phase = OVER
        self.to_act = None
        scores = self.running_scores()
        self.scores = scores
        best = max(scores)
        if scores.count(best) == 1:
            self.winner, self.tie_break = scores.index(best), None
        else:
            tied = [s for s in range(4) if scores[s] == best]
            # Among the tied, the highest rabbit in a score pile wins (AD highest).
            rabbit_rank = {s: max((rank_of(c) for c in self.score_piles[s] if c & 3 == DIAMONDS),
                                  default=-1) for s in tied}
            top = max(rabbit_rank.values())
            if top < 0:
                self.winner, self.tie_break = None, "draw"
            else:
                self.winner = next(s for s in tied if rabbit_rank[s] == top)
                self.tie_break = code(card(top, DIAMONDS))
        if self.record_events:
            self._emit({"type": "game_over", **self.result()})

    def result(self) -> dict[str, Any]:
        """The final tally (only meaningful once the game is over)."""
        return {
            "scores": list(self.scores or [0, 0, 0, 0]),
            "winner": self.winner,
            "tie_break": self.tie_break,
            "score_piles": [codes(p) for p in self.score_piles],
            "penalty_piles": [codes(p) for p in self.penalty_piles],
            "dead_rabbits": codes(self.dead),
            "hands": [self.hand(s) for s in range(4)],
        }

    def running_scores(self) -> list[int]:
        return [sum(map(SCORE_VALUE.__getitem__, score))
                - sum(map(PENALTY_VALUE.__getitem__, penalty))
                for score, penalty in zip(self.score_piles, self.penalty_piles, strict=True)]

    # -- the card count -----------------------------------------------------------

    def location_of_every_card(self) -> dict[Card, str]:
        """Where each of the 52 cards is; used by tests of the card-count invariant."""
        places: dict[Card, str] = {}

        def put(cards: Iterable[Card], where: str) -> None:
            for c in cards:
                if c in places:
                    raise AssertionError(f"{code(c)} is both in {places[c]} and {where}")
                places[c] = where

        for s in range(4):
            put(cards_in(self.hands[s]), f"hand {s}")
            put(self.score_piles[s], f"score {s}")
            put(self.penalty_piles[s], f"penalty {s}")
        put(self.discards, "discards")
        put(self.dead, "dead")
        put(RABBITS[self.next_rank:], "rabbit pile")
        if self.hunt is not None:
            for _seat, cs in self.hunt.plays:
                put(cs, "hunt")
            if self.hunt.rank < ACE:
                put([RABBITS[self.hunt.rank]], "hunted rabbit")
        return places


_new_record = tuple.__new__
#: A void hunt's record, per rank (records are values: one serves every game).
_VOID_RECORDS = tuple(HuntRecord(rank, None, (), "void", None, (), ()) for rank in range(ACE))


def _verb(kind: str | None) -> str:
    return {DISCARD: "discard a card", PASS: "pass a card", PLAY: "play in the hunt"}.get(
        kind or "", "wait")

