"""What a table is made with: the creator's options (``TableOptions``, stored with the
table and never changed) and the server's timings and limits (``TableConfig``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app import games
from app.games.contract import JSON, GameSpec

#: A turn timer's limits, in seconds: what ``POST /api/tables`` accepts (the home page's
#: choices lie within them). A table made in code may time faster (tests do), never longer.
TURN_SECONDS_MIN, TURN_SECONDS_MAX = 5, 600


@dataclass(frozen=True)
class TableConfig:
    """Timings and limits of live tables (from ``Settings`` in the app, small in tests)."""

    reconnect_grace_seconds: float = 60.0
    bot_delay_seconds: float = 0.6
    next_game_seconds: float = 20.0
    idle_seconds: float = 1800.0
    chat_max_chars: int = 200
    send_queue_size: int = 64
    #: Answers remembered per seat, so a repeated intent id is answered, not re-applied.
    remembered_intents: int = 32
    #: Worker processes bots think in (``BotWorkers``); 0: a thread.
    bot_processes: int = 0
    #: Which browser code this server serves (``app.site.client_build``), said in every
    #: ``welcome``: a page running other code reloads. None: not said (tests).
    client_build: str | None = None


@dataclass(frozen=True)
class TableOptions:
    """What the creator chose; stored with the table and never changed.

    ``rules`` are the game's own options, checked by its ``GameSpec`` (defaults filled
    in); ``turn_seconds`` and ``bots`` are the table's.
    """

    game: str = "dingo"
    rules: JSON = field(default_factory=dict)
    turn_seconds: float | None = None
    bots: tuple[tuple[int, str], ...] = ()

    def __post_init__(self) -> None:
        if self.game not in games.REGISTRY:
            raise ValueError(f"unknown game {self.game!r}: expected one of {games.names()}")
        spec = self.spec
        object.__setattr__(self, "rules", spec.check_options(self.rules))  # raises GameError
        if self.turn_seconds is not None and not 0 < self.turn_seconds <= TURN_SECONDS_MAX:
            raise ValueError(f"turn_seconds must be positive (at most {TURN_SECONDS_MAX}) "
                             "or None")
        seats = [seat for seat, _ in self.bots]
        if len(set(seats)) != len(seats) or not all(0 <= s < spec.seats for s in seats):
            raise ValueError(f"bot seats must be distinct seats 0-{spec.seats - 1}")
        for _, kind in self.bots:
            if kind not in spec.bot_order:
                raise ValueError(f"unknown bot kind {kind!r}: expected one of {spec.bot_order}")

    @classmethod
    def create(cls, game: str = "dingo", turn_seconds: float | None = None,
               bots: tuple[tuple[int, str], ...] = (), **rules: Any) -> TableOptions:
        """``TableOptions(game, rules, ...)`` with the game's options as keywords."""
        return cls(game, rules, turn_seconds, bots)

    @property
    def spec(self) -> GameSpec:
        return games.get(self.game)

    def public(self) -> dict[str, Any]:
        return {**self.rules, "turn_seconds": self.turn_seconds}

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, **self.public(),
                "bots": [{"seat": s, "kind": k} for s, k in self.bots]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        """What ``to_dict`` stored (tables stored before other games came are Dingo's)."""
        game = data.get("game", "dingo")
        names = {o.name for o in games.get(game).options}
        return cls(game, {k: v for k, v in data.items() if k in names},
                   data.get("turn_seconds"),
                   tuple((b["seat"], b["kind"]) for b in data.get("bots", ())))
