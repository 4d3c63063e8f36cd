"""Encoding of outgoing messages that do not depend on a table's state.

Every message is encoded with orjson exactly once and the same bytes go to
every recipient it is meant for. The ``state`` message, which depends on who
receives it, is built in one place: ``Table._state``.
"""

from __future__ import annotations

from typing import Any

import orjson


def encode(message: dict[str, Any]) -> bytes:
    """The message as compact JSON, in a bytes object of exactly its size.

    orjson hands back its working buffer, which is 4 KB for an ``ack`` and about
    ten times the text for a ``state``; the bytes may stay queued for a slow
    client or remembered as an intent's answer, so they are copied to size.
    """
    return bytes(memoryview(orjson.dumps(message)))


def error(code: str, message: str, intent_id: str | None = None,
          version: int | None = None) -> bytes:
    return encode({"type": "error", "code": code, "message": message, "id": intent_id,
                   "v": version})


def ack(intent_id: str | None, version: int) -> bytes:
    return encode({"type": "ack", "id": intent_id, "v": version})
