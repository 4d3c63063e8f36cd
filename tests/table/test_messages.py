"""``messages.merge``: how a state shares one encoding among its recipients."""

from __future__ import annotations

import orjson
import pytest

from app.table import messages


@pytest.mark.parametrize(("shared", "own"), [
    ({"type": "state", "v": 3, "seats": [1, None]}, {"game": {"hand": ["7H"]}, "events": []}),
    ({}, {"seat": 2}),
    ({"seat": None}, {}),
    ({}, {}),
])
def test_merge_is_the_union_of_both_objects(shared: dict, own: dict) -> None:
    merged = messages.merge(orjson.dumps(shared), own)
    assert orjson.loads(merged) == {**shared, **own}


def test_an_embedded_encoding_goes_into_a_message_as_it_is() -> None:
    inner = messages.merge(orjson.dumps({"a": [1, 2]}), {"b": "x"})
    data = messages.encode({"game": messages.embed(inner), "events": []})
    assert orjson.loads(data) == {"game": {"a": [1, 2], "b": "x"}, "events": []}
