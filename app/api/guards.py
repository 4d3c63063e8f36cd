"""Guards that run before routing: bounds on what one request may carry.

The size of a request's head (request line plus every header, cookies included)
is bounded by the HTTP parser ``dingo serve`` runs (h11, ``MAX_REQUEST_HEAD_BYTES``
in ``app.cli``); the number of headers is bounded here (``HeaderCountLimit``), since
no uvicorn setting does it; a WebSocket handshake's head, parsed again by websockets
with its own bounds, is answered when they refuse it (``HandshakeRefusals``). See
docs/reliability.md, "Request heads".
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

#: Most headers one request may carry (Apache's LimitRequestFields default). A
#: browser sends about 15, a WebSocket handshake about 12.
MAX_HEADERS = 100


class HeaderCountLimit:
    """Refuse a request with more than ``max_headers`` headers: HTTP 431, or, for a
    WebSocket handshake, a refusal (HTTP 403) before the socket is opened."""

    def __init__(self, app: ASGIApp, max_headers: int = MAX_HEADERS) -> None:
        self.app = app
        self.max_headers = max_headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and len(scope["headers"]) > self.max_headers:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008, "reason": ""})
                return
            body = f"a request has at most {self.max_headers} headers\n".encode()
            await send({"type": "http.response.start", "status": 431,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


class HandshakeRefusals(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (websockets, sans-I/O; what ``ws="auto"`` picks), which
    also sends the refusal websockets makes of a handshake head it will not parse.

    h11 has taken the head (up to ``MAX_REQUEST_HEAD_BYTES``); websockets parses it again
    with its own bounds (128 headers, 8 KiB per header line) and, over them, prepares a 431
    (a request line over 8 KiB: 414). uvicorn 0.54 sends it only with a parsed request, so
    the client got no answer at all (a browser whose cookies for the site make a header
    line over 8 KiB could load the pages but waited forever on every table). Here the
    prepared answer is sent and the connection closed.
    """

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.handshake_initiated and self.conn.handshake_exc is not None:
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            self.transport.close()
