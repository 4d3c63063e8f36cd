"""All runtime settings in one place, read from environment variables only.

Secrets (database passwords inside DATABASE_URL, later keys) come from the
environment and never from a file in the repository.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


class Settings(BaseSettings):
    """Server settings; each field is read from the env var named in its alias or its name."""

    model_config = SettingsConfigDict(
        case_sensitive=False,
        extra="ignore",
        validate_by_name=True,
        validate_by_alias=True,
        hide_input_in_errors=True,  # URLs may hold passwords
    )

    database_url: str = Field(
        default="sqlite+aiosqlite:///./dingo.db",
        validation_alias="DATABASE_URL",
        repr=False,  # may hold a password; keep it out of reprs and logs
        description="SQLAlchemy async URL; SQLite file by default, PostgreSQL via asyncpg.",
    )
    redis_url: str | None = Field(
        default=None,
        validation_alias="REDIS_URL",
        repr=False,  # may hold a password
        description="Redis for several processes (docs/cluster.md); unset: one process.",
    )
    lease_seconds: float = Field(
        default=2.0,
        gt=0,
        le=60,
        validation_alias="LEASE_SECONDS",
        description="With REDIS_URL: how long a table's lease lasts unless renewed (every "
                    "third of it); a dead process's tables play again within about 1.5 times "
                    "this.",
    )
    host: str = Field(
        default="127.0.0.1",
        validation_alias="DINGO_HOST",
        description="Address `dingo serve` binds to (0.0.0.0 in the container).",
    )
    port: int = Field(
        default=8000,
        ge=1,
        le=65535,
        validation_alias="DINGO_PORT",
        description="TCP port `dingo serve` listens on.",
    )
    log_level: LogLevel = Field(
        default="INFO",
        validation_alias="LOG_LEVEL",
        description="Lowest level written to the JSON log on stderr.",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        validation_alias="ALLOWED_ORIGINS",
        description="Browser origins allowed besides the server's own (comma-separated).",
    )
    table_idle_seconds: float = Field(
        default=1800.0,
        gt=0,
        validation_alias="TABLE_IDLE_SECONDS",
        description="A table nobody has been connected to for this long is closed.",
    )
    reconnect_grace_seconds: float = Field(
        default=60.0,
        ge=0,
        validation_alias="RECONNECT_GRACE_SECONDS",
        description="How long a dropped player has to reconnect before a bot plays for the seat.",
    )
    bot_delay_seconds: float = Field(
        default=0.6,
        ge=0,
        le=10,
        validation_alias="BOT_DELAY_SECONDS",
        description="Pause before a bot moves, so people can follow the play.",
    )
    next_game_seconds: float = Field(
        default=20.0,
        ge=0,
        le=600,
        validation_alias="NEXT_GAME_SECONDS",
        description="Scoreboard pause before the next game starts if not everyone said ready.",
    )
    bot_processes: int = Field(
        default_factory=lambda: os.cpu_count() or 1,
        ge=0,
        le=256,
        validation_alias="BOT_PROCESSES",
        description="Worker processes bots think in, at a lower CPU priority than the server "
                    "(default: one per CPU; 0: a thread of the server).",
    )
    advice_deals: int = Field(
        default=24,
        ge=0,
        le=1000,
        validation_alias="ADVICE_DEALS",
        description="Deals sampled per decision for the advice after a game (more: steadier "
                    "figures, more CPU); 0: no advice is worked out.",
    )
    max_message_bytes: int = Field(
        default=4096,
        gt=0,
        validation_alias="MAX_MESSAGE_BYTES",
        description="Largest WebSocket message accepted from a client.",
    )
    max_connections_per_table: int = Field(
        default=64,
        gt=0,
        validation_alias="MAX_CONNECTIONS_PER_TABLE",
        description="Open WebSockets one table accepts (four seats plus spectators).",
    )
    max_connections_per_address: int = Field(
        default=256,
        gt=0,
        validation_alias="MAX_CONNECTIONS_PER_ADDRESS",
        description="Open WebSockets one client address may hold, over all tables.",
    )
    chat_max_chars: int = Field(
        default=200,
        gt=0,
        validation_alias="CHAT_MAX_CHARS",
        description="Longest chat line accepted.",
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("redis_url", mode="before")
    @classmethod
    def _blank_redis_is_unset(cls, value: object) -> object:
        """``REDIS_URL=`` (what docker-compose passes when unset) means no Redis."""
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _redis_needs_postgres(self) -> Settings:
        """Several processes share one log: a SQLite file cannot be that database."""
        if self.redis_url is not None and not self.database_url.startswith("postgresql"):
            raise ValueError(
                "REDIS_URL is set (several server processes), so DATABASE_URL must be "
                "PostgreSQL (postgresql+asyncpg://...), not "
                f"{self.database_url.split(':', 1)[0]}; unset REDIS_URL to run one process")
        return self

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        """Accept `a,b` as well as a JSON list, since both are natural in an env var."""
        if not isinstance(value, str):
            return value
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part.strip().rstrip("/") for part in text.split(",") if part.strip()]


@lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once; tests call `get_settings.cache_clear()`."""
    return Settings()
