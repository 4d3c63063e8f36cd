"""Names and chat lines as people type them: emoji whole, nothing that hides or reorders."""

from __future__ import annotations

import pytest

from app.table.seats import TableError, clean_chat, clean_name


@pytest.mark.parametrize("name", [
    "Ann", "  Ann  ", "Ann 👩\u200d💻", "🏳\ufe0f\u200d🌈", "Bo 😀", "Zoë", "José",
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Iain",  # a flag
    "李雷", "7", "x" * 24,
    "\u0646\u0631\u06af\u0633\u200c\u0632\u0627\u062f\u0647",  # Persian, with its non-joiner
])
def test_a_name_as_people_write_it_is_taken(name: str) -> None:
    assert clean_name(name) == name.strip()


@pytest.mark.parametrize(("name", "why"), [
    ("", "1 to 24"), ("   ", "1 to 24"), ("x" * 25, "1 to 24"),
    ("\u202eevil", "control characters"),   # reverses the text around it
    ("Ann\u2066", "control characters"),    # a bidi isolate
    ("An\u200bn", "control characters"),    # a zero-width space: two names that look one
    ("Ann\x00", "control characters"), ("A\nB", "control characters"),
    ("Ann\u200d", "control characters"), ("A\u200cnn", "control characters"),  # look "Ann"
    ("Ann\U000e0041\U000e0042", "control characters"),  # tags outside a flag: hidden text
    ("\U0001f3f4\U000e0067\U000e0062", "control characters"),  # a flag never ended
    ("\U0001f3f4\U000e0067\U000e0062 Ann", "control characters"),
    ("\U0001f3f4\U000e007f Ann", "control characters"),  # a flag of no tags
    ("Ann\u2028Bo", "control characters"),  # a line break
    ("\u3164", "control characters"), ("\u2800 Ann", "control characters"),  # blank letters
    ("\u0301\u0301", "a letter"),  # nothing to see
])
def test_a_name_that_hides_or_reorders_is_refused(name: str, why: str) -> None:
    with pytest.raises(TableError, match=why) as refused:
        clean_name(name)
    assert refused.value.code == "bad_name"


def test_chat_keeps_emoji_whole_and_drops_what_would_hide_or_reorder() -> None:
    assert clean_chat("gg 👩\u200d💻!", 100) == "gg 👩\u200d💻!"
    assert clean_chat("a\u202eb\nc\u200bd\u2029e f\u200d", 100) == "a b c d e f"
    # Tags outside a flag are hidden text, however many (in one pass: a flood is no cost).
    assert clean_chat("hi" + "\U000e0041" * 1998, 200) == "hi"
    flag = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert clean_chat(f"{flag}{flag} gg", 100) == f"{flag}{flag} gg"
    with pytest.raises(TableError):
        clean_chat("\u202e\n", 100)

