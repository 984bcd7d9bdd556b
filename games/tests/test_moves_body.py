"""The moves body checked by hand (games.fields.moves_body) accepts only what MovesInput accepts, and
reads it the same: the serializer stays the definition, the hand check a shortcut for the common body."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine import MAX_LOG_LENGTH
from games.fields import MovesInput, moves_body

_texts = st.one_of(st.text(max_size=70), st.sampled_from(["s", "t1f2", "w t3", "", "\x00", "a" * 64, "a" * 65]))
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    _texts,
)
_moves = st.one_of(st.lists(_texts, max_size=5), st.lists(st.one_of(_texts, _scalars), max_size=5), _scalars)
_bodies = st.one_of(
    st.fixed_dictionaries({"from": _scalars, "moves": _moves}),
    st.fixed_dictionaries({"from": _scalars, "moves": _moves}, optional={"extra": _scalars}),
    st.dictionaries(st.sampled_from(["from", "moves", "x"]), st.one_of(_scalars, _moves), max_size=3),
    st.lists(_scalars, max_size=2),
    _scalars,
)


def _serializer(data: Any) -> tuple[int, list[str]] | None:
    if not isinstance(data, dict):
        return None
    serializer = MovesInput(data=data)
    if not serializer.is_valid():
        return None
    return serializer.validated_data["from"], serializer.validated_data["moves"]


@given(_bodies)
def test_the_hand_check_accepts_only_what_the_serializer_accepts(data: Any) -> None:
    fast = moves_body(data)
    if fast is not None:
        assert fast == _serializer(data)


@given(st.integers(min_value=0, max_value=10**20), st.lists(st.text(max_size=64).filter(lambda t: "\x00" not in t)))
def test_the_common_body_takes_the_hand_check(start: int, moves: list[str]) -> None:
    assert moves_body({"from": start, "moves": moves}) == (start, moves) == _serializer({"from": start, "moves": moves})


def test_the_limits_are_the_serializers() -> None:
    for body in (
        {"from": 0, "moves": ["s"] * (MAX_LOG_LENGTH + 1)},
        {"from": 0, "moves": ["a" * 65]},
        {"from": -1, "moves": []},
        {"from": True, "moves": []},
        {"from": 0, "moves": [1]},
        {"from": 0, "moves": "s"},
        {"from": 0, "moves": ["s\x00"]},
    ):
        assert moves_body(body) is None and _serializer(body) is None
    assert moves_body({"from": 0, "moves": ["s"] * MAX_LOG_LENGTH}) is not None
