"""Every hardening test: nothing logged at ERROR and no traceback by the server.

Servers in this process (Starlette's TestClient, uvicorn in the test's loop) log to
the root logger: ``no_server_errors`` watches it for each test. A ``dingo serve``
process logs to its own file, which ``serverkit.dingo_serve`` checks. An HTTP 5xx
from the app is always one of these (see ``serverkit.log_problems``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from hardeningkit import ErrorLog


@pytest.fixture(autouse=True)
def no_server_errors() -> Iterator[ErrorLog]:
    errors = ErrorLog()
    logging.getLogger().addHandler(errors)
    try:
        yield errors
    finally:
        logging.getLogger().removeHandler(errors)
    assert not errors.problems(), errors.problems()
