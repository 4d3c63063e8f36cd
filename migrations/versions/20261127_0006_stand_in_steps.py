"""games.stand_in: the steps a stand-in bot played for an absent person.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27

When a person is away or out of time, a bot plays for them (the live table says so). Those
steps are not the person's decisions: the advice after the game does not judge them, and
a replay can say who really chose. NULL for games recorded before they were kept.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("stand_in", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("stand_in")
