"""Pydantic models of every message on the wire (see docs/protocol.md).

Client messages are parsed strictly (no coercion, no unknown fields): a field
that is not what the protocol says is ``malformed``, and a ``seat`` can never be
smuggled into an action. Server messages are built by ``app.table`` with
orjson for speed; their models here document them (and the tests check every
frame against them).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, model_validator

IntentId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
CardCode = Annotated[str, StringConstraints(pattern=r"^[2-9TJQKA][CDHS]$")]
SeatIndex = Annotated[int, Field(ge=0, le=3)]
Version = Annotated[int, Field(ge=0, le=2**53)]
BotKind = Literal["heuristic", "random"]
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
    kind: BotKind = "heuristic"


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


class _GameIntent(_Message):
    id: IntentId
    v: Version


class Discard(_GameIntent):
    type: Literal["discard"]
    card: CardCode


class Pass(_GameIntent):
    type: Literal["pass"]
    card: CardCode


class Play(_GameIntent):
    type: Literal["play"]
    cards: Annotated[list[CardCode], Field(max_length=2)]


class Ready(_Intent):
    type: Literal["ready"]


class Rematch(_Intent):
    type: Literal["rematch"]


class Chat(_Message):
    type: Literal["chat"]
    text: Annotated[str, StringConstraints(max_length=2000)]


class Sync(_Message):
    type: Literal["sync"]


ClientMessage = Annotated[
    Hello | Sit | AddBot | RemoveBot | Start | Discard | Pass | Play | Ready | Rematch | Chat
    | Sync | MakeHost | ReplaceSeat,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
CLIENT_TYPES = frozenset({"hello", "sit", "add_bot", "remove_bot", "start", "discard", "pass",
                          "play", "ready", "rematch", "chat", "sync", "make_host",
                          "replace_seat"})


# -- server -> client ---------------------------------------------------------------


class Welcome(_Message):
    type: Literal["welcome"]
    table_id: str
    seat: SeatIndex | None
    host: bool
    v: int


class Seated(_Message):
    type: Literal["seated"]
    seat: SeatIndex
    #: The new seat token, or null if you sat with the token you hold (the host's).
    token: str | None
    host: bool


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


class BotKindInfo(_Message):
    kind: str
    strength: str


class TableOptionsPublic(_Message):
    games_to_win: int
    points_to_win: int | None
    open_discards: bool
    turn_seconds: float | None


class TableInfo(_Message):
    id: str
    status: TableStatus
    options: TableOptionsPublic
    match_id: int | None
    spectators: int  # connections without a seat (a host who has not sat down included)
    bot_kinds: list[BotKindInfo]


class TimerInfo(_Message):
    seat: SeatIndex
    deadline: float
    server_time: float


class State(_Message):
    type: Literal["state"]
    v: int
    table: TableInfo
    seats: Annotated[list[SeatPublic], Field(min_length=4, max_length=4)]
    match: dict[str, Any] | None  # the engine's Match.summary()
    game: dict[str, Any] | None  # the engine's Game.view(your seat)
    timer: TimerInfo | None
    #: Once a game is over: every hunt with the rule in words, and the winner rule.
    why: dict[str, Any] | None
    events: list[dict[str, Any]]
    #: Only in the answer to ``hello`` or ``sync``: the current game's events so far.
    log: list[dict[str, Any]] | None = None


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


ServerMessage = Annotated[
    Welcome | Seated | State | Ack | Error | ChatLine, Field(discriminator="type")
]
SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


# -- HTTP -------------------------------------------------------------------------


class BotSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # `"seat": false` is no seat
    seat: SeatIndex
    kind: BotKind = "heuristic"


class TableCreate(BaseModel):
    """Options of a new table; every field has a default."""

    model_config = ConfigDict(extra="forbid", strict=True)  # no bools or strings as numbers
    games_to_win: Annotated[int, Field(ge=1, le=50)] = 5
    points_to_win: Annotated[int, Field(ge=1, le=1000)] | None = None
    open_discards: bool = False
    turn_seconds: Annotated[int, Field(ge=5, le=600)] | None = None
    bots: Annotated[list[BotSpec], Field(max_length=4)] = []

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


class TablePublic(BaseModel):
    table_id: str
    url: str
    options: TableOptionsPublic
    status: TableStatus
    seats: list[SeatPublic]
    spectators: int
    match_id: int | None
