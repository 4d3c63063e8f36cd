"""Replay recorded games of any hosted game (a stable contract):

    python -m app.replay GAME < games.jsonl

reads JSON Lines on stdin and writes one JSON line per non-blank input line, as
the game's contract page (``../shared/contracts/GAME.md``) defines. ``dingo``
takes exactly the input and gives exactly the output of ``python -m app.game.replay``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any

from app import games
from app.games.contract import run_replay

ReplayLine = Callable[[str | bytes], dict[str, Any] | None]


def replay_function(name: str) -> ReplayLine:
    """The one-line replay of game ``name``; ``KeyError`` if no such game."""
    return games.get(name).replay_line


def main(argv: Sequence[str] | None = None, stdin: Iterable[str | bytes] | None = None,
         stdout: IO[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    known = games.names()
    if len(args) != 1 or args[0] not in known:
        print(f"usage: python -m app.replay GAME < games.jsonl  (GAME: {', '.join(known)})",
              file=sys.stderr)
        return 2
    return run_replay(replay_function(args[0]), stdin, stdout)


if __name__ == "__main__":
    sys.exit(main())
