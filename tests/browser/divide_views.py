"""Real Divide and Conquer views from the engine, at the moments its client module must draw.

Each scenario is what the table would send one browser: ``view`` (``MatchState.view``),
``match`` (the scoreboard JSON), ``seat`` (``None``: a spectator), ``status`` and ``busy``.
Matches are played by a seeded random choice among the legal commits.
``python tests/browser/divide_views.py OUT.json`` writes them all for a harness page.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from app.games import get
from app.games.divide.state import DivideMatch

JSON = dict[str, Any]


def new_match(seed: int, **options: Any) -> DivideMatch:
    spec = get("divide")
    match = spec.new_match(seed, spec.check_options(options))
    assert isinstance(match, DivideMatch)
    return match


def play(match: DivideMatch, rng: random.Random, battles: int) -> None:
    """Fight ``battles`` battles (both seats commit a random legal card; seat 0 first)."""
    for _ in range(battles):
        for seat in sorted(match.to_act()):
            legal = match.legal(seat)
            match.apply(seat, legal[rng.randrange(len(legal))])


def finish_game(match: DivideMatch, rng: random.Random) -> None:
    while match.to_act():
        play(match, rng, 1)


def status(match: DivideMatch) -> str:
    return "match_over" if match.over else "between_games" if match.between_games else "playing"


def shot(match: DivideMatch, seat: int | None, *, busy: bool = False) -> JSON:
    return {"view": match.view(seat), "match": match.scoreboard(), "seat": seat,
            "status": status(match), "busy": busy}


def commit(match: DivideMatch, seat: int, card: str) -> list[JSON]:
    """Commit ``card`` for ``seat``; the events, in ``seat``'s form."""
    return [e.for_seat(seat) for e in match.apply(seat, {"type": "commit", "card": card})]


def scenarios() -> dict[str, JSON]:
    out: dict[str, JSON] = {}
    rng = random.Random(15)

    m = new_match(7)
    out["start"] = shot(m, 0)
    out["start_spectator"] = shot(m, None)

    # Game 1, battle 3: seat 1 has committed, seat 0 has not (the view seat 0 must keep).
    play(m, rng, 2)
    other = m.legal(1)[-1]["card"]
    commit(m, 1, other)
    out["they_committed"] = shot(m, 0)
    out["they_committed_spectator"] = shot(m, None)
    out["they_committed_owner"] = shot(m, 1)
    out["they_committed_busy"] = shot(m, 0, busy=True)

    # The same moment with seat 1's other possible cards face down instead: seat 0's view
    # must not change at all.
    alternatives: list[JSON] = []
    for card in m.game.unshown(1):
        twin = DivideMatch.replay(m.seed, {"deck": 10, "target_wins": 3},
                                  [[(s, {"type": "commit", "card": c})
                                    for s, c in m.game.actions[:-1]] + [(1, {"type": "commit",
                                                                               "card": card})]])
        alternatives.append({"card": card, "view": twin.view(0), "spectator": twin.view(None)})
    out["they_committed"]["alternatives"] = alternatives

    # Seat 0 commits too: the battle is revealed at once.
    mine = m.legal(0)[0]["card"]
    events = commit(m, 0, mine)
    out["revealed"] = shot(m, 0)
    out["revealed"]["events"] = events

    # Battle 4: seat 0 has committed, seat 1 is choosing.
    commit(m, 0, m.legal(0)[0]["card"])
    out["i_committed"] = shot(m, 0)
    out["i_committed_other"] = shot(m, 1)

    # Half 2: the hands have changed (battle 7).
    commit(m, 1, m.legal(1)[0]["card"])
    play(m, rng, 3)
    out["half_two"] = shot(m, 1)
    out["half_two_spectator"] = shot(m, None)

    # The game's end (between games), for each seat and a spectator.
    finish_game(m, rng)
    out["game_over"] = shot(m, 0)
    out["game_over_seat1"] = shot(m, 1)
    out["game_over_spectator"] = shot(m, None)

    # The next games, to the match's end.
    while not m.over:
        m.start_next_game()
        finish_game(m, rng)
        if m.game.winner is None and "draw" not in out:
            out["draw"] = shot(m, 0)
    out["match_over"] = shot(m, 0)

    # The long game, part way through the first half, a spectator watching one commit.
    long = new_match(11, deck=14, target_wins=2)
    play(long, rng, 4)
    commit(long, 0, long.legal(0)[0]["card"])
    out["long_game"] = shot(long, 1)
    out["long_spectator"] = shot(long, None)
    return out


if __name__ == "__main__":
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump(scenarios(), f, indent=1)
