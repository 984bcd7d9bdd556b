"""Board shapes shared by the public boards (leaderboard.apis) and the league boards (leagues.apis)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

DEFAULT_LIMIT, MAX_LIMIT = 50, 200
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
    assisted = serializers.BooleanField(help_text="A hint was used.")


class PageInput(serializers.Serializer):
    limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT, required=False)
    offset = serializers.IntegerField(min_value=0, max_value=MAX_OFFSET, default=0, required=False)
