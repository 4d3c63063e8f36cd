"""Real Bingo views from the engine, at the moments the Bingo client module must draw.

Each scenario is what the table would send one browser: ``view`` (``MatchState.view``),
``match`` (the scoreboard JSON), ``why`` (``MatchState.why()``), ``seat`` (``None``: a
spectator), ``status`` and ``hidden``: the tiles this browser must not be shown (the other
hand and the face-down stock, while the deal is on). Matches are played by a seeded policy
that plays tiles, declares, closes now and then and claims when it has counted 70, so every
kind of moment turns up. ``python tests/browser/bingo_views.py OUT.json`` writes them all
for a harness page.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import Any

from app.games import get
from app.games.bingo.state import BingoMatch
from app.games.bingo.tiles import CODES

JSON = dict[str, Any]


def new_match(seed: int, open_tally: bool = False) -> BingoMatch:
    spec = get("bingo")
    match = spec.new_match(seed, spec.check_options({"open_tally": open_tally}))
    assert isinstance(match, BingoMatch)
    return match


def choose(match: BingoMatch, seat: int, rng: random.Random) -> JSON:
    """A plausible action: claim with 70, declare when possible, close sometimes, else a tile."""
    legal = match.legal(seat)
    kinds = {a["type"]: a for a in legal}
    if "claim" in kinds and match.deal.points(seat) >= 70:
        return kinds["claim"]
    if "declare" in kinds:
        return kinds["declare"]
    if "close" in kinds and rng.random() < 0.2:
        return kinds["close"]
    tiles = [a for a in legal if a["type"] == "play"]
    return tiles[rng.randrange(len(tiles))]


def step(match: BingoMatch, rng: random.Random) -> None:
    """One action by whoever is to act, or the next deal between deals."""
    if match.between_games:
        match.start_next_game()
        return
    seat = min(match.to_act())
    match.apply(seat, choose(match, seat, rng))


def hidden_from(match: BingoMatch, seat: int | None) -> list[str]:
    """What ``seat`` may not see now: the other hand (but its declared doubles) and the
    face-down stock."""
    deal = match.deal
    if deal.over:
        return []
    secret: set[int] = set()
    for s in (0, 1):
        if s != seat:  # the other hand, less the doubles it has declared (shown to all)
            secret |= {t for t in range(28)
                       if deal.hands[s] >> t & 1 and not deal.declared_mask[s] >> t & 1}
    secret |= set(deal.order[deal.drawn:])  # the face-down stock
    secret.discard(deal.setup.turn_up)  # public all along, even in the hand that took it
    return sorted(CODES[t] for t in secret)


def shot(match: BingoMatch, seat: int | None, name: str) -> JSON:
    status = ("match_over" if match.over else "between_games" if match.between_games
              else "playing")
    return {"name": name, "view": match.view(seat), "match": match.scoreboard(),
            "why": match.why(), "seat": seat, "status": status,
            "hidden": hidden_from(match, seat)}


def play_until(match: BingoMatch, rng: random.Random, done: Callable[[BingoMatch], bool],
               limit: int = 2000) -> bool:
    for _ in range(limit):
        if done(match):
            return True
        if match.over:
            return False
        step(match, rng)
    return done(match)


def scenarios() -> list[JSON]:
    out: list[JSON] = []
    rng = random.Random(16)
    m = new_match(7)
    first = min(m.to_act())
    out.append(shot(m, first, "first-lead"))
    out.append(shot(m, 1 - first, "first-lead-waiting"))
    play_until(m, rng, lambda x: x.deal.current is not None)
    out.append(shot(m, min(m.to_act()), "answer-phase-one"))
    out.append(shot(m, None, "spectator"))

    def declare_legal(match: BingoMatch) -> bool:
        return bool(match.to_act()) and any(
            a["type"] == "declare" for a in match.legal(min(match.to_act())))

    def tag(match: BingoMatch) -> int:
        return min(match.to_act()) if match.to_act() else 0

    seeds = iter(range(100, 400))
    m = new_match(next(seeds))
    while not play_until(m, rng, declare_legal, limit=60):
        m = new_match(next(seeds))
    out.append(shot(m, tag(m), "declare-offered"))
    seat = tag(m)
    m.apply(seat, next(a for a in m.legal(seat) if a["type"] == "declare"))
    out.append(shot(m, seat, "after-declaring"))
    out.append(shot(m, 1 - seat, "opponent-declared"))

    def closed_answer(match: BingoMatch) -> bool:
        d = match.deal
        return d.closed_by is not None and d.current is not None and not d.over

    m = new_match(next(seeds))
    while not play_until(m, rng, closed_answer, limit=60):
        m = new_match(next(seeds))
    out.append(shot(m, tag(m), "closed-must-follow"))

    def stock_gone(match: BingoMatch) -> bool:
        d = match.deal
        return d.closed_by is None and d.stock_left == 0 and not d.over and d.current is None

    m = new_match(next(seeds))
    while not play_until(m, rng, stock_gone, limit=60):
        m = new_match(next(seeds))
    out.append(shot(m, tag(m), "stock-gone"))

    m = new_match(31, open_tally=True)
    play_until(m, rng, lambda x: len(x.deal.tricks) >= 5 and x.deal.current is not None
               and not x.deal.over)
    out.append(shot(m, tag(m), "open-tally"))

    def played_out(match: BingoMatch) -> bool:
        return match.between_games and match.deal.result is not None \
            and match.deal.result.end == "played_out"

    m = new_match(next(seeds))
    while not play_until(m, rng, played_out, limit=400):
        m = new_match(next(seeds))
    out.append(shot(m, 1, "played-out"))

    m = new_match(41)
    play_until(m, rng, lambda x: x.between_games)
    out.append(shot(m, 0, "deal-over"))
    out.append(shot(m, None, "deal-over-spectator"))

    play_until(m, rng, lambda x: len(x.deals) >= 3 and not x.deal.over and bool(x.deal.tricks))
    out.append(shot(m, 0, "third-deal"))

    play_until(m, rng, lambda x: x.over, limit=20000)
    out.append(shot(m, 0, "match-over"))

    def sure_claim(match: BingoMatch) -> bool:
        return bool(match.to_act()) and match.deal.points(tag(match)) >= 70 and any(
            a["type"] == "claim" for a in match.legal(tag(match)))

    m = new_match(next(seeds), open_tally=True)
    while not play_until(m, rng, sure_claim, limit=60):
        m = new_match(next(seeds), open_tally=True)
    out.append(shot(m, tag(m), "claim-sure"))

    def short_claim(match: BingoMatch) -> bool:
        return bool(match.to_act()) and 0 < match.deal.points(tag(match)) < 70 and any(
            a["type"] == "claim" for a in match.legal(tag(match)))

    m = new_match(next(seeds), open_tally=True)
    while not play_until(m, rng, short_claim, limit=60):
        m = new_match(next(seeds), open_tally=True)
    out.append(shot(m, tag(m), "claim-short"))
    return out


if __name__ == "__main__":
    text = json.dumps(scenarios(), indent=1)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as out:
            out.write(text)
    else:
        print(text)
