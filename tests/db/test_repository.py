"""The history's search terms."""

from __future__ import annotations

from app.db.repository import name_terms


def test_a_search_for_a_name_keeps_its_emoji_whole() -> None:
    """The name search splits at what no name holds, as names are cleaned: a name with
    "👩‍💻" is found by it."""
    assert name_terms("Ann 👩\u200d💻\x00BOB\u202e") == ["ann", "👩\u200d💻", "bob"]
