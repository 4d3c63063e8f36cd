"""Migration 0008: player names are searched without accents. A match stored before it
(its keys folded with accents kept) is found by "zoe" after the upgrade, on SQLite and
PostgreSQL; a downgrade gives the old keys back."""

from __future__ import annotations

import asyncio

from alembic import command
from matchdb import play_match_record
from sqlalchemy import select
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.db import repository
from app.db.migrate import alembic_config, run_migrations
from app.db.models import MatchPlayer, name_key
from app.db.session import create_sessionmaker
from app.db.store import create_store

NAMES = ("Zoë", "ÉMILIE Noël", "Ann", "Björk 👩\u200d💻")


async def _keys(url: str) -> list[str]:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(select(MatchPlayer.name_key).order_by(MatchPlayer.seat))
            return [row[0] for row in rows]
    finally:
        await engine.dispose()


async def _found(url: str, player: str) -> int:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with create_sessionmaker(engine)() as session:
            return (await repository.list_matches(session, player=player)).total
    finally:
        await engine.dispose()


def test_the_fold() -> None:
    assert [name_key(n) for n in NAMES] == ["zoe", "emilie noel", "ann", "bjork 👩\u200d💻"]
    # Only marks go: a full-width letter is kept, and an accent typed apart goes too.
    assert name_key("  \uff3a\uff4f\u00eb\u0301 ") == "\uff5a\uff4fe"


async def test_old_keys_are_folded_again_and_back(empty_url: str) -> None:
    await asyncio.to_thread(run_migrations, empty_url)
    store = create_store(empty_url)
    try:
        await store.finish_match(play_match_record(41, names=NAMES))
    finally:
        await store.close()
    # As revision 0007 kept them: casefolded, the accents kept.
    await asyncio.to_thread(command.downgrade, alembic_config(empty_url), "0007")
    assert await _keys(empty_url) == ["zoë", "émilie noël", "ann", "björk 👩\u200d💻"]

    await asyncio.to_thread(run_migrations, empty_url)
    assert await _keys(empty_url) == ["zoe", "emilie noel", "ann", "bjork 👩\u200d💻"]
    for words in ("zoe", "Zoë", "emilie", "noel z", "BJORK", "zoé"):
        assert await _found(empty_url, words) == 1, words
    assert await _found(empty_url, "zoey") == 0
    assert await _found(empty_url, "\u0301") == 0  # an accent alone names nobody
