"""The replay runner every game's command uses: one answer per line, whatever happens."""

from __future__ import annotations

import io
import json

from app.games.contract import JSON, run_replay


def broken_replay(line: str | bytes) -> JSON | None:
    """A game whose engine raises on some lines, as a bug would."""
    text = line.decode() if isinstance(line, bytes) else line
    if not text.strip():
        return None
    if "boom" in text:
        raise KeyError("engine bug")
    if "deep" in text:
        raise RecursionError
    return {"ok": text.strip()}


def test_a_line_that_makes_the_game_raise_gets_a_refusal_and_the_rest_are_answered() -> None:
    out = io.StringIO()
    code = run_replay(broken_replay, ["a\n", "boom\n", "\n", "deep\n", "b\n"], out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 0
    assert answers == [
        {"ok": "a"},
        {"error": "the line could not be read: KeyError", "action_index": None},
        {"error": "not valid JSON: nested too deeply", "action_index": None},
        {"ok": "b"},
    ]
