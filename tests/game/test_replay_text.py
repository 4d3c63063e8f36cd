"""The replay's text fast path answers exactly what the long way answers, byte for byte.

``fast_answer`` reads a plainly written record by splitting its text; every line it
takes must get the bytes ``json.dumps(replay_line(line))`` gives, and every line it
leaves (``None``) goes the long way. The corpus: finished games of random and heuristic
bots, written as ``json.dumps`` writes them, then changed as text (a byte, a card, a
seat, the order or number of actions, the hands, spaces, keys, escapes, line ends).
"""

from __future__ import annotations

import io
import json
import random

import pytest

from app.game import Game
from app.game.bots import HeuristicBot, RandomBot
from app.game.cards import CODES, codes
from app.game.replay import fast_answer, main, replay_line


def _games(count: int) -> list[bytes]:
    lines = []
    for n in range(count):
        game = Game.new(n, n % 4, record_events=False)
        if n % 8 == 0:
            bots = [HeuristicBot(n * 4 + s) for s in range(4)]
            while (s := game.to_act) is not None:
                game.apply(bots[s].choose(game.view(s)))
        else:
            bot = RandomBot(n)
            while game.to_act is not None:
                game.apply(bot.pick(game.legal_actions()))
        lines.append(json.dumps({"dealer": game.dealer,
                                 "hands": [codes(h) for h in game.initial_hands],
                                 "actions": [a.to_dict() for a in game.actions]}).encode())
    return lines


def _changed(line: bytes, rng: random.Random) -> bytes:
    """``line`` changed as text in one of many ways (most still JSON, some still legal)."""
    text = line.decode()
    record = json.loads(text)
    how = rng.randrange(16)
    if how == 0:  # one byte replaced
        i = rng.randrange(len(line))
        return line[:i] + bytes([rng.choice(b'"{}[], :0123456789ACDHSTJQKx\\')]) + line[i + 1:]
    if how == 1:  # one byte dropped
        i = rng.randrange(len(line))
        return line[:i] + line[i + 1:]
    if how == 2:  # a card code in an action changed
        actions = record["actions"]
        i = rng.randrange(len(actions))
        if "card" in actions[i]:
            actions[i]["card"] = rng.choice(CODES)
        else:
            actions[i]["cards"] = rng.sample(CODES, rng.randrange(3))
    elif how == 3:  # a seat changed
        i = rng.randrange(len(record["actions"]))
        record["actions"][i]["seat"] = rng.choice([0, 1, 2, 3, 4, -1, True, "1", 1.0])
    elif how == 4:  # two actions swapped
        actions = record["actions"]
        i, j = rng.randrange(len(actions)), rng.randrange(len(actions))
        actions[i], actions[j] = actions[j], actions[i]
    elif how == 5:  # actions cut, or one repeated, or one more after the end
        actions = record["actions"]
        choice = rng.randrange(3)
        if choice == 0:
            del actions[rng.randrange(len(actions)):]
        elif choice == 1:
            actions.insert(rng.randrange(len(actions)), rng.choice(actions))
        else:
            actions.append({"seat": rng.randrange(4), "type": "play", "cards": []})
    elif how == 6:  # a card moved from one hand to another, or dealt twice
        hands = record["hands"]
        a, b = rng.sample(range(4), 2)
        if rng.random() < 0.5:
            hands[b].append(hands[a].pop())
        else:
            hands[b][0] = hands[a][0]
    elif how == 7:  # the dealer changed
        record["dealer"] = rng.choice([0, 1, 2, 3, 4, -1, "0", None, 0.0, False])
    elif how == 8:  # a key more, in the record or an action
        if rng.random() < 0.5:
            record["note"] = "x"
        else:
            record["actions"][rng.randrange(len(record["actions"]))]["note"] = 1
    elif how == 9:  # keys in another order
        record = {"hands": record["hands"], "dealer": record["dealer"],
                  "actions": record["actions"]}
    elif how == 10:  # other separators
        return json.dumps(record, separators=(",", ":")).encode()
    elif how == 11:  # lower-case codes or spaces in them (the engine reads both)
        actions = record["actions"]
        i = rng.randrange(len(actions))
        if "card" in actions[i]:
            actions[i]["card"] = rng.choice([actions[i]["card"].lower(),
                                             " " + actions[i]["card"]])
        else:
            record["hands"][0][0] = record["hands"][0][0].lower()
    elif how == 12:  # a code written with an escape (the same string once read)
        i = text.index('"', text.index('"card"') + 7)
        return (text[:i + 1] + f"\\u{ord(text[i + 1]):04x}" + text[i + 2:]).encode()
    elif how == 13:  # line ends and spaces around
        return rng.choice([line + b"\r\n", b" " + line, line + b" \n", line + b"\n\n",
                           line + b"\n"])
    elif how == 14:  # a discard of an ace, or a pass written as a discard
        actions = record["actions"]
        i = rng.randrange(28)
        actions[i]["type"] = rng.choice(["discard", "pass", "play"])
        if rng.random() < 0.5:
            actions[i]["card"] = "A" + rng.choice("CDHS")
    else:  # a hunt turn changed: both wolves, or the other one
        plays = [a for a in record["actions"] if a["type"] == "play"]
        if plays:
            play = rng.choice(plays)
            rank = rng.choice("23456789TJQKA")
            play["cards"] = rng.choice([[rank + "C", rank + "S"], [rank + "S"], [rank + "C"],
                                        [rank + "S", rank + "C"], [rank + "C", rank + "C"]])
    return json.dumps(record).encode()


def _long_way(line: bytes) -> str | None:
    answer = replay_line(line)
    return None if answer is None else json.dumps(answer)


def test_plain_records_take_the_fast_path_and_answer_as_the_long_way() -> None:
    for line in _games(300):
        for form in (line, line + b"\n"):
            fast = fast_answer(form)
            assert fast is not None
            assert fast == _long_way(form)


def test_changed_records_get_the_long_ways_answer() -> None:
    rng = random.Random(18)
    taken = left = 0
    for line in _games(200):
        for _ in range(8):
            changed = _changed(line, rng)
            fast = fast_answer(changed)
            if fast is None:
                left += 1
            else:
                taken += 1
                assert fast == _long_way(changed), changed
    # Both ways are exercised: some changes leave a legal, plainly written game.
    assert taken > 50 and left > 800


@pytest.mark.parametrize("line", [
    b"", b"\n", b"{}", b'{"dealer": 0, "hands": [[', b'{"dealer": 0}]}',
    b'{"dealer": 0, "hands": [[]], "actions": []}',
    b'{"dealer": 9, "hands": [["2C"]], "actions": [{}]}',
    b'{"dealer": 0, "hands": [[]], "actions": [}]}',
    b'{"dealer": 0, "hands": [[]], "actions": [{}]}',
])
def test_odd_lines_are_left_to_the_long_way(line: bytes) -> None:
    assert fast_answer(line) is None


def test_the_command_prints_the_long_ways_bytes_for_every_line() -> None:
    rng = random.Random(7)
    lines = []
    for line in _games(60):
        lines += [line + b"\n", _changed(line, rng) + b"\n", b"\n", "é\n".encode(), b"\xff\n"]
    out = io.StringIO()
    assert main(lines, out) == 0
    expected = [answer for line in lines if (answer := _long_way(line)) is not None]
    assert out.getvalue() == "".join(answer + "\n" for answer in expected)
