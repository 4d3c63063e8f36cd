"""Player names are searched without accents: ``match_players.name_key`` is folded again.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29

``name_key`` was the trimmed, casefolded name, so "zoe" did not find "Zoë". It is now
also stripped of accents (combining marks, after canonical decomposition), as
``app.db.models.name_key`` folds it and a search folds its words. Only the key changes;
the name is kept as it was typed.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _folded(name: str, *, accents: bool) -> str:
    """The key of revision 0008 (``accents=False``) or of the revisions before it. Written
    out here: a migration must not change when the application's fold does."""
    spaced = " ".join(name.split()).casefold()
    if accents:
        return spaced
    bare = "".join(ch for ch in unicodedata.normalize("NFD", spaced)
                   if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", bare)


def _rekey(*, accents: bool) -> None:
    players = sa.table("match_players", sa.column("match_id"), sa.column("seat"),
                       sa.column("ordinal"), sa.column("name"), sa.column("name_key"))
    conn = op.get_bind()
    rows = conn.execute(sa.select(players.c.match_id, players.c.seat, players.c.ordinal,
                                  players.c.name, players.c.name_key)).all()
    for row in rows:
        key = _folded(row.name, accents=accents)
        if key != row.name_key:
            conn.execute(players.update().where(
                players.c.match_id == row.match_id, players.c.seat == row.seat,
                players.c.ordinal == row.ordinal).values(name_key=key))


def upgrade() -> None:
    _rekey(accents=False)


def downgrade() -> None:
    _rekey(accents=True)
