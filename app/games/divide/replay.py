"""``python -m app.replay divide``: one game per JSON line, replayed exactly as the stable
contract ``../shared/contracts/divide.md`` says.

The answer is always one JSON object: the battles so far, or the first refused action's
index and why, or why the line itself is not a game. Every check is the engine's own
(``Game.apply``) except the ones only a wire record can get wrong (the seat inside the
action), so the command and the server can never disagree on a rule.
"""

from __future__ import annotations

from ..contract import JSON, GameError, Malformed, read_record, refused, shown
from .state import Game, check_deal


def replay_line(line: str | bytes) -> JSON | None:
    """The answer to one input line (``None`` for a blank line)."""
    try:
        record = read_record(line)
    except Malformed as e:
        return refused(str(e))
    if record is None:
        return None
    setup, actions = record.get("setup"), record.get("actions")
    if "setup" not in record:
        return refused("the record has no setup")
    if not isinstance(setup, dict):
        return refused("the setup is an object with deck and hands")
    if not isinstance(actions, list):
        return refused("the record's actions must be a list")
    try:
        game = Game(*check_deal(setup.get("deck"), setup.get("hands")))
    except Malformed as e:
        return refused(f"bad setup: {e}")
    for index, action in enumerate(actions):
        if not isinstance(action, dict):
            return refused("an action is an object", index)
        seat = action.get("seat")
        if type(seat) is not int or seat not in (0, 1):
            return refused(f"the seat must be the number 0 or 1, not {shown(seat)}", index)
        try:
            game.apply(seat, action)
        except GameError as e:
            return refused(str(e), index)
    return {
        "battles": [b.to_list() for b in game.battles],
        "wins": list(game.wins),
        "winner": game.winner,
        "finished": game.over,
    }
