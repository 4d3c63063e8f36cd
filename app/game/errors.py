"""The engine's errors: one base type, one subclass per kind of refusal.

Callers (the table server, the replay command) map the subclass to a wire
code; the message is written for people and names the card and the reason.
A rejected action never changes the state.
"""


class DingoError(ValueError):
    """Base of every error the rules engine raises for a refused action."""

    code = "illegal"


class MalformedAction(DingoError):
    """The action is not of a shape the engine understands."""

    code = "malformed"


class NotYourTurn(DingoError):
    """A seat acted while another seat (or nobody) is to act."""

    code = "not_your_turn"


class IllegalAction(DingoError):
    """Well formed and in turn, but the rules forbid it now."""

    code = "illegal"


def shown(value: object) -> str:
    """A short repr of untrusted input for a message (huge or deep values included)."""
    if isinstance(value, int) and not isinstance(value, bool) and not -10**12 < value < 10**12:
        return "a number that large"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return "that value"
    return text if len(text) <= 24 else text[:20] + "..."
