"""Per-message compression is off on a real ``dingo serve`` (it costs 50-300 KB a socket)."""

from __future__ import annotations

from pathlib import Path

import httpx
from serverkit import dingo_serve
from websockets.asyncio.client import connect


async def test_the_server_declines_permessage_deflate(tmp_path: Path) -> None:
    async with dingo_serve(tmp_path / "deflate.db", tmp_path) as server:
        async with httpx.AsyncClient(base_url=f"http://{server.base}") as http:
            table_id = (await http.post("/api/tables", json={})).json()["table_id"]
        # The client offers permessage-deflate (the websockets default, as browsers do).
        async with connect(f"ws://{server.base}/ws/{table_id}") as ws:
            assert ws.response is not None
            assert "Sec-WebSocket-Extensions" not in ws.response.headers
            assert ws.request is not None
            assert "permessage-deflate" in ws.request.headers["Sec-WebSocket-Extensions"]
