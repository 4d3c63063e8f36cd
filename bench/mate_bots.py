"""Mate bots against each other, and how long the perfect bot takes to decide.

    python bench/mate_bots.py --bots perfect,random --matches 250 --seed 1

plays ``--matches`` four-game matches (so four times as many games), the two bots
changing seats every match, each bot seeing only its seat's view (``Bot.choose``).
Prints per bot: games won, lost and drawn, matches won, average net points per game
(its points minus the other's), and for each bot the time per decision (mean, p99,
max, over every decision with more than one legal action), both wall-clock and the
process's CPU time (which other processes on a shared host do not inflate).
``--json`` prints the same as one JSON object. Run from the repository root.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.games import get


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="perfect,random")
    parser.add_argument("--matches", type=int, default=250)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    spec = get("mate")
    kinds = args.bots.split(",")
    assert len(kinds) == 2, "two bots"
    games = {"won": [0, 0], "lost": [0, 0], "drawn": [0, 0]}
    matches = [0, 0, 0]  # bot 0 won, bot 1 won, drawn
    net = [0, 0]
    times: list[list[float]] = [[], []]
    cpu: list[list[float]] = [[], []]
    for m in range(args.matches):
        seed = args.seed * 1_000_003 + m
        # bot i sits at seat (i + m) % 2
        bots = [spec.bots[k](seed * 2 + i) for i, k in enumerate(kinds)]
        seat_of = [(i + m) % 2 for i in range(2)]
        match = spec.new_match(seed, spec.check_options({}))
        while not match.over:
            if match.between_games:
                match.start_next_game()
                continue
            (seat,) = match.to_act()
            who = seat_of.index(seat)
            view = match.view(seat)
            t, c = time.perf_counter(), time.process_time()
            action = bots[who].choose(view)
            dt, dc = time.perf_counter() - t, time.process_time() - c
            if len(view["legal"]) > 1:
                times[who].append(dt)
                cpu[who].append(dc)
            match.apply(seat, action)
        for row in match.scoreboard()["games"]:
            scores = row["scores"]
            for i in range(2):
                mine, theirs = scores[seat_of[i]], scores[1 - seat_of[i]]
                net[i] += mine - theirs
                key = "won" if mine > theirs else "lost" if mine < theirs else "drawn"
                games[key][i] += 1
        w = match.winner
        matches[2 if w is None else seat_of.index(w)] += 1
    n_games = args.matches * 4
    result = {"bots": kinds, "matches": args.matches, "games": n_games, "seed": args.seed,
              "games_won": games["won"], "games_lost": games["lost"],
              "games_drawn": games["drawn"], "matches_won": matches[:2],
              "matches_drawn": matches[2],
              "net_points_per_game": [round(x / n_games, 2) for x in net],
              "decision_ms": [_times(t) for t in times],
              "decision_cpu_ms": [_times(t) for t in cpu]}
    if args.json:
        print(json.dumps(result))
    else:
        for i, k in enumerate(kinds):
            print(f"{k}: games won {games['won'][i]}, lost {games['lost'][i]}, drawn "
                  f"{games['drawn'][i]} of {n_games}; matches won {matches[i]} of "
                  f"{args.matches} ({matches[2]} drawn); net points per game "
                  f"{net[i] / n_games:+.2f}; decision wall ms {result['decision_ms'][i]}, "
                  f"CPU ms {result['decision_cpu_ms'][i]}")
    return 0


def _times(ts: list[float]) -> dict[str, float] | None:
    if not ts:
        return None
    ms = sorted(t * 1000 for t in ts)
    return {"count": len(ms), "mean": round(statistics.fmean(ms), 2),
            "p99": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 1),
            "max": round(ms[-1], 1)}


if __name__ == "__main__":
    sys.exit(main())
