"""Databases for the storage tests: each test module gets a migrated SQLite file and,
with TEST_DATABASE_URL, a migrated PostgreSQL database of its own; each test
starts from empty tables."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from matchdb import POSTGRES, SQLITE, empty_all_tables, migrated_database

from app.db.store import SqlStore, create_store


@pytest.fixture(scope="module",
                params=[SQLITE, pytest.param(POSTGRES, marks=pytest.mark.postgres)])
def migrated_url(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = request.getfixturevalue("postgres_url") if request.param == POSTGRES else None
    with migrated_database(request.param, tmp_path_factory.mktemp("db"), server) as url:
        yield url


@pytest.fixture
async def db_url(migrated_url: str) -> str:
    await empty_all_tables(migrated_url)
    return migrated_url


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[SqlStore]:
    s = create_store(db_url)
    yield s
    await s.close()
