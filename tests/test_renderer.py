"""The API's renderer (config.renderers, orjson) writes what DRF's own JSONRenderer writes."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer as DrfRenderer

from config.renderers import JSONRenderer

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.text(),  # every character, U+2028 and U+2029 and controls included
)
_data = st.recursive(
    _scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4), max_leaves=20
)


@given(_data)
def test_the_bytes_are_drfs(data: Any) -> None:
    assert JSONRenderer().render(data) == DrfRenderer().render(data)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_is_the_same_number(value: float) -> None:
    assert json.loads(JSONRenderer().render({"x": value})) == json.loads(DrfRenderer().render({"x": value}))


def test_what_orjson_does_not_take_is_rendered_as_drf_renders_it() -> None:
    moment = dt.datetime(2026, 12, 7, 1, 2, 3, 456789, tzinfo=dt.UTC)
    for data in (
        {"at": moment, "day": moment.date(), "n": decimal.Decimal("1.50"), "id": uuid.UUID(int=7)},
        {"big": 2**70},  # past 64 bits
        {1: "a key that is no string"},
        None,
    ):
        assert JSONRenderer().render(data) == DrfRenderer().render(data)
    indented = JSONRenderer().render({"a": [1]}, "application/json; indent=2")
    assert indented == DrfRenderer().render({"a": [1]}, "application/json; indent=2") and b"\n" in indented
