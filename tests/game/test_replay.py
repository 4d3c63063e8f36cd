"""The replay command: JSON Lines of games in, exactly one specified line out per game."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from gamekit import deal_with, exchange, play, random_game
from hypothesis import given, settings
from hypothesis import strategies as st

from app.game import Game
from app.game.cards import codes
from app.game.replay import main, replay_line

ROOT = Path(__file__).resolve().parents[2]
RESULT_KEYS = ["scores", "score_piles", "penalty_piles", "dead_rabbits", "hands", "winner"]


def record(game: Game) -> dict[str, Any]:
    return {"dealer": game.dealer, "hands": [codes(h) for h in game.initial_hands],
            "actions": [a.to_dict() for a in game.actions]}


def run(lines: list[str | bytes]) -> list[str]:
    out = io.StringIO()
    assert main(lines, out) == 0
    return out.getvalue().splitlines()


def example_4() -> Game:
    """Ace example 4: one seat holds all four aces and scores 19; every 2-K hunt is void."""
    placed = {"AH": 2, "AC": 2, "AS": 2, "AD": 2}
    game = Game(deal_with(placed), 0)
    exchange(game, keep=placed)
    play(game, 2, "AC", "AS")
    assert game.over
    return game


def test_a_finished_game_prints_its_tally_in_the_specified_form() -> None:
    game = example_4()
    (line,) = run([json.dumps(record(game))])
    hands = [game.hand(s) for s in range(4)]
    assert line == (
        '{"scores": [0, 0, 19, 0], "score_piles": [[], [], ["AH", "AC", "AS", "AD"], []], '
        '"penalty_piles": [[], [], [], []], "dead_rabbits": ["2D", "3D", "4D", "5D", "6D", '
        '"7D", "8D", "9D", "TD", "JD", "QD", "KD"], "hands": ' + json.dumps(hands)
        + ', "winner": 2}'
    )


def test_random_games_replay_to_the_engines_result() -> None:
    for seed in range(20):
        game = random_game(seed)
        (line,) = run([json.dumps(record(game))])
        answer = json.loads(line)
        assert list(answer) == RESULT_KEYS
        assert answer == {k: game.result()[k] for k in RESULT_KEYS}


def test_an_illegal_action_gives_its_index_and_the_next_line_goes_on() -> None:
    game = random_game(3)
    bad = record(game)
    bad["actions"][5]["seat"] = (bad["actions"][5]["seat"] + 1) % 4
    ace_discard = record(game)
    ace = next(c for c in ace_discard["hands"][game.dealer] if c[0] == "A")
    ace_discard["actions"][0]["card"] = ace
    late = record(game)
    late["actions"].append({"seat": 0, "type": "play", "cards": []})
    lines = run([json.dumps(bad), json.dumps(ace_discard), json.dumps(record(game)),
                 json.dumps(late)])
    assert lines[0] == (f'{{"error": "it is seat {game.actions[5].seat}\'s turn, not seat '
                        f'{bad["actions"][5]["seat"]}\'s", "action_index": 5}}')
    assert lines[1] == '{"error": "aces may not be discarded", "action_index": 0}'
    assert json.loads(lines[2])["scores"] == game.scores
    assert lines[3] == ('{"error": "the game is over: nobody is to act", "action_index": '
                        f'{len(game.actions)}}}')


def test_malformed_actions_are_refused_at_their_index() -> None:
    game = random_game(4)
    for i, (broken, why) in enumerate([
        ({"seat": 9, "type": "discard", "card": "7H"}, "seat must be 0, 1, 2 or 3, not 9"),
        ({"seat": 0, "type": "discard", "card": "ZZ"},
         "'ZZ' is not a card code (rank 23456789TJQKA then suit CDHS)"),
        ("discard 7H", "an action must be an object with seat and type"),
    ]):
        data = record(game)
        data["actions"][i] = broken
        assert run([json.dumps(data)]) == [json.dumps({"error": why, "action_index": i})]


def test_an_unfinished_game_is_not_a_record() -> None:
    data = record(random_game(5))
    data["actions"] = data["actions"][:3]
    seat = (data["dealer"] + 3) % 4
    assert run([json.dumps(data)]) == [json.dumps({
        "error": f"the game is not over after its 3 actions: seat {seat} must discard a card",
        "action_index": None})]


def test_garbage_lines_get_null_index_errors_and_blank_lines_are_skipped() -> None:
    good = record(random_game(6))
    cases: list[tuple[str | bytes, str]] = [
        ("not json", "not valid JSON: Expecting value at column 1"),
        ('{"dealer": 0', "not valid JSON: Expecting ',' delimiter at column 13"),
        ("[1, 2]", 'a game is a JSON object {"dealer": ..., "hands": ..., "actions": ...}'),
        ("null", 'a game is a JSON object {"dealer": ..., "hands": ..., "actions": ...}'),
        ('{"hands": [], "actions": []}', "the game has no 'dealer'"),
        (json.dumps({**good, "actions": {}}), "'actions' must be a list"),
        (json.dumps({**good, "hands": good["hands"][:3]}), "'hands' must be a list of four hands"),
        (json.dumps({**good, "hands": [*good["hands"][:3], good["hands"][3][:9]]}),
         "hands[3] must be a list of ten card codes"),
        (json.dumps({**good, "hands": [good["hands"][0]] * 4}),
         "a card is dealt twice: the deal must hold the 40-card pack once"),
        (json.dumps({**good, "hands": [["7D", *good["hands"][0][1:]], *good["hands"][1:]]}),
         "7D cannot be dealt: 7 of diamonds is a rabbit"),
        (json.dumps({**good, "hands": [[1] * 10] * 4}),
         "hands[0]: a card must be a code such as '7H', not 1"),
        (json.dumps({**good, "dealer": 7}), "dealer must be a seat 0-3, not 7"),
        (json.dumps({**good, "dealer": 10**50}),
         "dealer must be a seat 0-3, not a number that large"),
        ('{"dealer": ' + "9" * 5000 + "}", "not valid JSON: a number has too many digits"),
        ("[" * 100_000, "not valid JSON: nested too deeply"),
        (b"\xff\xfe{}", "the line is not valid UTF-8"),
    ]
    lines = run([case for case, _ in cases[:8]] + ["", "   \t"] + [case for case, _ in cases[8:]])
    assert lines == [json.dumps({"error": why, "action_index": None}) for _, why in cases]


def test_extra_keys_are_ignored_and_codes_may_be_lower_case() -> None:
    game = random_game(7)
    data = record(game)
    data["comment"] = "from the archive"
    data["hands"] = [[c.lower() for c in hand] for hand in data["hands"]]
    data["actions"][0]["note"] = 1
    assert json.loads(run([json.dumps(data)])[0])["scores"] == game.scores


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(data=JSON, keys=st.sampled_from(["dealer", "hands", "actions", "x"]))
def test_any_json_gets_one_answer_of_the_specified_shape(data: object, keys: str) -> None:
    for value in (data, {"dealer": 0, "hands": data, "actions": []},
                  {"dealer": 0, "hands": record(random_game(1))["hands"], "actions": [data]},
                  {keys: data}):
        answer = replay_line(json.dumps(value))
        assert answer is not None
        assert list(answer) in (RESULT_KEYS, ["error", "action_index"])


@settings(max_examples=200, deadline=None)
@given(line=st.binary(max_size=60) | st.text(max_size=60))
def test_any_bytes_or_text_get_an_answer_or_are_blank(line: str | bytes) -> None:
    answer = replay_line(line)
    if answer is None:
        assert not (line.decode("utf-8") if isinstance(line, bytes) else line).strip()
    else:
        assert list(answer) == ["error", "action_index"] and answer["action_index"] is None


def test_the_command_runs_as_a_process() -> None:
    game = random_game(8)
    stdin = "\n".join([json.dumps(record(game)), "", "oops", ""]).encode() + b"\xff\n"
    done = subprocess.run([sys.executable, "-m", "app.game.replay"], input=stdin,
                          capture_output=True, cwd=ROOT, timeout=60, check=False)
    assert done.returncode == 0 and done.stderr == b""
    lines = done.stdout.decode().splitlines()
    assert [json.loads(line) for line in lines] == [
        {k: game.result()[k] for k in RESULT_KEYS},
        {"error": "not valid JSON: Expecting value at column 1", "action_index": None},
        {"error": "the line is not valid UTF-8", "action_index": None},
    ]
