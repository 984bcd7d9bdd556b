"""The API of a player's days: GET /api/v1/me/calendar (the month calendar) and GET/PUT
/api/v1/me/reminder (the streak reminder's settings)."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.auth import request_player
from games.errors import BadRequest, Conflict
from games.fields import StrictStringField, game_field, validated, validated_query
from games.services import player_is_guest
from habits import selectors, services

MONTH_PATTERN = r"^20[0-9]{2}-(0[1-9]|1[0-2])$"


class CalendarApi(APIView):
    """The caller's days of one month: per day, the ranked results counted (won, played) of one game or of
    every game together, and the current streak (of that game, or over every game)."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer[Any]):
        month = serializers.RegexField(
            MONTH_PATTERN,
            required=False,
            help_text="YYYY-MM (2000 on); this month by default. A month to come: every day of it is `future`.",
        )
        game = game_field(required=False, help_text="A game id; every game by default.")

    @extend_schema_serializer(component_name="CalendarDay")
    class DayOutput(serializers.Serializer[Any]):
        date = serializers.DateField()
        status = serializers.ChoiceField(choices=["won", "lost", "none", "future"])
        played = serializers.IntegerField()
        won = serializers.IntegerField()
        challenges = serializers.IntegerField(help_text="The day's challenges (of the game: 0 or 1).")
        games = serializers.ListField(child=serializers.DictField(), help_text="[{game, name, won}]")

    @extend_schema_serializer(component_name="MonthCalendar")
    class OutputSerializer(serializers.Serializer[Any]):
        month = serializers.DateField()
        game = serializers.CharField(allow_null=True)
        previous = serializers.DateField()
        next = serializers.DateField(allow_null=True)
        streak = serializers.IntegerField()
        days = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        operation_id="my_calendar",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, 400: OpenApiResponse(description="a month or game that is not one")},
    )
    def get(self, request: Request) -> Response:
        if any(value == "" for value in request.query_params.values()):
            raise BadRequest("a query parameter is empty: leave it out instead")  # DRF would take it as absent
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


class StrictBooleanField(serializers.BooleanField):
    """A JSON boolean: 0, 1, "true" and "yes" are refused (what the schema allows is what is accepted)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


@extend_schema_serializer(component_name="Reminder")
class ReminderSerializer(serializers.Serializer[Any]):
    enabled = StrictBooleanField()
    remind_at = StrictStringField(
        pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$", allow_blank=False, help_text="HH:MM, in time_zone."
    )
    time_zone = serializers.ChoiceField(
        choices=sorted(zoneinfo.available_timezones()), help_text="IANA name, e.g. Europe/Paris."
    )
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
                    "remind_at": f"{reminder.remind_at if reminder else services.DEFAULT_TIME:%H:%M}",
                    "time_zone": reminder.time_zone if reminder else "UTC",
                    "address_confirmed": bool(player.email),
                }
            ).data
        )

    @extend_schema(operation_id="my_reminder", responses=ReminderSerializer)
    def get(self, request: Request) -> Response:
        return Response(self._data(request))

    @extend_schema(
        operation_id="my_reminder_set",
        request=ReminderSerializer,
        responses={
            200: ReminderSerializer,
            409: OpenApiResponse(description="a guest (sign up first), or turning it on without a confirmed address"),
        },
    )
    def put(self, request: Request) -> Response:
        player = request_player(request)
        body = validated(ReminderSerializer, request.data)
        if player_is_guest(player=player):
            raise Conflict("a guest has no e-mail address: sign up first")
        if body["enabled"] and not player.email:
            raise Conflict("add and confirm an e-mail address first (your account page)")
        services.reminder_set(
            player=player,
            enabled=body["enabled"],
            remind_at=dt.time.fromisoformat(body["remind_at"]),
            time_zone=body["time_zone"],
        )
        return Response(self._data(request))
