"""Prometheus metrics and JSON logging.

Metrics live in a per-app registry (not prometheus_client's global one) so
tests can build many apps in one process. Logs are one JSON object per line,
with secrets redacted before any handler writes them.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

# ---------------------------------------------------------------- metrics


class Metrics:
    """The server's metrics; one instance per app at `app.state.metrics`."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.open_tables = Gauge(
            "dingo_open_tables", "Tables currently open.", registry=self.registry
        )
        self.connections = Gauge(
            "dingo_connections", "WebSocket connections currently open.", registry=self.registry
        )
        self.actions = Counter(
            "dingo_actions_total", "Game actions applied.", registry=self.registry
        )
        # Several processes (REDIS_URL, app.cluster.relay); zero with one process.
        self.relayed_sockets = Gauge(
            "dingo_relayed_sockets",
            "WebSocket connections of this process relayed to a table of another process.",
            registry=self.registry,
        )
        self.relay_sessions = Gauge(
            "dingo_relay_sessions",
            "Sockets of other processes at tables of this process.",
            registry=self.registry,
        )
        self.relay_moves = Counter(
            "dingo_relay_moves_total",
            "Times a socket of this process followed its table to another owner.",
            registry=self.registry,
        )
        self.takeovers = Counter(
            "dingo_table_takeovers_total",
            "Tables this process took over from their log (the lease was free or expired).",
            registry=self.registry,
        )
        self.tables_moved = Counter(
            "dingo_tables_moved_total",
            "Tables this process let go (lease lost, a write fenced, or handed over at a stop).",
            registry=self.registry,
        )
        self.errors = Counter(
            "dingo_errors_total",
            "Errors sent to clients, by wire code.",
            ["code"],
            registry=self.registry,
        )
        self.action_latency = Histogram(
            "dingo_action_latency_seconds",
            "Time from receiving an action to having broadcast its result.",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=self.registry,
        )

    def record_action(self, latency_seconds: float) -> None:
        """Count one applied action and its latency."""
        self.actions.inc()
        self.action_latency.observe(latency_seconds)

    def record_error(self, code: str) -> None:
        """Count one error sent to a client under its wire code (e.g. `not_your_turn`)."""
        self.errors.labels(code=code).inc()

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type, for `GET /metrics`."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


# ---------------------------------------------------------------- logging

REDACTED = "[redacted]"
_SECRET_NAMES = frozenset({"token", "seat_token", "secret", "password", "authorization"})
# `token=...` inside free text, e.g. a URL with a query string.
_SECRET_IN_TEXT = re.compile(r"(?i)\b((?:seat_)?token|secret|password)(=|%3D)[^&\s\"']+")
# Attributes every LogRecord has; anything else on a record came from `extra=`
# (uvicorn's `color_message` is its message again, with terminal colours).
_RECORD_ATTRS = frozenset(
    vars(logging.LogRecord("", 0, "", 0, "", None, None)).keys()
    | {"message", "asctime", "color_message"}
)
# Libraries whose INFO lines are start-up chatter, not events.
_QUIET_LOGGERS = ("alembic.runtime.plugins",)


def is_secret_name(name: str) -> bool:
    lowered = name.lower()
    return lowered in _SECRET_NAMES or lowered.endswith(("_token", "_secret", "_password"))


def redact(value: Any) -> Any:
    """A copy of `value` with secret-named fields and `token=` text replaced."""
    if isinstance(value, Mapping):
        return {k: REDACTED if is_secret_name(str(k)) else redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return _SECRET_IN_TEXT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", value)
    return value


class RedactFilter(logging.Filter):
    """Scrubs secrets from a record's message and extra fields before it is written."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # bad %-args: leave it to the handler's own error reporting
            message = str(record.msg)
        record.msg = redact(message)
        record.args = None
        for key in list(vars(record)):
            if key in _RECORD_ATTRS:
                continue
            if is_secret_name(key):
                setattr(record, key, REDACTED)
            else:
                setattr(record, key, redact(getattr(record, key)))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, event, then the record's extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _RECORD_ATTRS and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = redact(self.formatException(record.exc_info))
        return orjson.dumps(entry, default=str).decode()


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever `sys.stderr` is now, so captured or replaced streams keep working."""

    _dingo = True  # marks the handler configure_logging owns

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def configure_logging(level: str = "INFO") -> logging.Handler:
    """Send all logs through one JSON handler on stderr; calling it again replaces only that one.

    Other handlers on the root logger (pytest's capture, for one) are left alone.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_dingo", False):
            root.removeHandler(handler)
    handler = _StderrHandler()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RedactFilter())
    root.addHandler(handler)
    root.setLevel(level)
    # Uvicorn's access log would print request paths with their query strings
    # (seat tokens); it is switched off in `dingo serve` and muted here too.
    logging.getLogger("uvicorn.access").disabled = True
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    return handler


def log_event(logger: logging.Logger, event: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log `event` with structured fields, e.g. `log_event(log, "seat_joined", table_id=t, seat=2)`.

    Fields that clash with LogRecord's own attributes are prefixed with `f_`.
    """
    extra = {(f"f_{k}" if k in _RECORD_ATTRS else k): v for k, v in fields.items()}
    logger.log(level, event, extra=extra)
