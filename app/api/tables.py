"""HTTP routes of tables: create one, read its public info, serve its page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import FileResponse

from app.api.schemas import TableCreate, TableCreated, TablePublic
from app.config import Settings
from app.table.manager import TableManager
from app.table.table import Table, TableConfig, TableOptions, bot_kinds

router = APIRouter(tags=["tables"])

TABLE_PAGE = Path(__file__).resolve().parents[2] / "static" / "table.html"
#: What a link to a table that is not open shows (with status 404).
MISSING_PAGE = TABLE_PAGE.with_name("missing.html")
UNKNOWN_TABLE: dict[int | str, dict[str, Any]] = {
    404: {"description": "No live table has this id"}}


def table_config(settings: Settings) -> TableConfig:
    """The live-table timings and limits the settings control (the rest keep their defaults)."""
    return TableConfig(reconnect_grace_seconds=settings.reconnect_grace_seconds,
                       idle_seconds=settings.table_idle_seconds,
                       chat_max_chars=settings.chat_max_chars,
                       bot_delay_seconds=settings.bot_delay_seconds,
                       next_game_seconds=settings.next_game_seconds)


def get_tables(request: Request) -> TableManager:
    manager: TableManager = request.app.state.tables
    return manager


TablesDep = Annotated[TableManager, Depends(get_tables)]


def _table(tables: TableManager, table_id: str) -> Table:
    table = tables.get(table_id)
    if table is None:
        raise HTTPException(404, detail={"code": "unknown_table",
                                         "message": "no live table has this id"})
    return table


@router.post("/api/tables", status_code=201,
             responses={400: {"description": "The body is not valid JSON"}})
async def create_table(body: TableCreate, tables: TablesDep) -> TableCreated:
    """Open a table; the answer's `host_token` is shown only this once."""
    options = TableOptions(
        games_to_win=body.games_to_win,
        points_to_win=body.points_to_win,
        open_discards=body.open_discards,
        turn_seconds=body.turn_seconds,
        bots=tuple((b.seat, b.kind) for b in body.bots),
    )
    table, host_token = await tables.create(options)
    return TableCreated(table_id=table.id, url=f"/t/{table.id}", host_token=host_token)


@router.get("/api/bots")
async def read_bot_kinds() -> list[dict[str, str]]:
    """The bot kinds a host may seat, weakest first: ``kind`` and ``strength`` in words."""
    return bot_kinds()


@router.get("/api/tables/{table_id}", responses=UNKNOWN_TABLE)
async def read_table(table_id: str, tables: TablesDep) -> TablePublic:
    """Public information: options, seats (who is there, who is connected), status."""
    return TablePublic.model_validate(_table(tables, table_id).public_info())


@router.get("/t/{table_id}", include_in_schema=False)
async def table_page(table_id: str, tables: TablesDep) -> FileResponse:
    if tables.get(table_id) is None:
        return FileResponse(MISSING_PAGE, status_code=404, media_type="text/html")
    if not TABLE_PAGE.is_file():
        raise HTTPException(404, detail={"code": "no_page", "message": "the page is not built"})
    return FileResponse(TABLE_PAGE, media_type="text/html")
