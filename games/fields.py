"""Serializer fields that refuse what they do not expect instead of coercing it."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from django.core.validators import RegexValidator
from django.http import QueryDict
from rest_framework import serializers

from engine import GAME_IDS, MAX_LOG_LENGTH
from games.errors import BadRequest

# DRF's CharField refuses NUL characters; the schema says so (a pattern), as it says any other one.
NO_NUL = r"^[^\x00]*\Z"


class StrictStringField(serializers.CharField):
    """A JSON string: a number or a boolean is a type error, not silently turned into text.

    ``pattern`` (a regular expression the value must match, NUL-free by default) is checked and is
    the schema's ``pattern``: what the schema allows is what is accepted. It applies to the value as
    checked, trimmed if ``trim_whitespace``: a pattern for a trimmed field allows surrounding spaces."""

    def __init__(
        self, *, pattern: str = NO_NUL, pattern_message: str = "Null characters are not allowed.", **kwargs: Any
    ) -> None:
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("allow_blank", True)
        super().__init__(**kwargs)
        self.validators.append(RegexValidator(pattern, pattern_message))

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer: "3", 3.0 and true are refused."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


MAX_MOVE_TEXT = 64  # characters of one move's text (the longest real one is under 10)


def moves_body(data: Any) -> tuple[int, list[str]] | None:
    """The common moves body (``{"from": n, "moves": [...]}`` and nothing else), checked by hand: the
    ``from`` and ``moves`` the serializer (``MovesInput``) returns for it, or None for anything else,
    which the serializer then decides, errors included. It accepts only what the serializer accepts
    (tests/test_moves_body.py holds it to that): a batch is the hot path of play, and running a
    serializer over each move costs more than the batch's own work."""
    if type(data) is not dict or len(data) != 2:
        return None
    start, moves = data.get("from"), data.get("moves")
    if type(start) is not int or start < 0 or type(moves) is not list or len(moves) > MAX_LOG_LENGTH:
        return None
    for move in moves:
        if type(move) is not str or len(move) > MAX_MOVE_TEXT or "\x00" in move:
            return None
    return start, moves


def move_list(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(
        child=StrictStringField(max_length=MAX_MOVE_TEXT), max_length=MAX_LOG_LENGTH, allow_empty=True, **kwargs
    )


class MovesInput(serializers.Serializer[Any]):
    """A batch of moves (``POST /attempts/{id}/moves``): the definition of the body :func:`moves_body`
    reads by hand."""

    moves = move_list()

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["from"] = StrictIntegerField(min_value=0, help_text="The log length the client believes.")
        return fields


def game_field(**kwargs: Any) -> serializers.ChoiceField:
    """A game id: an enum in the schema (``GameEnum``)."""
    return serializers.ChoiceField(choices=list(GAME_IDS), **kwargs)


def validated_query(serializer_class: type[serializers.Serializer[Any]], request: Any) -> dict[str, Any]:
    """``validated(serializer_class, request.query_params)``, remembered per query string.

    A query's validation depends on its text alone, and a hot read (a board's top page) sees the same
    few texts again and again: the serializer runs once per text (errors are not remembered, so a bad
    query is checked, and answered, each time).
    """
    if request.encoding not in (None, "utf-8"):
        return validated(serializer_class, request.query_params)
    return dict(_validated_query_text(serializer_class, request.META.get("QUERY_STRING", "")))


@lru_cache(maxsize=512)
def _validated_query_text(serializer_class: type[serializers.Serializer[Any]], query: str) -> Mapping[str, Any]:
    return MappingProxyType(validated(serializer_class, QueryDict(query)))


def validated(serializer_class: type[serializers.Serializer[Any]], data: Any) -> dict[str, Any]:
    """Input checked by a serializer: a body or query that is not an object, or fails it, is a 400."""
    if not isinstance(data, Mapping):
        raise BadRequest("the request body is a JSON object")
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
