"""The games Dingo Online hosts: one package per game, one line each in ``REGISTRY``.

Each package ``app/games/<name>/`` exposes ``GAME``, a ``contract.GameSpec``. Packages
are imported when first asked for, so a game's rules load only where they are used.
Dingo's rules engine lives in ``app.game``; ``app.games.dingo`` puts it on the contract.
"""

from __future__ import annotations

import importlib

from .contract import GameSpec

#: game name -> the package that defines it.
REGISTRY: dict[str, str] = {
    "bingo": "app.games.bingo",
    "dingo": "app.games.dingo",
    "divide": "app.games.divide",
    "mate": "app.games.mate",
}


def get(name: str) -> GameSpec:
    """The game called ``name``; ``KeyError`` if there is none."""
    spec = importlib.import_module(REGISTRY[name]).GAME
    assert isinstance(spec, GameSpec)
    return spec


def names() -> list[str]:
    return sorted(REGISTRY)
