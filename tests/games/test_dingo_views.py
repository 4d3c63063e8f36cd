"""Dingo's views on the contract (``app/games/dingo``): what a table sends says who acts and
what stage the exchange is at once (the state's ``to_act``, the ``decision``), and
``engine_view`` gives the engine's readers (its bots, ``determinize``) back exactly the
engine's view."""

from __future__ import annotations

import pytest

from app.game.bots import HeuristicBot
from app.games import get
from app.games.dingo import DingoMatch, engine_view

DINGO = get("dingo")


def test_who_acts_and_the_stage_are_said_once_and_the_engine_gets_them_back() -> None:
    checked = 0
    for seed in range(3):
        match = DINGO.new_match(seed, DINGO.check_options({}))
        assert isinstance(match, DingoMatch)
        bots = [HeuristicBot(seed * 4 + s) for s in range(4)]
        stages = set()
        while not match.inner.game.over:
            (acting,) = match.to_act()
            for seat in (None, 0, 1, 2, 3):
                view = match.view(seat)
                assert "to_act" not in view and "stage" not in view
                assert "seat" not in view["decision"]
            engine = match.inner.game.view(acting)
            view = match.view(acting)
            assert engine_view(view) == {**engine, "prompt": view["prompt"]}
            stages.add(engine["stage"])
            for seat in range(4):
                if seat != acting:  # its view does not say who acts: no engine view
                    with pytest.raises(ValueError, match="turn"):
                        engine_view(match.view(seat))
            match.apply(acting, bots[acting].choose(engine).to_dict())
            checked += 1
        # Every stage was rebuilt from a decision: the seven exchanges and the hunt.
        assert {"pass left", "pass across", "pass right", "discard 4", "hunt"} <= stages
        over = match.view(0)
        assert over["decision"] is None and "stage" not in over and "to_act" not in over
    assert checked > 60
