"""Run the Alembic migrations in `migrations/` from code (`dingo migrate`, `dingo serve`)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

# migrations/ lives beside app/ in the repository; an editable install (the
# scripts and the Dockerfile use one) keeps it there.
MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(database_url: str, script_location: Path | None = None) -> Config:
    """An Alembic config that needs no alembic.ini and carries the URL out of band.

    The URL travels in `Config.attributes`, not in the ini options, so a password
    containing `%` survives and is never written anywhere.
    """
    location = script_location or MIGRATIONS_DIR
    if not (location / "env.py").is_file():
        raise FileNotFoundError(
            f"Alembic migrations not found at {location}; install the project with "
            "`pip install -e .` from a checkout so migrations/ stays beside app/"
        )
    config = Config()
    config.set_main_option("script_location", str(location))
    config.set_main_option("path_separator", "os")
    config.attributes["database_url"] = database_url
    return config


def run_migrations(
    database_url: str, revision: str = "head", script_location: Path | None = None
) -> None:
    """Upgrade the database at `database_url` to `revision`; call it outside any event loop."""
    command.upgrade(alembic_config(database_url, script_location), revision)
