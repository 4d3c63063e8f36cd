"""Bingo bots against each other: deals won, and how long a decision takes.

    python bench/bingo_bots.py --bots heuristic,random --deals 2000 --seed 1

plays whole matches (to 7 game points) until ``--deals`` deals have been played, the
two bots changing seats every match, each bot seeing only its seat's view
(``Bot.choose``). Prints per bot: deals won (a deal ended by the bingo bonus reaching 7
is won by nobody), its share, matches won, game points, and the time per decision
(mean, max). ``--json`` prints the same as one JSON object. Run from the repository root.

Besides the registered bot kinds, ``random-noclaim`` is the random bot that never claims
(so it never hands the other bot a wrong claim): it measures the heuristic bot's play
rather than its opponent's mistakes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.games import get
from app.games.contract import JSON


class NoClaimRandom:
    """The random bot without the claim (unless it is the only action)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: JSON) -> JSON:
        legal = [a for a in view["legal"] if a["type"] != "claim"] or view["legal"]
        return legal[self.rng.randrange(len(legal))]


def run(kinds: list[str], deals: int, seed: int) -> dict[str, Any]:
    """Play until ``deals`` deals are done; the figures per bot."""
    spec = get("bingo")
    won = [0, 0]
    matches = [0, 0]
    game_points = [0, 0]
    nobody = 0
    played = 0
    times: list[list[float]] = [[], []]
    m = 0
    while played < deals:
        match_seed = seed * 1_000_003 + m
        factories = {**spec.bots, "random-noclaim": NoClaimRandom}
        bots = [factories[k](match_seed * 2 + i) for i, k in enumerate(kinds)]
        seat_of = [(i + m) % 2 for i in range(2)]
        match = spec.new_match(match_seed, spec.check_options({}))
        while not match.over and played < deals:
            if match.between_games:
                match.start_next_game()
                continue
            (seat,) = match.to_act()
            who = seat_of.index(seat)
            view = match.view(seat)
            t = time.perf_counter()
            action = bots[who].choose(view)
            times[who].append(time.perf_counter() - t)
            match.apply(seat, action)
            result = match.view(None)["board"]["result"]
            if result is not None:
                played += 1
                if result["winner"] is None:
                    nobody += 1
                else:
                    won[seat_of.index(result["winner"])] += 1
                for i in range(2):
                    game_points[i] += result["game_points"][seat_of[i]]
        if match.over:
            assert match.winner is not None
            matches[seat_of.index(match.winner)] += 1
        m += 1
    return {"bots": kinds, "deals": played, "seed": seed, "deals_won": won,
            "share": [round(w / played, 4) for w in won], "won_by_nobody": nobody,
            "matches_won": matches, "game_points": game_points,
            "ms_per_decision_mean": [round(1000 * sum(t) / max(1, len(t)), 4) for t in times],
            "ms_per_decision_max": [round(1000 * max(t, default=0.0), 3) for t in times]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="heuristic,random")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    kinds = args.bots.split(",")
    assert len(kinds) == 2, "two bots"
    out = run(kinds, args.deals, args.seed)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['deals']} deals, seed {args.seed}")
    for i, k in enumerate(kinds):
        print(f"{k:>10}: deals won {out['deals_won'][i]} ({100 * out['share'][i]:.1f}%), "
              f"matches won {out['matches_won'][i]}, game points {out['game_points'][i]}, "
              f"{out['ms_per_decision_mean'][i]:.3f} ms/decision "
              f"(max {out['ms_per_decision_max'][i]:.2f})")
    print(f"deals won by nobody (bingo bonus reached 7): {out['won_by_nobody']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
