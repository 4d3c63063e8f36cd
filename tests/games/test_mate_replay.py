"""``python -m app.replay mate``, exactly as ../shared/contracts/mate.md defines it."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.games.mate.replay import replay_line
from app.replay import main

ROOT = Path(__file__).resolve().parents[2]
EX2 = [["AC", "7C", "AS", "7S", "AH", "TH", "KH", "QH", "AD", "7D"],
       ["TC", "KC", "QC", "TS", "KS", "QS", "7H", "TD", "KD", "QD"]]
EX4 = [["AC", "TC", "QC", "AS", "TS", "AH", "TH", "AD", "TD", "KD"],
       ["KC", "7C", "KS", "QS", "7S", "KH", "QH", "7H", "QD", "7D"]]
EX5 = [["AC", "TC", "AS", "KS", "7S", "TH", "KH", "AD", "TD", "QD"],
       ["KC", "QC", "7C", "TS", "QS", "AH", "QH", "7H", "KD", "7D"]]
EX6 = [["AC", "TC", "KC", "AS", "KS", "7S", "AH", "KH", "AD", "QD"],
       ["QC", "7C", "TS", "QS", "TH", "QH", "7H", "TD", "KD", "7D"]]


def plays(cards: str, first: int = 0) -> list[dict[str, Any]]:
    """Alternating plays, starting with ``first``; a ``/`` swaps who plays next (a move
    won by the answerer, whose next card is a lead)."""
    out: list[dict[str, Any]] = []
    seat = first
    for code in cards.split():
        if code == "/":
            seat = 1 - seat
            continue
        out.append({"seat": seat, "type": "play", "card": code})
        seat = 1 - seat
    return out


def decisions(first: int, a: str | None, b: str | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for seat, card in ((first, a), (1 - first, b)):
        out.append({"seat": seat, "type": "decline"} if card is None else
                   {"seat": seat, "type": "foreplace", "card": card})
    return out


def line(hands: Any = None, actions: Any = None, leader: Any = 0, **extra: Any) -> str:
    return json.dumps({"setup": {"hands": EX2 if hands is None else hands, "leader": leader},
                       "actions": [] if actions is None else actions, **extra})


EX3_ACTIONS = decisions(0, "7D", None) + plays("AC QC AS QS AD QD AH 7H QH")


def test_the_contract_example() -> None:
    answer = replay_line(line(EX2, EX3_ACTIONS))
    assert json.dumps(answer) == (
        '{"mated": 1, "move": 5, "card": "QH", "overmate": false, "scores": [18, 0], '
        '"foreplaced": ["7D", null], "remaining": [["7C", "7S", "TH", "KH"], '
        '["TC", "KC", "TS", "KS", "TD", "KD"]]}')


def test_overmate_example_4() -> None:
    actions = decisions(0, "KD", None) + plays(
        "AH KH TC 7C TS 7S TH 7H AD 7D AC KC TD QD QC QS AS KS")
    assert replay_line(line(EX4, actions)) == {
        "mated": 1, "move": 10, "card": "AS", "overmate": True, "scores": [242, 0],
        "foreplaced": ["KD", None], "remaining": [[], ["QH"]]}


def test_lone_foreplacer_mated_on_move_10_example_5() -> None:
    actions = decisions(0, "KS", None) + plays(
        "AS QS AC QC TC KC TH QH QD 7D TD KD KH 7H 7S TS / AH AD 7C", 0)
    assert replay_line(line(EX5, actions)) == {
        "mated": 0, "move": 10, "card": "7C", "overmate": False, "scores": [0, 70],
        "foreplaced": ["KS", None], "remaining": [[], []]}
    # The lone foreplacer has no action on move 10: a play by it is refused.
    extra = [*actions[:-1], {"seat": 0, "type": "play", "card": "AD"}]
    assert replay_line(line(EX5, extra))["action_index"] == len(actions) - 1


def test_draw_example_6_and_leader_1() -> None:
    actions = decisions(0, "KC", "TD") + plays(
        "TC QC QD 7D AD KD KS QS AH TH KH QH AS TS AC 7C 7S 7H")
    assert replay_line(line(EX6, actions)) == {
        "mated": None, "move": None, "card": None, "overmate": False, "scores": [0, 0],
        "foreplaced": ["KC", "TD"], "remaining": [[], []]}
    # The same cards with the seats exchanged and seat 1 leading.
    swapped = [{**a, "seat": 1 - a["seat"]} for a in actions]
    answer = replay_line(line([EX6[1], EX6[0]], swapped, leader=1))
    assert answer is not None and answer["scores"] == [0, 0]
    assert answer["foreplaced"] == ["TD", "KC"]


def test_extra_keys_are_ignored_and_hands_in_any_order() -> None:
    actions = [{**a, "note": 1} for a in EX3_ACTIONS]
    actions[1]["card"] = "AC"  # a "card" on a decline is ignored
    hands = [list(reversed(EX2[0])), EX2[1]]
    answer = replay_line(line(hands, actions, extra={"x": [1]}))
    assert answer is not None and answer["scores"] == [18, 0]


@pytest.mark.parametrize(("index", "action"), [
    (0, "play"), (0, None), (0, []),
    (0, {"seat": True, "type": "decline"}), (0, {"seat": 1.0, "type": "decline"}),
    (0, {"seat": "0", "type": "decline"}), (0, {"seat": 2, "type": "decline"}),
    (0, {"seat": None, "type": "decline"}), (0, {"type": "decline"}),
    (0, {"seat": 0, "type": "Decline"}), (0, {"seat": 0, "type": "pass"}),
    (0, {"seat": 0}), (0, {"seat": 0, "type": "foreplace"}),
    (0, {"seat": 0, "type": "foreplace", "card": "7d"}),
    (0, {"seat": 0, "type": "foreplace", "card": "10D"}),
    (0, {"seat": 0, "type": "foreplace", "card": ["7D"]}),
    (0, {"seat": 1, "type": "decline"}),  # not its turn
    (0, {"seat": 0, "type": "play", "card": "AC"}),  # before the decisions
    (0, {"seat": 0, "type": "foreplace", "card": "TC"}),  # not held
])
def test_a_refused_first_action(index: int, action: Any) -> None:
    answer = replay_line(line(EX2, [action, *EX3_ACTIONS]))
    assert answer is not None and set(answer) == {"error", "action_index"}
    assert answer["action_index"] == index and answer["error"]


def test_refused_actions_later() -> None:
    cases = [
        ([*EX3_ACTIONS[:1], {"seat": 0, "type": "foreplace", "card": "7C"}], 1),  # twice
        ([*EX3_ACTIONS[:2], {"seat": 0, "type": "foreplace", "card": "7C"}], 2),  # too late
        ([*EX3_ACTIONS[:2], {"seat": 1, "type": "decline"}], 2),
        ([*EX3_ACTIONS[:2], {"seat": 0, "type": "play", "card": "7D"}], 2),  # face down
        ([*EX3_ACTIONS[:2], {"seat": 0, "type": "play", "card": "TC"}], 2),  # other hand
        ([*EX3_ACTIONS[:3], {"seat": 1, "type": "play", "card": "TS"}], 3),  # off suit
        ([*EX3_ACTIONS[:3], {"seat": 0, "type": "play", "card": "AS"}], 3),  # out of turn
        ([*EX3_ACTIONS[:4], {"seat": 0, "type": "play", "card": "AC"}], 4),  # played
        ([*EX3_ACTIONS, {"seat": 1, "type": "play", "card": "TC"}], len(EX3_ACTIONS)),  # over
        ([*EX3_ACTIONS, {"seat": 0, "type": "play", "card": "7C"}], len(EX3_ACTIONS)),
    ]
    for actions, index in cases:
        answer = replay_line(line(EX2, actions))
        assert answer is not None and answer["action_index"] == index, (actions, answer)
        assert set(answer) == {"error", "action_index"}


def test_all_legal_but_not_over() -> None:
    for n in range(len(EX3_ACTIONS)):
        answer = replay_line(line(EX2, EX3_ACTIONS[:n]))
        assert answer is not None and answer["action_index"] == n and "not over" in \
            answer["error"]


@pytest.mark.parametrize("text", [
    "not json", "[1, 2]", "1", '"setup"', "null", "{", '{"setup": NaN, "actions": []}',
    '{"actions": []}', line(EX2).replace('"actions": []', '"actions": {}'),
    json.dumps({"setup": {"hands": EX2, "leader": 0}}),
    json.dumps({"setup": {"hands": EX2, "leader": 0}, "actions": None}),
    json.dumps({"setup": [EX2, 0], "actions": []}),
    json.dumps({"setup": {"leader": 0}, "actions": []}),
    json.dumps({"setup": {"hands": EX2}, "actions": []}),
    line(EX2, leader=True), line(EX2, leader=1.0), line(EX2, leader="1"), line(EX2, leader=2),
    line(EX2, leader=None), line([EX2[0]]), line([EX2[0], EX2[1], []]),
    line([EX2[0][:9], EX2[1] + [EX2[0][9]]]), line([[*EX2[0][:9], "XX"], EX2[1]]),
    line([[*EX2[0][:9], "7d"], EX2[1]]), line([[*EX2[0][:9], "AC"], EX2[1]]),
    line([[*EX2[0][:9], 7], EX2[1]]), line(["AC" * 10, EX2[1]]), line([None, EX2[1]]),
    "[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000,
    '{"setup": {"hands": [], "leader": 1' + "0" * 5000 + '}, "actions": []}',
    '{"setup": Infinity, "actions": []}', '{"setup": -Infinity}',
])
def test_malformed_lines(text: str) -> None:
    answer = replay_line(text)
    assert answer is not None and set(answer) == {"error", "action_index"}
    assert answer["action_index"] is None and answer["error"]
    json.dumps(answer, allow_nan=False)


def test_bad_bytes_and_blank_lines() -> None:
    assert replay_line(b"\xff\xfe{}\n") == {"error": "the line is not valid UTF-8",
                                            "action_index": None}
    assert replay_line("") is None and replay_line("   \t\n") is None
    assert replay_line(b"\n") is None


def test_the_command_answers_every_line_in_order() -> None:
    good = line(EX2, EX3_ACTIONS)
    stdin = io.StringIO("\n".join([good, "", "nonsense", "  ", "[" * 5000, good]) + "\n")
    out = io.StringIO()
    assert main(["mate"], stdin=stdin, stdout=out) == 0
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(answers) == 4
    assert answers[0]["scores"] == [18, 0] and answers[3] == answers[0]
    assert answers[1]["action_index"] is None and answers[2]["action_index"] is None


def test_python_m_app_replay_mate() -> None:
    good = line(EX2, EX3_ACTIONS)
    stdin = (good + "\n" + "\xff oops\n").encode() + b"\xff\xfe\n" + good.encode()
    done = subprocess.run([sys.executable, "-m", "app.replay", "mate"], input=stdin,
                          capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(x) for x in done.stdout.decode().splitlines()]
    assert [a.get("scores") for a in answers] == [[18, 0], None, None, [18, 0]]
