"""Replay frames of a recorded Dingo game: step by step, every hand shown, every score
explained (the replay viewer's data; other games' frames are in ``app.api.game_frames``).

The match is over, so nothing is hidden: each step carries all four hands,
the whole discard pile, and the private form of its events (which card was
discarded or passed). Each hunt result also gets a sentence naming the rule
that moved the cards, e.g. "One wolf: Bob's 7♣ catches the 7♦ rabbit — wolf
and rabbit to Bob's score pile (+2), the 7♥ dingo to Ann's score pile (+1)."
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.game import DISCARD, PASS, Action, Game, code, parse_card
from app.game.cards import AD, AH, PENALTY_VALUE, SCORE_VALUE

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_text(code: str) -> str:
    """``7C`` as ``7♣``, ``TD`` as ``10♦``."""
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUIT_SYMBOLS[code[1]]


def seat_labels(names: Sequence[str]) -> list[str]:
    """Players' names; where two share a name, the seat (1-4) follows it, as on the pages."""
    return [f"{n} {s + 1}" if list(names).count(n) > 1 else n for s, n in enumerate(names)]


def replay_game(
    hands: Sequence[Sequence[str]],
    dealer: int,
    actions: Sequence[dict[str, Any]],
    names: Sequence[str],
    *,
    open_discards: bool = False,
) -> dict[str, Any]:
    """The frames of one game: the deal, then one per recorded action, then the result
    (see the module doc)."""
    labels = seat_labels(names)
    game = Game([[parse_card(c) for c in h] for h in hands], dealer,
                open_discards=open_discards)
    deal = {"dealer": dealer, **_table(game)}
    steps = []
    for index, data in enumerate(actions, start=1):
        action = Action.from_dict(data)
        events = [e.private if e.private is not None else e.public for e in game.apply(action)]
        changes = [{"rank": e["rank"], "rabbit": e["rabbit"], "rule": e["rule"],
                    "points": e["points"], "explanation": explain_hunt(e, labels)}
                   for e in events if e["type"] == "hunt_result"]
        steps.append({"index": index, "action": action.to_dict(),
                      "text": describe_action(action, events, labels), "events": events,
                      "score_changes": changes, **_table(game)})
    result = game.result() if game.over else None
    return {"deal": deal, "steps": steps, "result": result,
            "winner_rule": None if result is None else explain_winner(result, labels)}


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


def describe_action(action: Action, events: Sequence[dict[str, Any]],
                    labels: Sequence[str]) -> str:
    """One recorded decision in words: "Ann passes K♠ left to Bob", "Bob plays no wolf"."""
    who = labels[action.seat]
    shown = [card_text(code(c)) for c in action.cards]
    if action.kind == DISCARD:
        return f"{who} discards {shown[0]}"
    if action.kind == PASS:
        passed = next(e for e in events if e["type"] == PASS)
        return f"{who} passes {shown[0]} {passed['direction']} to {labels[passed['to']]}"
    if not shown:
        return f"{who} plays no wolf"
    return f"{who} plays {' and '.join(shown)}"


def _points(p: int) -> str:
    return f"+{p}" if p >= 0 else str(p)


def explain_hunt(event: dict[str, Any], labels: Sequence[str]) -> str:
    """The rule behind a ``hunt_result`` event and what it moved, in plain words."""
    rule = event["rule"]
    rabbit = card_text(event["rabbit"])
    dingo_card = card_text(event["rank"] + "H")
    points = event["points"]
    holder = event["dingo_seat"]
    if rule == "void":
        return (f"Void hunt: the {dingo_card} dingo was discarded, so the {rabbit} rabbit "
                "is dead and no wolf may be played.")
    dingo_player = labels[holder]
    if rule == "no_wolf":
        return (f"No wolf: nobody catches the {rabbit} rabbit, which is dead — "
                f"{dingo_player}'s {dingo_card} dingo goes to {dingo_player}'s penalty pile "
                f"({_points(points[holder])}).")
    wolves = [(p["seat"], c) for p in event["plays"][1:] for c in p["cards"]]
    if rule == "one_wolf":
        (seat, wolf), = wolves
        return (f"One wolf: {labels[seat]}'s {card_text(wolf)} catches the {rabbit} rabbit — "
                f"wolf and rabbit to {labels[seat]}'s score pile ({_points(points[seat])}), "
                f"the {dingo_card} dingo to {dingo_player}'s score pile "
                f"({_points(points[holder])}).")
    if rule == "two_wolves":
        (first_seat, first), (second_seat, second) = wolves
        return (f"Two wolves: {labels[first_seat]}'s {card_text(first)} comes first and goes "
                f"with the {dingo_card} dingo to {dingo_player}'s score pile "
                f"({_points(points[holder])}); {labels[second_seat]}'s {card_text(second)} "
                f"catches the {rabbit} rabbit — wolf and rabbit to {labels[second_seat]}'s "
                f"score pile ({_points(points[second_seat])}).")
    return _explain_ace_hunt(event, labels)


def explain_winner(result: dict[str, Any], labels: Sequence[str]) -> str:
    """The rule that decided a finished game (``Game.result()``), in plain words."""
    scores, winner, tie_break = result["scores"], result["winner"], result["tie_break"]
    best = max(scores)
    tied = [s for s in range(4) if scores[s] == best]
    names = " and ".join(labels[s] for s in tied)
    if winner is not None and tie_break is None:
        return (f"The highest score wins the game: {labels[winner]} with "
                f"{_points(best)}.")
    if winner is not None:
        return (f"{names} tie on {_points(best)}; a tie goes to the player with the highest "
                f"rabbit in the score pile: {labels[winner]}'s {card_text(tie_break)}.")
    return (f"{names} tie on {_points(best)} and none of them has a rabbit in the score "
            "pile, so the game is a draw.")


def _explain_ace_hunt(event: dict[str, Any], labels: Sequence[str]) -> str:
    holder = event["dingo_seat"]
    if event["rule"] == "ace_caught":
        gains = ", ".join(
            f"{' and '.join(card_text(c) for c in event['to_score'][s])} to {labels[s]} "
            f"({_points(sum(SCORE_VALUE[parse_card(c)] for c in event['to_score'][s]))})"
            for s in _seats_in_play_order(event))
        text = (f"Ace hunt: an ace wolf was played, so every ace played goes to its player's "
                f"score pile — {gains}.")
    else:
        text = (f"Ace hunt, no wolf: nobody plays an ace wolf, so {labels[holder]}'s A♥ goes "
                f"to {labels[holder]}'s penalty pile ({_points(-PENALTY_VALUE[AH])}).")
    for s in range(4):
        if "AD" in event["to_penalty"][s]:
            text += (f" The A♦ rabbit stays in {labels[s]}'s hand: to {labels[s]}'s penalty "
                     f"pile ({_points(-PENALTY_VALUE[AD])}).")
    return text


def _seats_in_play_order(event: dict[str, Any]) -> list[int]:
    """Seats that scored in the ace hunt, in the order they first played."""
    seats: list[int] = []
    for play in event["plays"]:
        if play["seat"] not in seats:
            seats.append(play["seat"])
    return seats
