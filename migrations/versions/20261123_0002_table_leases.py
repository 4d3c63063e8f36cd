"""table_leases: the fencing token (epoch) each table's log accepts writes from.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23

Several server processes (REDIS_URL) fence a table's appends with their lease's
token (docs/cluster.md); ``table_leases.epoch`` is the highest token that has
written to or claimed the table. Single-process servers never write this table.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_leases")),
    )


def downgrade() -> None:
    op.drop_table("table_leases")
