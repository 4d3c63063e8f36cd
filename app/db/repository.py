"""Read queries over finished matches, for the history pages and their API."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, false, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from app.db.models import GameRecord, MatchPlayer, MatchRecord, name_key
from app.table.seats import without_hidden


@dataclass(frozen=True)
class MatchPage:
    matches: Sequence[MatchRecord]  # players loaded, newest first
    total: int  # matches passing the filters, over all pages


def like_prefix(text: str) -> str:
    """A LIKE pattern matching strings that start with ``text`` (escape character ``\\``)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


def _control(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "C"


def name_terms(text: str) -> list[str]:
    """The names a player search asks for: its words, each folded like ``name_key``.

    Control characters separate words as spaces do: no stored name holds one (a seat's
    name is refused with one, ``without_hidden``), and PostgreSQL cannot compare text
    holding a NUL at all. Emoji are kept whole, as in names.
    """
    spaced = without_hidden(text)
    return [key for key in (name_key(word) for word in spaced.split()) if key]


async def list_matches(
    session: AsyncSession,
    *,
    player: str | None = None,
    table_id: str | None = None,
    game: str | None = None,
    ended_from: datetime | None = None,
    ended_before: datetime | None = None,
    limit: int = 20,
    offset: int = 0,
) -> MatchPage:
    """Finished matches, newest (last ended) first.

    ``player`` holds one or more words; a match is kept when each word starts
    the name of one of its seats, or a word of that name, ignoring case and
    repeated spaces and accents (``"an"`` finds Ann, ANNA and "Bot Ann", not Joan; ``"ann bea"``
    finds matches with both). A prefix search can use the ``name_key`` index on
    both backends, a substring search could not. LIKE wildcards in the words are
    matched literally. ``table_id`` and ``game`` (a registry name) must match
    exactly. ``ended_from`` (included) and ``ended_before`` (excluded) bound when
    the match ended.
    """
    filters: list[ColumnElement[bool]] = []
    terms = name_terms(player or "")
    if player is not None and not terms:
        filters.append(false())  # only accents (marks with nothing to sit on): no name
    for term in terms:
        filters.append(MatchRecord.id.in_(
            select(MatchPlayer.match_id).where(or_(
                MatchPlayer.name_key.like(like_prefix(term), escape="\\"),
                MatchPlayer.name_key.like("% " + like_prefix(term), escape="\\")))))
    if table_id is not None:
        # A table code is URL-safe: one with a control character (a NUL, which PostgreSQL
        # would refuse to compare) names no table.
        filters.append(false() if any(map(_control, table_id))
                       else MatchRecord.table_id == table_id)
    if game is not None:
        filters.append(MatchRecord.game == game)
    if ended_from is not None:
        filters.append(MatchRecord.ended_at >= ended_from)
    if ended_before is not None:
        filters.append(MatchRecord.ended_at < ended_before)
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


async def game_actions(session: AsyncSession, match_id: int, before: int) -> list[list[Any]]:
    """The actions of a match's games numbered below ``before``, in order (a replay of a
    later game plays them through first)."""
    rows = await session.execute(
        select(GameRecord.actions)
        .where(GameRecord.match_id == match_id, GameRecord.number < before)
        .order_by(GameRecord.number))
    return [list(r.actions) for r in rows]


async def match_counts(session: AsyncSession) -> dict[str, int]:
    """How many finished matches each game has."""
    rows = await session.execute(
        select(MatchRecord.game, func.count()).group_by(MatchRecord.game))
    return {game: count for game, count in rows}
