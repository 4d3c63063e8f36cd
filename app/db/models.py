"""The database tables: live tables and their logs, finished matches and their games.

Alembic autogenerates from ``Base.metadata``; the revisions in migrations/
must match these models exactly (tests/db/test_models_migrations.py checks it).
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Dialect,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Fixed constraint names, so migrations can drop or alter constraints the same
# way on SQLite (batch mode) and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Base class for all ORM models."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend.

    PostgreSQL keeps the offset (``timestamptz``); SQLite stores the text
    without one, so values are converted to UTC on the way in and read back
    as UTC. A naive datetime is refused rather than guessed.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value.isoformat()}: give a timezone")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# Player-name search is a case- and accent-insensitive prefix match on ``name_key``
# (the folded name). PostgreSQL's LIKE 'prefix%' can use a text_pattern_ops
# index whatever the database collation; SQLite's only with a NOCASE column.
NameKey = String().with_variant(String(collation="NOCASE"), "sqlite")


def name_key(name: str) -> str:
    """The form of a player name that searches compare: trimmed, casefolded and without
    accents, i.e. combining marks ("Zoë" and "zoe" find each other: people often type
    names without them; a letter of its own such as "ł" or "ø" stays). The stored keys
    are folded so: a change here needs a migration that folds them again, as 0008 does."""
    spaced = " ".join(name.split()).casefold()
    bare = "".join(ch for ch in unicodedata.normalize("NFD", spaced)
                   if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", bare)


class LiveTable(Base):
    """A table the server must restore on start until it is closed."""

    __tablename__ = "live_tables"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    #: The last match this table finished (it may have started a rematch since).
    last_match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"))


class TableLogEntry(Base):
    """One entry of a live table's append-only log."""

    __tablename__ = "table_log"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("live_tables.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    entry: Mapped[dict[str, Any]] = mapped_column(JSON)


class TableLease(Base):
    """The fencing token of a table's current owner, as far as its log knows.

    With several processes (``REDIS_URL``), a table's owner holds a lease in
    Redis whose fencing token grows with every acquisition (app.cluster.lease).
    A fenced ``SqlStore.append`` writes only while ``epoch`` is at most its
    token, raising ``epoch`` to it: once a new owner has written (or claimed
    the table), an old owner that wakes up late can no longer append. No
    foreign key: the row may be claimed before the table's first entry.
    """

    __tablename__ = "table_leases"

    table_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    epoch: Mapped[int] = mapped_column(BigInteger)


#: Seat numbers are checked against the match's own seat count (2 for Mate, 4 for
#: Dingo...). A CHECK constraint sees only its own row, so ``match_players`` and ``games``
#: carry a copy of ``seats`` that a composite foreign key to ``matches (id, seats)`` keeps
#: equal to the match's (see migration 0003).
def _seat_check(column: str) -> str:
    return f"{column} >= 0 AND {column} < seats"


class MatchRecord(Base):
    """A finished match of any game: what ``GET /api/matches`` lists."""

    __tablename__ = "matches"
    __table_args__ = (
        # A restored table may report the same match twice; this makes it one row.
        UniqueConstraint("table_id", "seed", "started_at"),
        # The target of the players' and games' composite foreign keys.
        UniqueConstraint("id", "seats"),
        Index("ix_matches_newest", "ended_at", "id"),
        Index("ix_matches_game_newest", "game", "ended_at", "id"),
        CheckConstraint("seats BETWEEN 2 AND 8", name="seats"),
        CheckConstraint(_seat_check("winner"), name="winner_seat"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: The game's registry name (``app.games``): "dingo", "mate", "divide", "bingo".
    game: Mapped[str] = mapped_column(String(32))
    seats: Mapped[int] = mapped_column(SmallInteger)
    table_id: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(BigInteger)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    ended_at: Mapped[datetime] = mapped_column(UTCDateTime)
    #: None for a drawn match (games other than Dingo can end level).
    winner: Mapped[int | None] = mapped_column(SmallInteger)
    #: Per seat, what the match is decided on (games won, or points): ``scoreboard["standing"]``.
    standing: Mapped[list[int]] = mapped_column(JSON)
    #: The game's ``MatchState.scoreboard()`` at the end (Dingo: ``Match.summary()`` with
    #: ``rule`` and ``standing``; its ``game_wins`` and ``totals`` are the list's columns).
    scoreboard: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: ``MatchState.record()`` as the table handed it over (None for matches stored before
    #: migration 0003: their games rows hold all a replay needs).
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    #: Everyone who held a seat, by seat; ``ordinal`` 0 is who held it at the end.
    players: Mapped[list[MatchPlayer]] = relationship(
        back_populates="match", order_by="[MatchPlayer.seat, MatchPlayer.ordinal]",
        cascade="all, delete-orphan", passive_deletes=True)
    games: Mapped[list[GameRecord]] = relationship(
        back_populates="match", order_by="GameRecord.number", cascade="all, delete-orphan",
        passive_deletes=True)


class MatchPlayer(Base):
    """Who sat where in a match: the seat's holder at the end, and any who held it before
    (a player who left, the bot that stood in for them, a bot replaced between games)."""

    __tablename__ = "match_players"
    __table_args__ = (
        ForeignKeyConstraint(["match_id", "seats"], ["matches.id", "matches.seats"],
                             ondelete="CASCADE"),
        Index("ix_match_players_name_key", "name_key", "match_id",
              postgresql_ops={"name_key": "text_pattern_ops"}),
        CheckConstraint(_seat_check("seat"), name="seat"),
    )

    match_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True, autoincrement=False)
    #: 0: who held the seat at the end of the match; 1, 2...: who held it before, in the
    #: order they first did (each game's ``holders`` say when).
    ordinal: Mapped[int] = mapped_column(SmallInteger, primary_key=True, autoincrement=False,
                                         server_default=text("0"))
    #: The match's seat count (kept equal by the foreign key), for the seat check.
    seats: Mapped[int] = mapped_column(SmallInteger)
    name: Mapped[str] = mapped_column(String)
    name_key: Mapped[str] = mapped_column(NameKey)
    is_bot: Mapped[bool] = mapped_column(Boolean)
    #: A bot's strength as the table showed it ("easy", "hard"...); NULL for people and
    #: for bots of matches recorded before it was kept.
    bot_strength: Mapped[str | None] = mapped_column(String)

    match: Mapped[MatchRecord] = relationship(back_populates="players")


class GameRecord(Base):
    """One game (deal) of a finished match, with all it takes to replay it."""

    __tablename__ = "games"
    __table_args__ = (
        ForeignKeyConstraint(["match_id", "seats"], ["matches.id", "matches.seats"],
                             ondelete="CASCADE"),
        CheckConstraint(_seat_check("winner"), name="winner_seat"),
        # The games whose advice the background worker has still to work out.
        Index("ix_games_advice_pending", "match_id", "number",
              postgresql_where=text("advice IS NULL"), sqlite_where=text("advice IS NULL")),
    )

    match_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[int] = mapped_column(SmallInteger, primary_key=True, autoincrement=False)
    #: The match's seat count (kept equal by the foreign key), for the seat check.
    seats: Mapped[int] = mapped_column(SmallInteger)
    #: How the game was dealt, the game's own JSON (Dingo: ``dealer``, ``seed``, ``hands``).
    setup: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: The game's actions in order (Dingo: ``Action.to_dict()``; others: ``[seat, action]``).
    actions: Mapped[list[Any]] = mapped_column(JSON)
    #: The game's public result, its own JSON (Dingo: ``scores``, ``tie_break``).
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    #: None for a drawn game.
    winner: Mapped[int | None] = mapped_column(SmallInteger)
    #: The steps (1 for the first action) a stand-in bot played for an absent person; None
    #: for games recorded before they were kept.
    stand_in: Mapped[list[int] | None] = mapped_column(JSON(none_as_null=True))
    #: The advice after the game (``app.game.advice``); ``{"none": why}`` for a game that
    #: gets none (no person played, or no advice for that game yet) or whose advice could
    #: not be worked out; None until the background worker has done it.
    advice: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    #: Per seat, who held it in turn: ``name``, ``bot``, ``strength``, ``since`` (the steps
    #: played before they took it); None for games recorded before it was kept (their
    #: seats' holders are the match's players).
    holders: Mapped[list[list[dict[str, Any]]] | None] = mapped_column(
        JSON(none_as_null=True))

    match: Mapped[MatchRecord] = relationship(back_populates="games")
