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

A line written exactly as ``json.dumps`` writes a record (the keys in the order
above, its separators, codes as the engine writes them) whose game is legal and
finished takes a fast path (``fast_answer``): it is read by splitting its text and
looking each card and action up, and its answer is written as text, the same bytes
``json.dumps`` makes of ``replay_line``'s answer. Every other line, and every error,
takes ``replay_line``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import IO, Any

from .actions import _FAST, Action, read_action
from .cards import BY_CODE, CODES, PACK, Card, parse_card
from .dealing import Deal
from .errors import DingoError, MalformedAction
from .phases import EXCHANGE_STEPS
from .state import Game
from .views import _hand_codes


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


#: Each card's code as JSON text (``b'"7H"'``), and every action as ``json.dumps`` writes
#: it, without its braces (``b'"seat": 2, "type": "discard", "card": "7H"'``).
_QUOTED_CARDS = {json.dumps(text).encode(): c for c, text in enumerate(CODES)}
_PLAIN_ACTIONS = {json.dumps(action.to_dict())[1:-1].encode(): action
                  for action in _FAST.values()}
_PACK_SET = frozenset(PACK)
_HEAD = b'{"dealer": '
_HANDS = b', "hands": [['
_ACTIONS = b']], "actions": ['


def fast_answer(line: bytes) -> str | None:
    """``json.dumps(replay_line(line))`` for a plainly written record of a finished legal
    game; ``None`` for any other line (then ``replay_line`` answers it).

    Plainly written: exactly the text ``json.dumps`` makes of ``{"dealer": d, "hands":
    [...], "actions": [...]}`` with the actions' ``to_dict()``, optionally ending in a
    newline. Such a line is taken apart with ``split``: each part must be a card's or an
    action's whole text, so a line this reads is that text and ``json.loads`` would read
    the same record; anything else is left to the long way, as is a record whose game
    refuses a move or does not end (its error is ``replay_line``'s to write).
    """
    if line[:11] != _HEAD or line[12:25] != _HANDS:
        return None
    dealer = line[11] - 48
    if not 0 <= dealer <= 3:
        return None
    middle = line.find(_ACTIONS, 25)
    if middle < 0:
        return None
    # The actions' list holds "{...}, {...}, ..., {...}": its braces are cut off here.
    if line.endswith(b"}]}\n"):
        listed = line[middle + 17:-4]
    elif line.endswith(b"}]}"):
        listed = line[middle + 17:-3]
    else:
        return None
    hands = line[25:middle].split(b"], [")
    if len(hands) != 4:
        return None
    try:
        dealt = [sorted(map(_QUOTED_CARDS.__getitem__, hand.split(b", "))) for hand in hands]
        actions: list[Action] = list(map(_PLAIN_ACTIONS.__getitem__, listed.split(b"}, {")))
    except KeyError:
        return None
    first, second, third, fourth = dealt
    if (len(first) != 10 or len(second) != 10 or len(third) != 10 or len(fourth) != 10
            or line[middle + 16] != 123 or len(actions) < EXCHANGE_STEPS
            or {*first, *second, *third, *fourth} != _PACK_SET):
        return None
    game = Game(Deal((tuple(first), tuple(second), tuple(third), tuple(fourth))), dealer,
                record_events=False)
    if not (game.exchange_plain(actions[:EXCHANGE_STEPS])
            and game.play_plain(actions[EXCHANGE_STEPS:]) and game.over):
        return None
    scores = game.scores
    assert scores is not None
    return (f'{{"scores": [{scores[0]}, {scores[1]}, {scores[2]}, {scores[3]}], '
            f'"score_piles": [{_piles(game.score_piles)}], '
            f'"penalty_piles": [{_piles(game.penalty_piles)}], '
            f'"dead_rabbits": {_pile(game.dead)}, '
            f'"hands": [{", ".join(map(_hand, game.hands))}], '
            f'"winner": {"null" if game.winner is None else game.winner}}}')


def _pile(cards: list[Card]) -> str:
    """The JSON text of a list of cards' codes (codes need no escaping)."""
    return '["' + '", "'.join(map(CODES.__getitem__, cards)) + '"]' if cards else "[]"


def _piles(piles: list[list[Card]]) -> str:
    return ", ".join(map(_pile, piles))


def _hand(mask: int) -> str:
    """The JSON text of ``Game.hand``: a hand's codes sorted by suit then rank."""
    held = _hand_codes(mask)
    return '["' + '", "'.join(held) + '"]' if held else "[]"


def run(lines: Iterable[str | bytes], out: IO[str]) -> None:
    """Answer every line of ``lines`` on ``out``, one JSON line each."""
    for line in lines:
        text = fast_answer(line) if type(line) is bytes else None
        if text is None:
            answer = replay_line(line)
            if answer is None:
                continue
            text = json.dumps(answer)
        out.write(text + "\n")
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
