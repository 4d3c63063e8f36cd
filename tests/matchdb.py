"""Shared by tests/db and tests/api/test_matches*.py: databases to test on, and real matches.

Databases: a SQLite file always, and a fresh PostgreSQL database (created on
the server of ``TEST_DATABASE_URL`` and dropped afterwards) so runs never
see each other's rows. Matches: played through the rules engine with random
legal actions, recorded the way the table server reports them.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import delete, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.db.migrate import run_migrations
from app.db.models import Base
from app.game import Match, MatchOptions, codes

T = TypeVar("T")

SQLITE = "sqlite"
POSTGRES = "postgres"


async def _admin(url: str, statement: str) -> None:
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


@contextmanager
def fresh_postgres_database(server_url: str, prefix: str = "dingo_db") -> Iterator[str]:
    """A new empty database on the server of ``server_url``; dropped on exit."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    in_thread(asyncio.run, _admin(server_url, f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        in_thread(asyncio.run, _admin(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextmanager
def migrated_database(kind: str, directory: Path, postgres_url: str | None) -> Iterator[str]:
    """A database at the latest revision: a SQLite file in ``directory``, or a fresh
    PostgreSQL database on the server of ``postgres_url``."""
    if kind == SQLITE:
        url = f"sqlite+aiosqlite:///{directory / 'dingo.db'}"
        in_thread(run_migrations, url)
        yield url
        return
    assert postgres_url is not None
    with fresh_postgres_database(postgres_url) as url:
        in_thread(run_migrations, url)
        yield url


async def empty_all_tables(url: str) -> None:
    """Delete every row (children first), so tests can share one migrated database."""
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.begin() as conn:
            for table in reversed(Base.metadata.sorted_tables):
                await conn.execute(delete(table))
    finally:
        await engine.dispose()


def random_actions_game(match: Match, rng: random.Random) -> None:
    """Play the match's current game to its end with random legal actions."""
    while not match.game.over:
        match.apply(rng.choice(match.game.legal_actions()))


def play_match_record(
    seed: int,
    *,
    table_id: str = "T1",
    names: tuple[str, str, str, str] = ("Ann", "Bob", "Cid", "Dee"),
    bots: tuple[bool, bool, bool, bool] = (False, False, True, True),
    games_to_win: int = 1,
    points_to_win: int | None = None,
    ended_at: datetime | None = None,
) -> dict[str, Any]:
    """A finished match played with random legal actions, as ``finish_match`` receives it."""
    options = MatchOptions(games_to_win=games_to_win, points_to_win=points_to_win)
    match = Match(seed, options)
    rng = random.Random(seed)
    random_actions_game(match, rng)
    while not match.over:
        match.start_next_game()
        random_actions_game(match, rng)
    ended_at = ended_at or datetime(2026, 11, 21, 23, 0, tzinfo=UTC)
    started_at = ended_at - timedelta(minutes=10 * len(match.games))
    return {
        "table_id": table_id,
        "seed": seed,
        "options": options.to_dict(),
        # The first bot's strength is kept, the second's not (as in matches recorded
        # before strengths were kept).
        "players": [{"seat": s, "name": names[s], "bot": bots[s]}
                    | ({"strength": "hard"} if bots[s] and not any(bots[:s]) else {})
                    for s in range(4)],
        "started_at": started_at.isoformat(),
        "ended_at": ended_at.isoformat(),
        "games": [
            {"number": i + 1, "dealer": g.dealer, "seed": g.seed,
             "hands": [codes(h) for h in g.initial_hands],
             "actions": [a.to_dict() for a in g.actions],
             "scores": list(g.scores or []), "winner": g.winner, "tie_break": g.tie_break}
            for i, g in enumerate(match.games)
        ],
        "game_wins": list(match.game_wins),
        "totals": list(match.totals),
        "winner": match.winner,
    }


def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """Run ``fn`` (which may call ``asyncio.run``) on a thread of its own.

    Fixtures use it for Alembic and database admin so that no event loop of
    the test runner's is created, replaced or cleared behind its back.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn, *args).result()
