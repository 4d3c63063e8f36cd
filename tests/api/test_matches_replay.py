"""The replay's words: each hunt result explained by its rule, checked on real games."""

from __future__ import annotations

import re
from typing import Any

import pytest
from matchdb import play_match_record

from app.games.contract import seat_labels
from app.games.dingo.frames import replay_game
from app.games.dingo.narration import card_text, explain_hunt

SEATS = ["North", "East", "South", "West"]


def hunt(rule: str, rank: str, dingo_seat: int | None, plays: list[tuple[int, list[str]]],
         to_score: list[list[str]], to_penalty: list[list[str]],
         points: list[int]) -> dict[str, Any]:
    rabbit = "AD" if rank == "A" else rank + "D"
    return {"type": "hunt_result", "rank": rank, "rabbit": rabbit, "dingo_seat": dingo_seat,
            "rule": rule, "plays": [{"seat": s, "cards": c} for s, c in plays],
            "to_score": to_score, "to_penalty": to_penalty, "points": points}


@pytest.mark.parametrize(("event", "text"), [
    (hunt("one_wolf", "7", 1, [(1, ["7H"]), (0, ["7C"])],
          [["7C", "7D"], ["7H"], [], []], [[], [], [], []], [2, 1, 0, 0]),
     "One wolf: North's 7♣ catches the 7♦ rabbit — wolf and rabbit to North's score pile "
     "(+2), the 7♥ dingo to East's score pile (+1)."),
    (hunt("two_wolves", "T", 2, [(2, ["TH"]), (3, ["TS", "TC"])],
          [[], [], ["TH", "TS"], ["TC", "TD"]], [[], [], [], []], [0, 0, 4, 4]),
     "Two wolves: West's 10♠ comes first and goes with the 10♥ dingo to South's score pile "
     "(+4); West's 10♣ catches the 10♦ rabbit — wolf and rabbit to West's score pile (+4)."),
    (hunt("no_wolf", "K", 3, [(3, ["KH"])], [[], [], [], []], [[], [], [], ["KH"]],
          [0, 0, 0, -2]),
     "No wolf: nobody catches the K♦ rabbit, which is dead — West's K♥ dingo goes to West's "
     "penalty pile (\u22122)."),
    (hunt("void", "5", None, [], [[], [], [], []], [[], [], [], []], [0, 0, 0, 0]),
     "Void hunt: the 5♥ dingo was discarded, so the 5♦ rabbit is dead and no wolf may be "
     "played."),
    # docs/rules.md, ace example 1: East plays AH, South a wolf, North the other wolf and AD.
    (hunt("ace_caught", "A", 1, [(1, ["AH"]), (2, ["AC"]), (0, ["AS"]), (0, ["AD"])],
          [["AS", "AD"], ["AH"], ["AC"], []], [[], [], [], []], [13, 3, 3, 0]),
     "Ace hunt: an ace wolf was played, so every ace played goes to its player's score pile "
     "— A♥ to East (+3), A♣ to South (+3), A♠ and A♦ to North (+13)."),
    # North holds the dingo, a wolf and the rabbit: three aces listed as people write them.
    (hunt("ace_caught", "A", 0, [(0, ["AH"]), (1, ["AS"]), (0, ["AC", "AD"])],
          [["AH", "AC", "AD"], ["AS"], [], []], [[], [], [], []], [16, 3, 0, 0]),
     "Ace hunt: an ace wolf was played, so every ace played goes to its player's score pile "
     "— A♥, A♣ and A♦ to North (+16), A♠ to East (+3)."),
    # Ace example 2: North holds AD and a wolf and can play only the wolf.
    (hunt("ace_caught", "A", 3, [(3, ["AH"]), (0, ["AC"]), (2, ["AS"])],
          [["AC"], [], ["AS"], ["AH"]], [["AD"], [], [], []], [0, 0, 3, 3]),
     "Ace hunt: an ace wolf was played, so every ace played goes to its player's score pile "
     "— A♥ to West (+3), A♣ to North (+3), A♠ to South (+3). The A♦ rabbit stays in "
     "North's hand: to North's penalty pile (\u22123)."),
    (hunt("ace_no_wolf", "A", 2, [(2, ["AH"])], [[], [], [], []], [[], [], ["AH"], ["AD"]],
          [0, 0, -3, -3]),
     "Ace hunt, no wolf: nobody plays an ace wolf, so South's A♥ goes to South's penalty "
     "pile (\u22123). The A♦ rabbit stays in West's hand: to West's penalty pile (\u22123)."),
])
def test_each_rule_in_words(event: dict[str, Any], text: str) -> None:
    assert explain_hunt(event, SEATS) == text


def test_names_shared_by_two_players_get_their_seat() -> None:
    # As static/js/render.js seatNames names them.
    assert seat_labels(["Bot", "Ann", "Bot", "Dee"]) == ["Bot 1", "Ann", "Bot 3", "Dee"]


@pytest.mark.parametrize("seed", range(30))
def test_explanations_of_real_games_name_every_card_and_point(seed: int) -> None:
    game = play_match_record(seed)["games"][0]
    replay = replay_game(game["hands"], game["dealer"], game["actions"], lambda _: SEATS)
    results = [e for s in replay["steps"] for e in s["events"] if e["type"] == "hunt_result"]
    changes = [c for s in replay["steps"] for c in s["score_changes"]]
    assert [c["rule"] for c in changes] == [e["rule"] for e in results]
    for event, change in zip(results, changes, strict=True):
        text = change["explanation"]
        moved = [c for pile in event["to_score"] + event["to_penalty"] for c in pile]
        for c in moved:
            assert card_text(c) in text, (c, text)
        stated = {int(p.replace("\u2212", "-")) for p in re.findall(r"\(([+\u2212]\d+)\)", text)}
        assert {p for p in event["points"] if p} <= stated | _sums(stated), text
        assert change["points"] == event["points"]


def _sums(values: set[int]) -> set[int]:
    """A seat's net ace-hunt points may be stated in parts (+3 and \u22123)."""
    return {a + b for a in values for b in values}
