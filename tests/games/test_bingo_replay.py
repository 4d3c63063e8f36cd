"""``python -m app.replay bingo`` exactly as ``../shared/contracts/bingo.md`` defines it."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from app.games.bingo.replay import replay_line
from app.replay import main

HANDS = [["1-3", "3-6", "4-4", "1-5", "6-6", "2-3", "5-6"],
         ["0-3", "2-6", "1-4", "4-6", "2-5", "1-6", "0-0"]]
STOCK = ["2-4", "4-5", "3-5", "0-1", "0-2", "2-2", "1-2", "1-1", "0-6", "0-4", "3-4", "0-5", "5-5"]
PLAYS = [(0, "4-4"), (1, "0-3"), (1, "2-5"), (0, "5-6"), (0, "4-5"), (1, "0-1"), (0, "1-3"),
         (1, "0-0"), (1, "2-4"), (0, "0-2"), (1, "2-2"), (0, "2-3"), (0, "1-1"), (1, "0-5"),
         (0, "0-4"), (1, "0-6"), (1, "1-2"), (0, "3-4"), (0, "1-5"), (1, "3-3"), (1, "2-6"),
         (0, "6-6"), (0, "3-6"), (1, "1-6"), (0, "3-5"), (1, "1-4"), (0, "5-5"), (1, "4-6")]
EX10_ACTIONS: list[dict[str, Any]] = [
    {"seat": 0, "type": "declare", "tiles": ["6-6", "4-4"]},
    *({"seat": s, "type": "play", "tile": t} for s, t in PLAYS)]
EX10_ANSWER = {"end": "played_out", "winner": 0, "claimed_by": None, "claim_correct": None,
               "closed_by": None, "trump": 3, "tricks": [9, 5], "card_points": [67, 64],
               "declared": [20, 0], "last_trick": 0, "points": [97, 64],
               "game_points": [1, 0], "bingo_bonus": None, "match_points": [1, 0],
               "match_winner": None, "hands": [[], []], "stock_left": 0}
KEYS = list(EX10_ANSWER)


def line(setup: dict[str, Any] | None = None, actions: Any = None, **extra: Any) -> str:
    base = {"hands": HANDS, "stock": STOCK, "turn_up": "3-3", "leader": 0}
    return json.dumps({"setup": {**base, **(setup or {})},
                       "actions": EX10_ACTIONS if actions is None else actions, **extra})


def answer(text: str | bytes) -> dict[str, Any]:
    out = replay_line(text)
    assert out is not None
    json.dumps(out, allow_nan=False)
    return out


def test_contract_example_exactly() -> None:
    out = answer(line())
    assert out == EX10_ANSWER
    assert list(out) == KEYS


def test_extra_keys_are_ignored() -> None:
    actions = [{**a, "note": "x"} for a in EX10_ACTIONS]
    assert answer(line(actions=actions, comment=1, setup={"dealer": 3})) == EX10_ANSWER


def test_unfinished_record_describes_the_deal_so_far() -> None:
    out = answer(line(actions=EX10_ACTIONS[:3]))
    assert out["end"] is None and out["winner"] is None
    assert out["tricks"] == [0, 1] and out["card_points"] == [0, 18]
    assert out["points"] == [0, 18] and out["declared"] == [20, 0]
    assert out["stock_left"] == 12 and len(out["hands"][0]) == 7
    assert out["hands"][0] == sorted(out["hands"][0])
    assert list(out) == KEYS


def _deal8() -> str:
    hands = [["6-6", "1-2", "1-3", "1-4", "1-5", "2-3", "2-4"],
             ["5-6", "0-1", "0-2", "0-3", "0-4", "0-5", "2-5"]]
    used = {*hands[0], *hands[1], "4-6"}
    stock = [f"{a}-{b}" for a in range(7) for b in range(a, 7) if f"{a}-{b}" not in used]
    acts = [{"seat": 0, "type": "play", "tile": "6-6"}, {"seat": 1, "type": "play", "tile": "5-6"},
            {"seat": 0, "type": "close"}, {"seat": 0, "type": "claim"}]
    return json.dumps({"setup": {"hands": hands, "stock": stock, "turn_up": "4-6",
                                 "leader": 0}, "actions": acts})


def test_example_8_closed_and_wrong_claim() -> None:
    out = answer(_deal8())
    assert out["end"] == "claim" and out["winner"] == 1 and out["claimed_by"] == 0
    assert out["claim_correct"] is False and out["closed_by"] == 0
    assert out["game_points"] == [0, 3] and out["stock_left"] == 12 and out["trump"] == 6
    assert out["points"] == [39, 0] and out["last_trick"] is None


def _deal9(match_points: list[int], claim: bool) -> str:
    hands = [["4-4", "1-2", "1-3", "1-5", "1-6", "2-3", "2-5"],
             ["0-0", "0-1", "0-2", "0-3", "0-5", "0-6", "2-6"]]
    used = {*hands[0], *hands[1], "3-4"}
    stock = [f"{a}-{b}" for a in range(7) for b in range(a, 7) if f"{a}-{b}" not in used]
    acts: list[dict[str, Any]] = [{"seat": 0, "type": "play", "tile": "4-4"},
                                  {"seat": 1, "type": "play", "tile": "0-0"}]
    if claim:
        acts.append({"seat": 1, "type": "claim"})
    return json.dumps({"setup": {"hands": hands, "stock": stock, "turn_up": "3-4",
                                 "leader": 0, "match_points": match_points},
                       "actions": acts})


def test_example_9_bingo_bonus() -> None:
    out = answer(_deal9([0, 0], True))
    assert out["game_points"] == [2, 1] and out["bingo_bonus"] == 1 and out["winner"] == 0
    assert out["match_points"] == [2, 1] and out["match_winner"] is None


def test_example_9_bingo_bonus_wins_the_match() -> None:
    out = answer(_deal9([5, 6], False))
    assert out["end"] == "match_won" and out["winner"] is None
    assert out["game_points"] == [0, 1] and out["match_points"] == [5, 7]
    assert out["match_winner"] == 1 and out["stock_left"] == 14
    # nothing after the end of the match is examined... but is refused
    again = answer(_deal9([5, 6], True))
    assert again["action_index"] == 2 and "over" in again["error"]


def test_invincible() -> None:
    hands = [["0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "6-6"],
             ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-2"]]
    used = {*hands[0], *hands[1], "4-6"}
    stock = [f"{a}-{b}" for a in range(7) for b in range(a, 7) if f"{a}-{b}" not in used]
    out = answer(json.dumps({"setup": {"hands": hands, "stock": stock, "turn_up": "4-6",
                                       "leader": 0, "match_points": [4, 0]},
                             "actions": [{"seat": 0, "type": "declare", "tiles": hands[0]}]}))
    assert out["end"] == "invincible" and out["winner"] == 0 and out["declared"] == [0, 0]
    assert out["game_points"] == [3, 0] and out["match_points"] == [7, 0]
    assert out["match_winner"] == 0


@pytest.mark.parametrize(("index", "action", "why"), [
    (0, "play", "object"),
    (0, {"seat": "0", "type": "claim"}, "seat"),
    (0, {"seat": True, "type": "claim"}, "seat"),
    (0, {"seat": 0.0, "type": "claim"}, "seat"),
    (0, {"seat": 2, "type": "claim"}, "seat"),
    (0, {"type": "claim"}, "seat"),
    (0, {"seat": 0, "type": "pass"}, "unknown action type"),
    (0, {"seat": 1, "type": "claim"}, "not your turn"),
    (0, {"seat": 0, "type": "play"}, "names a tile"),
    (0, {"seat": 0, "type": "play", "tile": "6-4"}, "not a tile"),
    (0, {"seat": 0, "type": "play", "tile": "0-3"}, "do not hold"),
    (0, {"seat": 0, "type": "close"}, "first trick"),
    (0, {"seat": 0, "type": "declare", "tiles": ["4-4"]}, "every undeclared double"),
    (0, {"seat": 0, "type": "declare", "tiles": ["4-4", "6-6", "3-3"]}, "not a tile|hold|every"),
    (1, {"seat": 0, "type": "play", "tile": "1-3"}, "doubles just declared"),
    (1, {"seat": 0, "type": "declare", "tiles": ["4-4", "6-6"]}, "already declared"),
])
def test_refused_actions(index: int, action: Any, why: str) -> None:
    actions = [*EX10_ACTIONS[:index], action, *EX10_ACTIONS[index:]]
    out = answer(line(actions=actions))
    assert set(out) == {"error", "action_index"}
    assert out["action_index"] == index
    assert isinstance(out["error"], str) and out["error"]
    assert re.search(why, out["error"]), out["error"]


def test_refused_duty_and_follower_actions() -> None:
    # trick 8: 0-4 led, seat 1 must beat it with 0-6 (his only blank)
    upto = [*EX10_ACTIONS[:1 + 2 * 7], {"seat": 0, "type": "play", "tile": "0-4"}]
    out = answer(line(actions=[*upto, {"seat": 1, "type": "play", "tile": "1-6"}]))
    assert out["action_index"] == len(upto) and "0-6" in out["error"]
    for kind in ("close", "claim"):
        out = answer(line(actions=[*upto, {"seat": 1, "type": kind}]))
        assert out["action_index"] == len(upto) and "lead" in out["error"]
    # after the stock is gone, nobody may close (trick 8's lead)
    out = answer(line(actions=[*EX10_ACTIONS[:15], {"seat": 0, "type": "close"}]))
    assert out["action_index"] == 15 and "gone" in out["error"]


def test_seat_names_are_plain_words() -> None:
    out = answer(line(actions=[{"seat": 1, "type": "claim"}]))
    assert "{1}" not in out["error"] and "the other player is to lead" in out["error"]


@pytest.mark.parametrize(("text", "why"), [
    ("not json", "JSON"),
    ("[1, 2]", "object"),
    ("NaN", "NaN"),
    ('{"setup": {}, "actions": [NaN]}', "NaN"),
    ('{"setup": {"hands": Infinity}, "actions": []}', "Infinity"),
    ("[" * 100_000 + "]" * 100_000, "deep"),
    ('{"setup": ' + "[" * 5000 + "]" * 5000 + ', "actions": []}', "deep|setup"),
    ('{"setup": {}}', "actions"),
    ('{"actions": []}', "setup"),
    ('{"setup": 5, "actions": []}', "setup"),
    ('{"setup": {"hands": [], "stock": [], "turn_up": "0-0", "leader": 0}, "actions": {}}',
     "actions"),
    ("1" * 5000, "JSON|digit|int"),
])
def test_malformed_lines(text: str, why: str) -> None:
    out = answer(text)
    assert out["action_index"] is None and re.search(why, out["error"]), out


@pytest.mark.parametrize(("setup", "why"), [
    ({"hands": [HANDS[0]]}, "two hands"),
    ({"hands": [HANDS[0], HANDS[1][:6]]}, "seven"),
    ({"hands": [HANDS[0], [*HANDS[1][:6], "1-3"]]}, "twice"),
    ({"hands": [HANDS[0], [*HANDS[1][:6], "6-4"]]}, "not a tile"),
    ({"hands": [HANDS[0], [*HANDS[1][:6], 7]]}, "not a tile"),
    ({"stock": STOCK[:12]}, "13"),
    ({"stock": "abc"}, "13"),
    ({"turn_up": "1-3"}, "twice"),
    ({"turn_up": None}, "not a tile"),
    ({"leader": 2}, "leader"),
    ({"leader": "0"}, "leader"),
    ({"leader": False}, "leader"),
    ({"match_points": [7, 0]}, "match_points"),
    ({"match_points": [0]}, "match_points"),
    ({"match_points": [0.0, 0]}, "match_points"),
    ({"match_points": None}, "match_points"),
])
def test_invalid_setups(setup: dict[str, Any], why: str) -> None:
    out = answer(line(setup=setup))
    assert out["action_index"] is None and why in out["error"], out


def test_bad_utf8_and_blank_lines() -> None:
    assert replay_line(b"\xff\xfe") == {"error": "the line is not valid UTF-8",
                                        "action_index": None}
    assert replay_line("   \n") is None


def test_the_command_answers_every_line_in_order() -> None:
    stdin = [line() + "\n", "\n", "garbage\n", _deal8() + "\n", b"\xff\n"]
    out = io.StringIO()
    assert main(["bingo"], stdin, out) == 0
    rows = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(rows) == 4
    assert rows[0] == EX10_ANSWER
    assert rows[1]["action_index"] is None
    assert rows[2]["end"] == "claim"
    assert rows[3]["action_index"] is None


def test_mangled_lines_always_get_one_of_the_contract_shapes() -> None:
    import random

    rng = random.Random(7)
    junk: list[Any] = [None, True, 0, -1, 2, 1e308, "", "0-0", "6-4", [], {}, [[[]]], "x" * 300]
    base = json.loads(line())
    for _ in range(400):
        record = json.loads(json.dumps(base))
        for _ in range(rng.randint(1, 3)):
            where = rng.choice(["setup", "action", "hand", "top"])
            setup, actions = record.get("setup"), record.get("actions")
            if where == "setup" and isinstance(setup, dict) and setup:
                setup[rng.choice(list(setup))] = rng.choice(junk)
            elif where == "action" and isinstance(actions, list) and actions:
                a = rng.choice(actions)
                if isinstance(a, dict) and a:
                    a[rng.choice(list(a))] = rng.choice(junk)
            elif where == "hand" and isinstance(setup, dict) and isinstance(
                    setup.get("hands"), list) and setup["hands"]:
                hand = rng.choice(setup["hands"])
                if isinstance(hand, list) and hand:
                    hand[rng.randrange(len(hand))] = rng.choice(junk)
            else:
                record[rng.choice(["setup", "actions"])] = rng.choice(junk)
        out = answer(json.dumps(record))
        assert list(out) == KEYS or set(out) == {"error", "action_index"}, out
        assert "could not be read" not in out.get("error", ""), out  # no internal error
