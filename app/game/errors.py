"""The engine's errors: Dingo's names for the game contract's kinds of refusal.

Callers (the table server, the replay command) map the error's ``code`` to a wire
code; the message is written for people and names the card and the reason. A
rejected action never changes the state. Each class is also the contract's error of
the same kind, so code written for every game catches Dingo's too.
"""

from app.games.contract import GameError, Illegal, Malformed, OutOfTurn, shown


class DingoError(GameError):
    """Base of every error the rules engine raises for a refused action."""


class MalformedAction(DingoError, Malformed):
    """The action is not of a shape the engine understands."""


class NotYourTurn(DingoError, OutOfTurn):
    """A seat acted while another seat (or nobody) is to act."""


class IllegalAction(DingoError, Illegal):
    """Well formed and in turn, but the rules forbid it now."""


__all__ = ["DingoError", "IllegalAction", "MalformedAction", "NotYourTurn", "shown"]
