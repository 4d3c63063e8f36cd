"""Checking a finished match's record before it becomes history.

The table server hands ``finish_match`` a JSON-able record (its shape is in
``app.table.ports.TableStore.finish_match``). History must be replayable, so
besides its shape every game is replayed through the rules engine and has to
reach the scores, winner and tie-break the record claims; the match totals
and game wins must add up too. A bad record is refused with a ``ValueError``
that names the faulty field instead of being stored and failing later in a
replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC
from typing import Annotated, Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from app.db.models import name_key
from app.game import Action, DingoError, Game, code, parse_card

Seat = Annotated[int, Field(strict=True, ge=0, le=3)]
Four = Annotated[list[Annotated[int, Field(strict=True)]], Field(min_length=4, max_length=4)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class PlayerIn(_Record):
    seat: Seat
    name: Annotated[str, Field(min_length=1, max_length=200)]
    bot: Annotated[bool, Field(strict=True)]


class GameIn(_Record):
    number: Annotated[int, Field(strict=True, ge=1)]
    dealer: Seat
    seed: Annotated[int, Field(strict=True, ge=0, lt=2**63)] | None
    hands: Annotated[list[list[str]], Field(min_length=4, max_length=4)]
    actions: list[dict[str, Any]]
    scores: Four
    winner: Seat | None
    tie_break: Annotated[str, Field(max_length=8)] | None


class MatchIn(_Record):
    table_id: Annotated[str, Field(min_length=1, max_length=64)]
    seed: Annotated[int, Field(strict=True, ge=0, lt=2**63)]
    options: dict[str, Any]
    players: Annotated[list[PlayerIn], Field(min_length=4, max_length=4)]
    started_at: AwareDatetime
    ended_at: AwareDatetime
    games: Annotated[list[GameIn], Field(min_length=1)]
    game_wins: Four
    totals: Four
    winner: Seat


@dataclass(frozen=True)
class MatchRows:
    """A checked record as rows for ``matches``, ``match_players`` and ``games``."""

    match: dict[str, Any]
    players: list[dict[str, Any]]
    games: list[dict[str, Any]]


def parse_match_record(record: object) -> MatchRows:
    """Check ``record`` (see the module doc) and return its rows; raise ``ValueError``."""
    try:
        m = MatchIn.model_validate(record)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "record"
        raise ValueError(f"match record: {where}: {first['msg']}") from None
    if sorted(p.seat for p in m.players) != [0, 1, 2, 3]:
        raise ValueError("match record: players must hold seats 0, 1, 2 and 3 once each")
    if m.ended_at < m.started_at:
        raise ValueError("match record: ended_at is before started_at")
    if [g.number for g in m.games] != list(range(1, len(m.games) + 1)):
        raise ValueError("match record: games must be numbered 1, 2, 3... in order")
    open_discards = bool(m.options.get("open_discards", False))
    games = [_check_game(g, open_discards) for g in m.games]
    totals = [sum(g["scores"][s] for g in games) for s in range(4)]
    wins = [sum(1 for g in games if g["winner"] == s) for s in range(4)]
    if m.totals != totals:
        raise ValueError(f"match record: totals {m.totals} are not the games' sum {totals}")
    if m.game_wins != wins:
        raise ValueError(f"match record: game_wins {m.game_wins} do not match the games {wins}")
    return MatchRows(
        match={"table_id": m.table_id, "seed": m.seed, "options": m.options,
               "started_at": m.started_at.astimezone(UTC),
               "ended_at": m.ended_at.astimezone(UTC), "winner": m.winner,
               "game_wins": m.game_wins, "totals": m.totals},
        players=[{"seat": p.seat, "name": p.name, "name_key": name_key(p.name),
                  "is_bot": p.bot} for p in sorted(m.players, key=lambda p: p.seat)],
        games=games,
    )


def _check_game(g: GameIn, open_discards: bool) -> dict[str, Any]:
    where = f"match record: game {g.number}"
    try:
        hands = [[parse_card(c) for c in hand] for hand in g.hands]
        actions = [Action.from_dict(a) for a in g.actions]
        game = Game.replay(hands, g.dealer, actions, open_discards=open_discards,
                           record_events=False)
    except (DingoError, ValueError) as e:
        raise ValueError(f"{where} does not replay: {e}") from None
    if not game.over:
        raise ValueError(f"{where}: its actions stop before the end of the game")
    claimed = (g.scores, g.winner, g.tie_break)
    replayed = (game.scores, game.winner, game.tie_break)
    if claimed != replayed:
        raise ValueError(f"{where}: records scores/winner/tie-break {claimed}, "
                         f"the replay gives {replayed}")
    return {"number": g.number, "dealer": g.dealer, "seed": g.seed,
            "hands": [[code(c) for c in hand] for hand in hands],
            "actions": [a.to_dict() for a in actions],
            "scores": g.scores, "winner": g.winner, "tie_break": g.tie_break}
