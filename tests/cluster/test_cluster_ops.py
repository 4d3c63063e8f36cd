"""Operating endpoints with several processes (REDIS_URL): ``/readyz`` says when Redis is
gone (no table can be owned without it) and ready again once it is back, no restart."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from clusterkit import RedisProcess
from fastapi.testclient import TestClient
from matchdb import POSTGRES, migrated_database

from app.config import Settings
from app.main import create_app

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg(postgres_url: str, tmp_path: Path) -> Iterator[str]:
    with migrated_database(POSTGRES, tmp_path, postgres_url) as url:
        yield url


def ready_within(client: TestClient, status: int, seconds: float = 10.0) -> dict[str, str]:
    deadline = time.monotonic() + seconds
    while True:
        r = client.get("/readyz")
        if r.status_code == status or time.monotonic() > deadline:
            assert r.status_code == status, r.text
            body: dict[str, str] = r.json()
            return body
        time.sleep(0.1)


def test_readyz_follows_redis_down_and_back(pg: str, redis_process: RedisProcess) -> None:
    settings = Settings(database_url=pg, redis_url=redis_process.url, bot_processes=0,
                        advice_deals=0)
    with TestClient(create_app(settings)) as client:
        assert ready_within(client, 200) == {"status": "ok"}
        redis_process.kill()
        body = ready_within(client, 503)
        assert body["status"] == "unavailable"
        assert body["reason"].startswith("redis: "), body
        assert client.get("/healthz").status_code == 200  # alive, just not ready
        redis_process.start()
        assert ready_within(client, 200) == {"status": "ok"}
