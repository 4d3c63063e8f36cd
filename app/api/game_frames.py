"""Replay frames of a recorded game of any registered game (Dingo has its own, richer
ones in ``app.games.dingo.frames``).

Every deal comes from the match seed, so a match is rebuilt exactly from
``spec.new_match(seed, options)`` and its stored ``[seat, action]`` lists:
the games before the one asked for are played through (``start_next_game``
between them), then each action of that game is one frame. A frame holds what
each seat saw then (``match.view(seat)``), what a spectator saw
(``match.view(None)``), and the public forms of the events the action caused
(a form may carry a ``say`` sentence with seats written ``{0}``, ``{1}``...),
with those sentences also filled in with the players' names (``says``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.games.contract import JSON, Event, GameSpec, MatchState, fill_names, seat_labels


def _frame(match: MatchState, seats: int, events: Sequence[Event],
           labels: Sequence[str]) -> JSON:
    public = [e.public for e in events]
    return {
        "views": [match.view(s) for s in range(seats)],
        "spectator": match.view(None),
        "events": public,
        "says": [fill_names(str(e["say"]), labels) for e in public if e.get("say")],
    }


def game_frames(spec: GameSpec, seed: int, options: dict[str, Any],
                games: Sequence[Sequence[Sequence[Any]]], number: int,
                names_at: Callable[[int], Sequence[str]]) -> JSON:
    """Game ``number`` (1-based) of the match ``seed + options + games`` (each game's
    ``[seat, action]`` list) as ``{"deal": frame, "steps": [frame + index, seat, action]}``.
    ``names_at(i)`` names the seats' holders when step ``i`` was played (0: the deal).

    The stored record was replayed when it was stored, so an action refused now means
    the game's rules changed since: ``GameError`` is raised as it is.
    """
    match = spec.new_match(seed, options)
    events = match.opening_events()
    for actions in games[:number - 1]:
        for seat, action in actions:
            match.apply(seat, action)
        events = match.start_next_game()
    deal = _frame(match, spec.seats, events, seat_labels(names_at(0)))
    steps = []
    for index, (seat, action) in enumerate(games[number - 1], start=1):
        happened = match.apply(seat, action)
        steps.append({"index": index, "seat": seat, "action": action,
                      **_frame(match, spec.seats, happened, seat_labels(names_at(index)))})
    return {"deal": deal, "steps": steps}
