"""``patch.change`` and ``patch.apply``: the patch from one JSON value to another leads there."""

from __future__ import annotations

import copy
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from app.table import patch

#: No booleans among numbers: ``0 == False`` (``patch``'s note).
SCALARS = st.none() | st.integers(-3, 3) | st.sampled_from(["a", "b", "7H"])
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from("abcd"), inner, max_size=4), max_leaves=20)
STATES = st.dictionaries(st.sampled_from(["game", "seats", "to_act", "timer"]), JSON, max_size=4)


def patched(old: dict[str, Any], new: dict[str, Any]) -> tuple[dict[str, Any], Any, list[Any]]:
    """``old`` after the patch to ``new``, as a client gets it (encoded); the patch, gone."""
    gone: patch.Gone = []
    changes = patch.change(old, new, (), gone)
    changes = {} if changes is patch.SAME else changes
    state = copy.deepcopy(old)
    patch.apply(state, orjson.loads(orjson.dumps(changes)), orjson.loads(orjson.dumps(gone)))
    return state, changes, gone


@given(STATES, STATES)
def test_the_patch_turns_the_old_value_into_the_new(old: dict[str, Any], new: dict[str, Any]
                                                    ) -> None:
    state, changes, gone = patched(old, new)
    assert orjson.dumps(state, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
        new, option=orjson.OPT_SORT_KEYS)
    if old == new:
        assert changes == {} and gone == []


def test_a_changed_seat_flag_is_one_key_and_a_changed_hand_is_replaced_whole() -> None:
    seats = [{"seat": 0, "ready": False}, {"seat": 1, "ready": False}]
    old = {"seats": seats, "game": {"hand": ["2C", "3C"], "gone": 1, "dealer": 0}}
    new = {"seats": [seats[0], {"seat": 1, "ready": True}],
           "game": {"hand": ["3C"], "dealer": 0}}
    state, changes, gone = patched(old, new)
    assert changes == {"seats": {"1": {"ready": True}}, "game": {"hand": ["3C"]}}
    assert gone == [["game", "gone"]] and state == new


def test_an_object_that_lost_keys_and_kept_none_unchanged_is_replaced_whole() -> None:
    """Dingo's decision from a discard to a pass: one path in ``gone``, not one per key."""
    old = {"game": {"decision": {"kind": "discard", "seat": 2, "round": 3, "x": {"a": [1]}},
                    "dealer": 0}}
    new = {"game": {"decision": {"kind": "pass", "seat": 3, "direction": "left", "to": 0},
                    "dealer": 0}}
    state, changes, gone = patched(old, new)
    assert gone == [["game", "decision"]]
    assert changes == {"game": {"decision": new["game"]["decision"]}} and state == new
    # One key kept as it was: patched key by key, the removed keys listed.
    new["game"]["decision"]["seat"] = 2
    state, changes, gone = patched(old, new)
    assert gone == [["game", "decision", "round"], ["game", "decision", "x"]]
    assert changes == {"game": {"decision": {"kind": "pass", "direction": "left", "to": 0}}}
    assert state == new


def test_an_item_of_a_list_is_never_removed_to_be_replaced() -> None:
    """Removing an item would shift the later ones: the list is patched, or sent whole."""
    old = {"seats": [{"a": 1, "b": 2}, {"a": 1}]}
    new = {"seats": [{"c": 3}, {"a": 1}]}
    state, changes, gone = patched(old, new)
    assert state == new
    assert changes == {"seats": {"0": {"c": 3}}}
    assert gone == [["seats", 0, "a"], ["seats", 0, "b"]]


def test_an_object_that_replaces_a_list_or_an_object_is_sent_whole_after_its_removal() -> None:
    for before in ([1, 2], {"a": 1}, orjson.Fragment(b'{"a":1}')):
        old, new = {"x": before}, {"x": orjson.Fragment(b'{"b":2}')}
        gone: patch.Gone = []
        assert patch.change(old, new, (), gone) == {"x": new["x"]}
        assert gone == [["x"]]
