"""Replay recorded games: JSON Lines in, one JSON line out per game (a stable contract).

    python -m app.game.replay < games.jsonl

Each input line is one game::

    {"dealer": 0, "hands": [[10 card codes] x4], "actions": [action, ...]}

with ``hands[s]`` seat s's dealt hand and each action one of
``{"seat": 2, "type": "discard", "card": "7H"}``,
``{"seat": 2, "type": "pass", "card": "KS"}`` or
``{"seat": 2, "type": "play", "cards": ["7C"]}`` (a hunt turn: ``[]`` declines,
one or two wolves in the order played). Dingoes and a playable ``AD`` are
played by the engine and never appear as actions.

For each game it writes exactly one line, with the keys in this order:

- the game ended: ``{"scores": [4 ints], "score_piles": [[codes] x4],
  "penalty_piles": [[codes] x4], "dead_rabbits": [codes],
  "hands": [[codes left in each hand] x4], "winner": seat or null}``;
- an action is refused: ``{"error": "<why>", "action_index": i}`` for the first
  refused action (a malformed one, one out of turn, or one the rules forbid);
- anything else is wrong with the line: ``{"error": "<why>", "action_index": null}``.

Decisions where the contract is silent:

- A line holding only whitespace is skipped and gets no output line, so a
  trailing newline or blank separators do not produce errors.
- A line that is not UTF-8, not JSON, or not an object with ``dealer``,
  ``hands`` and ``actions`` of the right types gets an ``action_index: null``
  error. Keys other than those three are ignored, as are unknown keys inside
  an action.
- A game whose actions are all legal but which is not over afterwards is not
  a finished record: ``action_index`` is null and the message says who was to
  act. Actions after the end of a game are refused like any other:
  ``{"error": "the game is over: nobody is to act", "action_index": i}``.
- Card codes are read as the engine reads them (surrounding spaces and lower
  case are accepted); output codes are always upper case.

No input makes the command crash: every line gets its answer and the command
goes on with the next one.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import IO, Any

from .actions import read_action
from .cards import BY_CODE, Card, parse_card
from .errors import DingoError, MalformedAction
from .state import Game


def replay_line(line: str | bytes) -> dict[str, Any] | None:
    """The output object for one input line, or ``None`` for a blank line."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            return _refused("the line is not valid UTF-8")
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        return _refused(f"not valid JSON: {e.msg} at column {e.colno}")
    except ValueError:
        return _refused("not valid JSON: a number has too many digits")
    except RecursionError:
        return _refused("not valid JSON: nested too deeply")
    try:
        game, actions = _setup(record)
    except DingoError as e:
        return _refused(str(e))
    index = game.apply_plain(actions)
    while index < len(actions):
        try:
            game.apply(read_action(actions[index]))
        except DingoError as e:
            return _refused(str(e), index)
        index = game.apply_plain(actions, index + 1)
    if not game.over:
        return _refused(f"the game is not over after its {len(actions)} actions: {game.prompt}")
    result = game.result()
    return {key: result[key] for key in
            ("scores", "score_piles", "penalty_piles", "dead_rabbits", "hands", "winner")}


def _refused(why: str, action_index: int | None = None) -> dict[str, Any]:
    return {"error": why, "action_index": action_index}


def _setup(record: object) -> tuple[Game, list[Any]]:
    """The game a record deals, and its list of actions; ``MalformedAction`` if misshapen."""
    if not isinstance(record, dict):
        raise MalformedAction(
            'a game is a JSON object {"dealer": ..., "hands": ..., "actions": ...}')
    for key in ("dealer", "hands", "actions"):
        if key not in record:
            raise MalformedAction(f"the game has no {key!r}")
    actions = record["actions"]
    if not isinstance(actions, list):
        raise MalformedAction("'actions' must be a list")
    hands = record["hands"]
    if not isinstance(hands, list) or len(hands) != 4:
        raise MalformedAction("'hands' must be a list of four hands")
    dealt: list[list[Card]] = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list) or len(hand) != 10:
            raise MalformedAction(f"hands[{seat}] must be a list of ten card codes")
        try:
            dealt.append(list(map(BY_CODE.__getitem__, hand)))  # codes as the engine writes them
        except (KeyError, TypeError):
            try:
                dealt.append([parse_card(c) for c in hand])
            except ValueError as e:
                raise MalformedAction(f"hands[{seat}]: {e}") from None
    return Game(dealt, record["dealer"], record_events=False), actions


def run(lines: Iterable[str | bytes], out: IO[str]) -> None:
    """Answer every line of ``lines`` on ``out``, one JSON line each."""
    for line in lines:
        answer = replay_line(line)
        if answer is not None:
            out.write(json.dumps(answer) + "\n")
            out.flush()


def main(stdin: Iterable[str | bytes] | None = None, stdout: IO[str] | None = None) -> int:
    """Read games from ``stdin`` (bytes or text lines; default the real stdin) until its end."""
    try:
        run(sys.stdin.buffer if stdin is None else stdin, sys.stdout if stdout is None else stdout)
    except BrokenPipeError:
        if stdout is None:  # the reader went away: silence the final flush of sys.stdout
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
