"""``python -m app.replay divide`` exactly as ../shared/contracts/divide.md defines it."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.games.divide.replay import replay_line
from app.replay import main

ROOT = Path(__file__).resolve().parents[2]
HANDS = [["2", "4", "7", "9", "Q"], ["3", "5", "6", "8", "T"]]
WORKED = [("9", "5"), ("Q", "6"), ("2", "8"), ("4", "T"), ("7", "3"),
          ("T", "9"), ("3", "Q"), ("6", "7"), ("5", "2"), ("8", "4")]
LONG = [["2", "3", "4", "5", "6", "7", "8"], ["9", "T", "r2", "r4", "r5", "r6", "r8"]]


def commits(pairs: list[tuple[str, str]], first: int = 0) -> list[dict[str, Any]]:
    out = []
    for pair in pairs:
        out.append({"seat": first, "type": "commit", "card": pair[first]})
        out.append({"seat": 1 - first, "type": "commit", "card": pair[1 - first]})
    return out


def line(actions: list[Any], hands: Any = None, deck: Any = 10) -> str:
    return json.dumps({"setup": {"deck": deck, "hands": HANDS if hands is None else hands},
                       "actions": actions})


def answer(text: str | bytes) -> Any:
    return replay_line(text)


def test_the_worked_game() -> None:
    assert answer(line(commits(WORKED))) == {
        "battles": [["9", "5", 0], ["Q", "6", 1], ["2", "8", 0], ["4", "T", 1], ["7", "3", 0],
                    ["T", "9", 1], ["3", "Q", 0], ["6", "7", 0], ["5", "2", 0], ["8", "4", 1]],
        "wins": [6, 4], "winner": 0, "finished": True}


def test_a_draw_has_no_winner_and_either_seat_may_go_first() -> None:
    pairs = [*WORKED[:8], ("5", "4"), ("8", "2")]
    got = answer(line(commits(pairs, first=1)))
    assert got["wins"] == [5, 5] and got["winner"] is None and got["finished"] is True


def test_a_record_may_stop_anywhere_and_a_lone_face_down_card_is_not_reported() -> None:
    empty = {"battles": [], "wins": [0, 0], "winner": None, "finished": False}
    assert answer(line([])) == empty
    assert answer(line(commits(WORKED)[:1])) == empty
    got = answer(line(commits(WORKED)[:13]))  # six battles and seat 0's face-down 3
    assert len(got["battles"]) == 6 and got["finished"] is False and got["winner"] is None
    assert list(got) == ["battles", "wins", "winner", "finished"]


def test_the_long_deck() -> None:
    rng_free = list(zip(LONG[0], LONG[1], strict=True))
    second = list(zip(LONG[1], LONG[0], strict=True))
    got = answer(line(commits(rng_free + second), hands=LONG, deck=14))
    assert got["finished"] is True and len(got["battles"]) == 14 and sum(got["wins"]) == 14
    assert [b[2] for b in got["battles"]] == [1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert got["wins"] == [7, 7] and got["winner"] is None  # 7-7 is a draw
    second[0] = ("T", "2")
    second[1] = ("9", "3")  # 2 divides 10 and 3 divides 9: seat 1 takes both
    got = answer(line(commits(rng_free + second), hands=LONG, deck=14))
    assert got["wins"] == [5, 9] and got["winner"] == 1


def test_hands_in_any_order_and_extra_keys_are_ignored() -> None:
    record = {"setup": {"deck": 10, "hands": [["Q", "9", "7", "4", "2"], HANDS[1]], "x": 1},
              "actions": [{"seat": 0, "type": "commit", "card": "9", "note": "hi"},
                          {"seat": 1, "type": "commit", "card": "5"}], "extra": [1]}
    assert answer(json.dumps(record))["battles"] == [["9", "5", 0]]


@pytest.mark.parametrize(("actions", "index"), [
    (["commit"], 0),
    ([None], 0),
    ([{"seat": True, "type": "commit", "card": "9"}], 0),
    ([{"seat": 1.0, "type": "commit", "card": "5"}], 0),
    ([{"seat": "1", "type": "commit", "card": "5"}], 0),
    ([{"seat": 2, "type": "commit", "card": "5"}], 0),
    ([{"type": "commit", "card": "5"}], 0),
    ([{"seat": 0, "type": "Commit", "card": "9"}], 0),
    ([{"seat": 0, "type": "play", "card": "9"}], 0),
    ([{"seat": 0, "card": "9"}], 0),
    ([{"seat": 0, "type": "commit"}], 0),
    ([{"seat": 0, "type": "commit", "card": "q"}], 0),
    ([{"seat": 0, "type": "commit", "card": "10"}], 0),
    ([{"seat": 0, "type": "commit", "card": "r2"}], 0),
    ([{"seat": 0, "type": "commit", "card": 9}], 0),
    ([{"seat": 0, "type": "commit", "card": "5"}], 0),             # the other hand
    ([{"seat": 0, "type": "commit", "card": "9"},
      {"seat": 0, "type": "commit", "card": "9"}], 1),             # a second commit, same
    ([{"seat": 0, "type": "commit", "card": "9"},
      {"seat": 0, "type": "commit", "card": "2"}], 1),             # ... or another card
    ([{"seat": 1, "type": "commit", "card": "5"},
      {"seat": 0, "type": "commit", "card": "5"}], 1),             # face down for seat 1
    ([*commits(WORKED[:1]), {"seat": 0, "type": "commit", "card": "9"}], 2),  # shown
    ([*commits(WORKED[:5]), {"seat": 0, "type": "commit", "card": "9"}], 10),  # swapped
    ([*commits(WORKED), {"seat": 0, "type": "commit", "card": "2"}, "junk"], 20),  # over
])
def test_refused_actions(actions: list[Any], index: int) -> None:
    got = answer(line(actions))
    assert list(got) == ["error", "action_index"]
    assert got["action_index"] == index and isinstance(got["error"], str) and got["error"]


@pytest.mark.parametrize("text", [
    "not json", "{", "[]", "3", '"x"', "null", '{"actions": []}',
    '{"setup": {"deck": 10, "hands": [["2","4","7","9","Q"],["3","5","6","8","T"]]}}',
    '{"setup": {"deck": 10, "hands": [["2","4","7","9","Q"],["3","5","6","8","T"]]}, '
    '"actions": {}}',
    '{"setup": null, "actions": []}', '{"setup": [], "actions": []}',
    line([], deck=12), line([], deck=10.0), line([], deck=True), line([], deck="10"),
    line([], deck=14), line([], hands=LONG),
    line([], hands=[HANDS[0]]), line([], hands=[HANDS[0], HANDS[1], []]),
    line([], hands=[HANDS[0], HANDS[1][:4]]), line([], hands=[HANDS[0] + ["3"], HANDS[1][1:]]),
    line([], hands=[HANDS[0], ["3", "5", "6", "8", "10"]]),
    line([], hands=[HANDS[0], ["3", "5", "6", "8", "8"]]),
    line([], hands=[HANDS[0], ["3", "5", "6", "8", "t"]]),
    line([], hands=[["2", "4", "7", "9", "Q"], ["2", "5", "6", "8", "T"]]),
    line([], hands="2479Q 3568T"), line([], hands=[HANDS[0], None]),
    line([], hands=[HANDS[0], ["3", "5", "6", "8", 10]]),
    '{"setup": {"deck": NaN, "hands": []}, "actions": []}',
    '{"setup": {"deck": Infinity, "hands": []}, "actions": []}',
    '{"setup": {"deck": 1' + "0" * 5000 + ', "hands": []}, "actions": []}',
    "[" * 100_000 + "]" * 100_000,
    '{"setup": ' + "[" * 100_000 + "]" * 100_000 + ', "actions": []}',
    b"\xff\xfe{}",
])
def test_malformed_lines(text: str | bytes) -> None:
    got = answer(text)
    assert list(got) == ["error", "action_index"]
    assert got["action_index"] is None and got["error"]


def test_deeply_nested_values_inside_an_action_are_refused_not_crashed() -> None:
    deep = "[" * 900 + "]" * 900
    text = ('{"setup": {"deck": 10, "hands": [["2","4","7","9","Q"],["3","5","6","8","T"]]},'
            ' "actions": [{"seat": ' + deep + ', "type": "commit", "card": ' + deep + "}]}")
    assert answer(text)["action_index"] == 0
    text = text.replace('"seat": ' + deep, '"seat": 0')
    assert answer(text)["action_index"] == 0


def test_blank_lines_are_skipped_and_every_other_line_answered_in_order() -> None:
    out = io.StringIO()
    lines = [line(commits(WORKED)) + "\n", "\n", "   \n", "garbage\n",
             line([{"seat": 0, "type": "commit", "card": "5"}]) + "\n"]
    assert main(["divide"], lines, out) == 0
    answers = [json.loads(a) for a in out.getvalue().splitlines()]
    assert len(answers) == 3
    assert answers[0]["winner"] == 0
    assert answers[1]["action_index"] is None and answers[2]["action_index"] == 0


def test_the_command_runs_as_a_module() -> None:
    stdin = (line(commits(WORKED)) + "\n\nnope\n").encode() + b"\xff\n"
    done = subprocess.run([sys.executable, "-m", "app.replay", "divide"], input=stdin,
                          capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(a) for a in done.stdout.decode().splitlines()]
    assert answers[0]["wins"] == [6, 4] and answers[1]["action_index"] is None
    assert answers[2]["action_index"] is None and len(answers) == 3


def test_mangled_lines_always_get_one_answer_of_the_contract_s_shape() -> None:
    """Random damage to good records (bytes cut, swapped, replaced; values changed) never
    crashes the command and always gets a result or a refusal."""
    rng = random.Random(15)
    good = line(commits(WORKED)).encode()
    values: list[Any] = [None, True, False, 0, 1, -1, 1.0, 1e308, "", "9", "r2", [], {},
                         [[[]]], {"seat": 0}, "commit", 10, 14, 2**70]
    for _ in range(1500):
        if rng.random() < 0.5:
            data = bytearray(good)
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(data))
                op = rng.randrange(3)
                if op == 0:
                    del data[i:i + rng.randint(1, 8)]
                elif op == 1:
                    data[i] = rng.randrange(256)
                else:
                    data[i:i] = rng.choice([b"[", b"{", b'"', b",", b"0", b"\\", b"\xe9"])
            text: str | bytes = bytes(data)
        else:
            record: Any = json.loads(good)
            target = rng.choice(["setup", "deck", "hands", "hand", "actions", "action", "key"])
            new = rng.choice(values)
            if target == "setup":
                record["setup"] = new
            elif target == "deck":
                record["setup"]["deck"] = new
            elif target == "hands":
                record["setup"]["hands"] = new
            elif target == "hand":
                record["setup"]["hands"][rng.randrange(2)][rng.randrange(5)] = new
            elif target == "actions":
                record["actions"] = new
            elif target == "action":
                record["actions"][rng.randrange(20)] = new
            else:
                action = record["actions"][rng.randrange(20)]
                action[rng.choice(["seat", "type", "card"])] = new
            text = json.dumps(record)
        got = answer(text)
        assert isinstance(got, dict)
        assert list(got) in (["error", "action_index"], ["battles", "wins", "winner", "finished"])
        json.dumps(got, allow_nan=False)
