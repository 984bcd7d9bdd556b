"""The API of a player's days: GET /api/v1/me/calendar (the month calendar) and GET/PUT
/api/v1/me/reminder (the streak reminder's settings)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.auth import request_player
from games.errors import BadRequest
from games.fields import validated, validated_query
from games.services import player_is_guest
from habits import selectors, services


class CalendarApi(APIView):
    """The caller's days of one month: per day, the ranked results counted (won, played) of one game or of
    every game together, and the current streak (of that game, or over every game)."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        month = serializers.CharField(required=False, help_text="YYYY-MM; this month by default.")
        game = serializers.CharField(required=False, help_text="A game id; every game by default.")

    class DayOutput(serializers.Serializer):
        date = serializers.DateField()
        status = serializers.ChoiceField(choices=["won", "lost", "none", "future"])
        played = serializers.IntegerField()
        won = serializers.IntegerField()
        challenges = serializers.IntegerField(help_text="The day's challenges (of the game: 0 or 1).")
        games = serializers.ListField(child=serializers.DictField(), help_text="[{game, name, won}]")

    class OutputSerializer(serializers.Serializer):
        month = serializers.DateField()
        game = serializers.CharField(allow_null=True)
        previous = serializers.DateField()
        next = serializers.DateField(allow_null=True)
        streak = serializers.IntegerField()
        days = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        operation_id="my_calendar",
        parameters=[OpenApiParameter("month", str), OpenApiParameter("game", str)],
        responses=OutputSerializer,
    )
    def get(self, request: Request) -> Response:
        query = validated_query(self.InputSerializer, request)
        month, game = selectors.month_parse(month=query.get("month"), game=query.get("game"))
        found = selectors.player_month(player=request_player(request), month=month, game=game)
        data = {
            "month": found.month,
            "game": found.game,
            "previous": found.previous,
            "next": found.next,
            "streak": found.streak,
            "days": [self.DayOutput(d).data for d in found.days],
        }
        return Response(self.OutputSerializer(data).data)


class ReminderSerializer(serializers.Serializer):
    enabled = serializers.BooleanField()
    remind_at = serializers.TimeField(format="%H:%M", help_text="HH:MM, in time_zone.")
    time_zone = serializers.CharField(max_length=64, help_text="IANA name, e.g. Europe/Paris.")
    address_confirmed = serializers.BooleanField(
        read_only=True, help_text="Nothing is sent without a confirmed e-mail address on the account."
    )


class ReminderApi(APIView):
    """The caller's e-mail reminder before a streak ends: off until turned on; sent once a day at most, at the
    time chosen in the caller's zone, only while a streak is at risk and only to a confirmed address."""

    permission_classes = [IsAuthenticated]

    def _data(self, request: Request) -> dict[str, object]:
        player = request_player(request)
        reminder = selectors.reminder_of(player=player)
        return dict(
            ReminderSerializer(
                {
                    "enabled": bool(reminder and reminder.enabled),
                    "remind_at": reminder.remind_at if reminder else services.DEFAULT_TIME,
                    "time_zone": reminder.time_zone if reminder else "UTC",
                    "address_confirmed": bool(player.email),
                }
            ).data
        )

    @extend_schema(operation_id="my_reminder", responses=ReminderSerializer)
    def get(self, request: Request) -> Response:
        return Response(self._data(request))

    @extend_schema(operation_id="my_reminder_set", request=ReminderSerializer, responses=ReminderSerializer)
    def put(self, request: Request) -> Response:
        player = request_player(request)
        if player_is_guest(player):
            raise BadRequest("a guest has no e-mail address: sign up first")
        body = validated(ReminderSerializer, request.data)
        if body["enabled"] and not player.email:
            raise BadRequest("add and confirm an e-mail address first (your account page)")
        services.reminder_set(
            player=player, enabled=body["enabled"], remind_at=body["remind_at"], time_zone=body["time_zone"]
        )
        return Response(self._data(request))
