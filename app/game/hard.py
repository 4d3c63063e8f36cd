"""The "hard" bot: determinized Monte Carlo search with the heuristic bot as playout policy.

For each decision with more than one choice, ``HardBot`` repeatedly deals the cards
it cannot see at random consistently with its view and memory
(``determinize.sample``, with what the seat saw: ``determinize.knowledge``), plays
each legal move on that deal and the rest of the game with four heuristic bots, and
keeps the move with the best average outcome (a win counts 1, plus 0.1 a point of margin
over the best other seat). Every legal move is searched: a shortlist of the heuristic's
best five lost to it (docs/benchmarks.md, the hard bot's section).
The same deal is used for every candidate in a round (common random numbers), and
the heuristic bot's own choice wins ties and any move tried too few times.

Like every bot it sees only its seat's view and the seat's form of the log events,
and it has its own random generator: it has no path to the real game. Its thinking
time per decision is ``budget_ms`` (a clock read through ``time.perf_counter``, which
is the only impure thing here; ``clock`` replaces it: the simulator's
``--hard-cpu-clock`` counts the process's CPU time instead, for strength runs on a
shared, loaded machine).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from .actions import Action, read_action
from .bots import HeuristicBot
from .determinize import knowledge, sample
from .state import Game

#: Default thinking time per decision, in milliseconds.
BUDGET_MS = 200.0
#: A move must have been tried this often to displace the heuristic's choice.
MIN_TRIALS = 4
#: Weight of one point of margin against a win: the margin is the steadier signal over
#: a few dozen playouts (the runs that chose it, and the bot's strength: docs/benchmarks.md).
MARGIN_WEIGHT = 0.1


def play_out(game: Game, seed: int) -> list[int]:
    """Play ``game`` to its end with four heuristic bots seeded from ``seed``; its scores.
    (The search's playouts, and the advice's after a game.)"""
    bots = [HeuristicBot(seed + s) for s in range(4)]
    while (s := game.to_act) is not None:
        game.apply(bots[s].choose(game.view(s)))
    assert game.scores is not None
    return game.scores


class HardBot:
    name = "hard"

    def __init__(self, seed: int | None = None, budget_ms: float = BUDGET_MS,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._random = random.Random(seed)
        self.budget_ms = budget_ms
        self.clock = clock
        self._guide = HeuristicBot(self._random.getrandbits(63))
        #: What the seat was shown in this game: its events, and the pile's top in each view.
        self._seen: list[dict[str, Any]] = []
        self.decision_ms: list[float] = []  # thinking time of each decision made
        self.overruled = 0  # decisions where the search chose another move than the heuristic

    def observe(self, event: dict[str, Any]) -> None:
        self._guide.observe(event)
        if event.get("type") == "game_start":
            self._seen = []
        else:
            self._seen.append(event)

    def choose(self, view: dict[str, Any]) -> Action:
        started = self.clock()
        if self._guide._memory.is_new_game(view):
            self._seen = []
        prior = self._guide.choose(view)  # also updates the memory of what the seat saw
        # What the seat saw of the pile in this view (``knowledge`` reads views' tops).
        self._seen.append({"phase": view["phase"], "discard_top": view["discard_top"],
                           "discards": None})
        legal = [read_action(a) for a in view["legal"]]
        choice = prior
        if len(legal) > 1:
            choice = self._search(view, legal, prior, started + self.budget_ms / 1000)
            self.overruled += choice != prior
        self.decision_ms.append((self.clock() - started) * 1000)
        return choice

    def _search(self, view: dict[str, Any], legal: list[Action], prior: Action,
                deadline: float) -> Action:
        seat = view["seat"]
        known, lacks = knowledge(self._seen, view)
        known |= self._guide._memory.discards_seen
        totals = {a: 0.0 for a in legal}
        trials = {a: 0 for a in legal}
        rng = self._random
        while self.clock() < deadline:
            deal_seed = rng.getrandbits(63)
            for action in legal:
                try:
                    game = sample(view, random.Random(deal_seed), known_discards=known,
                                  lacks=lacks)
                except ValueError:
                    return prior
                game.apply(action)
                totals[action] += self._playout(game, seat, deal_seed)
                trials[action] += 1
                if self.clock() >= deadline:
                    break
        best, best_value = prior, (totals[prior] / trials[prior] if trials[prior] else -1e9)
        for action in legal:
            n = trials[action]
            if n >= MIN_TRIALS and totals[action] / n > best_value + 1e-9:
                best, best_value = action, totals[action] / n
        return best

    @staticmethod
    def _playout(game: Game, seat: int, seed: int) -> float:
        scores = play_out(game, seed)
        best_other = max(scores[s] for s in range(4) if s != seat)
        return (game.winner == seat) + MARGIN_WEIGHT * (scores[seat] - best_other)
