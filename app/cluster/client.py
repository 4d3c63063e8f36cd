"""The Redis client the cluster modules share, and what "Redis is unreachable" means.

Timeouts are short and a failed command is retried once, on a new connection:
that retry is what makes the first command after a Redis restart (whose pooled
connections are dead) succeed, while a Redis that is really gone is reported
within about two timeouts instead of stalling the caller behind backoffs.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.table.ports import ServiceUnavailable

#: Seconds a connect or a command may take before Redis counts as unreachable.
DEFAULT_TIMEOUT = 0.5
#: Connections one client may open at once. The library's default, 100, refused a burst
#: (a thousand tables created at once got ``MaxConnectionsError``, HTTP 503). A blocking
#: pool would make such a burst wait instead, but redis-py's leaks a socket when a command
#: is cancelled while it waits for one (seen in CI), and commands are cancelled at every
#: stop; so the pool is only made large enough.
POOL_SIZE = 1024

#: What a Redis client raises when the server cannot be reached or answers too late.
UNREACHABLE: tuple[type[BaseException], ...] = (
    RedisConnectionError, RedisTimeoutError, OSError, asyncio.TimeoutError)


class RedisUnavailable(ServiceUnavailable):
    """Redis could not be reached (or answered too late): nothing was decided."""


def connect(url: str, *, timeout: float = DEFAULT_TIMEOUT, decode: bool = True,
            **options: Any) -> Redis:
    """A client for ``REDIS_URL`` (``redis://host:6379/0``) with the settings above.

    Answers are decoded to ``str`` (``decode=False``: bytes). ``options`` override the
    settings above (e.g. ``socket_timeout=None`` for a subscription that may stay
    quiet). The client connects lazily; call ``aclose()``.
    """
    settings: dict[str, Any] = {
        "decode_responses": decode,
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(NoBackoff(), 1),
    }
    return Redis.from_url(url, max_connections=POOL_SIZE, **{**settings, **options})
