"""Seat names in the games' narration: ``{0}``, ``{1}`` ... filled in with players' names."""

from __future__ import annotations

import orjson

from app.games.contract import fill_names, seat_labels
from app.table.seats import fill_names_encoded


def test_names_fill_placeholders_in_values_and_in_encoded_json_alike() -> None:
    labels = seat_labels(['Ann "the fox"', "Bob\\", "Ann \"the fox\"", "{0}"])
    assert labels == ['Ann "the fox" 1', "Bob\\", 'Ann "the fox" 3', "{0}"]
    value = {"say": "{0} beats {1}; {3} and {9} stay", "n": [1, "{2}", None, True]}
    filled = fill_names(value, labels)
    assert filled == {"say": 'Ann "the fox" 1 beats Bob\\; {0} and {9} stay',
                      "n": [1, 'Ann "the fox" 3', None, True]}
    assert orjson.loads(fill_names_encoded(orjson.dumps(value), labels)) == filled
