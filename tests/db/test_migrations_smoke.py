"""`dingo migrate` brings an empty database to the latest revision, on SQLite and PostgreSQL.

Besides the project's own revisions, one throwaway revision is applied from a
copy of migrations/, so env.py is exercised end to end even while the project
has few or no revisions of its own.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.cli import main as dingo
from app.db.migrate import MIGRATIONS_DIR, alembic_config, run_migrations

PROBE_REVISION = '''\
"""smoke probe"""
import sqlalchemy as sa
from alembic import op

revision = "smoke0000001"
down_revision = {down!r}
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("smoke_probe", sa.Column("id", sa.Integer, primary_key=True))


def downgrade() -> None:
    op.drop_table("smoke_probe")
'''


async def _state(url: str) -> tuple[set[str], set[str]]:
    """(table names, alembic_version rows) of the database at `url`."""
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            versions: set[str] = set()
            if "alembic_version" in tables:
                rows = await conn.execute(text("SELECT version_num FROM alembic_version"))
                versions = {row[0] for row in rows}
            return tables, versions
    finally:
        await engine.dispose()


def test_dingo_migrate_reaches_head(
    empty_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", empty_url)
    assert dingo(["migrate"]) == 0
    assert dingo(["migrate"]) == 0  # a second run is a no-op
    heads = set(ScriptDirectory.from_config(alembic_config(empty_url)).get_heads())
    _tables, versions = asyncio.run(_state(empty_url))
    assert versions == heads


def test_env_py_applies_a_revision(empty_url: str, tmp_path: Path) -> None:
    scripts = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    config = alembic_config(empty_url, scripts)
    heads = ScriptDirectory.from_config(config).get_heads()
    assert len(heads) <= 1, f"migrations have several heads: {heads}"
    down = heads[0] if heads else None
    (scripts / "versions" / "smoke0000001_probe.py").write_text(PROBE_REVISION.format(down=down))

    run_migrations(empty_url, script_location=scripts)

    tables, versions = asyncio.run(_state(empty_url))
    assert "smoke_probe" in tables
    assert versions == {"smoke0000001"}
