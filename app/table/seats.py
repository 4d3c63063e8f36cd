"""The people and bots at a table: seats, their names, and the words they type."""

from __future__ import annotations

import asyncio
import unicodedata
from typing import Any

from .client import Client
from .tokens import same_hash

NAME_MAX_CHARS = 24
#: Bots' names by seat: short, distinct, and never cut on a phone.
BOT_NAMES = ("Ada", "Bruno", "Cleo", "Dov")


class TableError(Exception):
    """An intent the table refuses; ``code`` is the wire error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Seat:
    __slots__ = ("away", "back_by", "bot", "client", "grace", "index", "name", "ready", "sat_at",
                 "token_hash")

    def __init__(self, index: int) -> None:
        self.index = index
        self.name: str | None = None
        self.token_hash: str | None = None
        self.bot: str | None = None  # the bot kind when a bot holds the seat
        self.client: Client | None = None
        self.away = False  # gone past the grace period: a bot plays for the seat
        self.ready = False  # next-game (or rematch) vote
        self.grace: asyncio.TimerHandle | None = None
        self.back_by: float | None = None  # wall clock: when the grace ends, while it runs
        self.sat_at = 0  # the version at which the player sat down (longest seated first)

    @property
    def kind(self) -> str:
        if self.bot is not None:
            return "bot"
        return "empty" if self.token_hash is None else "human"

    @property
    def human(self) -> bool:
        return self.bot is None and self.token_hash is not None

    @property
    def present(self) -> bool:
        """A human with a live socket, who is therefore asked to vote and to move."""
        return self.human and self.client is not None and not self.away

    def public(self, host_hash: str | None, strengths: dict[str, str]) -> dict[str, Any]:
        return {"seat": self.index, "kind": self.kind, "name": self.name, "bot": self.bot,
                "strength": None if self.bot is None else strengths.get(self.bot, self.bot),
                "connected": self.bot is not None or self.client is not None,
                "away": self.away, "ready": self.ready and self.human,
                "back_by": self.back_by if self.human and self.client is None else None,
                "host": self.human and same_hash(self.token_hash, host_hash)}


def bot_name(seat: int) -> str:
    """A bot's name is its seat's: bots at one table never share one."""
    return BOT_NAMES[seat]


#: The format characters emoji are made of: the zero-width (non-)joiner ("👩‍💻") and the
#: tag characters of subdivision flags. Every other control or format character (bidi
#: overrides that would reorder the text around a name, zero-width spaces) is refused.
_EMOJI_FORMAT = frozenset({0x200C, 0x200D, *range(0xE0020, 0xE0080)})


def unwanted_char(ch: str) -> bool:
    """A control or format character no name holds and chat drops (emoji's are kept)."""
    return unicodedata.category(ch)[0] == "C" and ord(ch) not in _EMOJI_FORMAT


def clean_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= NAME_MAX_CHARS:
        raise TableError("bad_name", f"a name has 1 to {NAME_MAX_CHARS} characters")
    if any(map(unwanted_char, name)):
        raise TableError("bad_name", "a name may not contain control characters or "
                                     "invisible formatting")
    if all(unicodedata.category(ch)[0] in "CZM" for ch in name):
        raise TableError("bad_name", "a name needs a letter, a digit or a symbol")
    return name


def clean_chat(text: str, max_chars: int) -> str:
    """Chat is plain text on one line: control and format characters are dropped (not those
    emoji are made of)."""
    text = "".join(" " if unwanted_char(ch) else ch for ch in text).strip()
    if not text:
        raise TableError("bad_chat", "the chat line is empty")
    if len(text) > max_chars:
        raise TableError("bad_chat", f"a chat line has at most {max_chars} characters")
    return text
