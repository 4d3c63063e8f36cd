"""Dingo (four players, from Cleveland) on the game contract.

The rules engine stays in ``app.game`` (its replay command, ``python -m app.game.replay``,
is a stable contract, and its views and events are what Dingo's browsers already
read); this package is the thin layer that lets the table, storage and the replay
command treat Dingo like every other game. The rules: ``docs/rules.md``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from app.game import Action, Game, Match, MatchOptions, codes, make_bot
from app.game.actions import PASS
from app.game.actions import read_action as engine_read_action
from app.game.determinize import knowledge, sample
from app.game.hard import HardBot
from app.game.phases import EXCHANGE, round_name
from app.game.replay import replay_line

from ..contract import (
    GAMES_WON,
    JSON,
    Event,
    GameSpec,
    Illegal,
    Malformed,
    MatchState,
    Option,
    shown,
)
from .narration import PLACEHOLDERS, explain_hunt, explain_winner

OPTIONS: tuple[Option, ...] = (
    Option("games_to_win", "Games to win",
           "The match ends when a player has won this many games.", "int", 5, 1, 50),
    Option("points_to_win", "Points to win",
           "Or the match ends when a player's total reaches this many points.",
           "int", None, 1, 1000, optional=True),
    Option("open_discards", "Open discards",
           "Everyone may look through the discard pile (house rule).", "bool", False),
)
#: The fields of a Dingo action besides ``type`` (the seat comes from the table).
ACTION_FIELDS = frozenset({"type", "card", "cards", "seat"})

_VERBS = {"discard": "discard a card", "pass": "pass a card", "play": "play in the hunt"}


def rule(options: Mapping[str, Any]) -> str:
    """The match rule in words: games won, or (``points_to_win``) points instead."""
    points = options.get("points_to_win")
    if points is not None:
        return f"first to {points} points (a tie at the top plays on)"
    wins = options.get("games_to_win", 5)
    return f"first to win {wins} game{'s' if wins != 1 else ''}"


def by_points(options: Mapping[str, Any]) -> bool:
    """Whether the match is decided on points (a points target) rather than games won."""
    return options.get("points_to_win") is not None


def standing(options: Mapping[str, Any], game_wins: list[int], totals: list[int]) -> list[int]:
    """Per seat, what the match is decided on: points under a points target, else games won."""
    return list(totals if by_points(options) else game_wins)


def standing_unit(options: Mapping[str, Any]) -> tuple[str, str]:
    """What ``standing`` counts (see ``standing``)."""
    return ("point", "points") if by_points(options) else GAMES_WON


def read_action(action: object, seat: int) -> Action:
    """``seat``'s wire-form ``action`` as the engine's ``Action`` (``Malformed`` if it is not
    one: an unknown field, a seat that is not the sender's, not a card...)."""
    if not isinstance(action, dict):
        raise Malformed(f"an action is an object with a type, not {shown(action)}")
    if not ACTION_FIELDS.issuperset(action):
        extra = sorted(str(k) for k in set(action) - ACTION_FIELDS)
        raise Malformed(f"a Dingo action has no field {shown(extra[0])}")
    if action.get("seat", seat) != seat:
        raise Malformed("the seat is not part of an action: the table knows who sent it")
    return engine_read_action(action, seat)


class DingoMatch:
    """A match of Dingo (``app.game.Match``) seen through the contract."""

    def __init__(self, seed: int, options: Mapping[str, Any]) -> None:
        self.inner = Match(seed, MatchOptions(
            games_to_win=options.get("games_to_win", 5),
            points_to_win=options.get("points_to_win"),
            open_discards=bool(options.get("open_discards", False))))
        #: This game's hunt results (public forms), for ``why``.
        self._hunts: list[JSON] = []

    @classmethod
    def around(cls, inner: Match) -> DingoMatch:
        """The contract's view of an engine match that already exists."""
        match = cls.__new__(cls)
        match.inner = inner
        game = inner.game  # its hunts so far, from its actions (the engine keeps the last)
        again = Game(game.initial_hands, game.dealer, open_discards=game.open_discards)
        match._hunts = [e.public for a in game.actions for e in again.apply(a)
                        if e.kind == "hunt_result"]
        return match

    @property
    def over(self) -> bool:
        return self.inner.over

    @property
    def between_games(self) -> bool:
        return self.inner.between_games

    @property
    def winner(self) -> int | None:
        return self.inner.winner

    def to_act(self) -> frozenset[int]:
        seat = self.inner.game.to_act
        return frozenset() if seat is None else frozenset((seat,))

    def legal(self, seat: int) -> list[JSON]:
        game = self.inner.game
        if game.to_act != seat:
            return []
        return [a.to_dict() for a in game.legal_actions()]

    def apply(self, seat: int, action: Mapping[str, Any]) -> list[Event]:
        parsed = read_action(action, seat)
        if self.inner.game.over:
            raise Illegal("no game is in progress")
        events = self.inner.apply(parsed)
        for e in events:
            if e.public["type"] == "hunt_result":
                self._hunts.append(e.public)
        return list[Event](events)

    def start_next_game(self) -> list[Event]:
        self._hunts = []
        return list[Event](self.inner.start_next_game())

    def opening_events(self) -> list[Event]:
        return [self.inner.game_start_event()]

    # -- views ------------------------------------------------------------------------

    def view(self, seat: int | None) -> JSON:
        return {**self.shared_view(), **self.private_view(seat)}

    def shared_view(self) -> JSON:
        """The engine's shared view without what the table and the decision already say:
        ``to_act`` (the state's ``to_act``), ``stage`` (the decision's kind and round or
        direction, else the phase) and the decision's ``seat``. Every delta that passes the
        turn on would carry them (``engine_view`` puts them back for the engine's readers)."""
        view = self.inner.game.shared_view()  # a new dict each time, its decision too
        del view["to_act"], view["stage"]
        if view["decision"] is not None:
            del view["decision"]["seat"]
        view["prompt"] = self._prompt()
        return view

    def private_view(self, seat: int | None) -> JSON:
        view = self.inner.game.private_view(seat)  # a new dict each time
        if seat is None:  # the engine's spectator form has no ``legal``; every view has one
            view["legal"] = []
        return view

    # -- ViewKeys: what a table need not rebuild ---------------------------------------------

    def scoreboard_key(self) -> Hashable:
        """The scoreboard changes only when a game is dealt or scored."""
        return self.inner.games_dealt_and_scored

    def private_key(self, seat: int | None) -> Hashable | None:
        """A seat's private view is its hand, its passes and, on its turn, its legal
        actions: off its turn it is known by the game, the hand and how many cards it
        passed and received (those lists only grow in a game)."""
        if seat is None:
            return ()  # ``{"seat": None, "legal": []}``
        game = self.inner.game
        if game.to_act == seat or seat not in (0, 1, 2, 3):
            return None
        return (len(self.inner.games), game.hands[seat], len(game.passed[seat]),
                len(game.received[seat]))

    def _prompt(self) -> str:
        """Who must do what, the same words for every seat (``{2} must pass a card.``: a
        page names its own seat "You")."""
        game = self.inner.game
        acting = game.to_act
        if game.over or acting is None or game.decision is None:
            return "The game is over."
        return f"{{{acting}}} must {_VERBS[game.decision]}."

    def scoreboard(self) -> JSON:
        summary = self.inner.summary()
        options = summary["options"]
        return {**summary, "rule": rule(options),
                "standing": standing(options, summary["game_wins"], summary["totals"])}

    def why(self) -> JSON | None:
        """Every hunt of the finished game in words, and the rule that decided it."""
        game = self.inner.game
        if not game.over:
            return None
        return {"hunts": [{k: e[k] for k in ("rank", "rabbit", "rule", "dingo_seat", "to_score",
                                              "to_penalty", "points")}
                          | {"explanation": explain_hunt(e, PLACEHOLDERS)} for e in self._hunts],
                "winner": explain_winner(game.result(), PLACEHOLDERS)}

    def record(self) -> JSON:
        match = self.inner
        return {
            "game": "dingo", "seed": match.seed, "options": match.options.to_dict(),
            "games": [{"setup": {"dealer": g.dealer, "seed": g.seed,
                                 "hands": [codes(h) for h in g.initial_hands]},
                       "actions": [a.to_dict() for a in g.actions],
                       "result": None if g.scores is None else {"scores": g.scores,
                                                                "tie_break": g.tie_break},
                       "winner": g.winner}
                      for g in match.games],
            "game_wins": list(match.game_wins), "totals": list(match.totals),
            "winner": match.winner,
        }


def new_match(seed: int, options: JSON) -> DingoMatch:
    return DingoMatch(seed, options)


def _ours(match: MatchState) -> DingoMatch:
    if not isinstance(match, DingoMatch):
        raise TypeError("not a Dingo match")
    return match


def invariants(match: MatchState) -> None:
    """All 52 cards are somewhere, once (``location_of_every_card`` raises on a double)."""
    places = _ours(match).inner.game.location_of_every_card()
    assert len(places) == 52, f"{52 - len(places)} cards are missing"


def redeal(match: MatchState, seat: int | None, rng: random.Random) -> DingoMatch:
    """The same match with the current game's hidden cards dealt anew for ``seat``.

    ``app.game.determinize.sample`` deals everything ``seat`` cannot see consistently
    with its view (the search bot's determinization). A spectator's view has no hand,
    so for ``None`` the seat to act's view is the base: it knows more, not less.
    """
    ours = _ours(match)
    game = ours.inner.game
    if game.over:
        return ours
    base = seat if seat is not None else (game.to_act or 0)
    again = DingoMatch.__new__(DingoMatch)
    again.inner = Match.__new__(Match)
    again.inner.__dict__.update(ours.inner.__dict__)
    again.inner.games = [*ours.inner.games[:-1], sample(game.view(base), rng)]
    again._hunts = list(ours._hunts)
    return again


def engine_view(view: JSON) -> JSON:
    """A seat's view (``DingoMatch.view``) on its turn, as the engine's ``Game.view`` gives
    it: with ``to_act`` (the seat), ``stage`` and the decision's ``seat``, which the
    contract's view leaves out. The engine's bots and ``determinize`` read it."""
    seat = view["seat"]
    if seat is None or not view["legal"]:
        raise ValueError("a view is read as the engine's only on its seat's turn")
    decision = view["decision"]
    kind = decision["kind"]
    stage = (view["phase"] if view["phase"] != EXCHANGE
             else round_name(kind, decision["direction"] if kind == PASS else decision["round"]))
    return {**view, "to_act": seat, "stage": stage, "decision": {**decision, "seat": seat}}


def sample_world(view: JSON, rng: random.Random, seen: Sequence[JSON] = ()) -> DingoMatch:
    """A match whose current game is ``determinize.sample`` of ``view`` (see ``GameSpec``),
    the view of the seat to act (who acts in a hunt is known to the table, not to a view
    of another seat: the next holder of a wolf of the rank).

    What the seat learned from ``seen`` (discards it saw, seats that showed they lack a
    rank's wolves) is ``determinize.knowledge``. Earlier games are not part of a seat's
    view, so the sampled match holds this game alone, with the view's options.
    """
    view = engine_view(view)
    known, lacks = knowledge(seen, view)
    game = sample(view, rng, known_discards=known, lacks=lacks)
    world = DingoMatch.around(Match(0, MatchOptions(open_discards=game.open_discards)))
    world.inner.games = [game]
    return world


class DingoBot:
    """A Dingo bot (``app.game.bots``) behind the contract's ``ObservingBot``."""

    def __init__(self, kind: str, seed: int) -> None:
        self.kind = kind
        self.seed = seed
        self.bot = make_bot(kind, seed)
        if isinstance(self.bot, HardBot):
            # At a table it thinks in a worker at the lowest CPU priority: its budget counts
            # the CPU it was given, so a busy server makes it answer later, never weaker.
            self.bot.clock = time.process_time

    def observe(self, event: JSON) -> None:
        self.bot.observe(event)

    def new_game(self) -> None:
        """Dingo bots see ``game_start`` and reset themselves."""

    def choose(self, view: JSON) -> JSON:
        return self.bot.choose(engine_view(view)).to_dict()


GAME = GameSpec(
    name="dingo",
    title="Dingo",
    seats=4,
    options=OPTIONS,
    # (The actions it lists carry their seat; the wire refuses a seat from a browser.)
    fields={"discard": frozenset({"card", "seat"}), "pass": frozenset({"card", "seat"}),
            "play": frozenset({"cards", "seat"})},
    read_action=lambda action, options: read_action(action, 0),
    new_match=new_match,
    bots={"random": lambda seed: DingoBot("random", seed),
          "heuristic": lambda seed: DingoBot("heuristic", seed),
          "hard": lambda seed: DingoBot("hard", seed)},
    replay_line=replay_line,
    blurb="Hunt the rabbits with your wolves, keep your dingoes out of the penalty pile: "
          "four players, seven exchanges, thirteen hunts.",
    playable=True,
    bot_order=("random", "heuristic", "hard"),
    stand_in="heuristic",
    redeal=redeal,
    sample_world=sample_world,
    invariants=invariants,
    standing_unit=standing_unit,
)
