"""Mate (G. Capellen 1915, from Sid Sackson's *A Gamut of Games*) on the game contract.

Two seats, a 20-card pack dealt out; each may foreplace one card face down, then every
lead must be answered by suit, else by rank, else the leader gives mate and scores the
card's value times the move number. Four games make a match: two deals, each played
twice with the hands exchanged. The rules and every ruling: ``docs/rules-mate.md``; the
replay command: ``../shared/contracts/mate.md``.

No ``sample_world``: the one secret of a Mate game (rules section 7) is which of the other
player's unplayed cards, all shown in the view, is face down, and the perfect bot already
weighs every card that can be (``bots.PerfectBot``); sampling one at a time would only
add noise to an exact average.
"""

from __future__ import annotations

import copy
import random

from ..contract import JSON, GameError, GameSpec, MatchState, Option
from ..kit import RandomBot
from .bots import GreedyBot, PerfectBot
from .cards import BY_CODE, CODES, cards_in
from .replay import replay_line
from .state import FOREPLACE, MateMatch, check_state, parse_action

#: The rules page: "Nothing here is optional: a table has no house-rule switches."
OPTIONS: tuple[Option, ...] = ()


def new_match(seed: int, options: JSON) -> MateMatch:
    return MateMatch(seed, options)


def _ours(match: MatchState) -> MateMatch:
    if not isinstance(match, MateMatch):
        raise TypeError("not a Mate match")
    return match


def redeal(match: MatchState, seat: int | None, rng: random.Random) -> MateMatch:
    """The same match with every face-down card ``seat`` may not know chosen anew.

    Everything else is known to ``seat`` (rules section 7: the other player's unplayed
    cards are in its view, the piles are public, finished games are revealed and the next
    deal is not made yet), so only the other seat's face-down card in the game in progress
    (for a spectator, both seats') can change. It is drawn among the cards that could be
    face down: the owner's unplayed cards with which the history stays legal (a player who
    answered by rank held no card of the led suit, so such a card left unplayed must be its
    face-down card, and the seat can work that out) and with which the game is where it is
    (a lead that was not a mate shows that the answerer holds a card that can answer it).
    """
    ours = _ours(match)
    record = ours.record()
    game = ours.game
    if game.over:
        return MateMatch.from_record(record)
    for owner in (0, 1):
        if owner == seat or game.fore[owner] is None:
            continue
        actions = record["games"][-1]["actions"]
        index = next(i for i, (s, a) in enumerate(actions)
                     if s == owner and a["type"] == FOREPLACE)
        possible = []
        for card in cards_in(game.unplayed(owner)):
            trial = copy.deepcopy(record)
            trial["games"][-1]["actions"][index] = [owner, {"type": FOREPLACE,
                                                             "card": CODES[card]}]
            try:
                again = MateMatch.from_record(trial).game
            except GameError:
                continue
            if again.turn == game.turn and len(again.moves) == len(game.moves):
                possible.append(card)
        assert BY_CODE[actions[index][1]["card"]] in possible
        actions[index] = [owner, {"type": FOREPLACE, "card": CODES[rng.choice(possible)]}]
    return MateMatch.from_record(record)


def invariants(match: MatchState) -> None:
    check_state(_ours(match))


GAME = GameSpec(
    name="mate",
    title="Mate",
    seats=2,
    options=OPTIONS,
    fields={"foreplace": frozenset({"card"}), "decline": frozenset(),
            "play": frozenset({"card"})},
    read_action=lambda action, options: parse_action(action),
    new_match=new_match,
    bots={"random": RandomBot, "greedy": GreedyBot, "perfect": PerfectBot},
    replay_line=replay_line,
    blurb="Answer each lead by suit, else by rank, else you are mated: the later the mate, "
          "the more it scores. Every deal is played twice, the hands exchanged.",
    how=("Twenty cards, ten each: the aces, tens, kings, queens and sevens. Your opponent's "
         "cards are known to you, as yours are to them.",
         "Before the first move each of you may lay one card face down. It stays out of play, "
         "and a mate its owner gives scores as if one move later.",
         "The leader plays any card; the other must answer with the same suit, else the same "
         "rank. A player who can do neither is mated, and the game ends.",
         "The stronger card wins the move and leads the next: by rank ace, ten, king, queen, "
         "seven, strongest first; between equal ranks, ♣ ♠ ♥ ♦.",
         "A mate scores the mating card's value (ace 11, ten 10, seven 7, king 4, queen 3) "
         "times the move number: the later, the more. A game with no mate is a draw.",
         "Four games: the second and the fourth replay the deal with the hands exchanged. The "
         "higher total wins the match."),
    playable=True,
    standing_unit=lambda options: ("point", "points"),
    bot_order=("random", "greedy", "perfect"),
    redeal=redeal,
    invariants=invariants,
)
