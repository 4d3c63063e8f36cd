"""What each seat, and a spectator, may see of a game: the views and their caches.

``GameViews`` is the part of ``Game`` that reads the state and writes nothing
but its own caches. The rules (``state``) keep hands as bit masks and cards as
integers; the views turn them into card codes and plain dicts: ``shared_view``
holds what every view of a moment has in common, ``private_view(seat)`` what
only that seat may know (its hand, its passes, its legal actions), and
``view``/``views``/``public_view`` join the two.

A server builds the views of every seat after every action, and a bot reads
one per decision, so the parts that seldom change are built once and shared:
a hand's codes by its mask, an action's wire form, the piles until the next
hunt ends, a seat's passes until the next pass. Shared means read-only: the
views' nested values must not be changed by their readers.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .actions import PASS, Action
from .cards import ACE, AD, CODES, RABBITS, RANKS, Card, bit_lister, card, code, codes
from .errors import MalformedAction, shown
from .phases import DIRECTIONS, EXCHANGE, OVER, ROUND_NAMES, ROUNDS

if TYPE_CHECKING:
    from .state import HuntRecord, HuntState

#: The codes of a mask's cards, lowest first; each suit's cards, as a mask.
_list_codes = bit_lister(CODES)
_SUIT_MASKS = tuple(sum(1 << card(r, s) for r in range(13)) for s in range(4))
#: The rabbit pile's codes by the next rank to hunt (up to ACE + 1, when none is left).
_RABBIT_CODES = tuple(tuple(codes(RABBITS[n:])) for n in range(ACE + 2))


@lru_cache(maxsize=4096)
def _hand_codes(mask: int) -> tuple[str, ...]:
    """A hand's codes sorted by suit then rank; views ask for each hand after every action."""
    # Within one suit, card numbers grow with the rank: list suit by suit, no sort.
    return (*_list_codes(mask & _SUIT_MASKS[0]), *_list_codes(mask & _SUIT_MASKS[1]),
            *_list_codes(mask & _SUIT_MASKS[2]), *_list_codes(mask & _SUIT_MASKS[3]))


@lru_cache(maxsize=4096)
def _wire(action: Action) -> dict[str, Any]:
    """``action.to_dict()``, shared by every view that lists it (views are read-only)."""
    return action.to_dict()


class GameViews:
    """The views of a ``Game`` (which inherits them); see the module docstring."""

    # What the views read of the game, set by ``Game`` (``state``).
    dealer: int
    open_discards: bool
    hands: list[int]
    discards: list[Card]
    dead: list[Card]
    score_piles: list[list[Card]]
    penalty_piles: list[list[Card]]
    passed: list[list[tuple[int, int, Card]]]
    received: list[list[tuple[int, int, Card]]]
    phase: str
    step: int
    hunt: HuntState | None
    last_hunt_record: HuntRecord | None
    next_rank: int
    to_act: int | None
    # The views' own caches, emptied by ``_init_view_caches``.
    # (last_hunt_record, the view's pile fields): see ``_pile_view``
    _piles_seen: tuple[HuntRecord | None, dict[str, Any]] | None
    # (the last hunt's record, its ``hunt_result`` event's public form), when emitted
    _hunt_emitted: tuple[HuntRecord, dict[str, Any]] | None
    # per seat: (passes made, passes received, the view's entries): ``_exchange_view``
    _exchanges_seen: list[tuple[int, int, list[dict[str, Any]], list[dict[str, Any]]] | None]

    if TYPE_CHECKING:
        @property
        def decision(self) -> str | None: ...

        @property
        def hand_counts(self) -> list[int]: ...

        def legal_actions(self) -> list[Action]: ...

        def running_scores(self) -> list[int]: ...

        def result(self) -> dict[str, Any]: ...

    def _init_view_caches(self) -> None:
        """Start with nothing cached (a new game)."""
        self._piles_seen = None
        self._hunt_emitted = None
        self._exchanges_seen = [None] * 4

    def hand(self, seat: int) -> list[str]:
        """A seat's hand as codes, sorted by suit then rank (``sort_key``)."""
        return list(_hand_codes(self.hands[seat]))

    def public_view(self) -> dict[str, Any]:
        """Everything anyone at or around the table may see (a spectator's view)."""
        return {"seat": None, **self.shared_view()}

    def shared_view(self) -> dict[str, Any]:
        """The part every view of this moment has in common: the public view but ``seat``.

        ``view(seat)`` is this plus ``private_view(seat)``, whose keys are not in
        it, so a server can encode this part once for all its recipients.
        """
        over = self.phase == OVER
        hunt = self.hunt
        view: dict[str, Any] = {
            "dealer": self.dealer,
            "phase": self.phase,
            "stage": ROUND_NAMES[self.step >> 2] if self.phase == EXCHANGE else self.phase,
            "to_act": self.to_act,
            "decision": self._decision_info(),
            "hand_sizes": self.hand_counts,
            "discard_top": code(self.discards[-1]) if self.discards else None,
            "discard_count": len(self.discards),
            "discards": codes(self.discards) if (self.open_discards or over) else None,
            "rabbits": list(_RABBIT_CODES[self.next_rank]),
            "hunt": None if hunt is None else {
                "rank": RANKS[hunt.rank],
                "rabbit": code(RABBITS[hunt.rank]) if hunt.rank < ACE else code(AD),
                "dingo_seat": hunt.dingo_seat,
                "plays": [{"seat": s, "cards": codes(cs)} for s, cs in hunt.plays],
            },
            **self._pile_view(),
            "open_discards": self.open_discards,
            "result": self.result() if over else None,
        }
        return view

    def _pile_view(self) -> dict[str, Any]:
        """The view's fields that only change when a hunt ends, built once per hunt.

        Every change to the score, penalty and dead piles comes with a new
        ``last_hunt_record`` (``Game._finish_hunt``), so that record says whether
        the fields built last time still hold.
        """
        record = self.last_hunt_record
        seen = self._piles_seen
        if seen is not None and seen[0] is record:
            return seen[1]
        fields = {
            "dead_rabbits": codes(self.dead),
            "last_hunt": self._last_hunt(record),
            "score_piles": [codes(p) for p in self.score_piles],
            "penalty_piles": [codes(p) for p in self.penalty_piles],
            "scores": self.running_scores(),
        }
        self._piles_seen = (record, fields)
        return fields

    def _last_hunt(self, record: HuntRecord | None) -> dict[str, Any] | None:
        """The view's ``last_hunt``: the same dict as the hunt's ``hunt_result`` event when
        the game emitted one (both read-only), else built from the record."""
        if record is None:
            return None
        emitted = self._hunt_emitted
        return emitted[1] if emitted is not None and emitted[0] is record else record.to_dict()

    def view(self, seat: int | None) -> dict[str, Any]:
        """What seat ``seat`` may know; ``None`` gives the spectator view."""
        return self.views((seat,))[seat]

    def views(self, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
        """``view(seat)`` for each of ``seats``, building the shared part only once.

        The views share nested values (with each other and with later views of the same
        hunt or pass): read them, don't change them.
        """
        seats = tuple(seats)
        private = {seat: self.private_view(seat) for seat in seats}  # checks every seat first
        shared = self.shared_view()
        return {seat: {**shared, **private[seat]} for seat in seats}

    def private_view(self, seat: int | None) -> dict[str, Any]:
        """What only ``seat`` may see, and its ``seat`` (``{"seat": None}`` for a spectator)."""
        if seat is None:
            return {"seat": None}
        if seat not in (0, 1, 2, 3):
            raise MalformedAction(f"a view is for seat 0, 1, 2 or 3 (or None), not {shown(seat)}")
        passed, received = self._exchange_view(seat)
        return {"seat": seat, "hand": self.hand(seat), "passed": passed, "received": received,
                "legal": ([_wire(a) for a in self.legal_actions()]
                          if self.to_act == seat else [])}

    def _exchange_view(self, seat: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The seat's ``passed`` and ``received`` view entries, rebuilt only after a pass.

        Both lists only grow, so their lengths say whether the entries built last
        time still hold.
        """
        passed, received = self.passed[seat], self.received[seat]
        if not passed and not received:
            return [], []  # nothing to keep: tables that wait hold no cache
        seen = self._exchanges_seen[seat]
        if seen is not None and seen[0] == len(passed) and seen[1] == len(received):
            return seen[2], seen[3]
        entries = ([{"direction": DIRECTIONS[ROUNDS[r][1]], "to": t, "card": code(c)}
                    for r, t, c in passed],
                   [{"direction": DIRECTIONS[ROUNDS[r][1]], "from": f, "card": code(c)}
                    for r, f, c in received])
        self._exchanges_seen[seat] = (len(passed), len(received), *entries)
        return entries

    def _decision_info(self) -> dict[str, Any] | None:
        """The public description of what the seat to act must decide."""
        if self.to_act is None:
            return None
        kind = self.decision
        info: dict[str, Any] = {"kind": kind, "seat": self.to_act}
        if self.phase == EXCHANGE:
            rnd = self.step >> 2
            if kind == PASS:
                offset = ROUNDS[rnd][1]
                info["direction"] = DIRECTIONS[offset]
                info["to"] = (self.to_act + offset) % 4
            else:
                info["round"] = rnd // 2 + 1
        elif self.hunt is not None:
            info["rank"] = RANKS[self.hunt.rank]
        return info
