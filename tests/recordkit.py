"""Finished-match records of any game, as the table hands them to ``finish_match``.

``game_record`` plays a match of a registered game (Mate, Divide and Conquer, Bingo) to
its end through the engine, bots choosing at random from a seeded generator, and builds
the record from the match's own ``record()`` and ``scoreboard()``. ``dingo_record``
gives a played Dingo match (``matchdb.play_match_record``, the shape tables sent before
other games) in today's shape: ``game``, ``seats``, setup and result per game.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from matchdb import play_match_record

from app import games
from app.games import dingo
from app.games.contract import MatchState

NAMES = ("Ann", "Bob", "Cid", "Dee")


def play_to_the_end(name: str, seed: int, options: dict[str, Any] | None = None,
                    ) -> MatchState:
    """A match of ``name`` played to its end with random legal actions (seeded)."""
    spec = games.get(name)
    match = spec.new_match(seed, spec.check_options(options or {}))
    rng = random.Random(seed)
    while not match.over:
        if match.between_games:
            match.start_next_game()
            continue
        seat = min(match.to_act())
        match.apply(seat, rng.choice(match.legal(seat)))
    return match


def game_record(name: str, seed: int, *, table_id: str = "G1",
                names: tuple[str, ...] = NAMES, bots: tuple[bool, ...] = (False, True, True, True),
                ended_at: datetime | None = None,
                options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A finished match of the registered game ``name``, as ``finish_match`` receives it."""
    spec = games.get(name)
    match = play_to_the_end(name, seed, options)
    record = match.record()
    board = match.scoreboard()
    ended_at = ended_at or datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    started_at = ended_at - timedelta(minutes=5 * len(record["games"]))
    return {
        "game": name, "seats": spec.seats, "table_id": table_id, "seed": seed,
        "options": record["options"],
        "players": [{"seat": s, "name": names[s], "bot": bots[s]} for s in range(spec.seats)],
        "started_at": started_at.isoformat(), "ended_at": ended_at.isoformat(),
        "games": [{"number": i + 1, "setup": g["setup"], "actions": g["actions"],
                   "result": g.get("result"), "winner": g.get("winner")}
                  for i, g in enumerate(record["games"])],
        "scoreboard": board, "standing": board["standing"], "winner": match.winner,
        "record": record,
    }


def dingo_record(seed: int, **kwargs: Any) -> dict[str, Any]:
    """A played Dingo match in the record shape with ``game`` (see the module doc)."""
    old = play_match_record(seed, **kwargs)
    options = old["options"]
    summary = {
        "options": options, "game_number": len(old["games"]),
        "game_wins": old["game_wins"], "totals": old["totals"],
        "draws": sum(1 for g in old["games"] if g["winner"] is None),
        "games": [{"number": g["number"], "dealer": g["dealer"], "scores": g["scores"],
                   "winner": g["winner"], "tie_break": g["tie_break"]} for g in old["games"]],
        "winner": old["winner"], "over": True, "rule": dingo.rule(options),
        "standing": dingo.standing(options, old["game_wins"], old["totals"]),
    }
    return {
        "game": "dingo", "seats": 4, "table_id": old["table_id"], "seed": old["seed"],
        "options": options, "players": old["players"],
        "started_at": old["started_at"], "ended_at": old["ended_at"],
        "games": [{"number": g["number"],
                   "setup": {"dealer": g["dealer"], "seed": g["seed"], "hands": g["hands"]},
                   "actions": g["actions"],
                   "result": {"scores": g["scores"], "tie_break": g["tie_break"]},
                   "winner": g["winner"]} for g in old["games"]],
        "scoreboard": summary, "standing": summary["standing"], "winner": old["winner"],
        "record": {"seed": old["seed"], "options": options},
    }


def hand_over(record: dict[str, Any], seat: int, game: int, since: int, name: str,
              strength: str = "easy") -> dict[str, Any]:
    """``record`` where the player of ``seat`` left ``since`` steps into game ``game`` (from
    1), and the bot ``name`` played the seat from then to the end of the match: every game
    gets its ``holders``, the match's ``players`` name the bot."""
    players = record["players"]
    held = [[{"name": p["name"], "bot": p["bot"], "strength": p.get("strength"), "since": 0}]
            for p in players]
    bot = {"name": name, "bot": True, "strength": strength}
    for number, g in enumerate(record["games"], start=1):
        g["holders"] = [list(turns) for turns in held]
        if number == game:
            g["holders"][seat].append({**bot, "since": since})
        elif number > game:
            g["holders"][seat] = [{**bot, "since": 0}]
    players[seat] = {"seat": seat, **bot}
    return record
