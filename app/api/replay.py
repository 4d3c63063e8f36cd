"""Moved: Dingo's replay frames and their words are in ``app.api.dingo_frames`` (frames for
every other game in ``app.api.game_frames``). These names stay importable from here for
the live table (``app.table.table``) until it imports them from their new place."""

from app.api.dingo_frames import (
    card_text,
    describe_action,
    explain_hunt,
    explain_winner,
    replay_game,
    seat_labels,
)

__all__ = ["card_text", "describe_action", "explain_hunt", "explain_winner", "replay_game",
           "seat_labels"]
