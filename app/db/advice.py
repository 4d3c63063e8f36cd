"""The games waiting for their advice, and storing it (``app.advisor`` drives these)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

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
                   GameRecord.actions, GameRecord.stand_in, MatchRecord.options)
            .join(MatchRecord, MatchRecord.id == GameRecord.match_id)
            .where(GameRecord.advice.is_(None))
            .order_by(GameRecord.match_id.desc(), GameRecord.number)
            .limit(limit))).all()
        ids = {r.match_id for r in rows}
        people: dict[int, list[int]] = {i: [] for i in ids}
        for p in (await conn.execute(
                select(MatchPlayer.match_id, MatchPlayer.seat)
                .where(MatchPlayer.match_id.in_(ids), MatchPlayer.is_bot.is_(False))
                .order_by(MatchPlayer.seat))).all():
            people[p.match_id].append(p.seat)
    return [PendingGame(r.match_id, r.number, r.setup, r.actions, r.options,
                        people[r.match_id], r.stand_in or []) for r in rows]


async def save_advice(engine: AsyncEngine, match_id: int, number: int,
                      advice: dict[str, Any]) -> None:
    """Store a game's advice, once: a second worker's copy (another process) changes
    nothing."""
    async with engine.begin() as conn:
        await conn.execute(update(GameRecord)
                           .where(GameRecord.match_id == match_id,
                                  GameRecord.number == number, GameRecord.advice.is_(None))
                           .values(advice=advice))
