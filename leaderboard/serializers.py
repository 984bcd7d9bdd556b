"""Board shapes shared by the public boards (leaderboard.apis) and the boards kept to some players (leagues.apis,
follows.apis)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, TypeVar

from django.conf import settings
from django.urls import get_script_prefix, reverse
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import ISO_8601, serializers
from rest_framework.settings import api_settings

from games.apis import CHALLENGE_PATH

DEFAULT_LIMIT, MAX_LIMIT = 50, 200

# The two boards of a day (SPEC section 7): the day's board ranks the unassisted ranked results; the
# second ranks every ranked result, the assisted ones marked.
DAY_BOARD, ALL_BOARD = "day", "all"
BOARDS = [DAY_BOARD, ALL_BOARD]
MAX_OFFSET = 1_000_000_000  # far past any board, and a number every database takes


@extend_schema_serializer(component_name="LeaderboardEntry")
class EntrySerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    won = serializers.BooleanField()
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    play_time_ms = serializers.IntegerField()
    time = serializers.FloatField(source="seconds", help_text="Play time in seconds.")
    finished_at = serializers.DateTimeField()
    assisted = serializers.BooleanField(
        help_text="A hint was used, or an undo took back a move that showed a hidden card: on the `all` board only."
    )
    attempt = serializers.IntegerField(
        allow_null=True,
        default=None,
        help_text="The game's attempt id once its day is over (ranked games are public then); null before.",
    )
    replay = serializers.CharField(
        allow_null=True, default=None, help_text="Where the game is watched, once its day is over."
    )
    review = serializers.CharField(
        allow_null=True, default=None, help_text="Where its review is read, once its day is over."
    )


_DATETIME = serializers.DateTimeField()


def datetime_writer() -> Callable[[dt.datetime], str]:
    """``DateTimeField().to_representation`` for aware datetimes in the API's ISO 8601 (the default; DRF's
    field otherwise), in the current time zone (looked up once: a page writes 50 times), ``Z`` for UTC."""
    if not settings.USE_TZ or api_settings.DATETIME_FORMAT != ISO_8601:
        return _drf_datetime
    zone = timezone.get_current_timezone()

    def write(value: dt.datetime) -> str:
        if value.tzinfo is None:
            return _drf_datetime(value)
        try:
            text = value.astimezone(zone).isoformat()
        except OverflowError:  # (at the ends of time: DRF's field says so its own way)
            return _drf_datetime(value)
        return text[:-6] + "Z" if text.endswith("+00:00") else text

    return write


def _drf_datetime(value: dt.datetime) -> str:
    return str(_DATETIME.to_representation(value))


_LINK_STAND_IN = 918273645  # an attempt id in a reversed URL, replaced by the real one


@lru_cache(maxsize=16)
def _link_templates(script_prefix: str) -> tuple[str, str]:
    """The replay and review URLs with ``{}`` for the attempt id, reversed once per script prefix (a board
    page links 50 games: reversing each cost more than the rest of the entry)."""
    kwargs = {"attempt_id": _LINK_STAND_IN}
    return (
        reverse("attempt-replay", kwargs=kwargs).replace(str(_LINK_STAND_IN), "{}"),
        reverse("attempt-review", kwargs=kwargs).replace(str(_LINK_STAND_IN), "{}"),
    )


def game_links(attempt_id: int | None) -> dict[str, Any]:
    """The links of a public game (``games.selectors.attempt_is_public``): its replay and its review."""
    if attempt_id is None:
        return {"attempt": None, "replay": None, "review": None}
    replay, review = _link_templates(get_script_prefix())
    return {"attempt": attempt_id, "replay": replay.format(attempt_id), "review": review.format(attempt_id)}


def entry_data(
    entry: Any, attempts: dict[int, int] | None = None, write_datetime: Callable[[dt.datetime], str] | None = None
) -> dict[str, Any]:
    """EntrySerializer's shape, built directly (a board page is 50 of them: DRF's field machinery
    cost more than the rest of the request). ``tests`` hold the two to the same output. ``attempts``
    maps result ids to their attempts' ids, given only once the day is over: before, no entry links."""
    return {
        "rank": entry.rank,
        "player": entry.player,
        "won": entry.won,
        "score": entry.score,
        "moves": entry.moves,
        "play_time_ms": entry.play_time_ms,
        "time": entry.play_time_ms / 1000,
        "finished_at": (write_datetime or datetime_writer())(entry.finished_at),
        "assisted": entry.assisted,
        **game_links(None if attempts is None else attempts.get(entry.result_id)),
    }


def board_data(view: Any) -> dict[str, Any]:
    """The board endpoint's answer (``leaderboard.apis.LeaderboardApi.OutputSerializer``'s shape) for a
    ``leaderboard.selectors.boards.BoardView``, built directly like :func:`entry_data`; ``me`` only for a
    logged-in caller. ``tests`` hold it to the serializer's output."""
    write = datetime_writer()
    data: dict[str, Any] = {
        "date": view.date.isoformat(),
        "game": view.game,
        "board": DAY_BOARD if view.clean else ALL_BOARD,
        "total": view.total,
        "offset": view.offset,
        "limit": view.limit,
        "entries": [entry_data(e, view.attempts, write) for e in view.entries],
    }
    if view.me is not None:
        entry = None if view.me.entry is None else entry_data(view.me.entry, view.attempts, write)
        data["me"] = {"rank": view.me.rank, "entry": entry}
    return data


class QueryInput(serializers.Serializer[Any]):
    """A query's parameters: one given empty (``?offset=``) is refused, not read as its default."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if hasattr(data, "getlist"):
            blank: dict[str, list[str]] = {
                str(name): ["This parameter is empty: give a value, or leave it out for the default."]
                for name in self.fields
                if "" in data.getlist(name)
            }
            if blank:
                raise serializers.ValidationError(blank)
        internal: dict[str, Any] = super().to_internal_value(data)
        return internal


class PageInput(QueryInput):
    limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT, required=False)
    offset = serializers.IntegerField(min_value=0, max_value=MAX_OFFSET, default=0, required=False)


class BoardPageInput(PageInput):
    board = serializers.ChoiceField(
        choices=BOARDS,
        default=DAY_BOARD,
        required=False,
        help_text="`day` (the default): unassisted ranked results only. `all`: every ranked result, the assisted "
        "ones marked.",
    )


_View = TypeVar("_View", bound=Callable[..., Any])


def board_page_schema(
    *,
    operation_id: str,
    output: type[serializers.Serializer[Any]],
    not_found: str,
    description: str,
    parameters: Sequence[OpenApiParameter] = (),
) -> Callable[[_View], _View]:
    """The schema of a page of a day's board kept to some players (a league's members, the caller's friends):
    ``parameters`` of the path before the day and the game, the page's query (:class:`BoardPageInput`), and
    its answers (``not_found``: what a 404 means there)."""
    return extend_schema(
        operation_id=operation_id,
        parameters=[*parameters, *CHALLENGE_PATH, BoardPageInput],
        responses={
            200: output,
            400: OpenApiResponse(description="bad date, game, limit or offset"),
            404: OpenApiResponse(description=not_found),
        },
        description=description,
    )
