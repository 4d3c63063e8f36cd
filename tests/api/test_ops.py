"""Health, readiness and metrics endpoints, on a real SQLite file and a dead database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app


def sqlite_settings(tmp_path: Path, **kwargs: Any) -> Settings:
    return Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'ops.db'}", **kwargs)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(sqlite_settings(tmp_path))) as c:
        yield c


def test_healthz(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json() == {"status": "ok"}


def test_readyz_ok_on_sqlite_file(client: TestClient, tmp_path: Path) -> None:
    r = client.get("/readyz")
    assert r.status_code == 200, r.text
    assert r.json() == {"status": "ok"}
    assert (tmp_path / "ops.db").exists()


def test_readyz_503_when_database_unreachable() -> None:
    # Port 1 on loopback refuses at once: a database that is down.
    settings = Settings(database_url="postgresql+asyncpg://nobody:pw@127.0.0.1:1/nothing")
    with TestClient(create_app(settings)) as c:
        r = c.get("/readyz")
        assert c.get("/healthz").status_code == 200  # alive, just not ready
    assert r.status_code == 503
    body = r.json()
    assert body["status"] == "unavailable"
    assert body["reason"].startswith("database: ")
    assert "pw" not in body["reason"]


def test_metrics_exposes_every_dingo_metric(client: TestClient) -> None:
    metrics = client.app.state.metrics  # type: ignore[attr-defined]
    metrics.record_action(0.003)
    metrics.record_error("not_your_turn")
    metrics.open_tables.inc()
    r = client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    text = r.text
    for name in (
        "dingo_open_tables 1.0",
        "dingo_connections 0.0",
        "dingo_actions_total 1.0",
        'dingo_errors_total{code="not_your_turn"} 1.0',
        "dingo_action_latency_seconds_bucket",
        "dingo_action_latency_seconds_count 1.0",
    ):
        assert name in text


def test_each_app_has_its_own_metrics(tmp_path: Path) -> None:
    a, b = create_app(sqlite_settings(tmp_path)), create_app(sqlite_settings(tmp_path))
    a.state.metrics.record_action(0.1)
    assert "dingo_actions_total 0.0" in b.state.metrics.render()[0].decode()


def test_cross_origin_only_when_configured(tmp_path: Path) -> None:
    preflight = {
        "Origin": "https://friends.example",
        "Access-Control-Request-Method": "GET",
    }
    with TestClient(create_app(sqlite_settings(tmp_path))) as c:
        r = c.options("/healthz", headers=preflight)
        assert "access-control-allow-origin" not in r.headers
    allowed = sqlite_settings(tmp_path, allowed_origins=["https://friends.example"])
    with TestClient(create_app(allowed)) as c:
        r = c.options("/healthz", headers=preflight)
        assert r.headers["access-control-allow-origin"] == "https://friends.example"
