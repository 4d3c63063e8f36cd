"""What changed between two views of one recipient: the ``patch`` and ``gone`` of a
``delta`` message (docs/protocol.md), and how a client applies them.

Generic and rule-free: it compares JSON-ready values (dicts, lists, scalars, and
``orjson.Fragment``s, cached encodings compared by identity). A patch mirrors the state:
an object holding the keys that changed, where a value that is an object patches the
object (or list: its keys are then indexes) already there, and any other value replaces
what was there. Dicts are compared key by key; a list of dicts of the same length item
by item (``seats``: one seat's flag is one key); any other value that changed is sent
whole. ``gone`` lists the paths (keys and indexes from the top) of keys that were
removed, and is applied first; an object that replaces something a client would patch
instead (an object or a list) is sent whole after its path is in ``gone``, and so is an
object that lost keys and kept none unchanged (Dingo's ``decision`` when the kind of
decision changes): one path instead of one per removed key. Every value
sent comes from the new view, so a patch between two views of one recipient shows it
nothing its own view does not.

Values are compared with ``==`` after an identity check (unchanged parts of a view are
often the very same objects); a changed object or list is then compared key by key. So
Python's ``0 == False`` holds inside a value: a view never turns a number into a
boolean (or back) in place, or the change would not be sent.
"""

from __future__ import annotations

from typing import Any

Path = tuple[str | int, ...]
Gone = list[list[str | int]]
#: Values a client never patches into: it always replaces them.
_PLAIN = frozenset({str, int, float, bool, type(None)})


class _Same:
    """Nothing changed (never part of a patch)."""

    def __repr__(self) -> str:
        return "SAME"


SAME: Any = _Same()


def change(old: Any, new: Any, path: Path, gone: Gone) -> Any:
    """What to put at ``path`` (where a client holds ``old``) so that it holds ``new``: a
    patch (a dict), ``new`` itself, or ``SAME``. Keys removed on the way go to ``gone``."""
    if old is new:
        return SAME
    kind = type(new)
    if kind is dict and type(old) is dict:
        if old == new:  # one comparison in C before any key by key
            return SAME
        patch: dict[str, Any] = {}
        kept = 0
        below = len(gone)  # where the paths under this one start
        for key, value in new.items():
            if key in old:
                kept += 1
                before = old[key]
                if before is value:
                    continue
                value_type = type(value)
                if value_type is type(before) and (
                        value_type in _PLAIN or (value_type is list and not (
                            value and len(value) == len(before) and type(value[0]) is dict))):
                    # A scalar, or a list that is sent whole when it changed (not patched
                    # item by item: see below): most keys of a view, compared without a call.
                    if before != value:
                        patch[key] = value
                    continue
                changed = change(before, value, (*path, key), gone)
                if changed is not SAME:
                    patch[key] = changed
            else:
                patch[key] = value
        if kept < len(old):
            if (len(patch) == len(new) and path and type(path[-1]) is str
                    and all(patch[key] is value for key, value in new.items())):
                # Every key is new or sent whole anyway: one path in ``gone`` and the
                # object itself say it in fewer bytes than a path per removed key (not in
                # a list: removing an item would shift the indexes after it).
                del gone[below:]
                gone.append(list(path))
                return new
            gone.extend([*path, key] for key in old if key not in new)
        return patch or SAME
    if (kind is list and type(old) is list and len(old) == len(new) and new
            and type(new[0]) is dict):
        if old == new:
            return SAME
        items: dict[str, Any] = {}
        for index, value in enumerate(new):
            before = old[index]
            if before is not value:
                if _replaces_container(before, value):
                    return new  # an item cannot be removed first: indexes would shift
                changed = change(before, value, (*path, index), gone)
                if changed is not SAME:
                    items[str(index)] = changed
        return items or SAME
    if type(old) is kind and old == new:
        return SAME
    if _replaces_container(old, new):
        gone.append(list(path))
    return new


def _replaces_container(old: Any, new: Any) -> bool:
    """Sending ``new`` whole where a client holds ``old`` would patch ``old`` instead."""
    return (type(old) not in _PLAIN and type(new) not in _PLAIN and type(new) is not list
            and not (type(old) is dict and type(new) is dict))


def apply(state: Any, patch: dict[str, Any], gone: list[list[Any]]) -> None:
    """Apply a delta's ``gone``, then its ``patch``, to ``state`` in place (what every
    client does; the browser's copy is ``static/js/patch.js``)."""
    for path in gone:
        node = state
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    _merge(state, patch)


def _merge(target: Any, patch: dict[str, Any]) -> None:
    in_list = type(target) is list
    for key, value in patch.items():
        slot = int(key) if in_list else key
        there = target[slot] if in_list or key in target else None
        if type(value) is dict and type(there) in (dict, list):
            _merge(there, value)
        else:
            target[slot] = value
