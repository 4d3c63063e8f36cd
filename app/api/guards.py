"""ASGI guards that run before routing: bounds on what one request may carry.

The size of a request's head (request line plus every header, cookies included)
is bounded by the HTTP parser ``dingo serve`` runs (h11, ``MAX_REQUEST_HEAD_BYTES``
in ``app.cli``); the number of headers is bounded here, since no uvicorn setting
does it. See docs/reliability.md, "Request heads".
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

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
