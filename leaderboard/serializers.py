"""Board shapes shared by the public boards (leaderboard.apis) and the league boards (leagues.apis)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

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


def game_links(attempt_id: int | None) -> dict[str, Any]:
    """The links of a public game (``games.selectors.attempt_is_public``): its replay and its review."""
    if attempt_id is None:
        return {"attempt": None, "replay": None, "review": None}
    return {
        "attempt": attempt_id,
        "replay": f"/api/v1/attempts/{attempt_id}/replay",
        "review": f"/api/v1/attempts/{attempt_id}/review",
    }


def entry_data(entry: Any, attempts: dict[int, int] | None = None) -> dict[str, Any]:
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
        "finished_at": _DATETIME.to_representation(entry.finished_at),
        "assisted": entry.assisted,
        **game_links(None if attempts is None else attempts.get(entry.result_id)),
    }


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
