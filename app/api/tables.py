"""HTTP routes of tables: create one, read its public info, serve its page."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response

from app import games
from app.api.schemas import GameInfo, TableCreate, TableCreated, TablePublic
from app.config import Settings
from app.games.contract import GameError, shown
from app.site import STATIC_DIR, client_build, page, page_with_build
from app.table.manager import OwnershipUnavailable, TableManager
from app.table.options import TableConfig, TableOptions

router = APIRouter(tags=["tables"])

TABLE_PAGE = STATIC_DIR / "table.html"
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
                       next_game_seconds=settings.next_game_seconds,
                       bot_processes=settings.bot_processes,
                       client_build=client_build())


def get_tables(request: Request) -> TableManager:
    manager: TableManager = request.app.state.tables
    return manager


TablesDep = Annotated[TableManager, Depends(get_tables)]




#: Dingo's options as top-level fields of a create body (from before other games came).
DINGO_FIELDS = ("games_to_win", "points_to_win", "open_discards")


def _refuse(where: str, message: str) -> RequestValidationError:
    """A body the game refuses, answered like any invalid body (422, ``detail`` a list)."""
    return RequestValidationError([{"loc": ("body", where), "msg": message,
                                    "type": "value_error"}])


def _unknown_game(name: str) -> str:
    return f"unknown game {shown(name)}: expected one of {', '.join(games.names())}"


@router.post("/api/tables", status_code=201,
             responses={400: {"description": "The body is not valid JSON"},
                        422: {"description": "An option the game does not accept"}})
async def create_table(body: TableCreate, tables: TablesDep) -> TableCreated:
    """Open a table; the answer's `host_token` is shown only this once."""
    if body.game not in games.REGISTRY:
        raise _refuse("game", _unknown_game(body.game))
    spec = games.get(body.game)
    if not spec.playable:
        raise _refuse("game", f"{spec.title} cannot be played here yet")
    rules: dict[str, Any] = dict(body.options)
    for name in DINGO_FIELDS:
        value = getattr(body, name)
        if value is None:
            continue
        if body.game != "dingo":
            raise _refuse(name, f"{name} is an option of Dingo; give {spec.title}'s in options")
        if name in rules:
            raise _refuse(name, f"{name} is given twice")
        rules[name] = value
    bots = []
    for bot in body.bots:
        if bot.seat >= spec.seats:
            raise _refuse("bots", f"{spec.title} has seats 0 to {spec.seats - 1}")
        if bot.kind is not None and bot.kind not in spec.bots:
            raise _refuse("bots", f"bot kind must be one of {', '.join(spec.bot_order)}")
        bots.append((bot.seat, bot.kind or spec.stand_in_bot))
    try:
        options = TableOptions(body.game, rules, body.turn_seconds, tuple(bots))
    except (GameError, ValueError) as e:
        raise _refuse("options", str(e)) from None
    table, host_token = await tables.create(options)
    return TableCreated(table_id=table.id, url=f"/t/{table.id}", host_token=host_token)


@router.get("/api/games")
async def read_games() -> list[GameInfo]:
    """The hosted games, Dingo first: seats, options (limits, defaults, descriptions),
    bots by strength, and whether a table can be opened for it yet (``playable``)."""
    names = sorted(games.names(), key=lambda n: (n != "dingo", n))
    return [GameInfo.model_validate({
        "name": spec.name, "title": spec.title, "seats": spec.seats, "blurb": spec.blurb,
        "how": list(spec.how), "playable": spec.playable,
        "options": [o.to_dict() for o in spec.options],
        "bots": spec.bot_kinds(), "stand_in": spec.stand_in_bot})
        for spec in map(games.get, names)]


@router.get("/api/bots", responses={404: {"description": "No game has this name"}})
async def read_bot_kinds(game: str = "dingo") -> list[dict[str, Any]]:
    """A game's bot kinds, weakest first: ``kind`` and ``strength`` in words."""
    if game not in games.REGISTRY:
        raise HTTPException(404, detail={"code": "unknown_game", "message": _unknown_game(game)})
    return games.get(game).bot_kinds()


@router.get("/api/tables/{table_id}", responses=UNKNOWN_TABLE)
async def read_table(table_id: str, tables: TablesDep) -> TablePublic:
    """Public information: options, seats (who is there, who is connected), status."""
    info = await tables.public_info(table_id)  # whichever process owns it
    if info is None:
        raise HTTPException(404, detail={"code": "unknown_table",
                                         "message": "no live table has this id"})
    return TablePublic.model_validate(info)


@router.get("/t/{table_id}", include_in_schema=False)
async def table_page(table_id: str, tables: TablesDep) -> Response:
    try:
        missing = await tables.locate(table_id) is None  # here, or owned by another process
    except OwnershipUnavailable:
        missing = False  # cannot be told now: the page's socket retries until it can
    if missing:
        return page(MISSING_PAGE, status_code=404)
    if not TABLE_PAGE.is_file():
        raise HTTPException(404, detail={"code": "no_page", "message": "the page is not built"})
    return page_with_build(TABLE_PAGE)
