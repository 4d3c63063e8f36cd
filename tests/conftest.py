"""Fixtures for resources outside Python: a Chromium binary, PostgreSQL and Redis servers.

Without them a test skips locally, but under CI=true a missing resource fails
the run, so CI can never go green by skipping the real-database or browser tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import get_settings

CHROMIUM = Path("/usr/bin/chromium")

# No advice is worked out in the background of the apps and servers the tests start (it
# would change the history under tests that read it, and take the CPU): the tests of the
# advice turn it on themselves.
os.environ["ADVICE_DEALS"] = "0"


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (required when CI=true)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's Chromium, for Playwright's `executable_path`."""
    if not CHROMIUM.is_file():
        _missing(f"{CHROMIUM} not found: apt-get install chromium")
    return str(CHROMIUM)


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """SQLAlchemy async URL of a PostgreSQL database tests may write to."""
    url = os.environ.get("TEST_DATABASE_URL", "")
    if not url:
        _missing(
            "TEST_DATABASE_URL not set (e.g. postgresql+asyncpg://postgres@127.0.0.1:5432/test)"
        )
    return url


@pytest.fixture(scope="session")
def redis_url() -> str:
    """URL of a Redis server tests may write to (each test under its own key prefix)."""
    url = os.environ.get("TEST_REDIS_URL", "")
    if not url:
        _missing("TEST_REDIS_URL not set (e.g. redis://127.0.0.1:6379/0)")
    return url


@pytest.fixture(autouse=True)
def _fresh_settings() -> Iterator[None]:
    """Each test reads the environment anew (get_settings is cached per process)."""
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database: a new SQLite file, and (with TEST_DATABASE_URL)
    a new PostgreSQL database dropped afterwards."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    from matchdb import fresh_postgres_database

    with fresh_postgres_database(request.getfixturevalue("postgres_url"), "dingo_empty") as url:
        yield url
