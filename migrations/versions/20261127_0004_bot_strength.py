"""match_players.bot_strength: how strong each bot of a finished match was.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27

A host picks each bot seat's strength ("easy", "normal", "hard"...: the words a game
gives its bot kinds, ``GameSpec.bot_kinds``); the history shows it beside the bot's
name, as the table did. The word is stored as it was shown, not the bot kind, so a game
that later gains a bot (and renames its strengths) does not rewrite its past. NULL for
people, and for every match recorded before this revision (its strength was not kept).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("match_players", sa.Column("bot_strength", sa.String(), nullable=True))


def downgrade() -> None:
    # SQLite rebuilds the table, and its reflection drops the NOCASE collation of
    # ``name_key`` (the player search's index needs it): the column is given here.
    name_key = sa.Column("name_key", sa.String().with_variant(
        sa.String(collation="NOCASE"), "sqlite"), nullable=False)
    with op.batch_alter_table("match_players", reflect_args=[name_key]) as batch:
        batch.drop_column("bot_strength")
