"""Validation errors of HTTP requests, answered whatever the request held.

FastAPI's own handler echoes each error's ``input`` through ``jsonable_encoder``
and ``json.dumps(allow_nan=False)``: a body holding NaN or an infinity (``1e999``),
one that is not UTF-8 under a non-JSON content type, or one nested deeper than the
encoder's recursion could answer with HTTP 500 instead of 422. Here every error is
made plain JSON first: non-finite numbers become the strings JavaScript prints for
them, bytes are decoded with replacement characters, anything nested deeper than
``MAX_DEPTH`` is cut off, and any other object is shown by its ``str``.
"""

from __future__ import annotations

import math
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

#: Deeper than this, an echoed input is replaced by ``"..."`` (the protocol's bodies
#: are three levels deep at most).
MAX_DEPTH = 16
#: Longest text echoed from a request (an ``input`` string, decoded bytes, a ``str``).
MAX_TEXT = 1000


def json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` as something ``json.dumps(allow_nan=False)`` always encodes."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        return value[:MAX_TEXT]
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value[:MAX_TEXT]).decode("utf-8", "replace")
    if depth >= MAX_DEPTH:
        return "..."
    if isinstance(value, dict):
        return {str(key)[:MAX_TEXT]: json_safe(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(item, depth + 1) for item in value]
    return str(value)[:MAX_TEXT]


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    """422 with FastAPI's usual ``{"detail": [...]}``, made of plain JSON only."""
    assert isinstance(exc, RequestValidationError)
    return JSONResponse(status_code=422, content={"detail": json_safe(list(exc.errors()))})
