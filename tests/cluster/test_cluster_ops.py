"""Operating with several processes (REDIS_URL): ``/readyz`` says when Redis is gone (no
table can be owned without it) and ready again once it is back, no restart; the caps on
sockets hold over the service, not per process."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from clusterkit import RedisProcess
from fastapi.testclient import TestClient
from matchdb import POSTGRES, fresh_postgres_database, migrated_database
from serverkit import dingo_serve, join
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

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


async def test_connection_caps_hold_over_processes(postgres_url: str, redis_url: str,
                                                  tmp_path: Path) -> None:
    """Sockets per table are counted over the service: two on one process and one on
    another fill a cap of three, and a closed socket frees its place for either."""
    env = {"REDIS_URL": redis_url, "MAX_CONNECTIONS_PER_TABLE": "3", "BOT_PROCESSES": "0",
           "ADVICE_DEALS": "0"}
    with fresh_postgres_database(postgres_url, "dingo_caps") as url:
        async with dingo_serve(url, tmp_path, **env) as a, dingo_serve(url, tmp_path, **env) as b:
            async with httpx.AsyncClient(base_url=f"http://{a.base}") as http:
                r = await http.post("/api/tables", json={})
                assert r.status_code == 201, r.text
                table_id = r.json()["table_id"]
            held = [await join(a.base, table_id, None), await join(a.base, table_id, None),
                    await join(b.base, table_id, None)]
            for server in (a, b):
                async with connect(f"ws://{server.base}/ws/{table_id}") as ws:
                    refusal = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
                    assert refusal["code"] == "too_many_connections", refusal
                    assert "table" in refusal["message"]
                    with pytest.raises(ConnectionClosed):
                        await asyncio.wait_for(ws.recv(), 10)
                    assert ws.close_code == 1008
            await held[0].ws.close()
            # The place is free again, for a socket on the other process too.
            deadline = time.monotonic() + 10
            while True:
                try:
                    held[0] = await join(b.base, table_id, None)
                    break
                except (AssertionError, ConnectionClosed):
                    assert time.monotonic() < deadline, "the closed socket still counts"
                    await asyncio.sleep(0.1)
            for player in held:
                await player.ws.close()
