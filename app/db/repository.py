"""Read queries over finished matches, for the history pages and their API."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from app.db.models import GameRecord, MatchPlayer, MatchRecord, name_key


@dataclass(frozen=True)
class MatchPage:
    matches: Sequence[MatchRecord]  # players loaded, newest first
    total: int  # matches passing the filters, over all pages


def like_prefix(text: str) -> str:
    """A LIKE pattern matching strings that start with ``text`` (escape character ``\\``)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


async def list_matches(
    session: AsyncSession,
    *,
    player: str | None = None,
    table_id: str | None = None,
    limit: int = 20,
    offset: int = 0,
) -> MatchPage:
    """Finished matches, newest (last ended) first.

    ``player`` keeps matches where some seat's name starts with it, ignoring
    case and repeated spaces (``"an"`` finds Ann and ANNA, not Joan): a prefix
    search can use the ``name_key`` index on both backends, a substring
    search could not. ``table_id`` must match exactly.
    """
    filters: list[ColumnElement[bool]] = []
    if player is not None:
        filters.append(MatchRecord.id.in_(
            select(MatchPlayer.match_id)
            .where(MatchPlayer.name_key.like(like_prefix(name_key(player)), escape="\\"))))
    if table_id is not None:
        filters.append(MatchRecord.table_id == table_id)
    total = await session.scalar(select(func.count()).select_from(MatchRecord).where(*filters))
    matches = (await session.scalars(
        select(MatchRecord)
        .where(*filters)
        .options(selectinload(MatchRecord.players))
        .order_by(MatchRecord.ended_at.desc(), MatchRecord.id.desc())
        .limit(limit)
        .offset(offset))).all()
    return MatchPage(matches, total or 0)


async def get_match(session: AsyncSession, match_id: int) -> MatchRecord | None:
    """One match with its players and games, or None."""
    return await session.scalar(
        select(MatchRecord)
        .where(MatchRecord.id == match_id)
        .options(selectinload(MatchRecord.players), selectinload(MatchRecord.games)))


async def get_game(session: AsyncSession, match_id: int, number: int) -> GameRecord | None:
    """One game of a match, with the match and its players loaded, or None."""
    return await session.scalar(
        select(GameRecord)
        .where(GameRecord.match_id == match_id, GameRecord.number == number)
        .options(selectinload(GameRecord.match).selectinload(MatchRecord.players)))
