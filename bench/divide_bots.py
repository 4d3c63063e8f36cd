"""Divide and Conquer bots against each other, and the equilibrium bot's answer time.

Run from the repository root:

    python bench/divide_bots.py --games 1000               # equilibrium v random, v greedy
    python bench/divide_bots.py --games 100 --deck 14
    python bench/divide_bots.py --exact    # expected results over all 252 deals, exactly

Each game is the first game of a fresh match (seed = its number), so the deals are
random and reproducible; the strong bot takes seat 0 in even games and seat 1 in odd
ones. Bots get only their seat's view, as at a table. The figures go in the
"Divide and Conquer" section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.games.divide import GAME
from app.games.divide.solver import Solver, _bits
from app.games.divide.state import DivideMatch

#: A policy: (dealt, mine, theirs, lead, second) from its own side -> {card index: p}.
Policy = Callable[[int, int, int, int, bool], dict[int, float]]


def play(strong: str, weak: str, games: int, deck: int) -> dict[str, object]:
    results = {"win": 0, "draw": 0, "loss": 0}
    battles_won = 0
    times: list[float] = []
    first: list[float] = []
    for number in range(games):
        match = GAME.new_match(number, GAME.check_options({"deck": deck, "target_wins": 1}))
        seat = number % 2
        bots = {seat: GAME.bots[strong](2 * number), 1 - seat: GAME.bots[weak](2 * number + 1)}
        decisions = 0
        while not match.between_games and not match.over:
            for s in sorted(match.to_act()):
                view = match.view(s)
                start = time.perf_counter()
                action = bots[s].choose(view)
                took = time.perf_counter() - start
                if s == seat:
                    times.append(took)
                    if not decisions:
                        first.append(took)
                    decisions += 1
                match.apply(s, action)
        assert isinstance(match, DivideMatch)
        game = match.game
        battles_won += game.wins[seat]
        results["win" if game.winner == seat else "draw" if game.winner is None
                else "loss"] += 1
    ms = sorted(t * 1000 for t in times)
    first_ms = sorted(t * 1000 for t in first)
    return {
        "opponent": weak, "games": games, **results,
        "battles_per_game": battles_won / games,
        "decisions": len(ms),
        "mean_ms": statistics.fmean(ms), "p50_ms": ms[len(ms) // 2],
        "p99_ms": ms[min(len(ms) - 1, int(len(ms) * 0.99))], "max_ms": ms[-1],
        "first_mean_ms": statistics.fmean(first_ms), "first_max_ms": first_ms[-1],
    }


def exact(deck: int = 10) -> None:
    """Expected results over every deal, computed exactly from the solver's strategies
    (the equilibrium bot's), a uniformly random reply and the greedy rule."""
    solver = Solver(deck, "game", keep=4000)

    def equilibrium(dealt: int, mine: int, theirs: int, lead: int, second: bool
                    ) -> dict[int, float]:
        mixed = solver.solve(dealt, mine, theirs, lead, second)[1]
        return {c: p for c, p in zip(_bits(mine), mixed, strict=True) if p > 0}

    def random_(dealt: int, mine: int, theirs: int, lead: int, second: bool
                ) -> dict[int, float]:
        cards = _bits(mine)
        return {c: 1 / len(cards) for c in cards}

    def greedy(dealt: int, mine: int, theirs: int, lead: int, second: bool
               ) -> dict[int, float]:
        opp = _bits(theirs)
        return {max(_bits(mine), key=lambda c: (sum(solver.beats[c][t] for t in opp),
                                                -c)): 1.0}

    def expected(dealt: int, a: Policy, b: Policy | None) -> tuple[float, float, float]:
        """A's (win - loss, P(win), P(loss)) against B, or against A's best response."""
        full = solver.full

        @cache
        def value(mine: int, theirs: int, lead: int, second: bool
                  ) -> tuple[float, float, float]:
            if not mine:
                if not second:
                    return value(full ^ dealt, dealt, lead, True)
                return (float((lead > 0) - (lead < 0)), float(lead > 0), float(lead < 0))
            pa = a(dealt, mine, theirs, lead, second)
            replies = {j: 1.0 for j in _bits(theirs)} if b is None else \
                b(full ^ dealt, theirs, mine, -lead, second)
            outcomes = []
            for j in replies:
                total = [0.0, 0.0, 0.0]
                for i, p in pa.items():
                    won = solver.beats[i][j]
                    after = value(mine ^ 1 << i, theirs ^ 1 << j, lead + (1 if won else -1),
                                  second)
                    for k in range(3):
                        total[k] += p * after[k]
                outcomes.append((replies[j], total))
            if b is None:  # the best response: the reply worst for A
                worst = min((t for _, t in outcomes), key=lambda t: t[0])
                return (worst[0], worst[1], worst[2])
            mean = [sum(q * t[k] for q, t in outcomes) for k in range(3)]
            return (mean[0], mean[1], mean[2])

        return value(dealt, full ^ dealt, 0, False)

    deals = [sum(1 << i for i in cards)
             for cards in itertools.combinations(range(deck), deck // 2)]
    values = [solver.solve(d, d, solver.full ^ d, 0)[0] for d in deals]
    print(f"deck {deck}: {len(deals)} deals; value of a deal from {min(values):+.6f} "
          f"to {max(values):+.6f}")
    print("| A | B | A's win - loss | A wins | A loses | draws |")
    print("|---|---|---|---|---|---|")
    policies: dict[str, Policy] = {"equilibrium": equilibrium, "random": random_,
                                   "greedy": greedy}
    for a, b in [("equilibrium", "random"), ("equilibrium", "greedy"),
                 ("equilibrium", None), ("random", "greedy"), ("greedy", None),
                 ("random", None)]:
        sums = [0.0, 0.0, 0.0]
        for d in deals:
            r = expected(d, policies[a], None if b is None else policies[b])
            sums = [x + y for x, y in zip(sums, r, strict=True)]
        diff, win, loss = (x / len(deals) for x in sums)
        print(f"| {a} | {b or 'its best response'} | {diff:+.4f} | {win:.2%} | {loss:.2%} "
              f"| {1 - win - loss:.2%} |", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--deck", type=int, choices=(10, 14), default=10)
    parser.add_argument("--strong", default="equilibrium")
    parser.add_argument("--against", nargs="+", default=["random", "greedy"])
    parser.add_argument("--exact", action="store_true",
                        help="exact expected results over every deal instead of games")
    args = parser.parse_args()
    if args.exact:
        exact(args.deck)
        return 0
    print(f"deck {args.deck}, {args.games} games each, {args.strong} bot"
          " (new bots every game: the first decision solves the deal)")
    print("| opponent | games | won | drawn | lost | battles won/game | decisions | "
          "mean ms | p50 ms | p99 ms | max ms | 1st decision mean / max ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for weak in args.against:
        r = play(args.strong, weak, args.games, args.deck)
        print(f"| {r['opponent']} | {r['games']} | {r['win']} | {r['draw']} | {r['loss']} | "
              f"{r['battles_per_game']:.2f} | {r['decisions']} | {r['mean_ms']:.2f} | "
              f"{r['p50_ms']:.3f} | {r['p99_ms']:.1f} | {r['max_ms']:.1f} | "
              f"{r['first_mean_ms']:.1f} / {r['first_max_ms']:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
