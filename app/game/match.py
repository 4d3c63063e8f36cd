"""A match: games of Dingo until a seat reaches the target, from one seed.

The match seed fixes the first dealer and every game's seed, so a match is
its seed, its options and the actions of each game. The next game starts
only when ``start_next_game`` is called: the table shows the scoreboard in
between.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from .actions import Action
from .errors import IllegalAction, MalformedAction
from .events import Event
from .state import Game


@dataclass(frozen=True)
class MatchOptions:
    games_to_win: int = 5
    #: When set, the match ends instead once a seat's total points reach it.
    points_to_win: int | None = None
    open_discards: bool = False

    def __post_init__(self) -> None:
        if not _whole(self.games_to_win) or not 1 <= self.games_to_win <= 50:
            raise MalformedAction("games to win must be a whole number from 1 to 50")
        if self.points_to_win is not None and (
                not _whole(self.points_to_win) or not 1 <= self.points_to_win <= 1000):
            raise MalformedAction("the points threshold must be a whole number from 1 to 1000")
        if not isinstance(self.open_discards, bool):
            raise MalformedAction("open_discards must be true or false")

    def to_dict(self) -> dict[str, Any]:
        # Not dataclasses.asdict: it deep-copies, and this is in every state message.
        return {f.name: getattr(self, f.name) for f in _OPTION_FIELDS}


_OPTION_FIELDS = fields(MatchOptions)


class Match:
    def __init__(self, seed: int, options: MatchOptions | None = None) -> None:
        self.seed = seed
        self.options = options or MatchOptions()
        self.first_dealer = random.Random(seed).randrange(4)
        self.games: list[Game] = []
        self.game_wins = [0, 0, 0, 0]
        self.totals = [0, 0, 0, 0]
        self.draws = 0
        self.winner: int | None = None
        self._scoreboard: list[dict[str, Any]] = []  # summary()["games"], one per finished game
        self._start_game()

    @classmethod
    def replay(cls, seed: int, options: MatchOptions | None,
               games: Iterable[Sequence[Action]]) -> Match:
        """Rebuild a match from its seed and each game's actions."""
        match = cls(seed, options)
        for i, actions in enumerate(games):
            if i:
                match.start_next_game()
            for action in actions:
                match.apply(action)
        return match

    @property
    def game(self) -> Game:
        """The current (or last) game."""
        return self.games[-1]

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def between_games(self) -> bool:
        return self.game.over and not self.over

    def _start_game(self) -> None:
        dealer = (self.first_dealer + len(self.games)) % 4
        seed = self._game_seed(len(self.games))
        self.games.append(Game.new(seed, dealer, open_discards=self.options.open_discards))

    def _game_seed(self, index: int) -> int:
        """Game ``index``'s (from 0) seed: the ``index + 1``-th draw of the match's generator
        after the first dealer. The generator is made again for each game rather than
        kept: its state is 2.5 KB, and a server keeps a match per live table."""
        rng = random.Random(self.seed)
        rng.randrange(4)
        for _ in range(index):
            rng.getrandbits(63)
        return rng.getrandbits(63)

    def start_next_game(self) -> list[Event]:
        if not self.game.over:
            raise IllegalAction("the current game is not over yet")
        if self.over:
            raise IllegalAction("the match is over")
        self._start_game()
        return [self.game_start_event()]

    def game_start_event(self) -> Event:
        """The log entry opening the current game (the table sends it for the first game)."""
        return self.game.start_event(len(self.games))

    def apply(self, action: Action) -> list[Event]:
        events = self.game.apply(action)
        if self.game.over:
            events.extend(self._score_game())
        return events

    def _score_game(self) -> list[Event]:
        game = self.game
        assert game.scores is not None
        for s in range(4):
            self.totals[s] += game.scores[s]
        self._scoreboard.append({"number": len(self.games), "dealer": game.dealer,
                                 "scores": game.scores, "winner": game.winner,
                                 "tie_break": game.tie_break})
        if game.winner is None:
            self.draws += 1
        else:
            self.game_wins[game.winner] += 1
        self.winner = self._match_winner()
        if self.winner is None:
            return []
        return [Event({"type": "match_over", "winner": self.winner,
                       "game_wins": list(self.game_wins), "totals": list(self.totals)})]

    def _match_winner(self) -> int | None:
        points = self.options.points_to_win
        if points is not None:
            best = max(self.totals)
            leaders = [s for s in range(4) if self.totals[s] == best]
            # A tie at the top plays on: the threshold needs a single leader.
            return leaders[0] if best >= points and len(leaders) == 1 else None
        best_wins = max(self.game_wins)
        if best_wins >= self.options.games_to_win:
            return self.game_wins.index(best_wins)
        return None

    @property
    def games_dealt_and_scored(self) -> tuple[int, int]:
        """Changes whenever ``summary()`` does: a game dealt, or one scored."""
        return len(self.games), len(self._scoreboard)

    def summary(self) -> dict[str, Any]:
        """The public scoreboard: game wins, totals, each game's scores."""
        return {
            "options": self.options.to_dict(),
            "game_number": len(self.games),
            "game_wins": list(self.game_wins),
            "totals": list(self.totals),
            "draws": self.draws,
            "games": list(self._scoreboard),
            "winner": self.winner,
            "over": self.over,
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """The seat's (or a spectator's, for ``None``) view of the match and its game."""
        return {"match": self.summary(), "game": self.game.view(seat)}


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
