"""Encoding of outgoing messages that do not depend on a table's state.

Every message is encoded with orjson exactly once and the same bytes go to
every recipient it is meant for. The ``state`` message, which depends on who
receives it, is built in one place: ``Table._state``, which encodes what all
recipients share once and ``merge``s each one's own fields into it.
"""

from __future__ import annotations

from typing import Any

import orjson


def encode(message: dict[str, Any]) -> bytes:
    """The message as compact JSON, to send now (see ``keep`` to hold on to it)."""
    return orjson.dumps(message)


def merge(encoded: bytes, extra: dict[str, Any]) -> bytes:
    """The JSON object ``encoded`` with ``extra``'s fields added (none of them may be in it).

    How recipients share one encoding of what they all see: a ``state`` is the
    same common part for everyone plus each recipient's own fields.
    """
    more = orjson.dumps(extra)
    if len(more) == 2:  # {}
        return encoded
    if len(encoded) == 2:
        return more
    return b"".join((memoryview(encoded)[:-1], b",", memoryview(more)[1:]))


def embed(encoded: bytes) -> orjson.Fragment:
    """Already encoded JSON, to place inside a message as it is."""
    return orjson.Fragment(encoded)


def keep(data: bytes) -> bytes:
    """``data`` in a bytes object of exactly its size, for a message kept for later.

    orjson hands back its working buffer, which is 4 KB for an ``ack`` and about
    ten times the text for a ``state``. Most messages are sent at once and
    dropped; those that wait in a slow client's queue or are remembered as an
    intent's answer are copied to size first.
    """
    return bytes(memoryview(data))


def error(code: str, message: str, intent_id: str | None = None,
          version: int | None = None) -> bytes:
    return encode({"type": "error", "code": code, "message": message, "id": intent_id,
                   "v": version})


def ack(intent_id: str | None, version: int) -> bytes:
    return encode({"type": "ack", "id": intent_id, "v": version})
