"""A finished match's record is checked, down to replaying its games, before it is stored."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from matchdb import play_match_record

from app.db.match_record import parse_match_record

RECORD = play_match_record(21, games_to_win=2)


def test_a_real_match_gives_its_rows() -> None:
    rows = parse_match_record(RECORD)
    assert rows.match["table_id"] == "T1" and rows.match["winner"] == RECORD["winner"]
    assert rows.match["started_at"].tzinfo is not None
    assert [p["name_key"] for p in rows.players] == ["ann", "bob", "cid", "dee"]
    assert [g["number"] for g in rows.games] == list(range(1, len(RECORD["games"]) + 1))
    assert rows.games[0]["actions"] == RECORD["games"][0]["actions"]


def test_card_codes_are_stored_in_their_canonical_form() -> None:
    record = copy.deepcopy(RECORD)
    record["games"][0]["hands"][0] = [c.lower() for c in record["games"][0]["hands"][0]]
    assert parse_match_record(record).games[0]["hands"] == RECORD["games"][0]["hands"]


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = record
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return change


def _drop_last_action(record: dict[str, Any]) -> None:
    record["games"][0]["actions"].pop()


def _swap_seats(record: dict[str, Any]) -> None:
    record["players"][1]["seat"] = 0


def _bad_action(record: dict[str, Any]) -> None:
    record["games"][0]["actions"][0] = {"seat": 9, "type": "discard", "card": "7H"}


def _wrong_winner(record: dict[str, Any]) -> None:
    game = record["games"][0]
    game["winner"] = (game["winner"] + 1) % 4 if game["winner"] is not None else 0


@pytest.mark.parametrize(("change", "message"), [
    (_set("seed", -1), "seed"),
    (_set("seed", True), "seed"),
    (_set("winner", 4), "winner"),
    (_set("started_at", "2026-11-21T22:00:00"), "started_at"),
    (_set("ended_at", "2020-01-01T00:00:00+00:00"), "ended_at is before started_at"),
    (_set("players", []), "players"),
    (_swap_seats, "seats 0, 1, 2 and 3"),
    (_set("players.0.bot", "no"), "players.0.bot"),
    (_set("games.0.number", 2), "numbered 1, 2, 3"),
    (_set("games.0.hands.0.0", "2D"), "game 1 does not replay"),
    (_bad_action, "game 1 does not replay: seat must be"),
    (_drop_last_action, "game 1: its actions stop before the end"),
    (_wrong_winner, "game 1: records scores/winner/tie-break"),
    (_set("totals", [0, 0, 0, 0]), "totals"),
    (_set("game_wins", [9, 0, 0, 0]), "game_wins"),
])
def test_a_bad_record_is_refused_with_the_reason(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    record = copy.deepcopy(RECORD)
    change(record)
    with pytest.raises(ValueError, match=message):
        parse_match_record(record)


def test_a_record_must_be_an_object() -> None:
    with pytest.raises(ValueError, match="match record"):
        parse_match_record([RECORD])
