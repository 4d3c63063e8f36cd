"""Every holder of a seat: games.holders, and match_players rows for earlier holders.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-29

A seat can change hands during a match: a player leaves and a bot plays on, the host
gives an absent player's seat to a bot, a bot is removed between games and a person sits
down. A match used to keep one player per seat, whoever held it at the end, so every game
was credited to them and a player who left was found nowhere. ``games.holders`` says who
held each seat in turn during each game; ``match_players`` gets a row for each earlier
holder (``ordinal`` 1, 2...; 0 is the holder at the end, as every row so far), so a name
search finds everyone who played. Games recorded before have no holders (NULL).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _players_batch() -> Any:
    """``match_players`` in batch mode: SQLite's reflection drops the NOCASE collation of
    ``name_key`` (the player search's index needs it), so the column is given here (as in
    migration 0003)."""
    name_key = sa.Column("name_key", sa.String().with_variant(
        sa.String(collation="NOCASE"), "sqlite"), nullable=False)
    return op.batch_alter_table("match_players", reflect_args=[name_key])


def upgrade() -> None:
    op.add_column("games", sa.Column("holders", sa.JSON(), nullable=True))
    with _players_batch() as batch:
        batch.add_column(sa.Column("ordinal", sa.SmallInteger(), nullable=False,
                                   server_default=sa.text("0")))
        batch.drop_constraint(op.f("pk_match_players"), type_="primary")
        batch.create_primary_key(op.f("pk_match_players"), ["match_id", "seat", "ordinal"])


def downgrade() -> None:
    op.execute("DELETE FROM match_players WHERE ordinal > 0")
    with _players_batch() as batch:
        batch.drop_constraint(op.f("pk_match_players"), type_="primary")
        batch.create_primary_key(op.f("pk_match_players"), ["match_id", "seat"])
        batch.drop_column("ordinal")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("holders")
