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
class EntrySerializer(serializers.Serializer):
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


_DATETIME = serializers.DateTimeField()


def entry_data(entry: Any) -> dict[str, Any]:
    """EntrySerializer's shape, built directly (a board page is 50 of them: DRF's field machinery
    cost more than the rest of the request). ``tests`` hold the two to the same output."""
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
    }


class QueryInput(serializers.Serializer):
    """A query's parameters: one given empty (``?offset=``) is refused, not read as its default."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if hasattr(data, "getlist"):
            blank: dict[str, list[str]] = {
                str(name): ["This parameter is empty: give a value, or leave it out for the default."]
                for name in self.fields if "" in data.getlist(name)
            }
            if blank:
                raise serializers.ValidationError(blank)
        return super().to_internal_value(data)


class PageInput(QueryInput):
    limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT, required=False)
    offset = serializers.IntegerField(min_value=0, max_value=MAX_OFFSET, default=0, required=False)


class BoardPageInput(PageInput):
    board = serializers.ChoiceField(
        choices=BOARDS, default=DAY_BOARD, required=False,
        help_text="`day` (the default): unassisted ranked results only. `all`: every ranked result, the assisted "
        "ones marked.",
    )
