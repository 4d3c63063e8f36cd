"""Game-log events: what an action caused, in a public form and a private one.

Most events are public. A pass is known only to its giver and receiver, and
under the default rules a discarded card is shown only as the top of the
pile, so the log's public form omits it. ``for_seat`` is the one place that
decides which form a seat gets; spectators get ``public``.
"""

from __future__ import annotations

from typing import Any


class Event:
    __slots__ = ("private", "private_seats", "public")

    def __init__(
        self,
        public: dict[str, Any],
        private: dict[str, Any] | None = None,
        private_seats: tuple[int, ...] = (),
    ) -> None:
        self.public = public
        self.private = private
        self.private_seats = private_seats

    @property
    def kind(self) -> str:
        return str(self.public["type"])

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        """The form seat ``seat`` may see (``None``: a spectator)."""
        if self.private is not None and seat in self.private_seats:
            return self.private
        return self.public

    def __repr__(self) -> str:
        return f"Event({self.private or self.public!r})"
