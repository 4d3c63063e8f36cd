"""Old engine against new, side by side: simulate and replay games/s, alternating runs.

    python bench/engine.py --old /tmp/old --new . [--rounds 5] [--cpu 1]

Each round runs, pinned to one core (``taskset -c CPU``), the old then the new
checkout's ``python -m app.game.simulate --games 20000 --seed 1 --json`` (four
random bots), the same with four heuristic bots (300 games), and
``python -m app.game.replay`` over one file of 5,000 recorded games (made once by
the new checkout; the replay's wall time, interpreter start included, gives its
games/s). It also checks that both replays print the same bytes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

MAKE_GAMES = """
import json, sys
from app.game.bots import HeuristicBot, RandomBot
from app.game.cards import codes
from app.game.state import Game
n = int(sys.argv[1])
for g in range(n):
    game = Game.new(g, g % 4, record_events=False)
    if g % 10 == 0:
        bots = [HeuristicBot(g * 4 + s) for s in range(4)]
        while (s := game.to_act) is not None:
            game.apply(bots[s].choose(game.view(s)))
    else:
        bot = RandomBot(g)
        while game.to_act is not None:
            game.apply(bot.pick(game.legal_actions()))
    print(json.dumps({"dealer": game.dealer, "hands": [codes(h) for h in game.initial_hands],
                      "actions": [a.to_dict() for a in game.actions]}))
"""


def simulate(root: Path, cpu: str, bots: str, games: int) -> float:
    out = subprocess.run(
        ["taskset", "-c", cpu, sys.executable, "-m", "app.game.simulate", "--games", str(games),
         "--seed", "1", "--bots", bots, "--json"],
        cwd=root, check=True, capture_output=True, text=True).stdout
    return float(json.loads(out)["games_per_second"])


def replay(root: Path, cpu: str, games: Path, count: int) -> tuple[float, bytes]:
    with games.open("rb") as stdin:
        started = time.perf_counter()
        out = subprocess.run(["taskset", "-c", cpu, sys.executable, "-m", "app.game.replay"],
                             cwd=root, check=True, stdin=stdin, capture_output=True).stdout
        seconds = time.perf_counter() - started
    return count / seconds, out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, default=Path("."))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", default="1")
    parser.add_argument("--replay-games", type=int, default=5000)
    args = parser.parse_args()
    games = Path("/tmp/bench-engine-games.jsonl")
    with games.open("w") as f:
        subprocess.run([sys.executable, "-c", MAKE_GAMES, str(args.replay_games)],
                       cwd=args.new, check=True, stdout=f)
    figures: dict[str, dict[str, list[float]]] = {
        name: {"old": [], "new": []} for name in ("simulate random", "simulate heuristic",
                                                   "replay")}
    for _ in range(args.rounds):
        outs = {}
        for which, root in (("old", args.old), ("new", args.new)):
            figures["simulate random"][which].append(
                simulate(root, args.cpu, "random,random,random,random", 20000))
            figures["simulate heuristic"][which].append(
                simulate(root, args.cpu, "heuristic,heuristic,heuristic,heuristic", 300))
            rate, outs[which] = replay(root, args.cpu, games, args.replay_games)
            figures["replay"][which].append(rate)
        if outs["old"] != outs["new"]:
            print("REPLAY OUTPUTS DIFFER", file=sys.stderr)
            return 1
    for name, runs in figures.items():
        old, new = statistics.median(runs["old"]), statistics.median(runs["new"])
        print(f"{name:<20} old {old:9.1f}  new {new:9.1f} games/s (medians of "
              f"{len(runs['old'])})  x{new / old:.2f}  "
              f"old {[round(x) for x in runs['old']]} new {[round(x) for x in runs['new']]}")
    print("replay outputs identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
