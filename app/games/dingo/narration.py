"""Dingo in plain words: the sentences the results panel, the replay viewer and the log share.

Seats are named through ``labels`` (one label per seat): the table passes ``{0}`` ...
``{3}`` placeholders, which each page fills in for its reader ("your penalty pile"); the
replay viewer passes names.
Pure: standard library and the rules only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.game import DISCARD, PASS, Action, code
from app.game.cards import AD, AH, PENALTY_VALUE, SCORE_VALUE, parse_card

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
#: Labels for narration that each page words for its reader, as a ``say``.
PLACEHOLDERS = ("{0}", "{1}", "{2}", "{3}")


def card_text(code: str) -> str:
    """``7C`` as ``7♣``, ``TD`` as ``10♦``."""
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUIT_SYMBOLS[code[1]]


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
    return f"{who} plays {_and(shown)}"


def _and(words: Sequence[str]) -> str:
    """``A♥``, ``A♥ and A♣``, ``A♥, A♣ and A♦``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _points(p: int) -> str:
    """Signed points with a real minus sign, as the page writes them (static/js/words.js)."""
    return f"+{p}" if p >= 0 else f"\u2212{-p}"


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
    *some, last = [labels[s] for s in tied]
    names = f"{', '.join(some)} and {last}" if some else last
    if winner is not None and tie_break is None:
        return (f"The highest score wins the game: {labels[winner]} with "
                f"{_points(best)}.")
    if winner is not None:
        return (f"{names} tie on {_points(best)}; a tie goes to the player with the highest "
                f"rabbit in the score pile: {labels[winner]}'s {card_text(tie_break)}.")
    nobody = "neither" if len(tied) == 2 else "none"  # (read as "you" by one of them)
    return (f"{names} tie on {_points(best)} and {nobody} has a rabbit in the score "
            "pile, so the game is a draw.")


def _explain_ace_hunt(event: dict[str, Any], labels: Sequence[str]) -> str:
    holder = event["dingo_seat"]
    if event["rule"] == "ace_caught":
        gains = ", ".join(
            f"{_and([card_text(c) for c in event['to_score'][s]])} to {labels[s]} "
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
