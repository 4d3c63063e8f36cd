"""Settings come from the environment, with safe local defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.config import Settings, get_settings


def env_name(name: str) -> str:
    """The environment variable a Settings field is read from."""
    alias = Settings.model_fields[name].validation_alias
    return (alias if isinstance(alias, str) else name).upper()


ENV_VARS = tuple(env_name(name) for name in Settings.model_fields)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


def test_defaults_run_locally_without_any_setup() -> None:
    s = Settings()
    assert s.database_url == "sqlite+aiosqlite:///./dingo.db"
    assert (s.host, s.port) == ("127.0.0.1", 8000)
    assert s.log_level == "INFO"
    assert s.allowed_origins == []
    assert s.max_message_bytes == 4096
    assert s.chat_max_chars == 200
    assert s.table_idle_seconds > 0 and s.reconnect_grace_seconds >= 0


def test_environment_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u:p@db/dingo")
    monkeypatch.setenv("DINGO_HOST", "0.0.0.0")
    monkeypatch.setenv("DINGO_PORT", "9001")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    monkeypatch.setenv("TABLE_IDLE_SECONDS", "5")
    monkeypatch.setenv("RECONNECT_GRACE_SECONDS", "0")
    monkeypatch.setenv("MAX_MESSAGE_BYTES", "1024")
    monkeypatch.setenv("CHAT_MAX_CHARS", "80")
    s = Settings()
    assert s.database_url == "postgresql+asyncpg://u:p@db/dingo"
    assert (s.host, s.port, s.log_level) == ("0.0.0.0", 9001, "DEBUG")
    assert (s.table_idle_seconds, s.reconnect_grace_seconds) == (5.0, 0.0)
    assert (s.max_message_bytes, s.chat_max_chars) == (1024, 80)


@pytest.mark.parametrize(
    "raw",
    ["https://a.example, https://b.example/", '["https://a.example", "https://b.example"]'],
)
def test_allowed_origins_accepts_commas_or_json(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("ALLOWED_ORIGINS", raw)
    assert Settings().allowed_origins == ["https://a.example", "https://b.example"]


def test_keyword_arguments_beat_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DINGO_PORT", "9001")
    assert Settings(port=1234).port == 1234


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DINGO_PORT", "0"),
        ("DINGO_PORT", "http"),
        ("LOG_LEVEL", "loud"),
        ("MAX_MESSAGE_BYTES", "0"),
    ],
)
def test_bad_values_are_rejected(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings()


def test_database_url_stays_out_of_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u:hunter2@db/dingo")
    assert "hunter2" not in repr(Settings())


def test_get_settings_is_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    first = get_settings()
    monkeypatch.setenv("DINGO_PORT", "9002")
    assert get_settings() is first
    get_settings.cache_clear()
    assert get_settings().port == 9002


def test_empty_allowed_origins_means_same_origin_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALLOWED_ORIGINS", "")  # what docker-compose passes when unset
    assert Settings().allowed_origins == []


def test_readme_documents_every_setting() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    for var in ENV_VARS:
        assert f"| `{var}` |" in readme, f"README's settings table lacks {var}"


def test_redis_is_off_by_default_and_blank_means_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().redis_url is None
    monkeypatch.setenv("REDIS_URL", "  ")
    assert Settings().redis_url is None


def test_redis_needs_postgresql(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://:hunter2@127.0.0.1:6379/0")
    with pytest.raises(ValidationError, match="DATABASE_URL must be PostgreSQL"):
        Settings()
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u:p@db/dingo")
    s = Settings()
    assert s.redis_url == "redis://:hunter2@127.0.0.1:6379/0"
    assert "hunter2" not in repr(s)
