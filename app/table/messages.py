"""Encoding of outgoing messages that do not depend on a table's state.

Every message is encoded with orjson exactly once and the same bytes go to
every recipient it is meant for. The ``state`` and ``delta`` messages, which depend
on who receives them, are built by ``TableViews`` (``views.py``); ``merge`` adds the
actor's ``ack`` to its delta.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import orjson

#: JSON encoded already, placed inside a message as it is (``embed``).
Embedded: TypeAlias = orjson.Fragment


def encode(message: dict[str, Any]) -> bytes:
    """The message as compact JSON, in a bytes object of exactly its size.

    orjson hands back its working buffer, which is 4 KB for an ``ack`` and about
    ten times the text for a larger message. Messages wait in client queues and
    are remembered as an intent's answer, so they are copied to size.
    """
    return bytes(memoryview(orjson.dumps(message)))


def merge(encoded: bytes, extra: dict[str, Any]) -> bytes:
    """The JSON object ``encoded`` with ``extra``'s fields added (none of them may be in it).

    How recipients share one encoding: the actor's ``delta`` is the one its viewer's
    other clients get plus its ``ack``.
    """
    if len(encoded) == 2:  # {}
        return encode(extra)
    more = orjson.dumps(extra)
    if len(more) == 2:
        return encoded
    return b"".join((memoryview(encoded)[:-1], b",", memoryview(more)[1:]))


def embed(encoded: bytes) -> Embedded:
    """Already encoded JSON, to place inside a message as it is."""
    return orjson.Fragment(encoded)


def error(code: str, message: str, intent_id: str | None = None,
          version: int | None = None) -> bytes:
    return encode({"type": "error", "code": code, "message": message, "id": intent_id,
                   "v": version})


def ack(intent_id: str | None, version: int) -> bytes:
    return encode({"type": "ack", "id": intent_id, "v": version})
