"""The rules of Dingo as a pure library: standard library only, no I/O, no clock.

Everything above (the table server, the storage, the tools) drives a game
through ``Game.apply`` and reads it through ``Game.view``; see docs/rules.md.
"""

from .actions import DISCARD, PASS, PLAY, Action
from .bots import BOT_KINDS, Bot, HeuristicBot, RandomBot, make_bot
from .cards import code, codes, parse_card
from .dealing import Deal, deal, deal_from
from .errors import DingoError, IllegalAction, MalformedAction, NotYourTurn
from .events import Event
from .match import Match, MatchOptions
from .phases import EXCHANGE, HUNT, OVER
from .state import Game

__all__ = [
    "BOT_KINDS", "DISCARD", "EXCHANGE", "HUNT", "OVER", "PASS", "PLAY", "Action", "Bot", "Deal",
    "DingoError", "Event", "Game", "HeuristicBot", "IllegalAction", "MalformedAction", "Match",
    "MatchOptions", "NotYourTurn", "RandomBot", "code", "codes", "deal", "deal_from", "make_bot",
    "parse_card",
]
