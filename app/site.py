"""The browser client as the server serves it: its files, and which version of them.

After a deploy, a table page that stayed open runs the code it loaded before, and that
code may read an older form of the messages than the new server sends. So the server
says which client code it serves (``client_build``): in every ``welcome``, and in the
table page itself; a page told of other code than its own reloads. And every page and
file of the client is served ``no-cache`` (the browser revalidates it before each use:
its ETag makes that a 304 while nothing changed), so that reload, and any page loaded
after a deploy, runs the new code and never a stale cached module beside new ones.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

#: The browser client: plain HTML, CSS and JavaScript modules, no build step.
STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
#: Use a file only after asking the server whether it changed.
NO_CACHE = {"Cache-Control": "no-cache"}
#: Where a page asks for the build it belongs to (the table page).
BUILD_META = '<meta name="dingo-build" content="">'


@cache
def client_build(root: Path = STATIC_DIR) -> str:
    """A digest of every file of the client (names and contents): equal for two servers
    exactly when they serve the same client code."""
    digest = hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.is_file())
    for path in files:
        name = path.relative_to(root).as_posix().encode()
        digest.update(len(name).to_bytes(4, "big") + name)
        data = path.read_bytes()
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()[:16]


def page(file: Path, status_code: int = 200) -> FileResponse:
    """One of the client's HTML pages, revalidated before each use."""
    return FileResponse(file, status_code=status_code, media_type="text/html",
                        headers=NO_CACHE)


def page_with_build(file: Path) -> HTMLResponse:
    """A page that says which client build it belongs to (``BUILD_META``, filled in here):
    behind a proxy spreading requests over several processes during a rolling deploy,
    the page and the server a table lives on may hold different builds from the start."""
    return HTMLResponse(_filled(file), headers=NO_CACHE)


@cache
def _filled(file: Path) -> str:
    """``file`` with its build filled in, read once: like ``client_build``, it stands for
    the files the process started with."""
    build = BUILD_META.replace('content=""', f'content="{client_build()}"')
    return file.read_text(encoding="utf-8").replace(BUILD_META, build)


class ClientFiles(StaticFiles):
    """``/static``: the client's files, revalidated before each use."""

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result,
                      scope: Scope, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers.update(NO_CACHE)
        return response
