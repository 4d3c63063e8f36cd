"""The FastAPI application factory (`uvicorn --factory app.main:create_app`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from app.api import api_router
from app.api.tables import table_config
from app.config import Settings, get_settings
from app.db.session import create_engine, create_sessionmaker
from app.db.store import SqlStore
from app.observability import Metrics, configure_logging
from app.table.manager import TableManager

#: The browser client: plain HTML, CSS and JavaScript modules, no build step.
STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
#: The site's pages and their files (the table page, /t/{id}, is served by app.api.tables).
PAGES = {
    "/": "index.html",
    "/history": "history.html",
    "/matches/{match_id:int}": "match.html",
    "/matches/{match_id:int}/games/{number:int}": "replay.html",
}


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open the app's resources in order and close them in reverse.

    Each resource registers its cleanup on the exit stack right after it is
    opened, so a failure halfway through still closes what was opened.
    """
    settings: Settings = app.state.settings
    async with AsyncExitStack() as stack:
        engine = create_engine(settings.database_url)
        stack.push_async_callback(engine.dispose)
        app.state.db_engine = engine
        app.state.db_sessionmaker = create_sessionmaker(engine)
        # The tables' log and the match history; closing it commits what is queued.
        store = SqlStore(engine)
        stack.push_async_callback(store.close)
        app.state.store = store
        # Live tables: restored from their logs, closed (sockets 1012) before the store.
        tables = TableManager(store, table_config(settings), app.state.metrics)
        stack.push_async_callback(tables.shutdown)
        await tables.recover()
        tables.start()
        app.state.tables = tables
        yield


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build an app; tests pass their own Settings, the server reads the environment."""
    settings = settings or get_settings()
    configure_logging(settings.log_level)
    app = FastAPI(title="Dingo Online", lifespan=lifespan)
    app.state.settings = settings
    app.state.metrics = Metrics()
    if settings.allowed_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.allowed_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["*"],
        )
    app.include_router(api_router)
    _add_pages(app)
    return app


def _add_pages(app: FastAPI) -> None:
    """Serve the pages and `/static` (the pages find everything else there)."""
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    for path, name in PAGES.items():
        app.add_api_route(path, _page(STATIC_DIR / name), methods=["GET"], include_in_schema=False)


def _page(file: Path) -> Callable[[], Awaitable[FileResponse]]:
    async def page() -> FileResponse:
        return FileResponse(file, media_type="text/html")

    return page
