"""Logs are one JSON object per line, and secrets never reach them."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from app.observability import JsonFormatter, RedactFilter, configure_logging, log_event


@pytest.fixture
def captured() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RedactFilter())
    logger = logging.getLogger("tests.logging")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    yield logger, stream
    logger.removeHandler(handler)
    logger.propagate = True


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_event_fields_become_json_keys(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = captured
    log_event(logger, "seat_joined", table_id="t-1", seat=2, name="clashes with LogRecord")
    (entry,) = lines(stream)
    assert entry["event"] == "seat_joined"
    assert entry["level"] == "info"
    assert entry["table_id"] == "t-1"
    assert entry["seat"] == 2
    assert entry["f_name"] == "clashes with LogRecord"
    assert entry["ts"].endswith("+00:00")


def test_secret_fields_are_redacted(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = captured
    log_event(
        logger,
        "reconnected",
        table_id="t-1",
        token="tok-AAA",
        seat_token="tok-BBB",
        secret="tok-CCC",
        payload={"seat_token": "tok-DDD", "nested": [{"token": "tok-EEE"}], "card": "7H"},
    )
    raw = stream.getvalue()
    assert "tok-" not in raw
    (entry,) = lines(stream)
    assert entry["token"] == entry["seat_token"] == entry["secret"] == "[redacted]"
    assert entry["payload"] == {
        "seat_token": "[redacted]",
        "nested": [{"token": "[redacted]"}],
        "card": "7H",
    }


def test_tokens_in_messages_and_tracebacks_are_redacted(
    captured: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = captured
    logger.info("GET /ws/t-1?seat=2&token=tok-AAA&v=3 from %s", "1.2.3.4")
    try:
        raise ValueError("bad url /join?seat_token=tok-BBB")
    except ValueError:
        logger.exception("join_failed")
    assert "tok-" not in stream.getvalue()
    first, second = lines(stream)
    assert first["event"] == "GET /ws/t-1?seat=2&token=[redacted]&v=3 from 1.2.3.4"
    assert second["level"] == "error" and "ValueError" in second["exc"]


def test_configure_logging_replaces_only_its_own_handler() -> None:
    root = logging.getLogger()
    before = [h for h in root.handlers if not getattr(h, "_dingo", False)]
    try:
        first = configure_logging("INFO")
        second = configure_logging("WARNING")
        ours = [h for h in root.handlers if getattr(h, "_dingo", False)]
        assert ours == [second] and first not in root.handlers
        assert [h for h in root.handlers if not getattr(h, "_dingo", False)] == before
        assert root.level == logging.WARNING
        assert logging.getLogger("uvicorn.access").disabled
    finally:
        configure_logging("INFO")


def test_configured_handler_writes_json_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("INFO")
    log_event(logging.getLogger("tests.stderr"), "table_created", table_id="t-9", token="tok-Z")
    err = capsys.readouterr().err.strip().splitlines()
    entry = json.loads(err[-1])
    assert entry["event"] == "table_created" and entry["token"] == "[redacted]"


def test_a_bad_format_string_does_not_raise(captured: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = captured
    logger.info("two args %s %s token=tok-A", "only one")
    (entry,) = lines(stream)
    assert entry["event"] == "two args %s %s token=[redacted]"
