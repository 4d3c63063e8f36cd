"""One line of ``python -m app.replay mate`` (the stable contract ``../shared/contracts/mate.md``).

A line is one game: ``{"setup": {"hands": [...], "leader": 0}, "actions": [...]}``; the
answer is the game's result (seven keys), or the first refused action, or why the line
itself is refused. The game is played by the same ``Game`` the tables run, so the
command and the server can never disagree on a rule. No input makes it crash.
"""

from __future__ import annotations

from typing import Any

from ..contract import JSON, GameError, Malformed, read_record, refused
from ..kit import in_seat_words, replay_actions
from .cards import CODES, mask_codes
from .state import Game, check_deal


def replay_line(line: str | bytes) -> JSON | None:
    """The answer to one input line, or ``None`` for a blank line."""
    try:
        record = read_record(line)
    except GameError as e:
        return refused(str(e))
    except RecursionError:  # belt and braces: read_record already refuses deep nesting
        return refused("not valid JSON: nested too deeply")
    if record is None:
        return None
    try:
        game, actions = _setup(record)
    except GameError as e:
        return refused(str(e))
    refusal = replay_actions(game.apply, actions, '{"seat": 0, "type": "play", "card": "7H"}')
    if refusal is not None:
        return refusal
    if not game.over:
        why = in_seat_words(game.prompt(None))
        return refused(f"the game is not over after its {len(actions)} actions: {why}",
                       len(actions))
    result = game.result
    assert result is not None
    return {"mated": result.mated, "move": result.move,
            "card": None if result.card is None else CODES[result.card],
            "overmate": result.overmate, "scores": list(result.scores),
            "foreplaced": [None if c is None else CODES[c] for c in game.fore],
            "remaining": [mask_codes(h) for h in game.hands]}


def _setup(record: JSON) -> tuple[Game, list[Any]]:
    """The game a line deals, and its actions; ``Malformed`` if the line is misshapen."""
    if "setup" not in record:
        raise Malformed('the line has no "setup"')
    if "actions" not in record or not isinstance(record["actions"], list):
        raise Malformed('"actions" must be a list')
    setup = record["setup"]
    if not isinstance(setup, dict):
        raise Malformed('"setup" must be an object {"hands": [...], "leader": 0}')
    if "hands" not in setup or "leader" not in setup:
        raise Malformed('"setup" needs "hands" and "leader"')
    hands, leader = check_deal(setup["hands"], setup["leader"])
    return Game(hands, leader), record["actions"]
