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

    def strength(self, strengths: dict[str, str]) -> str | None:
        """The word for this seat's bot's strength (``strengths`` by bot kind), None for a human."""
        return None if self.bot is None else strengths.get(self.bot, self.bot)

    def public(self, host_hash: str | None, strengths: dict[str, str]) -> dict[str, Any]:
        return {"seat": self.index, "kind": self.kind, "name": self.name, "bot": self.bot,
                "strength": self.strength(strengths),
                "connected": self.bot is not None or self.client is not None,
                "away": self.away, "ready": self.ready and self.human,
                "back_by": self.back_by if self.human and self.client is None else None,
                "host": self.human and same_hash(self.token_hash, host_hash)}


def bot_name(seat: int) -> str:
    """A bot's name is its seat's: bots at one table never share one."""
    return BOT_NAMES[seat]


#: Joiners: inside an emoji ("👩‍💻") or a word of a script that needs them.
_JOINERS = frozenset({0x200C, 0x200D})
#: Tag characters: only in a subdivision flag, after a black flag and ending in CANCEL TAG.
_BLACK_FLAG, _TAGS, _CANCEL_TAG = 0x1F3F4, range(0xE0020, 0xE0080), 0xE007F
#: Letters and symbols that show nothing (fillers, the blank braille pattern).
_BLANKS = frozenset({0x115F, 0x1160, 0x2800, 0x3164, 0xFFA0})


def _hidden(text: str, i: int) -> bool:
    """Whether ``text[i]`` (not a tag) hides, reorders or breaks the text: a control or
    format character (bidi overrides, zero-width spaces), a line or paragraph separator, a
    blank letter, a joiner not between two visible non-ASCII characters. (Unchecked, "Ann"
    with a joiner after it would look like another "Ann".)"""
    code, kind = ord(text[i]), unicodedata.category(text[i])
    if code in _JOINERS:
        around = text[i - 1:i] + text[i + 1:i + 2]
        return len(around) < 2 or any(
            ord(c) < 0x80 or unicodedata.category(c)[0] in "CZ" for c in around)
    return kind[0] == "C" or kind in ("Zl", "Zp") or code in _BLANKS


def without_hidden(text: str) -> str:
    """``text`` with every character that hides, reorders or breaks it (``_hidden``) made a
    space, and every run of tag characters that is not a flag's (after a black flag, at
    least one tag, then CANCEL TAG): what no name holds and chat drops; emoji are kept
    whole. One pass: a chat line of 2,000 tags costs no more than 2,000 letters."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if ord(text[i]) not in _TAGS:
            out.append(" " if _hidden(text, i) else text[i])
            i += 1
            continue
        end = i
        while end < len(text) and ord(text[end]) in _TAGS and ord(text[end]) != _CANCEL_TAG:
            end += 1
        ended = end < len(text) and ord(text[end]) == _CANCEL_TAG
        flag = ended and end > i and i > 0 and ord(text[i - 1]) == _BLACK_FLAG
        end += ended
        out.append(text[i:end] if flag else " " * (end - i))
        i = end
    return "".join(out)


def clean_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= NAME_MAX_CHARS:
        raise TableError("bad_name", f"a name has 1 to {NAME_MAX_CHARS} characters")
    if without_hidden(name) != name:
        raise TableError("bad_name", "a name may not contain control characters or "
                                     "invisible formatting")
    if all(unicodedata.category(ch)[0] in "CZM" for ch in name):
        raise TableError("bad_name", "a name needs a letter, a digit or a symbol")
    return name


def clean_chat(text: str, max_chars: int) -> str:
    """Chat is plain text on one line: what hides, reorders or breaks it is dropped (not
    emoji, ``without_hidden``)."""
    text = without_hidden(text).strip()
    if not text:
        raise TableError("bad_chat", "the chat line is empty")
    if len(text) > max_chars:
        raise TableError("bad_chat", f"a chat line has at most {max_chars} characters")
    return text
