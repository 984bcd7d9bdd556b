"""The player's own account: ``GET /me/export`` (everything we hold, as a JSON download) and
``POST /me/delete`` (self-service deletion, with the password and a confirmation). Both need a login
(a token or the session); nobody reaches another player's data through them: ``me`` is the caller."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import logout
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selfservice, services
from core.auth import request_player
from games.fields import StrictStringField, validated

DELETE_INPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "password": {
            "type": "string",
            "maxLength": 256,
            "pattern": "^[^\\u0000]*$",
            "description": "A guest has none.",
        },
        "confirm": {"type": "boolean", "description": "true: yes, delete everything for good."},
    },
    "required": ["confirm"],
    "additionalProperties": False,
}


class MeExportApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "auth"

    @extend_schema(
        operation_id="me_export",
        responses={200: OpenApiTypes.OBJECT},
        description=(
            "Everything the service holds about the caller, as a JSON file: the account, every attempt with "
            "its move log, submission and result, the fair-play cases of their results and those of other "
            "players' results that name them (other players' names left out), statistics, leagues and API tokens "
            "(their creation dates, never a key)."
        ),
    )
    def get(self, request: Request) -> Response:
        player = request_player(request)
        response = Response(services.player_export(player=player))
        response["Content-Disposition"] = f'attachment; filename="daily-patience-{player.pk}.json"'
        return response


class MeDeleteApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_scope = "auth"

    class InputSerializer(serializers.Serializer[Any]):
        password = StrictStringField(max_length=256, required=False, default="", help_text="A guest has none.")
        confirm = serializers.BooleanField(help_text="true: yes, delete everything for good.")

        def to_internal_value(self, data: object) -> dict[str, object]:
            if isinstance(data, dict):
                if unknown := sorted(set(data) - {"password", "confirm"}):
                    # ``me`` is the caller, always: a body naming anyone (``username``) is refused, not ignored.
                    raise serializers.ValidationError(
                        {k: ["Unknown field: the body is {password, confirm}."] for k in unknown}
                    )
                if not isinstance(data.get("confirm", False), bool):
                    raise serializers.ValidationError({"confirm": ["true or false (a JSON boolean)."]})
            return dict(super().to_internal_value(data))

    @extend_schema(
        operation_id="me_delete",
        # By hand: the serializer's own schema would allow other fields, which the server refuses.
        request={"application/json": DELETE_INPUT_SCHEMA},
        responses={
            204: None,
            400: OpenApiResponse(description="not confirmed (confirm: true), or bad input"),
            403: OpenApiResponse(description="wrong password"),
            429: OpenApiResponse(description="too many wrong passwords: the login limits apply"),
        },
        description=(
            "Deletes the caller's account for good: games, results (off every board; the other players' "
            "ranks close up), statistics, tokens, memberships; their name leaves other players' fair-play "
            "cases; a league they own passes to its longest-standing other member, or is deleted if they "
            "were alone."
        ),
    )
    def post(self, request: Request) -> Response:
        player = request_player(request)
        data = validated(self.InputSerializer, request.data)
        selfservice.account_delete_self(
            request=request, player=player, password=str(data["password"]), confirmed=bool(data["confirm"])
        )
        if hasattr(request._request, "session"):
            logout(request._request)  # a browser's session ends with its account
        return Response(status=204)
