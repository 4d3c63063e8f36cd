"""Replay frames of a recorded Dingo game: step by step, every hand shown, every score
explained (the replay viewer's data; other games' frames are in ``app.api.game_frames``).

The match is over, so nothing is hidden: each step carries all four hands,
the whole discard pile, and the private form of its events (which card was
discarded or passed). Each hunt result also gets a sentence naming the rule
that moved the cards, e.g. "One wolf: Bob's 7♣ catches the 7♦ rabbit — wolf
and rabbit to Bob's score pile (+2), the 7♥ dingo to Ann's score pile (+1)."
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.game import Action, Game, code, parse_card

from ..contract import seat_labels
from .narration import describe_action, explain_hunt, explain_winner


def replay_game(
    hands: Sequence[Sequence[str]],
    dealer: int,
    actions: Sequence[dict[str, Any]],
    names_at: Callable[[int], Sequence[str]],
    *,
    open_discards: bool = False,
) -> dict[str, Any]:
    """The frames of one game: the deal, then one per recorded action, then the result
    (see the module doc). ``names_at(i)`` names the seats' holders when step ``i`` was
    played (0: the deal): a seat may change hands during a game."""
    game = Game([[parse_card(c) for c in h] for h in hands], dealer,
                open_discards=open_discards)
    deal = {"dealer": dealer, **_table(game)}
    steps = []
    for index, data in enumerate(actions, start=1):
        action = Action.from_dict(data)
        events = [next(iter(e.private.values()), e.public) for e in game.apply(action)]
        labels = seat_labels(names_at(index))
        changes = [{"rank": e["rank"], "rabbit": e["rabbit"], "rule": e["rule"],
                    "points": e["points"], "explanation": explain_hunt(e, labels)}
                   for e in events if e["type"] == "hunt_result"]
        steps.append({"index": index, "action": action.to_dict(),
                      "text": describe_action(action, events, labels), "events": events,
                      "score_changes": changes, **_table(game)})
    result = game.result() if game.over else None
    return {"deal": deal, "steps": steps, "result": result,
            "winner_rule": None if result is None
            else explain_winner(result, seat_labels(names_at(len(actions))))}


def _table(game: Game) -> dict[str, Any]:
    """Everything on the table after a step, hands included."""
    view = game.public_view()
    return {
        "stage": view["stage"],
        "to_act": view["to_act"],
        "hands": [game.hand(s) for s in range(4)],
        "discards": [code(c) for c in game.discards],
        "rabbits": view["rabbits"],
        "dead_rabbits": view["dead_rabbits"],
        "hunt": view["hunt"],
        "score_piles": view["score_piles"],
        "penalty_piles": view["penalty_piles"],
        "scores": view["scores"],
    }
