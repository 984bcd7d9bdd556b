"""Follows' REST API: the caller's own follows and friends only (a login needed; follows are private)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, UserRateThrottle
from rest_framework.views import APIView

from core.auth import request_player
from follows import selectors, services
from follows.errors import PlayerToFollowNotFound
from games import days
from games.fields import game_field, validated
from games.selectors import parse_challenge_path
from leaderboard.selectors.boards import result_attempts
from leaderboard.serializers import BOARDS, DAY_BOARD, BoardPageInput, EntrySerializer, board_page_schema, entry_data

USERNAME = OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH)


@extend_schema_serializer(component_name="Follow")
class FollowOutput(serializers.Serializer[Any]):
    player = serializers.CharField()
    since = serializers.DateTimeField()


class FollowThrottle(UserRateThrottle):
    """Following is cheap to ask for: 60 changes a minute per player, besides the cap of 500 follows."""

    scope = "follow"
    rate = "60/min"


class FollowsApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="follows_list",
        responses=FollowOutput(many=True),
        description="The players the caller follows, by name. Follows are private: nobody else can read this "
        "list, and nobody's followers are shown.",
    )
    def get(self, request: Request) -> Response:
        return Response(FollowOutput(selectors.follows_of(player=request_player(request)), many=True).data)


class FollowApi(APIView):
    permission_classes = [IsAuthenticated]

    def get_throttles(self) -> list[BaseThrottle]:
        """The default throttles, plus FollowThrottle on changes unless throttling is off (API_THROTTLE=false)."""
        throttles = list(super().get_throttles())
        return [*throttles, FollowThrottle()] if throttles and self.request.method != "GET" else throttles

    @extend_schema(
        operation_id="follow_detail",
        parameters=[USERNAME],
        responses={200: FollowOutput, 404: OpenApiResponse(description="the caller does not follow that player")},
        description="Whether the caller follows that player: the follow, or 404.",
    )
    def get(self, request: Request, username: str) -> Response:
        player = request_player(request)
        found = next((f for f in selectors.follows_of(player=player) if f.player == username), None)
        if found is None:
            raise PlayerToFollowNotFound(f"You do not follow {username[:150]!r}.")
        return Response(FollowOutput(found).data)

    @extend_schema(
        operation_id="follow_add",
        parameters=[USERNAME],
        request=None,
        responses={
            200: FollowOutput,
            201: FollowOutput,
            400: OpenApiResponse(description="the caller's own name"),
            403: OpenApiResponse(description="the caller is a guest: sign up to follow"),
            404: OpenApiResponse(description="no such player (or a guest, or a closed account)"),
            409: OpenApiResponse(description="the caller already follows 500 players"),
        },
        description="Follow a player (201; following again changes nothing: 200).",
    )
    def put(self, request: Request, username: str) -> Response:
        follow, created = services.follow_add(follower=request_player(request), username=username)
        body = FollowOutput({"player": follow.followed.get_username(), "since": follow.created_at}).data
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        operation_id="follow_remove",
        parameters=[USERNAME],
        responses={204: None},
        description="Stop following a player (not following them is not an error).",
    )
    def delete(self, request: Request, username: str) -> Response:
        services.follow_remove(follower=request_player(request), username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_serializer(component_name="FriendResult")
class FriendResultOutput(serializers.Serializer[Any]):
    player = serializers.CharField()
    game = game_field()
    won = serializers.BooleanField()
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    play_time_ms = serializers.IntegerField()
    time = serializers.FloatField(source="seconds", help_text="Play time in seconds.")
    assisted = serializers.BooleanField(help_text="On the `all` board only.")
    finished_at = serializers.DateTimeField()


class FriendsTodayApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="FriendsToday")
    class OutputSerializer(serializers.Serializer[Any]):
        date = serializers.DateField()
        results = FriendResultOutput(many=True, help_text="Latest first, at most 100.")

    @extend_schema(
        operation_id="friends_today",
        responses=OutputSerializer,
        description="Today's results of the players the caller follows, as the public boards show them: "
        "finished and validated games only (no game in play, nothing a board does not show).",
    )
    def get(self, request: Request) -> Response:
        today = days.today()
        results = selectors.friends_today(player=request_player(request), today=today)
        return Response(self.OutputSerializer({"date": today, "results": results}).data)


class FriendsBoardApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="FriendsBoard")
    class OutputSerializer(serializers.Serializer[Any]):
        date = serializers.DateField()
        game = game_field()
        board = serializers.ChoiceField(choices=BOARDS, help_text="`day`: unassisted results only; `all`: all.")
        total = serializers.IntegerField(help_text="Entries on this board: the caller and whom they follow.")
        offset = serializers.IntegerField()
        limit = serializers.IntegerField()
        entries = EntrySerializer(many=True, help_text="The public board's entries, ranked among them.")

    @board_page_schema(
        operation_id="friends_board",
        output=OutputSerializer,
        not_found="no board for that day and game (yet)",
        description="The public board of that day and game restricted to the players the caller follows and "
        "the caller, ranked among them (same order as the public board). `board=day` (the default) ranks "
        "the unassisted results, `board=all` every one, marked.",
    )
    def get(self, request: Request, date: str, game: str) -> Response:
        day, game = parse_challenge_path(date=date, game=game)
        query = validated(BoardPageInput, request.query_params)
        page = selectors.friends_board(
            player=request_player(request),
            day=day,
            game=game,
            offset=query["offset"],
            limit=query["limit"],
            clean=query["board"] == DAY_BOARD,
        )
        attempts = result_attempts(result_ids=[e.result_id for e in page.entries]) if days.is_over(day) else None
        body = {
            "date": day.isoformat(),
            "game": game,
            "total": page.total,
            **query,
            "entries": [entry_data(e, attempts) for e in page.entries],
        }
        return Response(body)
