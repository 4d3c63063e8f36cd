"""Finished matches of any game: a ``game`` column, setup and result as JSON, seat checks
by the match's own seat count.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

``matches`` gains ``game`` (the registry name), ``seats`` (2 or 4...), ``standing`` and
``scoreboard`` (the game's ``MatchState.scoreboard()``; for Dingo, ``Match.summary()``
with ``rule`` and ``standing``, which now holds what ``game_wins`` and ``totals`` held)
and ``record`` (``MatchState.record()``, opaque); ``winner`` may be NULL (a drawn
match). ``games`` keeps ``number``, ``actions`` and ``winner`` and moves the rest into
``setup`` (Dingo: ``dealer``, ``seed``, ``hands``) and ``result`` (Dingo: ``scores``,
``tie_break``) JSON.

Seat checks. A seat must be below the match's seat count, but a CHECK constraint may
only read its own row, and ``match_players.seat`` and ``games.winner`` live in other
rows than ``matches.seats``. Options were: a trigger (two dialects, invisible to the
models), checking in the application only (the database would accept seat 3 in a
two-seat match), or a loose bound (0..7, same problem). Chosen: ``match_players`` and
``games`` carry a copy of ``seats``, and their foreign key becomes the composite
``(match_id, seats) -> matches (id, seats)`` (backed by a UNIQUE constraint on
``matches (id, seats)``), so the copy cannot differ from the match's; each row's CHECK
``seat >= 0 AND seat < seats`` then uses a column of its own row. The cost is one small
integer per player and game row. ``matches.seats`` itself is bounded (2..8); which games
exist, and their exact seat count, the application checks against the registry.

Every match already recorded is kept: it becomes ``game='dingo'``, ``seats=4``, with
its scoreboard, standing, setups and results built from the old columns (the
scoreboard exactly as ``Match.summary()`` gives it, plus ``rule`` and ``standing``).
The downgrade restores the old columns from the JSON and refuses to run while any
match of another game is stored (the old schema cannot hold it; delete those first).

SQLite runs the table changes in batch mode (each table rebuilt); PostgreSQL runs the
same operations as plain ALTERs. Types are spelled out, not imported from the models.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Lightweight tables for moving the data (every column these steps read or write).
_matches = sa.table(
    "matches",
    sa.column("id", sa.Integer()), sa.column("options", sa.JSON()),
    sa.column("winner", sa.SmallInteger()),
    sa.column("game_wins", sa.JSON()), sa.column("totals", sa.JSON()),
    sa.column("game", sa.String()), sa.column("seats", sa.SmallInteger()),
    sa.column("standing", sa.JSON()), sa.column("scoreboard", sa.JSON()),
)
_games = sa.table(
    "games",
    sa.column("match_id", sa.Integer()), sa.column("number", sa.SmallInteger()),
    sa.column("dealer", sa.SmallInteger()), sa.column("seed", sa.BigInteger()),
    sa.column("hands", sa.JSON()), sa.column("scores", sa.JSON()),
    sa.column("winner", sa.SmallInteger()), sa.column("tie_break", sa.String()),
    sa.column("seats", sa.SmallInteger()), sa.column("setup", sa.JSON()),
    sa.column("result", sa.JSON()),
)
_players = sa.table("match_players", sa.column("seats", sa.SmallInteger()))


def _players_batch() -> Any:
    """``match_players`` in batch mode: SQLite's reflection drops the NOCASE collation of
    ``name_key`` (the player search's index needs it), so the column is given here."""
    name_key = sa.Column("name_key", sa.String().with_variant(
        sa.String(collation="NOCASE"), "sqlite"), nullable=False)
    return op.batch_alter_table("match_players", reflect_args=[name_key])

BATCH = 500


def dingo_rule(options: dict[str, Any]) -> str:
    """Dingo's match rule in words, as its scoreboard states it (``app.games.dingo.rule``,
    copied: a migration keeps what it did)."""
    points = options.get("points_to_win")
    if points is not None:
        return f"first to {points} points (a tie at the top plays on)"
    wins = int(options.get("games_to_win", 5))
    return f"first to win {wins} game{'s' if wins != 1 else ''}"


def dingo_standing(options: dict[str, Any], game_wins: list[int],
                   totals: list[int]) -> list[int]:
    """What the match was decided on: points under a points target, else games won."""
    return list(totals if options.get("points_to_win") is not None else game_wins)


def dingo_scoreboard(options: dict[str, Any], winner: int | None, game_wins: list[int],
                     totals: list[int], games: list[dict[str, Any]]) -> dict[str, Any]:
    """A finished Dingo match's ``Match.summary()`` (plus ``rule`` and ``standing``) from
    its stored columns; ``games``: number, dealer, scores, winner, tie_break in order."""
    return {
        "options": options,
        "game_number": len(games),
        "game_wins": list(game_wins),
        "totals": list(totals),
        "draws": sum(1 for g in games if g["winner"] is None),
        "games": [{"number": g["number"], "dealer": g["dealer"], "scores": g["scores"],
                   "winner": g["winner"], "tie_break": g["tie_break"]} for g in games],
        "winner": winner,
        "over": True,
        "rule": dingo_rule(options),
        "standing": dingo_standing(options, game_wins, totals),
    }


def _fill_new_columns(conn: sa.Connection) -> None:
    """Every old match is a four-seat Dingo match: fill the new columns from the old."""
    conn.execute(sa.update(_players).values(seats=4))
    last = 0
    while True:
        matches = conn.execute(
            sa.select(_matches.c.id, _matches.c.options, _matches.c.winner,
                      _matches.c.game_wins, _matches.c.totals)
            .where(_matches.c.id > last).order_by(_matches.c.id).limit(BATCH)).all()
        if not matches:
            return
        last = matches[-1].id
        games: dict[int, list[dict[str, Any]]] = {m.id: [] for m in matches}
        for g in conn.execute(
                sa.select(_games.c.match_id, _games.c.number, _games.c.dealer, _games.c.seed,
                          _games.c.hands, _games.c.scores, _games.c.winner,
                          _games.c.tie_break)
                .where(_games.c.match_id.in_(list(games)))
                .order_by(_games.c.match_id, _games.c.number)):
            games[g.match_id].append(dict(g._mapping))
        conn.execute(
            sa.update(_matches).where(_matches.c.id == sa.bindparam("m_id"))
            .values(game="dingo", seats=4, standing=sa.bindparam("m_standing"),
                    scoreboard=sa.bindparam("m_scoreboard")),
            [{"m_id": m.id, "m_standing": dingo_standing(m.options, m.game_wins, m.totals),
              "m_scoreboard": dingo_scoreboard(m.options, m.winner, m.game_wins, m.totals,
                                               games[m.id])}
             for m in matches])
        rows = [g for m in matches for g in games[m.id]]
        if rows:
            conn.execute(
                sa.update(_games).where(_games.c.match_id == sa.bindparam("g_match"),
                                        _games.c.number == sa.bindparam("g_number"))
                .values(seats=4, setup=sa.bindparam("g_setup"),
                        result=sa.bindparam("g_result")),
                [{"g_match": g["match_id"], "g_number": g["number"],
                  "g_setup": {"dealer": g["dealer"], "seed": g["seed"], "hands": g["hands"]},
                  "g_result": {"scores": g["scores"], "tie_break": g["tie_break"]}}
                 for g in rows])


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("game", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("seats", sa.SmallInteger(), nullable=True))
        batch.add_column(sa.Column("standing", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("scoreboard", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("record", sa.JSON(), nullable=True))
    with _players_batch() as batch:
        batch.add_column(sa.Column("seats", sa.SmallInteger(), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("seats", sa.SmallInteger(), nullable=True))
        batch.add_column(sa.Column("setup", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("result", sa.JSON(), nullable=True))

    _fill_new_columns(op.get_bind())

    # The children's foreign keys go first: they are replaced by composite ones below.
    with _players_batch() as batch:
        batch.drop_constraint(op.f("fk_match_players_match_id_matches"), type_="foreignkey")
        batch.drop_constraint(op.f("ck_match_players_seat"), type_="check")
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint(op.f("fk_games_match_id_matches"), type_="foreignkey")
        batch.drop_constraint(op.f("ck_games_dealer_seat"), type_="check")
        batch.drop_constraint(op.f("ck_games_winner_seat"), type_="check")

    with op.batch_alter_table("matches") as batch:
        batch.drop_constraint(op.f("ck_matches_winner_seat"), type_="check")
        batch.alter_column("game", existing_type=sa.String(length=32), nullable=False)
        batch.alter_column("seats", existing_type=sa.SmallInteger(), nullable=False)
        batch.alter_column("standing", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("scoreboard", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("winner", existing_type=sa.SmallInteger(), nullable=True)
        batch.drop_column("game_wins")
        batch.drop_column("totals")
        batch.create_unique_constraint(op.f("uq_matches_id"), ["id", "seats"])
        batch.create_check_constraint(op.f("ck_matches_seats"), "seats BETWEEN 2 AND 8")
        batch.create_check_constraint(op.f("ck_matches_winner_seat"),
                                      "winner >= 0 AND winner < seats")
    op.create_index("ix_matches_game_newest", "matches", ["game", "ended_at", "id"])

    with _players_batch() as batch:
        batch.alter_column("seats", existing_type=sa.SmallInteger(), nullable=False)
        batch.create_foreign_key(op.f("fk_match_players_match_id_matches"), "matches",
                                 ["match_id", "seats"], ["id", "seats"], ondelete="CASCADE")
        batch.create_check_constraint(op.f("ck_match_players_seat"),
                                      "seat >= 0 AND seat < seats")
    with op.batch_alter_table("games") as batch:
        batch.alter_column("seats", existing_type=sa.SmallInteger(), nullable=False)
        batch.alter_column("setup", existing_type=sa.JSON(), nullable=False)
        for column in ("dealer", "seed", "hands", "scores", "tie_break"):
            batch.drop_column(column)
        batch.create_foreign_key(op.f("fk_games_match_id_matches"), "matches",
                                 ["match_id", "seats"], ["id", "seats"], ondelete="CASCADE")
        batch.create_check_constraint(op.f("ck_games_winner_seat"),
                                      "winner >= 0 AND winner < seats")


def _restore_old_columns(conn: sa.Connection) -> None:
    """The old columns back from the JSON (every match is a Dingo match by now)."""
    matches = [{"m_id": m.id, "m_wins": m.scoreboard["game_wins"],
                "m_totals": m.scoreboard["totals"]}
               for m in conn.execute(sa.select(_matches.c.id, _matches.c.scoreboard))]
    if matches:
        conn.execute(
            sa.update(_matches).where(_matches.c.id == sa.bindparam("m_id"))
            .values(game_wins=sa.bindparam("m_wins"), totals=sa.bindparam("m_totals")),
            matches)
    rows = [{"g_match": g.match_id, "g_number": g.number, "g_dealer": g.setup["dealer"],
             "g_seed": g.setup.get("seed"), "g_hands": g.setup["hands"],
             "g_scores": (g.result or {}).get("scores", [0, 0, 0, 0]),
             "g_tie_break": (g.result or {}).get("tie_break")}
            for g in conn.execute(sa.select(_games.c.match_id, _games.c.number,
                                            _games.c.setup, _games.c.result))]
    if rows:
        conn.execute(
            sa.update(_games).where(_games.c.match_id == sa.bindparam("g_match"),
                                    _games.c.number == sa.bindparam("g_number"))
            .values(dealer=sa.bindparam("g_dealer"), seed=sa.bindparam("g_seed"),
                    hands=sa.bindparam("g_hands"), scores=sa.bindparam("g_scores"),
                    tie_break=sa.bindparam("g_tie_break")), rows)


def downgrade() -> None:
    others = op.get_bind().scalar(sa.text("SELECT count(*) FROM matches WHERE game <> 'dingo'"))
    if others:
        raise RuntimeError(
            f"cannot downgrade below 0003: {others} stored matches are not Dingo matches, "
            "which the old schema cannot hold; delete them first")
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint(op.f("ck_games_winner_seat"), type_="check")
        batch.drop_constraint(op.f("fk_games_match_id_matches"), type_="foreignkey")
        batch.add_column(sa.Column("dealer", sa.SmallInteger(), nullable=True))
        batch.add_column(sa.Column("seed", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("hands", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("scores", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("tie_break", sa.String(length=8), nullable=True))
    with _players_batch() as batch:
        batch.drop_constraint(op.f("ck_match_players_seat"), type_="check")
        batch.drop_constraint(op.f("fk_match_players_match_id_matches"), type_="foreignkey")
    op.drop_index("ix_matches_game_newest", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_constraint(op.f("ck_matches_winner_seat"), type_="check")
        batch.drop_constraint(op.f("ck_matches_seats"), type_="check")
        batch.drop_constraint(op.f("uq_matches_id"), type_="unique")
        batch.add_column(sa.Column("game_wins", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("totals", sa.JSON(), nullable=True))

    _restore_old_columns(op.get_bind())

    with op.batch_alter_table("matches") as batch:
        batch.alter_column("game_wins", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("totals", existing_type=sa.JSON(), nullable=False)
        batch.alter_column("winner", existing_type=sa.SmallInteger(), nullable=False)
        for column in ("game", "seats", "standing", "scoreboard", "record"):
            batch.drop_column(column)
        batch.create_check_constraint(op.f("ck_matches_winner_seat"), "winner BETWEEN 0 AND 3")
    with _players_batch() as batch:
        batch.drop_column("seats")
        batch.create_foreign_key(op.f("fk_match_players_match_id_matches"), "matches",
                                 ["match_id"], ["id"], ondelete="CASCADE")
        batch.create_check_constraint(op.f("ck_match_players_seat"), "seat BETWEEN 0 AND 3")
    with op.batch_alter_table("games") as batch:
        for column in ("dealer", "hands", "scores"):
            batch.alter_column(column, existing_type=sa.SmallInteger() if column == "dealer"
                               else sa.JSON(), nullable=False)
        for column in ("seats", "setup", "result"):
            batch.drop_column(column)
        batch.create_foreign_key(op.f("fk_games_match_id_matches"), "matches",
                                 ["match_id"], ["id"], ondelete="CASCADE")
        batch.create_check_constraint(op.f("ck_games_dealer_seat"), "dealer BETWEEN 0 AND 3")
        batch.create_check_constraint(op.f("ck_games_winner_seat"), "winner BETWEEN 0 AND 3")
