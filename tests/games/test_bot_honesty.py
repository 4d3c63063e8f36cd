"""Bots are honest by construction: each is built from a seed alone and is given only its
seat's view (and, if it observes, its seat's form of the events) as plain JSON, so nothing
it holds leads to the state of the match. Checked for every bot kind of every game, and
for Dingo's search bot, by walking every reference from the bot after a whole game."""

from __future__ import annotations

import gc
import json
import types
from typing import Any

from app.game.bots import ALL_BOT_KINDS
from app.games import REGISTRY, get
from app.games.contract import ObservingBot

#: What a walk does not enter: code and its namespaces, not data a bot was given.
_NOT_DATA = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
             types.CodeType, types.MethodType, types.BuiltinMethodType, types.FrameType)


def reachable(root: object) -> dict[int, object]:
    """Every object reachable from ``root`` through references, code left out."""
    found: dict[int, object] = {}
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in found or isinstance(obj, _NOT_DATA):
            continue
        found[id(obj)] = obj
        todo.extend(gc.get_referents(obj))
    return found


def is_state(obj: object) -> bool:
    """A piece of the match that changes: a container or an object with attributes."""
    return isinstance(obj, list | dict | set | bytearray) or hasattr(obj, "__dict__") or (
        hasattr(type(obj), "__slots__") and not isinstance(obj, tuple | str | int | float)
        and not getattr(type(obj), "__dataclass_params__", None)
        and type(obj).__module__.startswith("app."))


def plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def play_watching(name: str, make: Any, seed: int) -> None:
    """A match (or 300 moves) of ``name``, bots from ``make(seed)`` in every seat, each
    given plain JSON only; then no bot reaches any changing part of the match."""
    spec = get(name)
    match = spec.new_match(seed, spec.check_options({}))
    bots = [make(seed * 10 + s) for s in range(spec.seats)]
    for bot in bots:
        if isinstance(bot, ObservingBot):
            bot.new_game()
    pending = [[plain(e.for_seat(s)) for e in match.opening_events()] for s in range(spec.seats)]
    moves = 0
    while not match.over and moves < 300:
        if match.between_games:
            for s, bot in enumerate(bots):
                pending[s] = []
                if isinstance(bot, ObservingBot):
                    bot.new_game()
            for event in match.start_next_game():
                for s in range(spec.seats):
                    pending[s].append(plain(event.for_seat(s)))
            continue
        for seat in sorted(match.to_act()):
            bot = bots[seat]
            if isinstance(bot, ObservingBot):
                for event in pending[seat]:
                    bot.observe(event)
            pending[seat] = []
            view = plain(match.view(seat))
            for event in match.apply(seat, bot.choose(view)):
                for s in range(spec.seats):
                    pending[s].append(plain(event.for_seat(s)))
            moves += 1
            break
    assert moves > 3
    state = {key for key, obj in reachable(match).items() if is_state(obj)}
    for bot in bots:
        held = reachable(bot)
        assert match not in held.values()
        leaked = state & set(held)
        assert not leaked, [held[k] for k in list(leaked)[:3]]


def quick(factory: Any) -> Any:
    """``factory``, with a search bot's thinking time cut to 2 ms: what it can reach does not
    depend on how long it thinks (at its 200 ms, four of them took two minutes a match)."""
    def make(seed: int) -> Any:
        bot = factory(seed)
        inner = getattr(bot, "bot", bot)
        if hasattr(inner, "budget_ms"):
            inner.budget_ms = 2
        return bot
    return make


def test_no_bot_of_any_game_can_reach_the_match() -> None:
    checked = []
    for name in REGISTRY:
        spec = get(name)
        for kind, factory in spec.bots.items():
            for seed in (1, 2):
                play_watching(name, quick(factory), seed)
            checked.append((name, kind))
    assert len(checked) >= 8 and set(ALL_BOT_KINDS) <= {k for n, k in checked if n == "dingo"}
    assert "hard" in ALL_BOT_KINDS  # Dingo's search bot among them


def test_the_walk_finds_a_bot_holding_the_state() -> None:
    """The check can fail: a bot that kept a reference into the match is caught."""
    spec = get("dingo")
    match = spec.new_match(1, spec.check_options({}))
    state = {key for key, obj in reachable(match).items() if is_state(obj)}

    class Peeker:
        def __init__(self) -> None:
            self.hands = match.inner.game.hands  # type: ignore[attr-defined]

    assert state & set(reachable(Peeker()))
