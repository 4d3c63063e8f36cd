"""One game of Divide and Conquer, and a match of them (first to ``target_wins``).

``Game`` is a deal plus its list of commits; ``apply`` is the only thing that changes
it, and it checks everything before changing anything, so a refusal leaves the state
as it was. ``DivideMatch`` is the contract's ``MatchState``: it deals every game from
its seed and counts game wins.

Secrecy (Rulings R6 and R14) is built in here rather than left to callers: the only
place a face-down card is stored is ``Game.pending``, and only the owner's private
event form and the owner's view read it. Everything public about a commitment has a
fixed form ("seat 1 has committed a card"), and the refusals a seat can provoke say
the same thing whether a card of the opponent is in its hand or face down.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..contract import JSON, Event, Illegal, Malformed, OutOfTurn, shown
from ..kit import acting_keys, plural, replay_games, seat_ref
from .cards import DECK_NAMES, DECKS, NAME, VALUE, battle, sorted_codes

COMMIT = "commit"


@dataclass(frozen=True)
class Battle:
    """A revealed battle: each seat's card, the winner, why, and who committed first."""

    cards: tuple[str, str]
    winner: int
    why: str
    first: int

    def to_list(self) -> list[Any]:
        """The replay contract's form: ``[seat 0's card, seat 1's card, winner]``."""
        return [self.cards[0], self.cards[1], self.winner]


def check_deal(deck: object, hands: object) -> tuple[int, tuple[tuple[str, ...], ...]]:
    """``(deck, hands sorted by value)``, or ``Malformed`` saying what is wrong with the deal."""
    if type(deck) is not int or deck not in DECKS:
        raise Malformed(f"the deck must be 10 or 14 cards, not {shown(deck)}")
    size = deck // 2
    if not isinstance(hands, list | tuple) or len(hands) != 2:
        raise Malformed("a deal is two hands")
    codes = DECKS[deck]
    seen: set[str] = set()
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list | tuple) or len(hand) != size:
            raise Malformed(f"seat {seat}'s hand must be a list of {size} cards")
        for card in hand:
            if not isinstance(card, str) or card not in codes:
                raise Malformed(f"{shown(card)} is not a card of {DECK_NAMES[deck]}")
            if card in seen:
                raise Malformed(f"the {NAME[card]} is dealt twice")
            seen.add(card)
    return deck, (tuple(sorted_codes(hands[0])), tuple(sorted_codes(hands[1])))


def parse_commit(action: object, deck: int) -> str:
    """The card of a wire-form commit, or ``Malformed`` (extra keys are ignored)."""
    if not isinstance(action, Mapping):
        raise Malformed("an action is an object such as {\"type\": \"commit\", \"card\": \"9\"}")
    kind = action.get("type")
    if not isinstance(kind, str) or kind != COMMIT:
        raise Malformed(f"unknown action type {shown(kind)}: the only action is \"commit\"")
    if "card" not in action:
        raise Malformed("a commit names a card")
    card = action["card"]
    if not isinstance(card, str) or card not in DECKS[deck]:
        raise Malformed(f"{shown(card)} is not a card of {DECK_NAMES[deck]}")
    return card


class Game:
    """One game: two halves of ``deck // 2`` battles, the hands changing in between."""

    def __init__(self, deck: int, hands: Sequence[Sequence[str]]) -> None:
        self.deck, self.dealt = check_deal(deck, list(hands))
        self.size = self.deck // 2
        self.hands: list[list[str]] = [list(self.dealt[0]), list(self.dealt[1])]
        #: Each seat's face-down card in the current battle (never both: R7 reveals them).
        self.pending: list[str | None] = [None, None]
        self.first: int | None = None  # the seat that committed first in this battle
        self.battles: list[Battle] = []
        self.wins = [0, 0]
        self.actions: list[tuple[int, str]] = []

    # --- where the game is -------------------------------------------------------------

    @property
    def over(self) -> bool:
        return len(self.battles) == 2 * self.size

    @property
    def half(self) -> int:
        return 1 if len(self.battles) < self.size else 2

    @property
    def winner(self) -> int | None:
        """The seat with more battles once the game is over (``None``: a draw, or not over)."""
        if not self.over or self.wins[0] == self.wins[1]:
            return None
        return 0 if self.wins[0] > self.wins[1] else 1

    def to_act(self) -> frozenset[int]:
        if self.over:
            return frozenset()
        return frozenset(s for s in (0, 1) if self.pending[s] is None)

    def shown_this_half(self, seat: int) -> list[str]:
        """The cards ``seat`` has shown in the revealed battles of the current half."""
        start = 0 if self.half == 1 else self.size
        return [b.cards[seat] for b in self.battles[start:]]

    def unshown(self, seat: int) -> list[str]:
        """Every card ``seat`` has not shown this half, face-down card included, by value.

        This is what anyone may know of ``seat``'s cards (Ruling R13): the face-down card
        is in its place by value and unmarked (R14).
        """
        pending = self.pending[seat]
        return sorted_codes(self.hands[seat] + ([pending] if pending is not None else []))

    # --- the one action ----------------------------------------------------------------

    def apply(self, seat: int, action: object) -> list[Event]:
        """Commit ``seat``'s card; the second commit of a battle reveals both (Ruling R7)."""
        if type(seat) is not int or seat not in (0, 1):
            raise Malformed(f"there is no seat {shown(seat)}: the seats are 0 and 1")
        card = parse_commit(action, self.deck)
        if self.over:
            raise Illegal("the game is over: all its battles have been fought")
        if self.pending[seat] is not None:
            raise OutOfTurn("you have already committed a card in this battle, and a "
                            "commitment is final: wait for your opponent")
        if card not in self.hands[seat]:
            raise Illegal(self._not_held(seat, card))
        self.hands[seat].remove(card)
        self.pending[seat] = card
        self.actions.append((seat, card))
        if self.first is None:
            self.first = seat
        seat_word = seat_ref(seat)
        events = [Event({"type": "commit", "seat": seat,
                         "say": f"{seat_word} has committed a card."},
                        {seat: {"type": "commit", "seat": seat, "card": card,
                                "say": f"{seat_word} has committed the {NAME[card]}."}})]
        if self.pending[1 - seat] is not None:
            events += self._reveal()
        return events

    def _not_held(self, seat: int, card: str) -> str:
        """Why ``seat`` does not hold ``card``, in words that never tell where the card is
        if it is the opponent's: in its hand and face down read the same (Ruling R14)."""
        name = NAME[card]
        if card in self.shown_this_half(seat):
            return f"you showed the {name} earlier in this half"
        if self.half == 2 and card in self.dealt[seat]:
            return (f"the {name} was in your hand in the first half; since the hands "
                    f"changed it is your opponent's")
        return f"the {name} is not in your hand: it is one of your opponent's cards"

    def _reveal(self) -> list[Event]:
        c0, c1 = self.pending
        assert c0 is not None and c1 is not None and self.first is not None
        winner, why = battle(c0, c1)
        self.battles.append(Battle((c0, c1), winner, why, self.first))
        self.wins[winner] += 1
        self.pending = [None, None]
        self.first = None
        number = len(self.battles)
        events = [Event({"type": "battle", "number": number, "cards": [c0, c1],
                         "winner": winner, "why": why, "wins": list(self.wins),
                         "say": f"Battle {number}: {NAME[c0]} against {NAME[c1]} — {why}, "
                                f"{seat_ref(winner)} wins."})]
        if number == self.size:
            # Ruling R9: each seat takes up exactly the cards the other was dealt.
            self.hands = [list(self.dealt[1]), list(self.dealt[0])]
            events.append(Event({"type": "swap", "hands": [list(h) for h in self.hands],
                                 "say": "The hands change: {0} now holds "
                                        f"{_listed(self.hands[0])}, {{1}} holds "
                                        f"{_listed(self.hands[1])}."}))
        if self.over:
            events.append(Event({"type": "game_over", **self._result()}))
        return events

    def _result(self) -> JSON:
        """A finished game's result: the winner (None: a draw), battles won, and in words
        (the record page shows ``say``)."""
        w0, w1 = self.wins
        if self.winner is None:
            say = f"The game is a draw, {w0} battles each."
        else:
            say = f"{seat_ref(self.winner)} wins the game, {max(w0, w1)} battles to {min(w0, w1)}."
        return {"wins": [w0, w1], "winner": self.winner, "say": say}

    # --- what a seat sees --------------------------------------------------------------

    def board(self, seat: int | None) -> JSON:
        """The game as ``seat`` may see it (``None``: a spectator); see the rules page,
        "What each seat sees". The face-down card is only in its owner's ``commitment``."""
        seats = [{"cards": self.unshown(s), "committed": self.pending[s] is not None,
                  "wins": self.wins[s], "dealt": list(self.dealt[s])} for s in (0, 1)]
        return {
            "deck": self.deck,
            "half": self.half,
            "battle": None if self.over else len(self.battles) + 1,
            "battles_per_half": self.size,
            "hand": None if seat is None else sorted_codes(self.hands[seat]),
            "commitment": None if seat is None else self.pending[seat],
            "seats": seats,
            "battles": [{"number": n, "half": 1 if n <= self.size else 2,
                         "cards": list(b.cards), "winner": b.winner, "why": b.why}
                        for n, b in enumerate(self.battles, 1)],
            "swap": {"after_battle": self.size, "done": len(self.battles) >= self.size},
            "over": self.over,
            "result": self._result() if self.over else None,
        }

    def record(self) -> JSON:
        """The deal, the actions, and (the game's story) its battles and who committed first."""
        return {
            "setup": {"deck": self.deck, "hands": [list(h) for h in self.dealt]},
            "actions": [[s, {"type": COMMIT, "card": c}] for s, c in self.actions],
            "battles": [{"cards": list(b.cards), "winner": b.winner, "why": b.why,
                         "first": b.first} for b in self.battles],
            "wins": list(self.wins),
            "winner": self.winner,
            "over": self.over,
            "result": self._result() if self.over else None,
        }


def _listed(cards: Sequence[str]) -> str:
    return " ".join(NAME[c] for c in cards)


def deal(rng: random.Random, deck: int) -> tuple[list[str], list[str]]:
    """A random split of the deck into two hands, every split equally likely."""
    cards = list(DECKS[deck])
    rng.shuffle(cards)
    half = deck // 2
    return sorted_codes(cards[:half]), sorted_codes(cards[half:])


class DivideMatch:
    """A match: games until a seat has won ``target_wins`` of them (Ruling R11).

    Draws count for neither seat, so there is no limit on the number of games. Every
    game is dealt from the match's own generator, seeded once, so a match is its seed,
    its options and each game's commits.
    """

    def __init__(self, seed: int, options: Mapping[str, Any]) -> None:
        deck, target = options.get("deck", 10), options.get("target_wins", 3)
        if type(deck) is not int or deck not in DECKS:
            raise Malformed(f"the deck must be 10 or 14 cards, not {shown(deck)}")
        if type(target) is not int or not 1 <= target <= 9:
            raise Malformed("the games to win must be a whole number from 1 to 9")
        self.seed = seed
        self.deck: int = deck
        self.target: int = target
        self._rng = random.Random(seed)
        self.games: list[Game] = []
        self.wins = [0, 0]
        self.draws = 0
        self._winner: int | None = None
        self._start_game()
        self._opening = self._game_start_event()

    @classmethod
    def replay(cls, seed: int, options: Mapping[str, Any],
               games: Sequence[Sequence[tuple[int, Mapping[str, Any]]]]) -> DivideMatch:
        """Rebuild a match from its seed, options and each game's ``(seat, action)`` list."""
        return replay_games(cls(seed, options), games)

    def _start_game(self) -> None:
        self.games.append(Game(self.deck, deal(self._rng, self.deck)))

    @property
    def game(self) -> Game:
        """The current (or last) game."""
        return self.games[-1]

    @property
    def over(self) -> bool:
        return self._winner is not None

    @property
    def between_games(self) -> bool:
        return self.game.over and not self.over

    @property
    def winner(self) -> int | None:
        return self._winner

    def to_act(self) -> frozenset[int]:
        return self.game.to_act()

    def legal(self, seat: int) -> list[JSON]:
        if seat not in self.to_act():
            return []
        return [{"type": COMMIT, "card": c} for c in sorted_codes(self.game.hands[seat])]

    def apply(self, seat: int, action: Mapping[str, Any]) -> list[Event]:
        if self.over or self.between_games:
            parse_commit(action, self.deck)  # a malformed action is still called that
            raise Illegal("the match is over" if self.over else
                          "this game is over: wait for the next game to be dealt")
        events = self.game.apply(seat, action)
        if self.game.over:
            events += self._score_game()
        return events

    def _score_game(self) -> list[Event]:
        winner = self.game.winner
        if winner is None:
            self.draws += 1
        else:
            self.wins[winner] += 1
            if self.wins[winner] >= self.target:
                self._winner = winner
        if self._winner is None:
            return []
        w0, w1 = self.wins
        return [Event({"type": "match_over", "winner": self._winner, "game_wins": [w0, w1],
                       "draws": self.draws,
                       "say": f"{seat_ref(self._winner)} wins the match, "
                              f"{plural(max(w0, w1), 'game')} to {min(w0, w1)}"
                              + _draws(self.draws) + "."})]

    def start_next_game(self) -> list[Event]:
        if self.over:
            raise Illegal("the match is over")
        if not self.game.over:
            raise Illegal("the current game is not over yet")
        self._start_game()
        return self._game_start_event()

    def opening_events(self) -> list[Event]:
        return list(self._opening)

    def why(self) -> JSON | None:
        return None  # the battle events' ``say`` and the revealed view tell it all

    def _game_start_event(self) -> list[Event]:
        number = len(self.games)
        return [Event({"type": "game_start", "number": number,
                       "hands": [list(h) for h in self.game.dealt],
                       "say": f"Game {number} is dealt: {{0}} holds "
                              f"{_listed(self.game.dealt[0])}, {{1}} holds "
                              f"{_listed(self.game.dealt[1])}."})]

    # --- views -------------------------------------------------------------------------

    def prompt(self, seat: int | None) -> str:
        """Who must do what, in plain words (seats as ``{0}``, ``{1}``, as in ``say``)."""
        if self._winner is not None:  # the match is over
            return f"The match is over: {seat_ref(self._winner)} won it."
        if self.between_games:
            # (Mate's words: the deal waits for the players' votes, not a clock the rules know.)
            return f"The game is over; game {len(self.games) + 1} is next."
        acting = self.to_act()
        if seat is not None and seat in acting:
            return "Choose a card to commit face down."
        waiting = " and ".join(seat_ref(s) for s in sorted(acting))
        return f"Waiting for {waiting} to commit a card."

    def view(self, seat: int | None) -> JSON:
        if seat is not None and seat not in (0, 1):
            raise Malformed(f"there is no seat {shown(seat)}")
        return {
            "game": "divide",
            "seat": seat,
            "options": {"deck": self.deck, "target_wins": self.target},
            "match": {"game_number": len(self.games), "game_wins": list(self.wins),
                      "draws": self.draws, "over": self.over, "winner": self.winner},
            **acting_keys(self, seat),
            "board": self.game.board(seat),
        }

    def scoreboard(self) -> JSON:
        games = []
        count = [0, 0, 0]  # game wins of seat 0, of seat 1, draws: the running count
        for number, game in enumerate(self.games, 1):
            if not game.over:
                continue
            count[2 if game.winner is None else game.winner] += 1
            games.append({"number": number, "wins": list(game.wins), "winner": game.winner,
                          "game_wins": count[:2], "draws": count[2]})
        return {
            "rule": f"first to win {self.target} game{'s' if self.target > 1 else ''}; "
                    "a drawn game counts for neither seat",
            "target_wins": self.target,
            "deck": self.deck,
            "game_wins": list(self.wins),
            "draws": self.draws,
            "standing": list(self.wins),
            "games": games,
            "winner": self.winner,
            "over": self.over,
        }

    def record(self) -> JSON:
        """Seed, options and per game its deal, commits, battles (with who committed first)
        and result, with the running count of game wins and draws after it (Ruling R11)."""
        games = []
        count = [0, 0, 0]
        for game in self.games:
            entry = game.record()
            if game.over:
                count[2 if game.winner is None else game.winner] += 1
                entry["after"] = {"game_wins": count[:2], "draws": count[2]}
            games.append(entry)
        return {
            "game": "divide",
            "seed": self.seed,
            "options": {"deck": self.deck, "target_wins": self.target},
            "games": games,
            "game_wins": list(self.wins),
            "draws": self.draws,
            "winner": self.winner,
        }


def _draws(draws: int) -> str:
    if not draws:
        return ""
    return f", with {plural(draws, 'drawn game')}"


def check_state(match: DivideMatch) -> None:
    """The rules page's invariants; ``AssertionError`` if any is broken."""
    deck = set(DECKS[match.deck])
    for game in match.games:
        places: list[str] = [*game.hands[0], *game.hands[1]]
        places += [c for c in game.pending if c is not None]
        start = 0 if game.half == 1 else game.size
        for b in game.battles[start:]:
            places += b.cards
        assert len(places) == len(deck) and set(places) == deck, "cards are not conserved"
        assert None in game.pending, "two face-down cards at once"
        assert len(game.hands[0]) + (game.pending[0] is not None) == \
            len(game.hands[1]) + (game.pending[1] is not None), "hands of unequal size"
        assert sum(game.wins) == len(game.battles) <= 2 * game.size
        assert game.wins == [sum(b.winner == s for b in game.battles) for s in (0, 1)]
        for b in game.battles:
            assert battle(*b.cards)[0] == b.winner
        first = game.battles[:game.size]
        for s in (0, 1):
            assert {b.cards[s] for b in first} <= set(game.dealt[s])
            if game.over:
                assert sorted(b.cards[s] for b in game.battles) == sorted(deck)
                assert {b.cards[s] for b in first} == set(game.dealt[s])
        assert set(game.dealt[0]) | set(game.dealt[1]) == deck
        assert all(VALUE[a] < VALUE[b] for h in game.dealt for a, b in itertools.pairwise(h))
    finished = [g for g in match.games if g.over]
    assert all(g.over for g in match.games[:-1]), "a game was left unfinished"
    assert match.wins == [sum(g.winner == s for g in finished) for s in (0, 1)]
    assert match.draws == sum(g.winner is None for g in finished)
    if match.winner is not None:
        assert match.wins[match.winner] == match.target and max(match.wins) == match.target
    else:
        assert max(match.wins) < match.target
