"""Hostile HTTP at a real ``dingo serve``: every request is answered 4xx, never 5xx.

One server process (SQLite file, loopback) gets the inputs fuzzing found and the
class each belongs to, over raw TCP so nothing is tidied up by a client library:

- request heads beyond the bounds (docs/reliability.md, "Request heads"): one
  8 MiB header, 5,000 headers, a 1 MiB cookie, 101 headers, also on a WebSocket
  handshake, where websockets' own bounds (128 headers, 8 KiB per line) are answered
  431 too (uvicorn left them unanswered); a head at the bounds is still served;
- WebSocket handshakes with a malformed ``Origin`` (``http://[``...): HTTP 403;
- bodies of ``POST /api/tables`` holding NaN or infinities, or bytes that are not
  UTF-8 under a non-JSON content type: 422;
- a seated player's frame nested 1,000 deep: its error, and the seat stays.

Then the server must still answer, and its log (everything at WARNING and up)
must hold no traceback and no ERROR line, so no HTTP 5xx (``serverkit.log_problems``).
"""

from __future__ import annotations

import asyncio
import base64
import random
from contextlib import suppress
from pathlib import Path

import httpx
from serverkit import Server, dingo_serve, seated_table

from app.api.guards import MAX_HEADERS
from app.cli import MAX_REQUEST_HEAD_BYTES

HEAD_REFUSED = (400, 403, 431)


async def raw_request(server: Server, head: bytes, body: bytes = b"") -> int | None:
    """Send ``head`` (without its final blank line) and ``body``; the answer's status,
    or None if the server closed the connection without one."""
    host, port = server.base.split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        with suppress(ConnectionError):
            for at in range(0, len(head), 65536):  # as a client would: in pieces
                writer.write(head[at:at + 65536])
                await writer.drain()
            writer.write(b"\r\n\r\n" + body)
            await writer.drain()
        with suppress(ConnectionError):
            line = await asyncio.wait_for(reader.readline(), 30)
            if line.startswith(b"HTTP/1.1 "):
                return int(line.split()[1])
        return None
    finally:
        writer.close()
        with suppress(ConnectionError):
            await writer.wait_closed()


def get(path: str, *headers: bytes) -> bytes:
    return b"\r\n".join([f"GET {path} HTTP/1.1".encode(), b"host: x", *headers])


def handshake(path: str, *headers: bytes, origin: bytes | None = None) -> bytes:
    key = base64.b64encode(b"0123456789abcdef")
    lines = [b"upgrade: websocket", b"connection: Upgrade", b"sec-websocket-key: " + key,
             b"sec-websocket-version: 13", *headers]
    if origin is not None:
        lines.append(b"origin: " + origin)
    return get(path, *lines)


async def test_hostile_requests_get_4xx_and_the_server_logs_no_error(tmp_path: Path) -> None:
    async with dingo_serve(tmp_path / "hostile.db", tmp_path) as server:
        table_id, players, _ = await seated_table(server.base, games_to_win=1)
        ws_path = f"/ws/{table_id}"
        statuses: dict[str, int | None] = {}

        # Request heads: bounded in size (h11) and in header count (HeaderCountLimit); a
        # handshake also by websockets' parser (HandshakeRefusals sends its 431).
        huge = b"x-big: " + b"a" * (8 * 1024 * 1024)
        many = [f"x-h{i}: v".encode() for i in range(5000)]
        cookie = b"cookie: c=" + b"b" * (1024 * 1024)
        just_over = [f"x-h{i}: v".encode() for i in range(MAX_HEADERS)]  # + host: 101
        cases = {
            "8 MiB header": get("/healthz", huge),
            "5000 headers": get("/healthz", *many),
            "1 MiB cookie": get("/healthz", cookie),
            f"{MAX_HEADERS + 1} headers": get("/healthz", *just_over),
            "handshake, 1 MiB cookie": handshake(ws_path, cookie),
            f"handshake, {MAX_HEADERS + 1} headers": handshake(ws_path, *just_over),
            "handshake, 150 headers": handshake(ws_path, *many[:150]),
            "handshake, a 9 KB cookie": handshake(ws_path, b"cookie: c=" + b"b" * 9000),
        }
        for name, head in cases.items():
            statuses[name] = await raw_request(server, head)
        for name, status in statuses.items():
            # None: the server answered and closed while the client was still sending.
            assert status in HEAD_REFUSED or status is None, (name, status)
        # Small heads are read whole: each of these gets its answer.
        assert statuses[f"handshake, {MAX_HEADERS + 1} headers"] == 403  # HeaderCountLimit
        assert statuses["handshake, 150 headers"] == 431  # websockets' parser
        assert statuses["handshake, a 9 KB cookie"] == 431
        # At the bounds it is served: 100 headers, a head just under the size limit.
        assert await raw_request(server, get("/healthz", *just_over[:-1])) == 200
        filler = b"x-fill: " + b"f" * (MAX_REQUEST_HEAD_BYTES - 200)
        assert await raw_request(server, get("/healthz", filler)) == 200

        # Malformed origins are foreign origins.
        for origin in (b"http://[", b"http://[::1", b"http://]", b"http://[::1]]", b"null"):
            assert await raw_request(server, handshake(ws_path, origin=origin)) == 403, origin
        assert await raw_request(
            server, handshake(ws_path, origin=b"http://x")) == 101  # host: x

        # Bodies: NaN and infinities, bytes that are not UTF-8.
        async with httpx.AsyncClient(base_url=f"http://{server.base}") as http:
            for body in (b'{"games_to_win": NaN}', b'{"games_to_win": 1e999}',
                         b'{"games_to_win": -Infinity}'):
                r = await http.post("/api/tables", content=body,
                                    headers={"content-type": "application/json"})
                assert r.status_code == 422 and "NaN" not in r.text.replace('"NaN"', ""), r.text
            for content_type in ("text/plain", "application/x-www-form-urlencoded",
                                 "application/xml", "application/octet-stream",
                                 "multipart/form-data; boundary=x"):
                r = await http.post("/api/tables", content=b"\xff\xfe\x80",
                                    headers={"content-type": content_type})
                assert r.status_code == 422, (content_type, r.text)

            # A seated player's deeply nested frame: an error, and the seat stays.
            player = players[1]
            await player.ws.send('{"type":' + "[" * 1000 + "]" * 1000 + "}")
            assert (await player.expect("error"))["code"] == "unknown_type"
            await player.send({"type": "sync"})
            state = await player.next_state()
            assert state["seats"][1]["connected"] and state["game"]["seat"] == 1

            assert (await http.get("/healthz")).status_code == 200
        for p in players:
            await p.ws.close()
    # dingo_serve checks the server's log on the way out (serverkit.log_problems).


#: websockets' own bounds on a handshake head (``websockets.http11``), which it checks
#: before the app sees the request: headers, and bytes per header line.
WS_MAX_HEADERS, WS_MAX_LINE = 128, 8192
HEAD_EXAMPLES = 160


def expected(head: bytes, websocket: bool) -> set[int | None]:
    """The answers ``dingo serve`` may give ``head``: within the size bound exactly one;
    near or over it also 400 or a close (h11 checks only a head it has not all read)."""
    lines = head.split(b"\r\n")[1:]
    if not websocket:
        answer: int = 431 if len(lines) > MAX_HEADERS else 200
    elif len(lines) > WS_MAX_HEADERS or max(len(line) for line in lines) + 2 > WS_MAX_LINE:
        answer = 431  # websockets' refusal, sent by HandshakeRefusals
    else:
        answer = 403 if len(lines) > MAX_HEADERS else 101
    if len(head) > MAX_REQUEST_HEAD_BYTES - 1024:
        return {answer, 400, None}
    return {answer}


async def test_generated_request_heads_are_answered_within_their_bounds(tmp_path: Path
                                                                        ) -> None:
    """Heads of 0 to 300 headers, a few of them 1 byte to 20 KB long (often near websockets'
    8 KiB per line, and so the 16 KiB head bound), on plain requests and WebSocket
    handshakes: every one is
    answered (never left waiting, never a 5xx) with what its size and count call for."""
    rng = random.Random(12)
    tally: dict[str, int] = {}
    async with dingo_serve(tmp_path / "heads.db", tmp_path) as server:
        async with httpx.AsyncClient(base_url=f"http://{server.base}") as http:
            table_id = (await http.post("/api/tables", json={})).json()["table_id"]
        for number in range(HEAD_EXAMPLES):
            count = rng.choice([rng.randint(0, 20), rng.randint(90, 140), rng.randint(0, 300)])
            sizes = [rng.randint(1, 40) for _ in range(count)]
            for _ in range(rng.choice([0, 0, 1, 1, 2])):  # a few long lines
                if sizes:
                    sizes[rng.randrange(len(sizes))] = rng.choice([
                        rng.randint(1, 20_000), rng.randint(7_900, 8_500)])
            headers = [f"x-h{i}: ".encode() + b"v" * size for i, size in enumerate(sizes)]
            websocket = number % 2 == 1
            head = (handshake(f"/ws/{table_id}", *headers) if websocket
                    else get("/healthz", *headers))
            status = await asyncio.wait_for(raw_request(server, head), 40)
            allowed = expected(head, websocket)
            assert status in allowed, (websocket, count, max(sizes, default=0), len(head),
                                       status, allowed)
            key = f"{'handshake' if websocket else 'request'} {status}"
            tally[key] = tally.get(key, 0) + 1
    # The bounds were really tried on both kinds of request.
    for key in ("request 200", "request 431", "handshake 101", "handshake 403",
                "handshake 431"):
        assert tally.get(key, 0) > 0, tally
    print(f"\n{HEAD_EXAMPLES} heads: {sorted(tally.items(), key=str)}")
