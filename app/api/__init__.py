"""HTTP and WebSocket routes; every router is gathered into `api_router` for create_app."""

from fastapi import APIRouter

from app.api import matches, ops, tables, ws

api_router = APIRouter()
api_router.include_router(ops.router)
api_router.include_router(matches.router)
api_router.include_router(matches.pages)
api_router.include_router(tables.router)
api_router.include_router(ws.router)
