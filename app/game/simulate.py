"""Play many games between bots, offline, and report each seat's results.

    python -m app.game.simulate --games N --bots heuristic,random,random,random --seed S [--json]

Seat ``i`` is played by the ``i``-th bot for every game. As in a match, the
first dealer is drawn from the seed and the deal passes left after each game;
every deal and each bot's seed come from ``--seed`` too, so a run is
reproducible (except its speed). A draw counts as a win for nobody.

``--json`` prints one object in a stable format::

    {"games": N, "games_per_second": x, "results": [{"seat": 0, "bot": "heuristic",
     "wins": w, "win_rate": r, "avg_score": a}, ...]}

with, only when a seat is played by a ``hard`` bot, one more key ``"hard"``:
``{"seats": [...], "wins": w, "win_rate": r, "decisions": n,
"mean_ms_per_decision": m, "p99_ms_per_decision": p}`` (its thinking time per
decision, forced moves included; ``--hard-budget-ms`` sets its budget, and
``--hard-cpu-clock`` has it count CPU time instead of wall time).

This module and ``replay`` are the command-line edges of ``app.game``; they
alone read a clock or write output. Games run through the same ``Game.apply``
as the table server. Only random bots are driven without views: they get the
legal actions (``RandomBot.pick``), which is what their view would offer.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from .bots import ALL_BOT_KINDS, Bot, RandomBot, make_bot
from .dealing import deal_from
from .hard import HardBot
from .state import Game


@dataclass
class SeatResult:
    seat: int
    bot: str
    wins: int
    total_score: int

    def to_dict(self, games: int) -> dict[str, object]:
        return {"seat": self.seat, "bot": self.bot, "wins": self.wins,
                "win_rate": round(self.wins / games, 4),
                "avg_score": round(self.total_score / games, 3)}


@dataclass
class Report:
    games: int
    seconds: float
    results: list[SeatResult]
    #: Thinking time of every decision of the hard bots, in milliseconds (none: no hard bot).
    hard_ms: list[float] | None = None

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float(self.games)

    @property
    def draws(self) -> int:
        return self.games - sum(r.wins for r in self.results)

    def to_dict(self) -> dict[str, object]:
        report: dict[str, object] = {
            "games": self.games, "games_per_second": round(self.games_per_second, 1),
            "results": [r.to_dict(self.games) for r in self.results]}
        if self.hard_ms is not None:
            report["hard"] = self.hard_summary()
        return report

    def hard_summary(self) -> dict[str, object]:
        """The hard bots' seats, wins, win rate, and mean and p99 ms per decision."""
        seats = [r for r in self.results if r.bot == "hard"]
        wins = sum(r.wins for r in seats)
        times = sorted(self.hard_ms or [])
        p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else 0.0
        return {"seats": [r.seat for r in seats], "wins": wins,
                "win_rate": round(wins / (self.games * len(seats)), 4) if seats else 0.0,
                "decisions": len(times),
                "mean_ms_per_decision": round(sum(times) / len(times), 2) if times else 0.0,
                "p99_ms_per_decision": round(p99, 2)}

    def text(self) -> str:
        lines = [f"{'seat':<5}{'bot':<11}{'wins':>7}{'win rate':>10}{'avg score':>11}"]
        for r in self.results:
            lines.append(f"{r.seat:<5}{r.bot:<11}{r.wins:>7}{r.wins / self.games:>10.1%}"
                         f"{r.total_score / self.games:>11.2f}")
        lines.append(f"{self.games} games, {self.draws} drawn, "
                     f"{self.games_per_second:,.0f} games/s")
        if self.hard_ms is not None:
            hard = self.hard_summary()
            lines.append(f"hard: {hard['win_rate']:.1%} of games won, "
                         f"{hard['mean_ms_per_decision']} ms per decision on average, "
                         f"p99 {hard['p99_ms_per_decision']} ms")
        return "\n".join(lines)


def simulate(games: int, kinds: Sequence[str], seed: int, *,
             open_discards: bool = False, hard_budget_ms: float | None = None,
             hard_cpu_clock: bool = False) -> Report:
    """Play ``games`` games with bots of ``kinds`` in seats 0-3."""
    rng = random.Random(seed)
    bots = [make_bot(kind, rng.getrandbits(63)) for kind in kinds]
    hard = [bot for bot in bots if isinstance(bot, HardBot)]
    for bot in hard:
        if hard_budget_ms is not None:
            bot.budget_ms = hard_budget_ms
        if hard_cpu_clock:
            bot.clock = time.process_time
    first_dealer = rng.randrange(4)
    wins, totals = [0] * 4, [0] * 4
    # Only bots that read the log make the engine write it.
    watching = [(seat, bot) for seat, bot in enumerate(bots) if not isinstance(bot, RandomBot)]
    started = time.perf_counter()
    for number in range(games):
        dealer = (first_dealer + number) % 4
        game = Game(deal_from(rng, dealer), dealer, open_discards=open_discards,
                    record_events=bool(watching))
        play(game, bots, watching, number + 1)
        assert game.scores is not None
        for s in range(4):
            totals[s] += game.scores[s]
        if game.winner is not None:
            wins[game.winner] += 1
    seconds = time.perf_counter() - started
    return Report(games, seconds, [SeatResult(s, kinds[s], wins[s], totals[s]) for s in range(4)],
                  [ms for bot in hard for ms in bot.decision_ms] if hard else None)


def play(game: Game, bots: Sequence[Bot], watching: Sequence[tuple[int, Bot]],
         number: int) -> None:
    """Play ``game`` to its end; ``watching`` bots see every event in their seat's form."""
    if not watching and not game.record_events:
        # random bots only: nobody needs a view or the log, and the engine's
        # fast path makes exactly the moves ``pick`` would
        game.play_random([bot.uniform for bot in bots if isinstance(bot, RandomBot)])
        return
    start = game.start_event(number)
    for watcher_seat, watcher in watching:
        watcher.observe(start.for_seat(watcher_seat))
    pickers = [bot.pick if isinstance(bot, RandomBot) else None for bot in bots]
    while (seat := game.to_act) is not None:
        pick = pickers[seat]
        if pick is not None:
            action = pick(game.legal_actions())
        else:
            action = bots[seat].choose(game.view(seat))
        for event in game.apply(action):
            for watcher_seat, watcher in watching:
                watcher.observe(event.for_seat(watcher_seat))


def _bots(text: str) -> list[str]:
    kinds = [k.strip() for k in text.split(",")]
    if len(kinds) != 4 or any(k not in ALL_BOT_KINDS for k in kinds):
        raise argparse.ArgumentTypeError(
            f"expected four bot kinds separated by commas, each one of {', '.join(ALL_BOT_KINDS)}")
    return kinds


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of games >= 1, not {text!r}")
    return n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="dingo simulate", description="Play Dingo games between bots.")
    parser.add_argument("--games", type=_positive, default=1000, help="games to play (1000)")
    parser.add_argument("--bots", type=_bots, default=["random"] * 4,
                        help="four bot kinds for seats 0-3, e.g. heuristic,random,random,random")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole run (0)")
    parser.add_argument("--open-discards", action="store_true",
                        help="play with the whole discard pile visible")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--hard-budget-ms", type=float, default=None,
                        help="thinking time of a hard bot per decision, in ms (200)")
    parser.add_argument("--hard-cpu-clock", action="store_true",
                        help="count a hard bot's budget (and its ms per decision) in CPU "
                             "time of this process, not wall time: strength runs on a "
                             "loaded machine")
    args = parser.parse_args(argv)
    report = simulate(args.games, args.bots, args.seed, open_discards=args.open_discards,
                      hard_budget_ms=args.hard_budget_ms, hard_cpu_clock=args.hard_cpu_clock)
    print(json.dumps(report.to_dict()) if args.json else report.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
