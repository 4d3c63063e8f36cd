"""One line of ``python -m app.replay bingo`` (the stable contract
``../shared/contracts/bingo.md``).

A line is one deal: ``{"setup": {"hands", "stock", "turn_up", "leader", "match_points"},
"actions": [...]}``; the answer is the deal's result (17 keys), or the first refused
action, or why the line itself is refused. The deal is played by the same ``Deal`` the
tables run, so the command and the server can never disagree on a rule. No input makes
it crash: anything unexpected below is answered as a refusal, never raised.
"""

from __future__ import annotations

from typing import Any

from ..contract import JSON, GameError, Malformed, answer, read_record, refused
from ..kit import replay_actions
from .state import TARGET, Deal, check_setup
from .tiles import CODES, tiles_in


def replay_line(line: str | bytes) -> JSON | None:
    """The answer to one input line, or ``None`` for a blank line."""
    return answer(_replay, line)


def _replay(line: str | bytes) -> JSON | None:
    try:
        record = read_record(line)
    except GameError as e:
        return refused(str(e))
    if record is None:
        return None
    try:
        deal, actions = _setup(record)
    except GameError as e:
        return refused(str(e))
    refusal = replay_actions(deal.apply, actions, '{"seat": 0, "type": "play", "tile": "2-5"}')
    return result(deal) if refusal is None else refusal


def result(deal: Deal) -> JSON:
    """The 17 keys of the contract for ``deal`` as it stands."""
    s = deal.summary()
    r = deal.result
    gp = list(deal.game_points())
    mp = [deal.setup.match_points[i] + gp[i] for i in (0, 1)]
    winner = [i for i in (0, 1) if mp[i] >= TARGET]
    return {
        "end": s["end"],
        "winner": s["winner"] if r is not None and r.end != "match_won" else None,
        "claimed_by": s["claimed_by"],
        "claim_correct": s["claim_correct"],
        "closed_by": s["closed_by"],
        "trump": s["trump"],
        "tricks": s["tricks"],
        "card_points": s["card_points"],
        "declared": s["declared"],
        "last_trick": s["last_trick"],
        "points": s["points"],
        "game_points": gp,
        "bingo_bonus": s["bingo_bonus"],
        "match_points": mp,
        "match_winner": winner[0] if winner else None,
        "hands": [sorted(CODES[t] for t in tiles_in(h)) for h in deal.hands],
        "stock_left": deal.stock_left,
    }


def _setup(record: JSON) -> tuple[Deal, list[Any]]:
    """The deal a line sets up, and its actions; ``Malformed`` if the line is misshapen."""
    if "actions" not in record or not isinstance(record["actions"], list):
        raise Malformed('"actions" must be a list')
    setup = record.get("setup")
    if not isinstance(setup, dict):
        raise Malformed('"setup" must be an object {"hands": [...], "stock": [...], '
                        '"turn_up": "3-3", "leader": 0}')
    for key in ("hands", "stock", "turn_up", "leader"):
        if key not in setup:
            raise Malformed(f'"setup" needs "{key}"')
    points = setup.get("match_points", [0, 0])
    return Deal(check_setup(setup["hands"], setup["stock"], setup["turn_up"], setup["leader"],
                            points)), record["actions"]
