"""The FastAPI application factory (`uvicorn --factory app.main:create_app`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from app import games
from app.advisor import Advisor, Claim
from app.api import api_router
from app.api.errors import validation_error
from app.api.guards import HeaderCountLimit
from app.api.tables import table_config
from app.api.ws import Caps, ConnectionCaps
from app.config import Settings, get_settings
from app.db.session import create_engine, create_sessionmaker
from app.db.store import SqlStore
from app.game.advice import HINDSIGHT_PLAYOUTS
from app.observability import Metrics, configure_logging
from app.rules_page import rules_page
from app.site import NO_CACHE, STATIC_DIR, ClientFiles, page
from app.table.manager import OwnershipUnavailable, TableManager
from app.table.ports import ServiceUnavailable

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from app.cluster.ownership import Ownership
    from app.cluster.relay import Relay

#: The site's pages and their files (the table page, /t/{id}, is served by app.api.tables).
PAGES = {
    "/": "index.html",
    "/history": "history.html",
}
#: What an unknown page shows, with status 404 (static/js/missing.js names a table code).
MISSING_PAGE = STATIC_DIR / "missing.html"


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
        # Several processes (REDIS_URL): only the tables nobody owns are taken over here,
        # leases are kept renewed, and a stop hands them back (sockets CLOSE_MOVED).
        tables = TableManager(store, table_config(settings), app.state.metrics,
                              ownership=await _ownership(settings, app, stack))
        app.state.relay = await _relay(settings, app, tables, stack)
        stack.push_async_callback(tables.shutdown)
        if app.state.relay is not None:
            stack.callback(app.state.relay.begin_stop)  # (runs before the handover)
        await tables.recover()
        tables.start()
        app.state.tables = tables
        app.state.connection_caps = await _connection_caps(settings, app, tables, stack)
        # The advice after finished games, in the bots' workers; stopped before them.
        if settings.advice_deals:
            advisor = Advisor(engine, tables.bot_workers, deals=settings.advice_deals,
                              playouts=HINDSIGHT_PLAYOUTS,
                              claim=_advice_claim(app.state.redis, tables.process_id))
            advisor.start()
            stack.push_async_callback(advisor.stop)
        yield


async def _ownership(settings: Settings, app: FastAPI,
                     stack: AsyncExitStack) -> Ownership | None:
    """With ``REDIS_URL``: the Redis client (``app.state.redis``, closed after the tables)
    and this process's leases; else None and nothing of ``app.cluster`` is imported."""
    if settings.redis_url is None:
        app.state.redis = None
        return None
    from app.cluster.client import connect
    from app.cluster.lease import TableLeases
    from app.cluster.ownership import Ownership

    redis = connect(settings.redis_url)
    stack.push_async_callback(redis.aclose)
    app.state.redis = redis
    return Ownership(TableLeases(redis, ttl=settings.lease_seconds))


def _advice_claim(redis: Redis | None, process_id: str) -> Claim | None:
    """With ``REDIS_URL``: one process of the service works each game's advice out."""
    if redis is None:
        return None
    from app.cluster.claims import WorkClaims

    return WorkClaims(redis, process_id).advice


async def _connection_caps(settings: Settings, app: FastAPI, tables: TableManager,
                           stack: AsyncExitStack) -> Caps:
    """Sockets per table and per address: counted in this process, or with ``REDIS_URL``
    over every process of the service (a table's sockets may land on any of them)."""
    per_table, per_address = (settings.max_connections_per_table,
                              settings.max_connections_per_address)
    if app.state.redis is None:
        return ConnectionCaps(per_table, per_address)
    from app.cluster.caps import ServiceCaps

    caps = ServiceCaps(app.state.redis, per_table=per_table, per_address=per_address,
                       process=tables.process_id)
    caps.start()

    async def stop() -> None:
        with suppress(ServiceUnavailable):  # Redis away: this process's counts expire
            await caps.stop()

    stack.push_async_callback(stop)
    return caps


async def _relay(settings: Settings, app: FastAPI, tables: TableManager,
                 stack: AsyncExitStack) -> Relay | None:
    """With ``REDIS_URL``: sockets of this process at tables of others, and the other
    way round (docs/cluster.md, Forwarding); stopped after the tables were handed over."""
    if settings.redis_url is None:
        return None
    from app.cluster.relay import Relay

    relay = Relay(settings.redis_url, tables, app.state.metrics, settings)
    await relay.start()
    stack.push_async_callback(relay.stop)
    return relay


async def _ownership_unavailable(request: Request, exc: Exception) -> Response:
    """Who owns a table cannot be proved now (Redis away): 503, to be retried."""
    return JSONResponse(status_code=503, headers={"Retry-After": "1"},
                        content={"detail": {"code": "service_unavailable", "message": str(exc)}})


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build an app; tests pass their own Settings, the server reads the environment."""
    settings = settings or get_settings()
    configure_logging(settings.log_level)
    app = FastAPI(title="Dingo Online", lifespan=lifespan)
    app.state.settings = settings
    app.state.metrics = Metrics()
    # Every 422 serialises, whatever the request held (NaN, bytes that are not UTF-8).
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(OwnershipUnavailable, _ownership_unavailable)
    if settings.allowed_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.allowed_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["*"],
        )
    app.add_middleware(HeaderCountLimit)  # outermost: before CORS and routing
    app.include_router(api_router)
    _add_pages(app)
    return app


def _add_pages(app: FastAPI) -> None:
    """Serve the pages and `/static` (the pages find everything else there).

    An unknown page is the "not found" page for people (status 404, links home
    and to the history); under `/api/` a 404 stays JSON.
    """
    app.mount("/static", ClientFiles(directory=STATIC_DIR), name="static")
    for path, name in PAGES.items():
        app.add_api_route(path, _page(STATIC_DIR / name), methods=["GET"], include_in_schema=False)
    app.add_api_route("/rules", _rules, methods=["GET"], include_in_schema=False)
    app.add_api_route("/rules/{game}", _game_rules, methods=["GET"], include_in_schema=False)
    for path in ("/matches", "/matches/"):
        app.add_api_route(path, _all_matches, methods=["GET"], include_in_schema=False)
    app.add_exception_handler(StarletteHTTPException, _not_found_page)


async def _all_matches() -> RedirectResponse:
    """A match's address cut back by hand: every match is listed on the history page."""
    return RedirectResponse("/history", status_code=308)


async def _rules() -> HTMLResponse:
    return HTMLResponse(rules_page(), headers=NO_CACHE)


async def _game_rules(game: str) -> HTMLResponse:
    """A hosted game's rules page; an unknown game is the "not found" page."""
    if game not in games.REGISTRY:
        raise StarletteHTTPException(404)
    return HTMLResponse(rules_page(game), headers=NO_CACHE)


async def _not_found_page(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404 and not request.url.path.startswith(("/api/", "/static/")):
        return page(MISSING_PAGE, status_code=404)
    return await http_exception_handler(request, exc)


def _page(file: Path) -> Callable[[], Awaitable[FileResponse]]:
    async def serve() -> FileResponse:
        return page(file)

    return serve
