"""Bots: players that see a seat's view and the seat's form of each log event.

A bot never touches a ``Game``: ``observe`` gets every event as
``Event.for_seat(seat)`` and ``choose`` gets ``Game.view(seat)``, so it can
know nothing its seat may not. The table server drives bots through that
interface; the simulator does too, except that it hands a ``RandomBot`` the
legal actions directly (``pick``), which is the same uniform choice without
building a view.

``HeuristicBot`` plays the way a careful person would: it remembers every
card its seat has seen leave play (discards while on top, its own passes,
hunt plays), estimates where the unseen cards are, keeps the wolves that can
be the last of their rank and the aces, dumps dingoes it cannot support, and
in the hunts plays exactly one wolf when it can catch the rabbit.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from .actions import DISCARD, PASS, Action, read_action
from .cards import (
    AC,
    ACE,
    AD,
    AH,
    AS,
    BY_CODE,
    CLUBS,
    HEARTS,
    PACK,
    SCORE_VALUE,
    SPADES,
    Card,
    card,
    parse_card,
)

#: The kinds a table may seat. "hard" searches for up to a quarter second a move and
#: is not offered at tables until its thinking runs off the table's event loop.
BOT_KINDS = ("random", "heuristic")
#: Every kind ``make_bot`` builds (the simulator offers them all).
ALL_BOT_KINDS = (*BOT_KINDS, "hard")

T = TypeVar("T")


class Bot(Protocol):
    name: str

    def observe(self, event: dict[str, Any]) -> None:
        """Every game-log event in the form its seat may see, game_start and game_over too."""

    def choose(self, view: dict[str, Any]) -> Action:
        """One of ``view["legal"]``, for the seat whose view this is."""


def make_bot(kind: str, seed: int | None = None) -> Bot:
    """A bot of ``kind`` (one of ``ALL_BOT_KINDS``); ``seed=None`` seeds it from the OS."""
    if kind == "random":
        return RandomBot(seed)
    if kind == "heuristic":
        return HeuristicBot(seed)
    if kind == "hard":
        from .hard import HardBot  # hard.py builds on this module

        return HardBot(seed)
    raise ValueError(f"unknown bot kind {kind!r}: expected one of {', '.join(ALL_BOT_KINDS)}")


class RandomBot:
    """Plays a uniformly random legal action and remembers nothing."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed).random

    @property
    def uniform(self) -> Callable[[], float]:
        """The bot's draws in [0, 1): ``pick`` takes ``legal[int(uniform() * len(legal))]``."""
        return self._random

    def observe(self, event: dict[str, Any]) -> None:
        """A random bot ignores the log."""

    def choose(self, view: dict[str, Any]) -> Action:
        if not view["legal"]:
            raise ValueError(f"seat {view['seat']} has nothing to choose: it is not its turn")
        return Action.from_dict(self.pick(view["legal"]))

    def pick(self, legal: Sequence[T]) -> T:
        """A uniform choice (``random() * n`` is uniform to within 2**-53 per option)."""
        return legal[int(self._random() * len(legal))]


#: How likely an opponent holding a wolf plays it when it may (a random bot plays
#: one of its one or two wolves half the time or more; a careful player more often).
PLAY_CHANCE = 0.6
#: How much a point for another seat weighs against a point for this one, when
#: passing a card and when discarding a dingo (tuned over 4,000 games against random bots).
GIFT_WEIGHT = 1.5
DENIAL_WEIGHT = 1.0
#: The chance that a card we hold now is still in our hand at the hunts, as others see it.
OUR_CARDS_KEPT = 0.7
#: Below this chance that the ace rabbit's holder still has a turn to come, the
#: bot plays the ace wolf that completes the pair (+3) and accepts the risk (+13 to them).
ACE_RABBIT_RISK = 0.25


#: Per rank: its wolves (club, spade), its dingo, and a card's score points.
_WOLF_PAIRS = tuple((card(rank, CLUBS), card(rank, SPADES)) for rank in range(13))
_DINGOES = tuple(card(rank, HEARTS) for rank in range(13))
_RANK_POINTS = tuple(SCORE_VALUE[card(rank, CLUBS)] for rank in range(13))


#: The cards of the pack that are not aces, and the aces.
_ACES = tuple(card(ACE, suit) for suit in range(4))
_NOT_ACES = frozenset(PACK) - frozenset(_ACES)


def _cards(texts: list[str]) -> list[Card]:
    """Cards from codes (a view's are as the engine writes them: looked up, else parsed)."""
    try:
        return list(map(BY_CODE.__getitem__, texts))
    except KeyError:
        return list(map(parse_card, texts))


class _Memory:
    """What one seat has seen in the current game, and what it infers from it."""

    def __init__(self) -> None:
        self.seat = 0
        self.dealer = 0
        self.phase = "exchange"
        self.discard_count = 0
        self.hand: set[Card] = set()
        self.hand_sizes = [10, 10, 10, 10]
        #: Cards seen leave the hands for good: discards while on top, hunt plays, piles.
        self.gone: set[Card] = set()
        self.discards_seen: set[Card] = set()
        #: Cards this seat passed, with the seat that got them (the latest pass wins).
        self.passed_to: dict[Card, int] = {}
        #: (seat, rank): the seat declined a hunt turn, so it holds a wolf of that rank.
        self.declined: set[tuple[int, int]] = set()
        self._piles_seen = 0  # cards in the score and penalty piles at the last update

    def is_new_game(self, view: dict[str, Any]) -> bool:
        return view["discard_count"] < self.discard_count or (
            self.phase != "exchange" and view["phase"] == "exchange")

    def update(self, view: dict[str, Any]) -> None:
        self.seat = view["seat"]
        self.dealer = view["dealer"]
        self.phase = view["phase"]
        self.discard_count = view["discard_count"]
        hand = set(_cards(view["hand"]))
        passed = {parse_card(entry["card"]) for entry in view["passed"]}
        # What left the hand since the last look without being passed was discarded or played.
        left = self.hand - hand - passed
        self.gone.update(left)
        if view["phase"] == "exchange":
            self.discards_seen.update(left)
        self.hand = hand
        self.hand_sizes = list(view["hand_sizes"])
        shown = [view["discard_top"]] if view["discard_top"] else []
        shown += view["discards"] or []
        for c in map(parse_card, shown):
            self.gone.add(c)
            self.discards_seen.add(c)
        piles = (*view["score_piles"], *view["penalty_piles"])
        count = sum(map(len, piles))
        if count != self._piles_seen:  # piles only grow in a game: read them when they do
            self._piles_seen = count
            for pile in piles:
                self.gone.update(_cards(pile))
        if view["hunt"] is not None:
            for play in view["hunt"]["plays"]:
                self.gone.update(map(parse_card, play["cards"]))
        for entry in view["passed"]:
            self.passed_to[parse_card(entry["card"])] = entry["to"]

    def observe(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == DISCARD and "card" in event:
            c = parse_card(event["card"])
            self.gone.add(c)
            self.discards_seen.add(c)
        elif kind in ("dingo", "ace_rabbit"):
            self.gone.add(parse_card(event["card"]))
        elif kind == "wolves":
            if event["cards"]:
                self.gone.update(map(parse_card, event["cards"]))
            else:
                self.declined.add((event["seat"], "23456789TJQKA".index(event["rank"])))

    # -- inferences ---------------------------------------------------------------

    def discards_to_come(self, seat: int) -> int:
        """How many more cards ``seat`` will discard before the hunts."""
        done = self.discard_count // 4 + ((seat - self.dealer) % 4 < self.discard_count % 4)
        return 4 - done

    def holder(self, c: Card) -> int | None:
        """The opponent this seat last passed ``c`` to, if it has not been seen since."""
        if c in self.hand or c in self.gone:
            return None
        return self.passed_to.get(c)

    def live_chances(self) -> list[float]:
        """For every card not in this hand: the chance it is in an opponent's hand at the hunts."""
        opponents = [s for s in range(4) if s != self.seat]
        in_hands = sum(self.hand_sizes[s] for s in opponents)
        to_discard = sum(self.discards_to_come(s) for s in opponents)
        survive = max(0.0, (in_hands - to_discard) / in_hands) if in_hands else 0.0
        unknown = _NOT_ACES - self.hand - self.gone - self.passed_to.keys()
        unseen_discards = max(0, self.discard_count - len(self.discards_seen))
        in_a_hand = (max(0.0, (len(unknown) - unseen_discards) / len(unknown))
                     if unknown else 0.0)
        chances = [0.0] * 52
        for c in unknown:
            chances[c] = in_a_hand * survive
        for c, seat in self.passed_to.items():
            if c not in self.hand and c not in self.gone:
                chances[c] = self.kept_chance(c, seat)
        for c in _ACES:
            if c not in self.hand and c not in self.gone:
                chances[c] = 1.0  # aces are never discarded
        return chances

    def kept_chance(self, c: Card, seat: int) -> float:
        """The chance that a card ``seat`` now holds is still in a hand at the hunts."""
        if c >> 2 == ACE:
            return 1.0
        size = self.hand_sizes[seat] or 1
        return max(0.0, (size - self.discards_to_come(seat)) / size)


def hand_value(hand: set[Card], live: Sequence[float]) -> float:
    """The points ``hand`` should bring in the hunts, given each other card's chance to be live.

    The ranks are added in order, then the aces: the order is part of the result (the bot
    compares values to within 1e-9 and a search reads them), and ``_exchange`` keeps it.
    """
    total = 0.0
    for rank in range(ACE):
        total += _rank_value(rank, hand, live)
    return total + _ace_value(hand)


def _card_value(c: Card, live: Sequence[float]) -> float:
    """``hand_value({c}, live)``: the other ranks of a one-card hand are worth 0.0 each."""
    rank = c >> 2
    return _ace_value({c}) if rank == ACE else _rank_value(rank, {c}, live)


def _rank_value(rank: int, hand: set[Card], live: Sequence[float]) -> float:
    """What ``hand``'s cards of ``rank`` (2-K) should bring; reads ``live`` of that rank only."""
    points = _RANK_POINTS[rank]
    club, spade = _WOLF_PAIRS[rank]
    has_club, has_spade = club in hand, spade in hand
    if _DINGOES[rank] in hand:
        # Only another seat's wolf saves our dingo; two of them give us the first wolf too.
        if has_club:
            none = 1.0 if has_spade else 1.0 - live[spade] * PLAY_CHANCE
            return points * (1.0 - 2.0 * none + 0.0)
        if has_spade:
            return points * (1.0 - 2.0 * (1.0 - live[club] * PLAY_CHANCE) + 0.0)
        p, q = live[club] * PLAY_CHANCE, live[spade] * PLAY_CHANCE
        return points * (1.0 - 2.0 * ((1.0 - p) * (1.0 - q)) + p * q)
    if has_club:
        catch = 2 * points * live[_DINGOES[rank]]
        if has_spade:
            return catch
        # One wolf: overtaken only if the other is live, not the dingo player's, after us, played.
        return catch * (1.0 - live[spade] * PLAY_CHANCE / 3)
    if has_spade:
        return 2 * points * live[_DINGOES[rank]] * (1.0 - live[club] * PLAY_CHANCE / 3)
    return 0.0


def _others_stake(c: Card, hand: set[Card], live: Sequence[float]) -> float:
    """What other seats may catch in the hunt that discarding dingo ``c`` voids."""
    rank = c >> 2
    if c & 3 != HEARTS or rank == ACE:
        return 0.0
    none = 1.0
    for w in _WOLF_PAIRS[rank]:
        if w not in hand:
            none *= 1.0 - live[w] * PLAY_CHANCE
    return 2 * SCORE_VALUE[c] * (1.0 - none)


def _ace_value(hand: set[Card]) -> float:
    wolves = (AC in hand) + (AS in hand)
    total = 3.0 * wolves
    last = AH in hand  # the ace dingo's holder has the last turn
    if last:
        rescued = 1.0 if wolves else 1.0 - (1.0 - PLAY_CHANCE) ** 2
        total += 3.0 * (2.0 * rescued - 1.0)
    if AD in hand:
        if wolves == 2:
            free = 1.0
        elif wolves == 1:
            free = PLAY_CHANCE if last else PLAY_CHANCE / 2
        else:
            free = PLAY_CHANCE ** 2 if last else PLAY_CHANCE ** 2 / 3
        total += 13.0 * free - 3.0
    return total


class HeuristicBot:
    """A careful player; see the module docstring."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        # The generator is made on first use: its state is 2.5 KB, and a live table
        # keeps a bot for every seat (to stand in for a player) that mostly never moves.
        self._seed = seed
        self._generator: random.Random | None = None
        self._memory = _Memory()
        #: The value of each choice of the latest discard or pass (what it chose by; the tests
        #: hold each to ``hand_value`` of the whole hand).
        self.values: dict[Action, float] = {}

    @property
    def _random(self) -> random.Random:
        if self._generator is None:
            self._generator = random.Random(self._seed)
        return self._generator

    def observe(self, event: dict[str, Any]) -> None:
        if event.get("type") == "game_start":
            self._memory = _Memory()
        else:
            self._memory.observe(event)

    def choose(self, view: dict[str, Any]) -> Action:
        if self._memory.is_new_game(view):
            self._memory = _Memory()
        memory = self._memory
        memory.update(view)
        self.values = {}
        legal = [read_action(a) for a in view["legal"]]
        if not legal:
            raise ValueError(f"seat {view['seat']} has nothing to choose: it is not its turn")
        if legal[0].kind == DISCARD:
            return self._exchange(legal, gone=True)
        if legal[0].kind == PASS:
            return self._exchange(legal, gone=False)
        hunt = view["hunt"]
        if hunt["rank"] == "A":
            return self._ace_turn(legal, hunt)
        return self._hunt_turn(legal, hunt)

    def _exchange(self, legal: list[Action], *, gone: bool) -> Action:
        """Give up the card whose loss costs the least (a discard is gone, a pass is theirs).

        Points for another seat count against a choice: a passed card is worth
        something to its receiver, and a discarded dingo voids a hunt that
        others could have caught the rabbit of. Ties go to the lower rank.
        """
        memory = self._memory
        live = memory.live_chances()
        receiver = (memory.seat + memory.discard_count // 4) % 4  # pass rounds follow 4, 8, 12
        # As the receiver sees it, our cards are live as long as we keep them.
        theirs = list(live)
        for c in memory.hand:
            theirs[c] = OUR_CARDS_KEPT
        best: list[Action] = []
        best_value = float("-inf")
        self.values = {}
        hand = memory.hand
        # Giving up c changes the value of c's rank only (and of the aces for an ace), and
        # _rank_value reads ``live`` of that rank's cards outside the hand only: the other
        # ranks' values are those of the whole hand, computed once.
        # The sum is ``hand_value``'s, in its order: the ranks below c's are added once.
        kept = [_rank_value(rank, hand, live) for rank in range(ACE)]
        below = [0.0]
        for v in kept:
            below.append(below[-1] + v)
        aces = _ace_value(hand)
        for action in legal:
            c = action.cards[0]
            rank = c >> 2
            hand.discard(c)
            live[c] = 0.0 if gone else memory.kept_chance(c, receiver)
            if rank < ACE:
                total = below[rank] + _rank_value(rank, hand, live)
                for v in kept[rank + 1:]:
                    total += v
                value = total + aces - 0.01 * rank
            else:
                value = below[ACE] + _ace_value(hand) - 0.01 * rank
            if gone:
                value += DENIAL_WEIGHT * _others_stake(c, hand, live)
            else:
                theirs[c] = 0.0
                value -= GIFT_WEIGHT * _card_value(c, theirs)
                theirs[c] = OUR_CARDS_KEPT
            hand.add(c)
            self.values[action] = value
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif value > best_value - 1e-9:
                best.append(action)
        return self._random.choice(best)

    def _hunt_turn(self, legal: list[Action], hunt: dict[str, Any]) -> Action:
        """Play one wolf when it may be the last of its rank; never both."""
        memory = self._memory
        rank = "23456789TJQKA".index(hunt["rank"])
        singles = [a for a in legal if len(a.cards) == 1]
        decline = next(a for a in legal if not a.cards)
        if len(singles) == 2:
            return singles[0]  # we hold both: the one we play is surely the last
        (mine,) = singles
        other = next(w for w in _WOLF_PAIRS[rank] if w != mine.card)
        played = {c for p in hunt["plays"] for c in map(parse_card, p["cards"])}
        # A seat that declined before us holds the other wolf and has had its turn.
        kept_before = any((s, rank) in memory.declined
                          for s in _seats_before(memory.seat, hunt["dingo_seat"]))
        later = _seats_after(memory.seat, hunt["dingo_seat"], until_dingo=True)
        if other not in played and not kept_before and memory.holder(other) in later:
            return decline  # it would be overtaken: leave the dingo player its penalty risk
        return mine

    def _ace_turn(self, legal: list[Action], hunt: dict[str, Any]) -> Action:
        """Score the ace wolves, but do not open the way for another seat's ace rabbit."""
        memory = self._memory
        most = max(legal, key=lambda a: len(a.cards))
        played = {c for p in hunt["plays"] for c in map(parse_card, p["cards"])}
        out = sum(w in played for w in _WOLF_PAIRS[ACE])
        if AD in memory.hand or hunt["dingo_seat"] == memory.seat or out + len(most.cards) < 2:
            return most
        later = _seats_after(memory.seat, hunt["dingo_seat"], until_dingo=False)
        risk = self._ace_rabbit_chance(later)
        if risk < ACE_RABBIT_RISK:
            return most
        fewer = [a for a in legal if len(a.cards) == len(most.cards) - 1]
        return fewer[0]

    def _ace_rabbit_chance(self, later: list[int]) -> float:
        """The chance that AD sits with a seat whose ace-hunt turn is still to come."""
        holder = self._memory.holder(AD)
        if holder is not None:
            return 1.0 if holder in later else 0.0
        return len(later) / 3  # AD is in one of the three other hands


def _seats_after(seat: int, dingo_seat: int, *, until_dingo: bool) -> list[int]:
    """Seats whose hunt turn comes after ``seat``'s (the dingo player's last in the ace hunt)."""
    order = [(dingo_seat + i) % 4 for i in (1, 2, 3)]
    if not until_dingo:
        order.append(dingo_seat)
    return order[order.index(seat) + 1:]


def _seats_before(seat: int, dingo_seat: int) -> list[int]:
    order = [(dingo_seat + i) % 4 for i in (1, 2, 3)]
    return order[:order.index(seat)]
