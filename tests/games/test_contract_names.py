"""Seat names in the games' narration (`app.games.contract`): ``{0}``, ``{1}`` ... filled in
with players' names, two seats of one name told apart."""

from __future__ import annotations

from app.games.contract import fill_names, seat_labels


def test_names_fill_placeholders() -> None:
    labels = seat_labels(['Ann "the fox"', "Bob\\", "Ann \"the fox\"", "{0}"])
    assert labels == ['Ann "the fox" 1', "Bob\\", 'Ann "the fox" 3', "{0}"]
    value = {"say": "{0} beats {1}; {3} and {9} stay", "n": [1, "{2}", None, True]}
    filled = fill_names(value, labels)
    assert filled == {"say": 'Ann "the fox" 1 beats Bob\\; {0} and {9} stay',
                      "n": [1, 'Ann "the fox" 3', None, True]}
