"""History of finished matches of every game: search, one match's score table, and a
game's replay frames.

Dingo's answers keep the shape they had before other games were hosted (its score table
columns, its richer replay frames from ``app.games.dingo.frames``); every answer also says
which game it is (``game``, ``game_title``), and every summary the match ``rule`` and the
``standing`` it was decided on. Other games' matches answer generically: per game its
``setup``, ``actions``, ``result`` and ``winner``, and replay frames built through the
registry (``app.api.game_frames``).
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from app import games as registry
from app import site
from app.api.game_frames import game_frames
from app.api.tables import MISSING_PAGE
from app.db import repository
from app.db.match_record import DINGO, game_title, holder_at
from app.db.models import GameRecord, MatchRecord
from app.games.contract import GAMES_WON, fill_names, seat_labels
from app.games.dingo.frames import replay_game

router = APIRouter(prefix="/api/matches", tags=["matches"])
#: The pages for people: a match's score table and a game's replay (404 page if unknown).
pages = APIRouter(include_in_schema=False)
MATCH_PAGE = MISSING_PAGE.with_name("match.html")
REPLAY_PAGE = MISSING_PAGE.with_name("replay.html")


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    async with request.app.state.db_sessionmaker() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


class PlayerPublic(BaseModel):
    seat: int
    name: str
    bot: bool
    #: A bot's strength as its table showed it ("easy", "hard"...); None for people and for
    #: bots of matches recorded before strengths were kept.
    strength: str | None = None


class Holder(BaseModel):
    """Who held a seat during a game, from ``since`` steps into it (0: from the deal)."""

    name: str
    bot: bool
    strength: str | None = None
    since: int


class Unit(BaseModel):
    """What a number counts, for one and for more ("game won", "games won")."""

    one: str
    other: str


class MatchSummary(BaseModel):
    id: int
    game: str  # the registry name: "dingo", "mate", "divide", "bingo"
    game_title: str  # "Dingo", "Divide and Conquer"
    seats: int
    table_id: str
    started_at: datetime
    ended_at: datetime
    players: list[PlayerPublic]  # by seat: who held it at the end of the match
    #: Who else held a seat during the match, by seat (a player who left, the bot that
    #: stood in for them, a bot replaced between games): each game's ``holders`` say when.
    earlier: list[PlayerPublic]
    game_wins: list[int] | None  # per seat (None: a game that counts no game wins)
    totals: list[int] | None  # cumulative points per seat (None: a game without points)
    winner: int | None  # seat; None: a drawn match
    rule: str  # what decides the match, in words ("first to win 3 games")
    standing: list[int]  # per seat, what the match was decided on (games won, or points)
    standing_unit: Unit  # what those numbers count


class MatchPage(BaseModel):
    items: list[MatchSummary]  # newest first
    total: int  # matches passing the filters
    limit: int
    offset: int
    next_offset: int | None  # None on the last page


class GamePublic(BaseModel):
    """One game's result and what it takes to replay it."""

    number: int
    dealer: int
    seed: int | None
    hands: list[list[str]]  # as dealt, per seat
    actions: list[dict[str, Any]]  # Action.to_dict() in order; compulsory plays are implied
    scores: list[int]
    winner: int | None  # None: a draw
    tie_break: str | None  # the rabbit that broke a tie, "draw", or None
    replay_url: str
    #: The advice after the game (``Advice``): "ready", "pending" (being worked out), or
    #: "none" (bots only, or it could not be worked out).
    advice: str
    mistakes: list[int] | None  # per seat, once the advice is ready
    holders: list[list[Holder]]  # per seat, who held it in turn during the game


class Advice(BaseModel):
    """The advice after a game (``app.game.advice``), in a replay."""

    #: "ready"; "pending": worked out in the background, ask again; "none": see ``why``.
    status: str
    why: str | None = None
    deals: int | None = None  # deals sampled per decision ("what the seat knew")
    playouts: int | None = None  # playouts per choice on the real deal ("hindsight")
    #: Per decision of a person that had a choice: ``index`` (the replay step), ``seat``,
    #: ``played``, ``best``, ``known`` ({lost, best_value, played_value}: expected points
    #: given what the seat knew), ``hindsight`` ({best, lost}: every card known), ``mistake``.
    decisions: list[dict[str, Any]] = []
    mistakes: list[int] | None = None  # per seat


def _advice(stored: dict[str, Any] | None) -> Advice:
    if stored is None:
        return Advice(status="pending")
    if "none" in stored:
        return Advice(status="none", why=stored["none"])
    return Advice(status="ready", **stored)


class MatchDetail(MatchSummary):
    """A Dingo match."""

    seed: int
    options: dict[str, Any]
    games: list[GamePublic]


class GameResult(BaseModel):
    """One game of a match of any game other than Dingo: the game's own JSON."""

    number: int
    setup: dict[str, Any]
    actions: list[Any]  # [seat, action] in order
    result: dict[str, Any] | None  # may carry "say": the result in words, seats as {0}, {1}
    winner: int | None  # None: a draw
    say: str | None  # result["say"] with the names of the seats' holders filled in
    replay_url: str
    holders: list[list[Holder]]  # per seat, who held it in turn during the game


class GenericMatchDetail(MatchSummary):
    """A match of any game other than Dingo."""

    seed: int
    options: dict[str, Any]
    scoreboard: dict[str, Any]  # the game's MatchState.scoreboard() at the end
    games: list[GameResult]


class ScoreChange(BaseModel):
    rank: str
    rabbit: str
    rule: str  # void, no_wolf, one_wolf, two_wolves, ace_caught, ace_no_wolf
    points: list[int]  # per seat
    explanation: str


class TableAfter(BaseModel):
    """Everything on the table at one point of a replay; nothing is hidden any more."""

    stage: str
    to_act: int | None
    hands: list[list[str]]
    discards: list[str]
    rabbits: list[str]  # still to be hunted
    dead_rabbits: list[str]
    hunt: dict[str, Any] | None  # the hunt in progress and its plays so far
    score_piles: list[list[str]]
    penalty_piles: list[list[str]]
    scores: list[int]  # running score per seat


class ReplayDeal(TableAfter):
    dealer: int


class ReplayStep(TableAfter):
    index: int  # 1-based
    action: dict[str, Any]
    text: str
    events: list[dict[str, Any]]  # engine events, in full (passed and discarded cards too)
    score_changes: list[ScoreChange]  # one per hunt resolved by this step


class GameReplay(BaseModel):
    """A Dingo game's replay frames."""

    match_id: int
    game: str
    game_title: str
    #: The table the match was played at: a browser that sat there marks its own seat.
    table_id: str
    number: int
    dealer: int
    seed: int | None
    players: list[PlayerPublic]  # who held the seats at the end of the match
    holders: list[list[Holder]]  # per seat, who held it in turn during this game
    deal: ReplayDeal
    steps: list[ReplayStep]
    result: dict[str, Any]  # scores, winner, tie_break, final piles and hands
    #: The rule that decided the game in words (``explain_winner``; the live table says the same).
    winner_rule: str | None = None
    advice: Advice
    #: Steps a stand-in bot played for a person who was away or out of time.
    stand_in: list[int] = []


class Frame(BaseModel):
    """One point of a replay of any game: what each seat and a spectator saw then."""

    views: list[dict[str, Any]]  # MatchState.view(seat), per seat
    spectator: dict[str, Any]  # MatchState.view(None)
    events: list[dict[str, Any]]  # public forms; "say": seats written {0}, {1}
    says: list[str]  # the events' "say" sentences with the players' names


class Step(Frame):
    index: int  # 1-based
    seat: int
    action: dict[str, Any]


class GenericReplay(BaseModel):
    """A game of any game other than Dingo, rebuilt from the match seed through the registry."""

    match_id: int
    game: str
    game_title: str
    seats: int
    #: The table the match was played at: a browser that sat there opens the replay from
    #: its own seat.
    table_id: str
    number: int
    players: list[PlayerPublic]  # who held the seats at the end of the match
    holders: list[list[Holder]]  # per seat, who held it in turn during this game
    setup: dict[str, Any]
    deal: Frame  # as the game was dealt
    steps: list[Step]
    result: dict[str, Any] | None
    winner: int | None
    say: str | None  # result["say"] with names


def _not_found(code: str, message: str) -> HTTPException:
    return HTTPException(status_code=404, detail={"code": code, "message": message})


def _players(match: MatchRecord, *, final: bool = True) -> list[PlayerPublic]:
    """Who held the seats at the end of the match (``final``), or who held them before."""
    return [PlayerPublic(seat=p.seat, name=p.name, bot=p.is_bot, strength=p.bot_strength)
            for p in match.players if (p.ordinal == 0) == final]


def _holders(match: MatchRecord, game: GameRecord) -> list[list[dict[str, Any]]]:
    """Who held each seat in turn during ``game`` (``Holder``s); for a game recorded before
    holders were kept, the match's players."""
    if game.holders is None:
        return [[{"name": p.name, "bot": p.bot, "strength": p.strength, "since": 0}]
                for p in _players(match)]
    return game.holders


def _public(holders: list[list[dict[str, Any]]]) -> list[list[Holder]]:
    return [[Holder(**h) for h in turns] for turns in holders]


def _names_at(holders: list[list[dict[str, Any]]]) -> Callable[[int], list[str]]:
    """The seats' holders' names when step ``i`` of a game was played (0: the deal)."""
    return lambda step: [holder_at(turns, step)["name"] for turns in holders]


def _summary(match: MatchRecord) -> dict[str, Any]:
    board = match.scoreboard
    return {"id": match.id, "game": match.game, "game_title": game_title(match.game),
            "seats": match.seats, "table_id": match.table_id, "started_at": match.started_at,
            "ended_at": match.ended_at, "players": _players(match),
            "earlier": _players(match, final=False),
            "game_wins": board.get("game_wins"), "totals": board.get("totals"),
            "winner": match.winner, "rule": str(board.get("rule", "")),
            "standing": match.standing, "standing_unit": _unit(match)}


def _unit(match: MatchRecord) -> Unit:
    """The unit of a match's standing; games won for a game this server no longer hosts."""
    one, other = (registry.get(match.game).standing_unit(match.options or {})
                  if match.game in registry.REGISTRY else GAMES_WON)
    return Unit(one=one, other=other)


NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such match (or game)"}}
# Ids beyond the column types are refused (422) rather than sent to PostgreSQL.
MatchId = Annotated[int, Path(ge=1, le=2**31 - 1)]
GameNumber = Annotated[int, Path(ge=1, le=2**15 - 1)]


#: A table's code in a pasted table link (``https://host/t/abc123?x#y``).
_TABLE_LINK = re.compile(r"/t/([^/?#\s]+)")


def table_code(text: str) -> str:
    """The table code in ``text``: a pasted table link or the code itself."""
    found = _TABLE_LINK.search(text)
    return found.group(1) if found else text.strip().strip("/")


#: A day in a query: exactly ``YYYY-MM-DD`` (pydantic's date would also take ``0``).
_DAY = r"^\d{4}-\d{2}-\d{2}$"


def _day(name: str, text: str | None) -> date | None:
    """The day ``text`` names, or 422 like any bad parameter (``2026-02-30``)."""
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise RequestValidationError([{
            "type": "date_from_datetime_parsing", "loc": ("query", name),
            "msg": "Input should be a valid date in the format YYYY-MM-DD",
            "input": text}]) from None


def _day_start(day: date, offset_minutes: int) -> datetime:
    """The first instant (UTC) of ``day`` where clocks are ``offset_minutes`` ahead of UTC."""
    try:
        return datetime.combine(day, time(), tzinfo=UTC) - timedelta(minutes=offset_minutes)
    except OverflowError:  # the first day there is, in a zone ahead of UTC
        return datetime.min.replace(tzinfo=UTC)


@router.get("")
async def list_matches(
    session: SessionDep,
    player: Annotated[str | None, Query(
        # A name is something other than spaces and control characters (see name_terms).
        min_length=1, max_length=200, pattern=r"[^\s\p{C}]",
        description="One or more names separated by spaces: keep matches where each "
                    "starts a player's name or a word of it (any case, accents or not).",
    )] = None,
    table: Annotated[str | None, Query(
        min_length=1, max_length=300, pattern=r"\S",
        description="Keep matches of this table: its code, or a table link (/t/{code}).",
    )] = None,
    game: Annotated[str | None, Query(
        min_length=1, max_length=32, pattern=r"^[a-z][a-z0-9_]*$",
        description="Keep matches of this game (its name: dingo, mate, divide, bingo).",
    )] = None,
    ended_from: Annotated[str | None, Query(
        alias="from", pattern=_DAY, json_schema_extra={"format": "date"},
        description="Keep matches that ended on this day (YYYY-MM-DD, in `tz`) or later.",
    )] = None,
    ended_to: Annotated[str | None, Query(
        alias="to", pattern=_DAY, json_schema_extra={"format": "date"},
        description="Keep matches that ended on this day (YYYY-MM-DD, in `tz`) or earlier.",
    )] = None,
    tz: Annotated[int, Query(
        ge=-840, le=840,
        description="Whose days `from` and `to` are: minutes ahead of UTC (the searcher's "
                    "clock, e.g. -480 for UTC-8); UTC by default.",
    )] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0,
) -> MatchPage:
    """Finished matches, newest first.

    An offset past the last match answers an empty page with the same ``total``.
    """
    first, last = _day("from", ended_from), _day("to", ended_to)
    before = None if last in (None, date.max) else last + timedelta(days=1)
    page = await repository.list_matches(
        session, player=player, table_id=None if table is None else table_code(table),
        game=game,
        ended_from=None if first is None else _day_start(first, tz),
        ended_before=None if before is None else _day_start(before, tz),
        limit=limit, offset=offset)
    more = offset + len(page.matches) < page.total
    return MatchPage(items=[MatchSummary(**_summary(m)) for m in page.matches],
                     total=page.total, limit=limit, offset=offset,
                     next_offset=offset + len(page.matches) if more else None)


class GameCount(BaseModel):
    game: str
    game_title: str
    matches: int


@router.get("/games")
async def games_played(session: SessionDep) -> list[GameCount]:
    """The games that have finished matches, by title, with how many (the history's filter)."""
    counts = await repository.match_counts(session)
    return sorted((GameCount(game=g, game_title=game_title(g), matches=n)
                   for g, n in counts.items()), key=lambda c: c.game_title)


@router.get("/{match_id}", responses=NOT_FOUND)
async def get_match(match_id: MatchId, session: SessionDep) -> MatchDetail | GenericMatchDetail:
    """One match: players, every game's result and winner, and each game's record."""
    match = await repository.get_match(session, match_id)
    if match is None:
        raise _not_found("unknown_match", f"no finished match has id {match_id}")
    if match.game != DINGO:
        generic = [GameResult(number=g.number, setup=g.setup, actions=g.actions,
                              result=g.result, winner=g.winner,
                              say=_say(g.result, holders := _holders(match, g)),
                              replay_url=_replay_url(match_id, g.number),
                              holders=_public(holders))
                   for g in match.games]
        return GenericMatchDetail(**_summary(match), seed=match.seed, options=match.options,
                                  scoreboard=match.scoreboard, games=generic)
    games = [GamePublic(number=g.number, dealer=g.setup["dealer"], seed=g.setup.get("seed"),
                        hands=g.setup["hands"], actions=g.actions,
                        scores=(g.result or {})["scores"], winner=g.winner,
                        tie_break=(g.result or {}).get("tie_break"),
                        replay_url=_replay_url(match_id, g.number),
                        advice=(advice := _advice(g.advice)).status, mistakes=advice.mistakes,
                        holders=_public(_holders(match, g)))
             for g in match.games]
    return MatchDetail(**_summary(match), seed=match.seed, options=match.options, games=games)


def _replay_url(match_id: int, number: int) -> str:
    return f"/api/matches/{match_id}/games/{number}/replay"


def _say(result: dict[str, Any] | None, holders: list[list[dict[str, Any]]]) -> str | None:
    """The game's result in words, naming who held the seats at its end."""
    say = (result or {}).get("say")
    labels = seat_labels([turns[-1]["name"] for turns in holders])
    return fill_names(say, labels) if isinstance(say, str) else None


@router.get("/{match_id}/games/{number}/replay", responses=NOT_FOUND)
async def replay(match_id: MatchId, number: GameNumber,
                 session: SessionDep) -> GameReplay | GenericReplay:
    """A game replayed through its rules, step by step (Dingo: every hand visible; other
    games: every seat's view and the spectator's at each step)."""
    game = await repository.get_game(session, match_id, number)
    if game is None:
        if await session.get(MatchRecord, match_id) is None:
            raise _not_found("unknown_match", f"no finished match has id {match_id}")
        raise _not_found("unknown_game", f"match {match_id} has no game {number}")
    match = game.match
    players, holders = _players(match), _holders(match, game)
    if match.game != DINGO:
        return await _generic_replay(session, match, game, players, holders)
    setup = game.setup
    replayed = replay_game(setup["hands"], setup["dealer"], game.actions, _names_at(holders),
                           open_discards=bool(match.options.get("open_discards")))
    return GameReplay(match_id=match_id, game=DINGO, game_title=game_title(DINGO),
                      table_id=match.table_id, number=number, dealer=setup["dealer"],
                      seed=setup.get("seed"),
                      players=players, holders=_public(holders), advice=_advice(game.advice),
                      stand_in=game.stand_in or [], **replayed)


async def _generic_replay(session: AsyncSession, match: MatchRecord, game: GameRecord,
                          players: list[PlayerPublic],
                          holders: list[list[dict[str, Any]]]) -> GenericReplay:
    try:
        spec = registry.get(match.game)
    except KeyError:
        raise _not_found("unknown_game", f"match {match.id} is of a game this server no "
                         f"longer hosts ({match.game})") from None
    earlier = await repository.game_actions(session, match.id, game.number)
    frames = game_frames(spec, match.seed, match.options, [*earlier, game.actions],
                         game.number, _names_at(holders))
    return GenericReplay(match_id=match.id, game=match.game, game_title=spec.title,
                         seats=match.seats, table_id=match.table_id, number=game.number,
                         players=players, holders=_public(holders),
                         setup=game.setup, result=game.result, winner=game.winner,
                         say=_say(game.result, holders), **frames)


@pages.get("/matches/{match_id:int}")
async def match_page(match_id: int, session: SessionDep) -> FileResponse:
    """The match page, or the "not found" page (404) when no finished match has that id."""
    known = _page_id(match_id) and await session.get(MatchRecord, match_id) is not None
    return _page_or_missing(MATCH_PAGE, known)


@pages.get("/matches/{match_id:int}/games/{number:int}")
async def replay_page(match_id: int, number: int, session: SessionDep) -> FileResponse:
    """The replay viewer, or the "not found" page (404) for an unknown match or game."""
    known = (_page_id(match_id) and _page_id(number)
             and await repository.get_game(session, match_id, number) is not None)
    return _page_or_missing(REPLAY_PAGE, known)


def _page_id(number: int) -> bool:
    """Whether a number from a page address can be an id at all (the API's own limits)."""
    return 1 <= number <= 2**31 - 1


def _page_or_missing(page: pathlib.Path, known: bool) -> FileResponse:
    if known:
        return site.page(page)
    return site.page(MISSING_PAGE, status_code=404)
