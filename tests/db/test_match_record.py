"""A finished match's record is checked, down to replaying its games, before it is stored:
Dingo in the shape the table sent before other games (``matchdb``) and in today's shape,
and every registered game through the registry."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from matchdb import play_match_record
from recordkit import dingo_record, game_record, hand_over

from app.db.match_record import parse_match_record

RECORD = play_match_record(21, games_to_win=2)
NEW = dingo_record(21, games_to_win=2)


def test_a_real_match_gives_its_rows() -> None:
    rows = parse_match_record(RECORD)
    assert rows.match["table_id"] == "T1" and rows.match["winner"] == RECORD["winner"]
    assert rows.match["started_at"].tzinfo is not None
    assert [p["name_key"] for p in rows.players] == ["ann", "bob", "cid", "dee"]
    assert [g["number"] for g in rows.games] == list(range(1, len(RECORD["games"]) + 1))
    assert rows.games[0]["actions"] == RECORD["games"][0]["actions"]
    assert rows.match["game"] == "dingo" and rows.match["seats"] == 4
    assert {p["seats"] for p in rows.players} == {g["seats"] for g in rows.games} == {4}


def test_the_old_shape_and_the_new_give_the_same_rows() -> None:
    old, new = parse_match_record(RECORD), parse_match_record(NEW)
    assert old.players == new.players and old.games == new.games
    assert {**old.match, "record": None} == {**new.match, "record": None}
    assert new.match["record"] == NEW["record"]
    assert old.match["scoreboard"]["game_wins"] == RECORD["game_wins"]
    assert old.match["scoreboard"]["totals"] == RECORD["totals"]
    assert old.match["standing"] == RECORD["game_wins"]
    game = RECORD["games"][0]
    assert old.games[0]["setup"] == {"dealer": game["dealer"], "seed": game["seed"],
                                     "hands": game["hands"]}
    assert old.games[0]["result"] == {"scores": game["scores"], "tie_break": game["tie_break"]}


def test_card_codes_are_stored_in_their_canonical_form() -> None:
    record = copy.deepcopy(RECORD)
    record["games"][0]["hands"][0] = [c.lower() for c in record["games"][0]["hands"][0]]
    assert parse_match_record(record).games[0]["setup"]["hands"] == RECORD["games"][0]["hands"]


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


@pytest.mark.parametrize(("change", "message"), [
    (_set("game", "chess"), "no game is called 'chess'"),
    (_set("seats", 2), "dingo is played by 4, not 2"),
    (_set("winner", 4), "winner: 4 is not a seat of dingo"),
    (_set("winner", None), "a Dingo match always has a winner"),
    (_set("games.0.setup.dealer", 4), "setup.dealer must be a seat"),
    (_set("games.0.result", None), "result needs scores"),
    (_set("games.0.result.scores", [0, 0, 0, 0]), "game 1: records scores/winner/tie-break"),
    (_set("scoreboard.totals", [0, 0, 0, 0]), "totals"),
    (_set("scoreboard.game_wins", [9, 0, 0, 0]), "game_wins"),
    (_set("standing", [9, 0, 0, 0]), "standing"),
    (_set("standing", [0, 0]), "standing"),
])
def test_a_bad_dingo_record_of_the_new_shape_is_refused(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    record = copy.deepcopy(NEW)
    change(record)
    with pytest.raises(ValueError, match=message):
        parse_match_record(record)


GAMES = ["mate", "divide", "bingo"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_registered_game_gives_its_rows(game: str, seed: int) -> None:
    record = game_record(game, seed)
    rows = parse_match_record(record)
    assert rows.match["game"] == game and rows.match["seats"] == 2
    assert rows.match["winner"] == record["winner"]
    assert rows.match["standing"] == record["scoreboard"]["standing"]
    assert rows.match["scoreboard"]["rule"] == record["scoreboard"]["rule"]
    assert [p["seat"] for p in rows.players] == [0, 1]
    assert [g["number"] for g in rows.games] == list(range(1, len(record["games"]) + 1))
    assert [g["winner"] for g in rows.games] == [g["winner"] for g in record["games"]]
    assert all(isinstance(a, list) and len(a) == 2 for g in rows.games for a in g["actions"])


def _drop_last_game(record: dict[str, Any]) -> None:
    record["games"].pop()


def _other_winner(record: dict[str, Any]) -> None:
    record["winner"] = 1 if record["winner"] != 1 else 0


def _flip_game_winner(record: dict[str, Any]) -> None:
    game = record["games"][0]
    game["winner"] = 1 if game["winner"] != 1 else 0


def _bad_pair(record: dict[str, Any]) -> None:
    record["games"][0]["actions"][0] = {"seat": 0}


def _illegal(record: dict[str, Any]) -> None:
    first = record["games"][0]["actions"][0]
    record["games"][0]["actions"][0] = [first[0], {"type": "no such move"}]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("change", "message"), [
    (_set("seats", 4), "is played by 2, not 4"),
    (_set("players", [{"seat": 0, "name": "A", "bot": False},
                      {"seat": 0, "name": "B", "bot": False}]), "seats 0 and 1 once each"),
    (_set("players", [{"seat": 0, "name": "A", "bot": False, "strength": "hard"},
                      {"seat": 1, "name": "B", "bot": True}]), "seat 0 is a person"),
    (_set("games.0.stand_in", [99]), "stand_in must list steps"),
    (_set("games.0.stand_in", [2, 1]), "stand_in must list steps"),
    (_set("winner", 2), "winner: 2 is not a seat"),
    (_set("games.0.winner", 3), r"games\.0\.winner: 3 is not a seat"),
    (_set("options", {"nope": 1}), "options: unknown option"),
    (_set("seed", 12345), "game 1"),
    (_bad_pair, r"game 1 does not replay: an action must be \[seat"),
    (_illegal, "game 1 does not replay"),
    (_drop_last_game, "stop before the end of the match"),
    (_other_winner, "winner"),
    (_flip_game_winner, "game 1: records winner"),
    (_set("standing", [99, 0]), "standing"),
    (_set("scoreboard.standing", [99, 0]), "standing"),
])
def test_a_bad_record_of_another_game_is_refused(
    game: str, change: Callable[[dict[str, Any]], None], message: str
) -> None:
    record = game_record(game, 5)
    change(record)
    with pytest.raises(ValueError, match=message):
        parse_match_record(record)


def test_every_holder_of_a_seat_is_a_player_row_and_each_game_keeps_its_holders() -> None:
    record = hand_over(game_record("bingo", 5, bots=(False, False)), 1, 1, 3, "Bruno")
    rows = parse_match_record(record)
    assert [(p["seat"], p["ordinal"], p["name"], p["is_bot"], p["bot_strength"])
            for p in rows.players] == [(0, 0, "Ann", False, None), (1, 0, "Bruno", True, "easy"),
                                       (1, 1, "Bob", False, None)]
    first = rows.games[0]["holders"][1]
    assert [(h["name"], h["since"]) for h in first] == [("Bob", 0), ("Bruno", 3)]
    assert all(g["holders"][1] == [{"name": "Bruno", "bot": True, "strength": "easy",
                                    "since": 0}] for g in rows.games[1:])
    # Before holders were kept: none, and one row per seat.
    plain = parse_match_record(game_record("bingo", 5))
    assert all(g["holders"] is None for g in plain.games)
    assert [p["ordinal"] for p in plain.players] == [0, 0]


def test_a_dingo_game_a_person_played_gets_advice_and_one_of_bots_only_none() -> None:
    record = dingo_record(3, games_to_win=2)
    for p in record["players"][1:]:
        p["bot"] = True
    record = hand_over(record, 0, 1, 4, "Ada")
    advice = [g["advice"] for g in parse_match_record(record).games]
    assert advice[0] is None  # Ann played some of it: the worker works it out
    assert advice[1:] == [{"none": "played by bots only"}] * (len(advice) - 1)
    for g in record["games"]:
        del g["holders"]  # who held the seats at the end: bots only
    assert parse_match_record(record).games[0]["advice"] == {"none": "played by bots only"}


def _holder(name: str, since: int, bot: bool = False, strength: str | None = None,
            ) -> dict[str, Any]:
    return {"name": name, "bot": bot, "strength": strength, "since": since}


@pytest.mark.parametrize(("change", "message"), [
    (_set("games.0.holders", [[_holder("Ann", 0)]]), "one list per seat"),
    (_set("games.0.holders.1", []), "games.0.holders.1: List should have at least 1 item"),
    (_set("games.0.holders.1", [_holder("Bob", 1)]), "seat 1's holders must start at step 0"),
    (_set("games.0.holders.1", [_holder("Bob", 0), _holder("Bruno", 0, True)]),
     "seat 1's holders must start at step 0"),
    (_set("games.0.holders.1", [_holder("Bob", 0), _holder("Bruno", 9999, True)]),
     "seat 1's holders must start at step 0"),
    (_set("games.0.holders.1", [_holder("Bob", 0, strength="hard")]), "a person has no bot"),
    (_set("games.-1.holders.1", [_holder("Bob", 0)]), "held it at the end of the last game"),
])
def test_bad_holders_are_refused(change: Callable[[dict[str, Any]], None],
                                 message: str) -> None:
    record = hand_over(game_record("bingo", 5, bots=(False, False)), 1, 1, 3, "Bruno")
    change(record)
    with pytest.raises(ValueError, match=message):
        parse_match_record(record)
