"""Checking a finished match's record, of any game, before it becomes history.

The table server hands ``finish_match`` a JSON-able record::

    {"game": "mate", "seats": 2, "table_id": "k3J9xQ2a", "seed": 123,
     "options": {...the game's options...},
     "players": [{"seat": 0, "name": "Ann", "bot": false, "strength": null},
                 {"seat": 1, "name": "Ada", "bot": true, "strength": "hard"}, ...one per seat],
     "started_at": "2026-11-21T23:00:00+00:00", "ended_at": "...",
     "games": [{"number": 1, "setup": {...}, "actions": [...], "result": {...} | null,
                "winner": 1 | null, "stand_in": [3, 7],
                "holders": [[{"name": "Dov", "bot": false, "strength": null, "since": 0},
                             {"name": "Bot 4", "bot": true, "strength": "hard",
                              "since": 12}], ...one list per seat]}, ...],
     "scoreboard": {...MatchState.scoreboard(): "rule", "standing", ...},
     "standing": [per seat], "winner": 1 | null,
     "record": {...MatchState.record()...}}

``players`` are who held the seats at the end of the match; a game's ``holders`` say who
held each seat in turn during it (a player who left mid-game, then the bot that took the
seat ``since`` that many steps), so each game and each step is credited to whoever
played it, and every holder is found by a name search. Records made before holders were
kept have none: their games are credited to ``players``.

For Dingo a game's ``setup`` is ``{"dealer", "seed", "hands"}``, its actions are
``Action.to_dict()`` dicts and its ``result`` is ``{"scores", "tie_break"}``; the
scoreboard is ``Match.summary()`` plus ``rule`` and ``standing`` (game wins). Other
games' actions are ``[seat, action]`` pairs. The record the table sent before games
other than Dingo existed (no ``game`` key: ``dealer``, ``hands``, ``scores``... per
game, ``game_wins`` and ``totals``) is still accepted as a Dingo record.

History must be replayable, so besides its shape every record is replayed through the
rules and has to reach what it claims: a Dingo game from its dealt hands to its scores,
winner and tie-break, with totals and game wins adding up; any other game through the
registry (``app.games.get(game)``) from the match seed and options, to each game's
setup, result and winner, and the match's standing and winner. A bad record is refused
with a ``ValueError`` that names the faulty field instead of being stored and failing
later in a replay.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import Annotated, Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from app import games as registry
from app.db.models import name_key
from app.game import Action, DingoError, Game, code, parse_card
from app.games import dingo

DINGO = "dingo"
DINGO_TITLE = "Dingo"
DINGO_SEATS = 4

Seat = Annotated[int, Field(strict=True, ge=0, le=7)]
Whole = Annotated[int, Field(strict=True)]
Four = Annotated[list[Whole], Field(min_length=4, max_length=4)]
SeedInt = Annotated[int, Field(strict=True, ge=0, lt=2**63)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class PlayerIn(_Record):
    seat: Seat
    name: Annotated[str, Field(min_length=1, max_length=200)]
    bot: Annotated[bool, Field(strict=True)]
    #: A bot's strength as the table showed it; absent in records made before it was kept.
    strength: Annotated[str, Field(min_length=1, max_length=32)] | None = None


class HolderIn(_Record):
    name: Annotated[str, Field(min_length=1, max_length=200)]
    bot: Annotated[bool, Field(strict=True)]
    strength: Annotated[str, Field(min_length=1, max_length=32)] | None = None
    #: The game's steps played before they took the seat (0: from the deal).
    since: Annotated[int, Field(strict=True, ge=0)]


class GameIn(_Record):
    number: Annotated[int, Field(strict=True, ge=1)]
    setup: dict[str, Any]
    actions: list[Any]
    result: dict[str, Any] | None
    winner: Seat | None
    #: The steps (1 for the first action) a stand-in bot played for a person who was away
    #: or out of time: they are not that person's decisions.
    stand_in: list[Annotated[int, Field(strict=True, ge=1)]] = []
    #: Per seat, who held it in turn; absent in records made before holders were kept.
    holders: list[Annotated[list[HolderIn], Field(min_length=1)]] | None = None


class MatchIn(_Record):
    game: Annotated[str, Field(min_length=1, max_length=32)]
    seats: Annotated[int, Field(strict=True, ge=2, le=8)]
    table_id: Annotated[str, Field(min_length=1, max_length=64)]
    seed: SeedInt
    options: dict[str, Any]
    players: Annotated[list[PlayerIn], Field(min_length=2, max_length=8)]
    started_at: AwareDatetime
    ended_at: AwareDatetime
    games: Annotated[list[GameIn], Field(min_length=1)]
    scoreboard: dict[str, Any]
    standing: list[Whole]
    winner: Seat | None
    record: dict[str, Any] | None = None


# The record as the table sent it before the ``game`` key (Dingo only).

class LegacyGameIn(_Record):
    number: Annotated[int, Field(strict=True, ge=1)]
    dealer: Annotated[int, Field(strict=True, ge=0, le=3)]
    seed: SeedInt | None
    hands: Annotated[list[list[str]], Field(min_length=4, max_length=4)]
    actions: list[dict[str, Any]]
    scores: Four
    winner: Annotated[int, Field(strict=True, ge=0, le=3)] | None
    tie_break: Annotated[str, Field(max_length=8)] | None


class LegacyMatchIn(_Record):
    table_id: Annotated[str, Field(min_length=1, max_length=64)]
    seed: SeedInt
    options: dict[str, Any]
    players: Annotated[list[PlayerIn], Field(min_length=4, max_length=4)]
    started_at: AwareDatetime
    ended_at: AwareDatetime
    games: Annotated[list[LegacyGameIn], Field(min_length=1)]
    game_wins: Four
    totals: Four
    winner: Annotated[int, Field(strict=True, ge=0, le=3)]


@dataclass(frozen=True)
class MatchRows:
    """A checked record as rows for ``matches``, ``match_players`` and ``games``."""

    match: dict[str, Any]
    players: list[dict[str, Any]]
    games: list[dict[str, Any]]


def game_title(game: str) -> str:
    """The title people see for a game's registry name ("Divide and Conquer")."""
    if game == DINGO:
        return DINGO_TITLE
    try:
        return registry.get(game).title
    except KeyError:
        return game.capitalize()


def dingo_scoreboard(options: dict[str, Any], winner: int | None, game_wins: list[int],
                     totals: list[int], games: list[dict[str, Any]]) -> dict[str, Any]:
    """A finished Dingo match's ``Match.summary()`` plus ``rule`` and ``standing``, from
    per game ``number``, ``dealer``, ``scores``, ``winner`` and ``tie_break``."""
    return {
        "options": options, "game_number": len(games),
        "game_wins": list(game_wins), "totals": list(totals),
        "draws": sum(1 for g in games if g["winner"] is None),
        "games": [{"number": g["number"], "dealer": g["dealer"], "scores": g["scores"],
                   "winner": g["winner"], "tie_break": g["tie_break"]} for g in games],
        "winner": winner, "over": True,
        "rule": dingo.rule(options), "standing": dingo.standing(options, game_wins, totals),
    }


def _validate(model: type[_Record], record: object) -> Any:
    try:
        return model.model_validate(record)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "record"
        raise ValueError(f"match record: {where}: {first['msg']}") from None


def from_legacy(record: object) -> dict[str, Any]:
    """A record in the shape the table sent before ``game`` existed, in today's shape."""
    m: LegacyMatchIn = _validate(LegacyMatchIn, record)
    games = [{"number": g.number, "dealer": g.dealer, "scores": g.scores, "winner": g.winner,
              "tie_break": g.tie_break} for g in m.games]
    return {
        "game": DINGO, "seats": DINGO_SEATS, "table_id": m.table_id, "seed": m.seed,
        "options": m.options,
        "players": [p.model_dump() for p in m.players],
        "started_at": m.started_at.isoformat(), "ended_at": m.ended_at.isoformat(),
        "games": [{"number": g.number,
                   "setup": {"dealer": g.dealer, "seed": g.seed, "hands": g.hands},
                   "actions": g.actions,
                   "result": {"scores": g.scores, "tie_break": g.tie_break},
                   "winner": g.winner} for g in m.games],
        "scoreboard": dingo_scoreboard(m.options, m.winner, m.game_wins, m.totals, games),
        "standing": dingo.standing(m.options, m.game_wins, m.totals), "winner": m.winner,
        "record": None,
    }


def _seat_list(seats: int) -> str:
    numbers = [str(s) for s in range(seats)]
    return ", ".join(numbers[:-1]) + " and " + numbers[-1]


def parse_match_record(record: object) -> MatchRows:
    """Check ``record`` (see the module doc) and return its rows; raise ``ValueError``."""
    if isinstance(record, dict) and "game" not in record:
        record = from_legacy(record)
    m: MatchIn = _validate(MatchIn, record)
    if m.game == DINGO:
        seats = DINGO_SEATS
    else:
        try:
            seats = registry.get(m.game).seats
        except KeyError:
            raise ValueError(f"match record: game: no game is called {m.game!r}") from None
    if m.seats != seats:
        raise ValueError(f"match record: seats: {m.game} is played by {seats}, not {m.seats}")
    for p in m.players:
        if p.strength is not None and not p.bot:
            raise ValueError(f"match record: players: seat {p.seat} is a person, who has "
                             "no bot strength")
    for g in m.games:
        if g.stand_in != sorted(set(g.stand_in)) or any(i > len(g.actions) for i in g.stand_in):
            raise ValueError(f"match record: game {g.number}: stand_in must list steps of its "
                             "actions, in order, once each")
    if sorted(p.seat for p in m.players) != list(range(seats)):
        raise ValueError(f"match record: players must hold seats {_seat_list(seats)} "
                         "once each")
    _check_holders(m, seats)
    for where, seat in [("winner", m.winner)] + [
            (f"games.{i}.winner", g.winner) for i, g in enumerate(m.games)]:
        if seat is not None and seat >= seats:
            raise ValueError(f"match record: {where}: {seat} is not a seat of {m.game}")
    if len(m.standing) != seats:
        raise ValueError(f"match record: standing must hold one number per seat ({seats})")
    if m.ended_at < m.started_at:
        raise ValueError("match record: ended_at is before started_at")
    if [g.number for g in m.games] != list(range(1, len(m.games) + 1)):
        raise ValueError("match record: games must be numbered 1, 2, 3... in order")
    for key in ("rule", "standing"):
        if key not in m.scoreboard:
            raise ValueError(f"match record: scoreboard: {key!r} is missing")
    if m.scoreboard["standing"] != m.standing:
        raise ValueError(f"match record: standing {m.standing} is not the scoreboard's "
                         f"{m.scoreboard['standing']}")
    if m.game == DINGO:
        games, scoreboard, options = _check_dingo(m)
    else:
        games, scoreboard, options = _check_registered(m)
    return MatchRows(
        match={"game": m.game, "seats": seats, "table_id": m.table_id, "seed": m.seed,
               "options": options, "started_at": m.started_at.astimezone(UTC),
               "ended_at": m.ended_at.astimezone(UTC), "winner": m.winner,
               "standing": m.standing, "scoreboard": scoreboard, "record": m.record},
        players=_player_rows(m, seats),
        games=[{**g, "seats": seats, "advice": _no_advice(m, src), "stand_in": src.stand_in,
                "holders": None if src.holders is None
                else [[h.model_dump() for h in turns] for turns in src.holders]}
               for g, src in zip(games, m.games, strict=True)],
    )


def holder_at(turns: Sequence[Mapping[str, Any]], step: int) -> Mapping[str, Any]:
    """Of a seat's ``holders`` in a game, who played its step ``step`` (0: who held the seat
    at the deal)."""
    return next(h for h in reversed(turns) if h["since"] < max(step, 1))


def _check_holders(m: MatchIn, seats: int) -> None:
    for g in m.games:
        if g.holders is None:
            continue
        where = f"match record: game {g.number}: holders"
        if len(g.holders) != seats:
            raise ValueError(f"{where} must hold one list per seat ({seats})")
        for seat, turns in enumerate(g.holders):
            since = [h.since for h in turns]
            if since[0] != 0 or since != sorted(set(since)) or since[-1] > len(g.actions):
                raise ValueError(f"{where}: seat {seat}'s holders must start at step 0 and "
                                 "take over at later steps of the game, in order")
            if any(h.strength is not None and not h.bot for h in turns):
                raise ValueError(f"{where}: seat {seat}: a person has no bot strength")
    last = m.games[-1].holders
    if last is not None:
        for p in m.players:
            final = last[p.seat][-1]
            if (final.name, final.bot) != (p.name, p.bot):
                raise ValueError(f"match record: players: seat {p.seat} is {p.name!r}, but "
                                 f"{final.name!r} held it at the end of the last game")


def _player_rows(m: MatchIn, seats: int) -> list[dict[str, Any]]:
    """``match_players`` rows: who held each seat at the end (``ordinal`` 0), then whoever
    held it earlier in the match (1, 2... in the order they first did), so a name search
    finds everyone who played."""
    rows = []
    for p in sorted(m.players, key=lambda p: p.seat):
        held = [(p.name, p.bot, p.strength)]
        for g in m.games:
            for h in g.holders[p.seat] if g.holders else []:
                if all((h.name, h.bot) != (name, bot) for name, bot, _ in held):
                    held.append((h.name, h.bot, h.strength))
        rows += [{"seat": p.seat, "ordinal": ordinal, "seats": seats, "name": name,
                  "name_key": name_key(name), "is_bot": bot, "bot_strength": strength}
                 for ordinal, (name, bot, strength) in enumerate(held)]
    return rows


def _no_advice(m: MatchIn, g: GameIn) -> dict[str, str] | None:
    """Why game ``g`` of this match gets no advice after it (``games.advice``), or None:
    the background worker will work it out. Who played it: its holders, or for a record
    without them the match's players."""
    if m.game != DINGO:
        return {"none": "no advice for this game yet"}
    played_by = m.players if g.holders is None else [h for turns in g.holders for h in turns]
    if all(p.bot for p in played_by):
        return {"none": "played by bots only"}
    return None


# --- Dingo -------------------------------------------------------------------------------

def _check_dingo(m: MatchIn) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    open_discards = bool(m.options.get("open_discards", False))
    games = [_check_dingo_game(g, open_discards) for g in m.games]
    totals = [sum(g["result"]["scores"][s] for g in games) for s in range(4)]
    wins = [sum(1 for g in games if g["winner"] == s) for s in range(4)]
    scoreboard = dict(m.scoreboard)
    claimed_totals = scoreboard.setdefault("totals", totals)
    claimed_wins = scoreboard.setdefault("game_wins", wins)
    if claimed_totals != totals:
        raise ValueError(f"match record: totals {claimed_totals} are not the games' sum {totals}")
    if claimed_wins != wins:
        raise ValueError(f"match record: game_wins {claimed_wins} do not match the games {wins}")
    if m.winner is None:
        raise ValueError("match record: winner: a Dingo match always has a winner")
    return games, scoreboard, m.options


def _check_dingo_game(g: GameIn, open_discards: bool) -> dict[str, Any]:
    where = f"match record: game {g.number}"
    setup, result = g.setup, g.result or {}
    try:
        dealer, seed, hands = setup["dealer"], setup.get("seed"), setup["hands"]
        scores, tie_break = result["scores"], result.get("tie_break")
    except KeyError as e:
        raise ValueError(f"{where}: setup needs dealer and hands, result needs scores "
                         f"({e.args[0]!r} is missing)") from None
    if not (isinstance(dealer, int) and not isinstance(dealer, bool) and 0 <= dealer < 4):
        raise ValueError(f"{where}: setup.dealer must be a seat from 0 to 3")
    if seed is not None and not (isinstance(seed, int) and 0 <= seed < 2**63):
        raise ValueError(f"{where}: setup.seed must be a whole number or null")
    if not (isinstance(hands, list) and len(hands) == 4 and all(
            isinstance(h, list) and all(isinstance(c, str) for c in h) for h in hands)):
        raise ValueError(f"{where}: setup.hands must be four lists of card codes")
    try:
        parsed = [[parse_card(c) for c in hand] for hand in hands]
        actions = [Action.from_dict(a) for a in g.actions]
        game = Game.replay(parsed, dealer, actions, open_discards=open_discards,
                           record_events=False)
    except (DingoError, ValueError, TypeError, AttributeError) as e:
        raise ValueError(f"{where} does not replay: {e}") from None
    if not game.over:
        raise ValueError(f"{where}: its actions stop before the end of the game")
    claimed = (scores, g.winner, tie_break)
    replayed = (game.scores, game.winner, game.tie_break)
    if claimed != replayed:
        raise ValueError(f"{where}: records scores/winner/tie-break {claimed}, "
                         f"the replay gives {replayed}")
    return {"number": g.number,
            "setup": {"dealer": dealer, "seed": seed,
                      "hands": [[code(c) for c in hand] for hand in parsed]},
            "actions": [a.to_dict() for a in actions],
            "result": {"scores": list(scores), "tie_break": tie_break},
            "winner": g.winner}


# --- every other game, through the registry ------------------------------------------------

def _plain(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists...)."""
    return json.loads(json.dumps(value))


def _check_registered(
        m: MatchIn) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    from app.games.contract import GameError

    spec = registry.get(m.game)
    try:
        options = spec.check_options(m.options)
        match = spec.new_match(m.seed, options)
    except GameError as e:
        raise ValueError(f"match record: options: {e}") from None
    rows = []
    for index, g in enumerate(m.games):
        where = f"match record: game {g.number}"
        actions = []
        try:
            if index:
                if not match.between_games:
                    raise ValueError("the game before it did not end")
                match.start_next_game()
            for pair in g.actions:
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], int)
                        and not isinstance(pair[0], bool) and isinstance(pair[1], dict)):
                    raise ValueError(f"an action must be [seat, {{...}}], not {pair!r:.40}")
                match.apply(pair[0], pair[1])
                actions.append([pair[0], pair[1]])
        except (GameError, ValueError) as e:
            raise ValueError(f"{where} does not replay: {e}") from None
        if not (match.between_games or match.over):
            raise ValueError(f"{where}: its actions stop before the end of the game")
        rebuilt = _plain(match.record()["games"][index])
        for key, claimed in (("setup", g.setup), ("result", g.result), ("winner", g.winner)):
            if key in rebuilt and _plain(claimed) != rebuilt[key]:
                raise ValueError(f"{where}: records {key} {claimed!r:.80}, the replay gives "
                                 f"{rebuilt[key]!r:.80}")
        rows.append({"number": g.number, "setup": _plain(g.setup), "actions": _plain(actions),
                     "result": _plain(g.result), "winner": g.winner})
    if not match.over:
        raise ValueError("match record: the games stop before the end of the match")
    board = _plain(match.scoreboard())
    if board.get("standing", m.standing) != m.standing:
        raise ValueError(f"match record: standing {m.standing}, the replay gives "
                         f"{board['standing']}")
    if match.winner != m.winner:
        raise ValueError(f"match record: winner {m.winner}, the replay gives {match.winner}")
    return rows, _plain(m.scoreboard), _plain(options)
