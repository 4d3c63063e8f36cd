"""Operating endpoints: liveness, readiness and Prometheus metrics."""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.observability import Metrics, log_event

router = APIRouter(tags=["ops"])
log = logging.getLogger(__name__)

# A readiness probe must answer quickly even when the database host drops packets.
READY_TIMEOUT_SECONDS = 3.0


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up and serving requests."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "The database, or Redis when "
                                                  "configured, is not reachable"}})
async def readyz(request: Request) -> JSONResponse:
    """The server can do real work: the database answers `SELECT 1` and, with several
    processes (`REDIS_URL`), Redis answers `PING` (without it no table can be owned)."""
    engine: AsyncEngine = request.app.state.db_engine
    try:
        async with asyncio.timeout(READY_TIMEOUT_SECONDS), engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as exc:  # any failure means "not ready"; say which kind
        return _not_ready(_reason("database", exc))
    redis = getattr(request.app.state, "redis", None)
    if redis is not None:
        try:
            async with asyncio.timeout(READY_TIMEOUT_SECONDS):
                await redis.ping()
        except Exception as exc:
            return _not_ready(_reason("redis", exc))
    return JSONResponse({"status": "ok"})


def _not_ready(reason: str) -> JSONResponse:
    log_event(log, "readiness_failed", logging.WARNING, reason=reason)
    return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)


def _reason(what: str, exc: BaseException) -> str:
    """A short, secret-free description: the driver's error, not SQLAlchemy's wrapped SQL."""
    if isinstance(exc, TimeoutError):
        return f"{what}: no answer within {READY_TIMEOUT_SECONDS:g}s"
    cause = getattr(exc, "orig", None) or exc.__cause__ or exc
    first_line = (str(cause).splitlines() or [""])[0][:200]
    return f"{what}: {type(cause).__name__}: {first_line}".rstrip(": ")


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """Prometheus exposition of this app's registry."""
    app_metrics: Metrics = request.app.state.metrics
    body, content_type = app_metrics.render()
    return Response(content=body, media_type=content_type)
