"""Advice after a game: for each decision of a person, what the best choice was worth.

Two measures, per decision with more than one choice:

- **given what the seat knew** (``known``): the seat's expected points in the game after
  each choice, averaged over deals of the cards it could not see, drawn consistently with
  its view and what it learned (``determinize.knowledge`` and ``sample``: the discards it
  saw, the seats that showed they lack a rank's wolves; as the hard bot does), each choice then
  played out to the end of the game by four heuristic bots on the same deals (common
  random numbers: the choices differ by the choice, not by the luck of the deal);
- **with hindsight** (``hindsight``): the same on the real deal, every card known.

A decision that lost at least ``MISTAKE_POINTS`` by the first measure is a mistake, and
the better choice is given. Forced moves are never judged. The estimates are what a
strong player could have known, not proof: the playouts are heuristic bots, and the
figures carry the number of deals they come from.

Standard library and the rules engine only; deterministic for a given ``seed``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from typing import Any

from .actions import Action
from .cards import parse_card
from .determinize import knowledge, sample
from .hard import play_out
from .state import Game

#: Points lost, by the "what the seat knew" measure, that make a decision a mistake.
MISTAKE_POINTS = 1.0
#: Deals sampled per decision for the "what the seat knew" measure.
DEALS = 24
#: Playouts per choice on the real deal (the bots' own ties are drawn at random).
HINDSIGHT_PLAYOUTS = 4


def _values(make: Callable[[int], Game], legal: Sequence[Action], seat: int,
            rounds: int, rng: random.Random) -> dict[Action, float]:
    """Mean points of each choice over ``rounds`` games ``make(seed)`` (the same seeds for
    every choice)."""
    totals = dict.fromkeys(legal, 0)
    for _ in range(rounds):
        seed = rng.getrandbits(62)
        for action in legal:
            game = make(seed)
            game.apply(action)
            totals[action] += play_out(game, seed)[seat]
    return {a: t / rounds for a, t in totals.items()}


def advise_game(hands: Sequence[Sequence[str]], dealer: int, actions: Sequence[dict[str, Any]],
                seats: Sequence[int], *, skip: Collection[int] = (), open_discards: bool = False,
                seed: int = 0, deals: int = DEALS,
                playouts: int = HINDSIGHT_PLAYOUTS) -> dict[str, Any]:
    """The advice for the decisions of ``seats`` (the people) in one recorded game, but for
    the steps in ``skip`` (played for them by a stand-in bot while they were away).

    ``{"deals": n, "playouts": m, "decisions": [{"index", "seat", "played", "best",
    "known": {"lost", "best_value", "played_value"}, "hindsight": {"best", "lost"},
    "mistake"}], "mistakes": [per seat]}``; ``index`` is the action's step in the replay
    (1 for the first action), actions are in their recorded form.
    """
    dealt = [[parse_card(c) for c in hand] for hand in hands]
    game = Game(dealt, dealer, open_discards=open_discards)
    # What each person was shown, in order: every view (one a step) and its form of every
    # event; ``determinize.knowledge`` reads from it what the seat learned.
    seen: dict[int, list[dict[str, Any]]] = {s: [] for s in seats}
    rng = random.Random(seed)
    done: list[Action] = []
    decisions: list[dict[str, Any]] = []
    for index, data in enumerate(actions, start=1):
        action = Action.from_dict(data)
        seat = game.to_act
        for s in seen:
            seen[s].append(game.view(s))
        if seat in seen:
            view = seen[seat][-1]
            legal = [Action.from_dict(a) for a in view["legal"]]
            if len(legal) > 1 and index not in skip:
                decisions.append(_judge(view, legal, action, dealt, dealer, done, seen[seat],
                                        open_discards, rng, deals, playouts, index))
        for event in game.apply(action):
            for s in seen:
                seen[s].append(event.for_seat(s))
        done.append(action)
    mistakes = [sum(1 for d in decisions if d["seat"] == s and d["mistake"]) for s in range(4)]
    return {"deals": deals, "playouts": playouts, "decisions": decisions,
            "mistakes": mistakes}


def _judge(view: dict[str, Any], legal: list[Action], played: Action,
           dealt: list[list[int]], dealer: int, done: list[Action],
           seen: list[dict[str, Any]], open_discards: bool, rng: random.Random, deals: int,
           playouts: int, index: int) -> dict[str, Any]:
    seat = view["seat"]
    discards, lacks = knowledge(seen, view)
    known = _values(lambda s: sample(view, random.Random(s), known_discards=discards,
                                     lacks=lacks),
                    legal, seat, deals, rng)
    hindsight = _values(lambda s: Game.replay(dealt, dealer, done, open_discards=open_discards,
                                              record_events=False),
                        legal, seat, playouts, rng)
    best = max(legal, key=lambda a: (known[a], a == played))
    best_real = max(legal, key=lambda a: (hindsight[a], a == played))
    lost = known[best] - known[played]
    return {
        "index": index, "seat": seat, "played": played.to_dict(), "best": best.to_dict(),
        "known": {"lost": round(lost, 2), "best_value": round(known[best], 2),
                  "played_value": round(known[played], 2)},
        "hindsight": {"best": best_real.to_dict(),
                      "lost": round(hindsight[best_real] - hindsight[played], 2)},
        "mistake": lost >= MISTAKE_POINTS,
    }
