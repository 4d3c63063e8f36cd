"""Pydantic models of every message on the wire (see docs/protocol.md).

Client messages are parsed strictly (no coercion, no unknown fields): a field
that is not what the protocol says is ``malformed``, and a ``seat`` can never be
smuggled into an action. A game action (``GameAction``) is the one open shape: its
``type`` must be one of the table's game's action types and its fields are the
game's, which the game checks (``app.games``). Server messages are built by ``app.table`` with
orjson for speed; their models here document them (and the tests check every
frame against them).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, model_validator

from app import games
from app.table.options import TURN_SECONDS_MAX, TURN_SECONDS_MIN

#: The most seats any hosted game has; a table checks its own game's count.
MAX_SEATS = 4
IntentId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
SeatIndex = Annotated[int, Field(ge=0, le=MAX_SEATS - 1)]
Version = Annotated[int, Field(ge=0, le=2**53)]
#: A bot kind's name; which kinds a table has depends on its game (``GET /api/games``).
BotKind = Annotated[str, StringConstraints(pattern=r"^[a-z_]{1,20}$")]
GameName = Annotated[str, StringConstraints(pattern=r"^[a-z_]{1,20}$")]
TableStatus = Literal["lobby", "playing", "between_games", "match_over"]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Intent(_Message):
    id: IntentId | None = None
    v: Version | None = None


# -- client -> server ---------------------------------------------------------------


class Hello(_Message):
    type: Literal["hello"]
    token: Annotated[str, StringConstraints(max_length=100)] | None = None


class Sit(_Intent):
    type: Literal["sit"]
    seat: SeatIndex
    name: Annotated[str, StringConstraints(max_length=100)]


class AddBot(_Intent):
    type: Literal["add_bot"]
    seat: SeatIndex
    kind: BotKind | None = None  # None: the game's stand-in kind


class RemoveBot(_Intent):
    type: Literal["remove_bot"]
    seat: SeatIndex


class Start(_Intent):
    type: Literal["start"]


class MakeHost(_Intent):
    type: Literal["make_host"]
    seat: SeatIndex


class ReplaceSeat(_Intent):
    type: Literal["replace_seat"]
    seat: SeatIndex
    kind: BotKind | None = None  # None frees the seat


class LeaveSeat(_Intent):
    type: Literal["leave_seat"]


class GameAction(BaseModel):
    """One game action: ``type`` and the game's own fields (the game checks them, and a
    field it does not know is refused there). ``id`` and ``v`` are required, so a
    retried or outdated action is never applied twice or to a position nobody saw."""

    model_config = ConfigDict(extra="allow", strict=True)
    type: Annotated[str, StringConstraints(pattern=r"^[a-z_]{1,20}$")]
    id: IntentId
    v: Version

    @model_validator(mode="after")
    def _no_seat(self) -> GameAction:
        if self.model_extra and "seat" in self.model_extra:
            raise ValueError("the seat is not part of an action: the table knows who sent it")
        return self


GAME_ACTION: TypeAdapter[GameAction] = TypeAdapter(GameAction)
#: Every game action type of every hosted game (a table accepts its own game's only).
GAME_TYPES = frozenset().union(*(games.get(name).actions for name in games.names()))


class Ready(_Intent):
    type: Literal["ready"]


class Rematch(_Intent):
    type: Literal["rematch"]


class Chat(_Message):
    type: Literal["chat"]
    text: Annotated[str, StringConstraints(max_length=2000)]


class Sync(_Message):
    type: Literal["sync"]


class Ping(_Message):
    """Is this socket alive? Answered ``pong`` at once, table busy or not."""

    type: Literal["ping"]


ClientMessage = Annotated[
    Hello | Sit | AddBot | RemoveBot | Start | Ready | Rematch | Chat | Sync | MakeHost
    | ReplaceSeat | LeaveSeat | Ping,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
#: The table's own message types (game actions are ``GameAction``).
CLIENT_TYPES = frozenset({"hello", "sit", "add_bot", "remove_bot", "start", "ready", "rematch",
                          "chat", "sync", "make_host", "replace_seat", "leave_seat", "ping"})
assert not CLIENT_TYPES & GAME_TYPES, "a game action type is also a table message type"


# -- server -> client ---------------------------------------------------------------


class Welcome(_Message):
    type: Literal["welcome"]
    table_id: str
    seat: SeatIndex | None
    host: bool
    v: int
    #: Which browser code the server serves (``app.site``): a page running other code
    #: reloads. Null when the server does not say.
    build: str | None


class Seated(_Message):
    type: Literal["seated"]
    seat: SeatIndex
    #: The new seat token, or null if you sat with the token you hold (the host's).
    token: str | None
    host: bool


class Unseated(_Message):
    """After ``leave_seat``: this connection holds no seat now and watches."""

    type: Literal["unseated"]


class SeatPublic(_Message):
    seat: SeatIndex
    kind: Literal["empty", "human", "bot"]
    name: str | None
    bot: BotKind | None
    strength: str | None  # the bot's strength in words ("easy", "normal"), null for people
    connected: bool
    away: bool
    ready: bool
    #: While a dropped player's grace runs: when (server clock) a bot takes over.
    back_by: float | None
    host: bool


class PlayedBy(_Message):
    name: str
    bot: bool


class EarlierHolder(PlayedBy):
    games: list[int]  # the games of this match (from 1) they played in the seat


class SeatInState(SeatPublic):
    #: Once a game is over: who played the seat at its end, if someone else holds it now
    #: (the finished game's results and log name them).
    played: PlayedBy | None
    #: Who else held the seat in this match, in the order they first did.
    earlier: list[EarlierHolder]


class BotKindInfo(_Message):
    kind: str
    strength: str


class TableOptionsPublic(BaseModel):
    """The game's options (``GET /api/games`` lists them) and the turn timer."""

    model_config = ConfigDict(extra="allow", strict=True)
    turn_seconds: float | None


class TableInfo(_Message):
    id: str
    game: str
    title: str
    rule: str  # the match rule in words ("first to win 5 games")
    status: TableStatus
    options: TableOptionsPublic
    match_id: int | None
    spectators: int  # connections without a seat (a host who has not sat down included)
    host_watching: bool  # the host is among them (it holds no seat)
    host_back_by: float | None  # a host without a seat has gone: the role passes then
    bot_kinds: list[BotKindInfo]


class TimerInfo(_Message):
    seat: SeatIndex  # the first of ``seats``
    seats: list[SeatIndex]  # the people whose time runs (several when they decide at once)
    deadline: float
    server_time: float


class State(_Message):
    type: Literal["state"]
    v: int
    table: TableInfo
    seats: Annotated[list[SeatInState], Field(min_length=2, max_length=MAX_SEATS)]
    #: The seats that may act now (several for a simultaneous decision).
    to_act: list[SeatIndex]
    match: dict[str, Any] | None  # the game's MatchState.scoreboard()
    game: dict[str, Any] | None  # the game's MatchState.view(your seat)
    timer: TimerInfo | None
    #: Once a game is over: the game's MatchState.why(), seats as {0}, {1} ... as in a
    #: say (Dingo: every hunt with the rule in words, and the winner rule).
    why: dict[str, Any] | None
    events: list[dict[str, Any]]
    #: Only in the answer to ``hello`` or ``sync``: the current game's events so far.
    log: list[dict[str, Any]] | None = None


class Delta(_Message):
    """What changed for you since the message before (``from`` is its ``v``), after an
    action or any other change: apply ``gone``, then ``patch``, to your state
    (docs/protocol.md)."""

    type: Literal["delta"]
    #: The version of the state this patches: the ``v`` of the previous state or delta.
    from_: int = Field(alias="from")
    v: int
    #: The keys that changed, mirroring the state: an object patches the object or list
    #: there (keys of a list are its indexes), any other value replaces what was there.
    patch: dict[str, Any]
    #: Paths (keys and list indexes from the top) of keys to delete first, when any.
    gone: list[list[str | int]] | None = None
    events: list[dict[str, Any]]
    #: Present when this change answers your intent: its id (null if it had none).
    ack: str | None = None


class Ack(_Message):
    type: Literal["ack"]
    id: str | None
    v: int


class Error(_Message):
    type: Literal["error"]
    code: str
    message: str
    id: str | None
    v: int | None


class ChatLine(_Message):
    type: Literal["chat"]
    seat: SeatIndex
    name: str
    text: str
    at: float


class Pong(_Message):
    type: Literal["pong"]


ServerMessage = Annotated[
    Welcome | Seated | Unseated | State | Delta | Ack | Error | ChatLine | Pong,
    Field(discriminator="type"),
]
SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


# -- HTTP -------------------------------------------------------------------------


class BotSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # `"seat": false` is no seat
    seat: SeatIndex
    kind: BotKind | None = None  # None: the game's stand-in kind


class TableCreate(BaseModel):
    """Options of a new table; every field has a default.

    ``options`` are the game's own (``GET /api/games``: names, limits, defaults); the
    game checks them. Dingo's three options may also be given at the top level, as
    before other games came.
    """

    model_config = ConfigDict(extra="forbid", strict=True)  # no bools or strings as numbers
    game: GameName = "dingo"
    options: Annotated[dict[str, int | bool | str | None], Field(max_length=20)] = {}
    games_to_win: int | None = None
    points_to_win: int | None = None
    open_discards: bool | None = None
    turn_seconds: Annotated[int, Field(ge=TURN_SECONDS_MIN, le=TURN_SECONDS_MAX)] | None = None
    bots: Annotated[list[BotSpec], Field(max_length=MAX_SEATS)] = []

    @model_validator(mode="after")
    def _distinct_bot_seats(self) -> TableCreate:
        seats = [b.seat for b in self.bots]
        if len(set(seats)) != len(seats):
            raise ValueError("each seat can have only one bot")
        return self


class TableCreated(BaseModel):
    table_id: str
    url: str
    host_token: str


class SeatInfo(SeatPublic):
    """A seat in ``GET /api/tables/{id}``: as in a ``state``, except that a person's
    presence is null when the process answering could not ask the table's owner
    (``ready`` is not presence: votes are in the table's log)."""

    connected: bool | None  # type: ignore[assignment]
    away: bool | None  # type: ignore[assignment]


class TablePublic(BaseModel):
    table_id: str
    url: str
    game: str
    title: str
    options: TableOptionsPublic
    status: TableStatus
    seats: list[SeatInfo]
    #: Null with the seats' presence: the owner could not be asked (docs/cluster.md).
    spectators: int | None
    match_id: int | None


class OptionInfo(BaseModel):
    name: str
    title: str
    description: str
    kind: Literal["int", "bool", "choice"]
    default: int | bool | str | None
    minimum: int | None
    maximum: int | None
    choices: list[int | str]
    optional: bool


class GameInfo(BaseModel):
    """A hosted game, as the home page offers it."""

    name: str
    title: str
    seats: int
    blurb: str
    #: The game in a few steps, as it is played (may be empty).
    how: list[str]
    #: Complete (rules, client module, tests): only these can be chosen for a table.
    playable: bool
    options: list[OptionInfo]
    bots: list[BotKindInfo]
    #: The bot kind that plays for an absent player or one out of time.
    stand_in: str
