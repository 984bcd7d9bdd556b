"""Ratings endpoints: public reads, like the profile they belong to."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import NotFound
from engine import GAME_IDS
from games.fields import game_field, validated
from games.models import Guest
from games.selectors import parse_game
from ratings.selectors import HISTORY_DAYS, player_rating_history, player_ratings

USERNAME_MAX_LENGTH = 150


class RatedPlayerNotFound(NotFound):
    code = "not_found"


def rated_player(username: str) -> User:
    """The player of a path's username; 404 for an unknown name, or one no player can have (a NUL byte)."""
    model = get_user_model()
    found = None
    if "\x00" not in username and len(username) <= USERNAME_MAX_LENGTH:
        found = model._default_manager.filter(**{model.USERNAME_FIELD: username}).first()
    if found is None:
        raise RatedPlayerNotFound(f"There is no player named {username[:USERNAME_MAX_LENGTH]!r}.")
    return found


@extend_schema_serializer(component_name="PlayerRating")
class RatingOutput(serializers.Serializer[Any]):
    game = game_field()
    rating = serializers.IntegerField(
        help_text="The shown rating: OpenSkill's conservative estimate (mu - 3 sigma) x 40 + 1000; a new player "
        "shows 1000."
    )
    mu = serializers.FloatField(
        help_text="The model's estimate of the skill (Weng-Lin Bradley-Terry, partial pairing; starts at 25)."
    )
    sigma = serializers.FloatField(help_text="Its uncertainty (starts at 25/3, shrinks as days are rated).")
    days = serializers.IntegerField(help_text="Days rated in this game.")
    last_day = serializers.DateField(help_text="The last day rated.")


@extend_schema_serializer(component_name="PlayerRatingPoint")
class RatingPointOutput(serializers.Serializer[Any]):
    date = serializers.DateField()
    rating = serializers.IntegerField(help_text="The shown rating after the day.")
    change = serializers.IntegerField(help_text="Against the rating before the day.")
    rank = serializers.IntegerField(help_text="The place that day among the players rated (ties share one).")
    players = serializers.IntegerField(help_text="Players rated that day.")


class PlayerRatingsApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="player_ratings",
        responses={200: RatingOutput(many=True), 404: OpenApiResponse(description="no such player")},
        description="The player's rating in each game rated at least once (as in GET /players/{username}).",
    )
    def get(self, request: Request, username: str) -> Response:
        return Response(RatingOutput(player_ratings(player=rated_player(username)), many=True).data)


class PlayerRatingHistoryApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="PlayerRatingHistory")
    class OutputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField()
        game = game_field()
        history = RatingPointOutput(many=True, help_text="After each rated day, oldest first.")

    class QueryInput(serializers.Serializer[Any]):
        limit = serializers.IntegerField(min_value=1, max_value=HISTORY_DAYS, default=HISTORY_DAYS, required=False)

    @extend_schema(
        operation_id="player_rating_history",
        parameters=[
            OpenApiParameter("game", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(GAME_IDS)),
            OpenApiParameter("limit", OpenApiTypes.INT, description=f"The last days, 1 to {HISTORY_DAYS}."),
        ],
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(description="unknown game, or a bad limit"),
            404: OpenApiResponse(description="no such player"),
        },
        description="The player's rating in one game after each day rated: a day's board, once the day is closed, "
        "rated as one match (assisted, held, disqualified and guests' results move nothing).",
    )
    def get(self, request: Request, username: str, game: str) -> Response:
        game = parse_game(game=game)
        query = validated(self.QueryInput, request.query_params)
        player = rated_player(username)
        if Guest.objects.filter(user=player).exists():
            history = []  # a guest is never rated (and its internal name is nobody's to read)
        else:
            history = player_rating_history(player=player, game=game, limit=query["limit"])
        body = {"username": player.get_username(), "game": game, "history": history}
        return Response(self.OutputSerializer(body).data)
