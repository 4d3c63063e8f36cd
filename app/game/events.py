"""Game-log events: what an action caused, in a public form and a private one.

Most events are public. A pass is known only to its giver and receiver, and
under the default rules a discarded card is shown only as the top of the
pile, so the log's public form omits it. ``for_seat`` is the one place that
decides which form a seat gets; spectators get ``public``.
"""

from __future__ import annotations

from typing import Any

from app.games.contract import Event as GameEvent


class Event(GameEvent):
    """A Dingo event in the game contract's form, built the engine's way: one private form
    for the seats that may see it (``private`` then maps each of them to that form)."""

    __slots__ = ()

    def __init__(
        self,
        public: dict[str, Any],
        private: dict[str, Any] | None = None,
        private_seats: tuple[int, ...] = (),
    ) -> None:
        super().__init__(public, None if private is None else dict.fromkeys(private_seats,
                                                                             private))
