"""Divide and Conquer (Claude Soucie, in Sid Sackson's *Card Games Around the World*) on
the game contract.

Two seats, ten cards (fourteen in the long game), both hands known to both; at every
battle each seat commits a card face down and the two are revealed together; the hands
change halfway; first to win ``target_wins`` games takes the match. The rules and every
ruling: ``docs/rules-divide.md``; the replay command: ``../shared/contracts/divide.md``.

No ``sample_world``: nothing is dealt unseen (both hands are known from the start, Ruling
R13); the only secret is a card the other seat committed in the battle under way, which
is a simultaneous move, not hidden information to guess at. The equilibrium bot answers
it with the optimal mixed strategy over every card the other seat could have committed
(``bots.EquilibriumBot``), which no sampled world would improve on.
"""

from __future__ import annotations

import random

from ..contract import JSON, GameSpec, MatchState, Option
from .bots import EquilibriumBot, GreedyBot, RandomBot
from .replay import replay_line
from .state import COMMIT, DivideMatch, check_state, parse_commit

OPTIONS = (
    Option(name="deck", title="Cards in the deck",
           description="10 cards (2 to 10 and a queen: 5 battles a half), or the long game's "
                       "14 (black 2 to 10 and red 2 4 5 6 8, red cards worth ten more: "
                       "7 battles a half).",
           kind="choice", default=10, choices=(10, 14)),
    Option(name="target_wins", title="Games to win",
           description="The match goes to the first player to win this many games; a "
                       "drawn game counts for neither.",
           kind="int", default=3, minimum=1, maximum=9),
)


def new_match(seed: int, options: JSON) -> DivideMatch:
    return DivideMatch(seed, options)


def _ours(match: MatchState) -> DivideMatch:
    if not isinstance(match, DivideMatch):
        raise TypeError("not a Divide and Conquer match")
    return match


def redeal(match: MatchState, seat: int | None, rng: random.Random) -> DivideMatch:
    """The same match, with every face-down card ``seat`` may not see chosen anew among
    the cards its owner could have committed (its unshown cards of this half).

    That is all a seat may not know: both hands are public (Ruling R13) and revealed
    cards are on the table, so only the opponent's face-down card (for a spectator,
    either seat's) can change. The history keeps its order, so who committed first is
    unchanged, as it is public.
    """
    ours = _ours(match)
    record = ours.record()
    games = [[(s, a) for s, a in g["actions"]] for g in record["games"]]
    current = ours.game
    for owner in (0, 1):
        card = current.pending[owner]
        if card is None or owner == seat:
            continue
        choice = rng.choice(current.unshown(owner))
        actions = games[-1]
        last = max(i for i, (s, _) in enumerate(actions) if s == owner)
        actions[last] = (owner, {"type": COMMIT, "card": choice})
    return DivideMatch.replay(ours.seed, record["options"], games)


def invariants(match: MatchState) -> None:
    check_state(_ours(match))


GAME = GameSpec(
    name="divide",
    title="Divide and Conquer",
    seats=2,
    options=OPTIONS,
    fields={"commit": frozenset({"card"})},
    read_action=lambda action, options: parse_commit(action, options["deck"]),
    new_match=new_match,
    bots={"random": RandomBot, "greedy": GreedyBot, "equilibrium": EquilibriumBot},
    replay_line=replay_line,
    blurb="Both hands are on the table; show a card face down at the same time as your "
          "opponent, and the low card wins if it divides the high one or sits just below it.",
    how=("Ten cards, 2 to 10 and a queen (worth 12), dealt five and five: each of you knows "
         "both hands. The long game deals fourteen, seven each.",
         "In each battle you both commit a card face down, in any order; then both are shown.",
         "The higher card wins, unless the lower one divides it or sits just below it: 3 beats "
         "9, and 9 beats 10.",
         "After five battles the hands change over for five more. Six battles of the ten win "
         "the game (eight of fourteen in the long game); an even split is a draw. The first "
         "to win the games the table set wins the match."),
    playable=True,
    bot_order=("random", "greedy", "equilibrium"),
    redeal=redeal,
    invariants=invariants,
)
