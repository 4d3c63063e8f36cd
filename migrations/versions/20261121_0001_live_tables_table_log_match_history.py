"""Live tables and their logs; finished matches, their players and games.

Revision ID: 0001
Revises:
Create Date: 2026-11-21

Written for both SQLite and PostgreSQL: plain JSON (``json`` on PostgreSQL,
text on SQLite), ``timestamptz`` (SQLite keeps UTC text, see
``app.db.models.UTCDateTime``), and a player-name index each backend can use
for a case-insensitive prefix search (``text_pattern_ops`` on PostgreSQL, a
NOCASE column on SQLite). Types are spelled out here, not imported from the
models, so this revision never changes when the models do.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("winner", sa.SmallInteger(), nullable=False),
        sa.Column("game_wins", sa.JSON(), nullable=False),
        sa.Column("totals", sa.JSON(), nullable=False),
        sa.CheckConstraint("winner BETWEEN 0 AND 3", name=op.f("ck_matches_winner_seat")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.UniqueConstraint("table_id", "seed", "started_at", name=op.f("uq_matches_table_id")),
    )
    op.create_index("ix_matches_newest", "matches", ["ended_at", "id"])

    op.create_table(
        "match_players",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column(
            "name_key",
            sa.String().with_variant(sa.String(collation="NOCASE"), "sqlite"),
            nullable=False,
        ),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.CheckConstraint("seat BETWEEN 0 AND 3", name=op.f("ck_match_players_seat")),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"],
            name=op.f("fk_match_players_match_id_matches"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_players")),
    )
    op.create_index(
        "ix_match_players_name_key", "match_players", ["name_key", "match_id"],
        postgresql_ops={"name_key": "text_pattern_ops"},
    )

    op.create_table(
        "games",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.SmallInteger(), autoincrement=False, nullable=False),
        sa.Column("dealer", sa.SmallInteger(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("hands", sa.JSON(), nullable=False),
        sa.Column("actions", sa.JSON(), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("winner", sa.SmallInteger(), nullable=True),
        sa.Column("tie_break", sa.String(length=8), nullable=True),
        sa.CheckConstraint("dealer BETWEEN 0 AND 3", name=op.f("ck_games_dealer_seat")),
        sa.CheckConstraint("winner BETWEEN 0 AND 3", name=op.f("ck_games_winner_seat")),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"],
            name=op.f("fk_games_match_id_matches"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "number", name=op.f("pk_games")),
    )

    op.create_table(
        "live_tables",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_match_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["last_match_id"], ["matches.id"],
            name=op.f("fk_live_tables_last_match_id_matches"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_live_tables")),
    )
    op.create_index("ix_live_tables_closed_at", "live_tables", ["closed_at"])

    op.create_table(
        "table_log",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("entry", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["live_tables.id"],
            name=op.f("fk_table_log_table_id_live_tables"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", "seq", name=op.f("pk_table_log")),
    )


def downgrade() -> None:
    op.drop_table("table_log")
    op.drop_index("ix_live_tables_closed_at", table_name="live_tables")
    op.drop_table("live_tables")
    op.drop_table("games")
    op.drop_index("ix_match_players_name_key", table_name="match_players")
    op.drop_table("match_players")
    op.drop_index("ix_matches_newest", table_name="matches")
    op.drop_table("matches")
