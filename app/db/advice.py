"""The games waiting for their advice, and storing it (``app.advisor`` drives these)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from app.db.match_record import holder_at
from app.db.models import GameRecord, MatchPlayer, MatchRecord


@dataclass(frozen=True)
class PendingGame:
    """A recorded Dingo game whose advice is still to be worked out."""

    match_id: int
    number: int
    setup: dict[str, Any]  # dealer, seed, hands
    actions: list[dict[str, Any]]
    options: dict[str, Any]
    people: list[int]  # the seats people played
    stand_in: list[int]  # steps a bot played for an absent person: not theirs to judge


async def pending_games(engine: AsyncEngine, limit: int) -> list[PendingGame]:
    """Up to ``limit`` games without advice, the most recently finished matches first."""
    async with engine.connect() as conn:
        rows = (await conn.execute(
            select(GameRecord.match_id, GameRecord.number, GameRecord.setup,
                   GameRecord.actions, GameRecord.stand_in, GameRecord.holders,
                   MatchRecord.options)
            .join(MatchRecord, MatchRecord.id == GameRecord.match_id)
            .where(GameRecord.advice.is_(None))
            .order_by(GameRecord.match_id.desc(), GameRecord.number)
            .limit(limit))).all()
        ids = {r.match_id for r in rows}
        people: dict[int, list[int]] = {i: [] for i in ids}
        for p in (await conn.execute(
                select(MatchPlayer.match_id, MatchPlayer.seat)
                .where(MatchPlayer.match_id.in_(ids), MatchPlayer.is_bot.is_(False),
                       MatchPlayer.ordinal == 0)
                .order_by(MatchPlayer.seat))).all():
            people[p.match_id].append(p.seat)
    return [PendingGame(r.match_id, r.number, r.setup, r.actions, r.options,
                        *_people(r.holders, people[r.match_id], r.actions, r.stand_in or []))
            for r in rows]


def _people(holders: list[list[dict[str, Any]]] | None, final: list[int],
            actions: list[dict[str, Any]], stand_in: list[int]) -> tuple[list[int], list[int]]:
    """The seats people played in a game, and the steps not theirs to judge: those a
    stand-in bot played for them, and those a bot played holding their seat (after they
    left, or before they sat). Games recorded before holders were kept: the seats people
    held at the end of the match."""
    if holders is None:
        return final, stand_in
    people = [s for s, turns in enumerate(holders) if any(not h["bot"] for h in turns)]
    bots = {step for step, action in enumerate(actions, start=1)
            if action["seat"] in people and holder_at(holders[action["seat"]], step)["bot"]}
    return people, sorted(bots.union(stand_in))


async def save_advice(engine: AsyncEngine, match_id: int, number: int,
                      advice: dict[str, Any]) -> None:
    """Store a game's advice, once: a second worker's copy (another process) changes
    nothing."""
    async with engine.begin() as conn:
        await conn.execute(update(GameRecord)
                           .where(GameRecord.match_id == match_id,
                                  GameRecord.number == number, GameRecord.advice.is_(None))
                           .values(advice=advice))
