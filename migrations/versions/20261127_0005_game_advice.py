"""games.advice: the advice after a game, worked out in the background once it is over.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27

NULL until the server has worked it out (``app/advisor.py``): for each decision of a
person, what the best choice was worth given what the seat knew and with hindsight
(``app/game/advice.py``). A partial index holds just the games still waiting, so the
background worker finds them without reading the history; games that will get none (of a
game without advice yet, or played by bots only) hold ``{"none": why}`` instead, the
games already recorded too.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


_matches = sa.table("matches", sa.column("id", sa.Integer()), sa.column("game", sa.String()))
_players = sa.table("match_players", sa.column("match_id", sa.Integer()),
                    sa.column("is_bot", sa.Boolean()))
_games = sa.table("games", sa.column("match_id", sa.Integer()), sa.column("advice", sa.JSON()))


def upgrade() -> None:
    op.add_column("games", sa.Column("advice", sa.JSON(), nullable=True))
    other_game = sa.select(_matches.c.id).where(_matches.c.game != "dingo")
    op.execute(_games.update().where(_games.c.match_id.in_(other_game))
               .values(advice={"none": "no advice for this game yet"}))
    has_person = sa.select(_players.c.match_id).where(_players.c.is_bot.is_(False))
    op.execute(_games.update().where(_games.c.advice.is_(None),
                                     _games.c.match_id.not_in(has_person))
               .values(advice={"none": "played by bots only"}))
    op.create_index("ix_games_advice_pending", "games", ["match_id", "number"],
                    postgresql_where=sa.text("advice IS NULL"),
                    sqlite_where=sa.text("advice IS NULL"))


def downgrade() -> None:
    op.drop_index("ix_games_advice_pending", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("advice")
