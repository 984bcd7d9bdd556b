"""The leagues' REST API: every endpoint needs a login, and a league is visible to its members only.

Views validate input, call one service or selector, and serialize the result;
errors are raised (leagues.errors) and turned into JSON in config.exceptions.
"""

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

from core import names
from core.auth import request_player
from games.fields import StrictStringField, game_field, validated
from games.selectors import parse_challenge_path
from leaderboard.serializers import BOARDS, DAY_BOARD, BoardPageInput, EntrySerializer, PageInput, board_page_schema
from leagues import selectors, services
from leagues.models import NAME_MAX_LENGTH, NAME_MIN_LENGTH, League

LEAGUE_ID = OpenApiParameter("league_id", OpenApiTypes.INT, OpenApiParameter.PATH)
NOT_FOUND = OpenApiResponse(description="no such league, or the caller is not a member")
NOT_OWNER = OpenApiResponse(description="the caller is a member but not the owner")

# What league_name_clean accepts, as the schema's pattern: 3 to 60 characters once trimmed, none a
# control character (Unicode category Cc, and the line and paragraph separators) nor an invisible or
# text-direction one (core.names; the emoji joiners aside, which only the server can judge in place).
_CONTROL = r"\x00-\x1f\x7f-\x9f\u2028\u2029" + names.INVISIBLE_PATTERN_CLASS
NAME_PATTERN = (
    rf"^\s*[^\s{_CONTROL}][^{_CONTROL}]{{{NAME_MIN_LENGTH - 2},{NAME_MAX_LENGTH - 2}}}"
    rf"[^\s{_CONTROL}]\s*\Z"
)
NAME_PATTERN_MESSAGE = (
    f"A league name has {NAME_MIN_LENGTH} to {NAME_MAX_LENGTH} characters, spaces around it "
    "aside, and no control, invisible or text-direction character."
)


@extend_schema_serializer(component_name="League")
class LeagueOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField(source="owner.username")
    members = serializers.IntegerField(source="member_count", help_text="How many players are in the league.")
    invite_code = serializers.CharField(help_text="Share it: POST /leagues/join {invite_code} makes a member.")
    created_at = serializers.DateTimeField()


def league_data(league: League) -> dict[str, Any]:
    """A league read back with its member count (after a write)."""
    return dict(LeagueOutput(league).data)


class LeaguesApi(APIView):
    """GET: the caller's leagues. POST: create one."""

    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="LeagueCreateInput")
    class CreateInput(serializers.Serializer[Any]):
        # The pattern bounds the trimmed length: a maxLength in the schema would count the spaces around.
        name = StrictStringField(
            allow_blank=False, trim_whitespace=True, pattern=NAME_PATTERN, pattern_message=NAME_PATTERN_MESSAGE
        )

    @extend_schema(
        operation_id="leagues_list",
        responses=LeagueOutput(many=True),
        description="The leagues the caller is a member of (owned ones included), by name.",
    )
    def get(self, request: Request) -> Response:
        leagues = selectors.leagues_of_player(player=request_player(request))
        return Response(LeagueOutput(leagues, many=True).data)

    @extend_schema(
        operation_id="league_create",
        description="Create a league: the caller owns it and is its first member.",
        request=CreateInput,
        responses={
            201: LeagueOutput,
            400: OpenApiResponse(description="bad input: the name has 3 to 60 characters"),
            409: OpenApiResponse(description="the caller already owns 20 leagues"),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(self.CreateInput, request.data)
        league = services.league_create(owner=request_player(request), name=data["name"])
        league = selectors.league_get(league_id=league.pk, player=request_player(request))
        return Response(league_data(league), status=status.HTTP_201_CREATED)


class JoinThrottle(UserRateThrottle):
    """Invite codes are secrets: guessing them is slowed down to 30 tries a minute per player."""

    scope = "league_join"
    rate = "30/min"


class LeagueJoinApi(APIView):
    permission_classes = [IsAuthenticated]

    def get_throttles(self) -> list[BaseThrottle]:
        """The default throttles, plus JoinThrottle unless throttling is off (API_THROTTLE=false)."""
        throttles = list(super().get_throttles())
        return [*throttles, JoinThrottle()] if throttles else throttles

    @extend_schema_serializer(component_name="LeagueJoinInput")
    class Input(serializers.Serializer[Any]):
        invite_code = StrictStringField(
            allow_blank=False,
            trim_whitespace=True,
            pattern=r"^\s*[0-9A-Za-z]{1,64}\s*\Z",
            pattern_message="An invite code is 1 to 64 letters and digits.",
        )

    @extend_schema(
        operation_id="league_join",
        request=Input,
        responses={
            200: LeagueOutput,
            404: OpenApiResponse(description="no league has this invite code"),
            409: OpenApiResponse(description="the league is full (500 members)"),
        },
        description="Join the league of an invite code. Joining a league again changes nothing.",
    )
    def post(self, request: Request) -> Response:
        data = validated(self.Input, request.data)
        league = services.league_join(player=request_player(request), invite_code=data["invite_code"])
        return Response(league_data(selectors.league_get(league_id=league.pk, player=request_player(request))))


class LeagueDetailApi(APIView):
    """GET: a league and its members (members only). DELETE: delete it (owner only)."""

    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="LeagueDetail")
    class DetailOutput(LeagueOutput):
        @extend_schema_serializer(component_name="LeagueMember")
        class MemberOutput(serializers.Serializer[Any]):
            player = serializers.CharField()
            joined_at = serializers.DateTimeField()
            owner = serializers.BooleanField()
            guest = serializers.BooleanField(help_text='A guest player (not signed up): the page shows "Guest".')

        roster = MemberOutput(many=True, help_text="The members, in the order they joined.")

    @extend_schema(
        operation_id="league_detail",
        parameters=[LEAGUE_ID],
        responses={200: DetailOutput, 404: NOT_FOUND},
        description="A league, its invite code and its members: for members only.",
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, player=request_player(request))
        league.roster = selectors.league_members(league=league)  # type: ignore[attr-defined]
        return Response(self.DetailOutput(league).data)

    @extend_schema(
        operation_id="league_delete",
        description="Delete the league and its memberships: for its owner only.",
        parameters=[LEAGUE_ID],
        responses={204: None, 403: NOT_OWNER, 404: NOT_FOUND},
    )
    def delete(self, request: Request, league_id: int) -> Response:
        services.league_delete(owner=request_player(request), league_id=league_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeagueLeaveApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="league_leave",
        description="Leave the league. Its owner cannot: they delete it instead.",
        parameters=[LEAGUE_ID],
        request=None,
        responses={
            204: None,
            404: NOT_FOUND,
            409: OpenApiResponse(description="the owner cannot leave: they delete the league instead"),
        },
    )
    def post(self, request: Request, league_id: int) -> Response:
        services.league_leave(player=request_player(request), league_id=league_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LeagueInviteCodeApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="league_invite_code_regenerate",
        parameters=[LEAGUE_ID],
        request=None,
        responses={200: LeagueOutput, 403: NOT_OWNER, 404: NOT_FOUND},
        description="A new invite code: the old one stops working.",
    )
    def post(self, request: Request, league_id: int) -> Response:
        league = services.league_regenerate_code(owner=request_player(request), league_id=league_id)
        return Response(league_data(selectors.league_get(league_id=league.pk, player=request_player(request))))


class LeagueDailyBoardApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="LeagueDailyBoard")
    class OutputSerializer(serializers.Serializer[Any]):
        league = serializers.IntegerField()
        date = serializers.DateField()
        game = game_field()
        board = serializers.ChoiceField(choices=BOARDS, help_text="`day`: unassisted results only; `all`: all.")
        total = serializers.IntegerField(help_text="Members on this board.")
        offset = serializers.IntegerField()
        limit = serializers.IntegerField()
        entries = EntrySerializer(many=True, help_text="The public board's entries, ranked within the league.")

    @board_page_schema(
        operation_id="league_daily_board",
        parameters=[LEAGUE_ID],
        output=OutputSerializer,
        not_found="not a member, or no board for that day and game (yet)",
        description="The public board of that day and game, restricted to the league's members and ranked "
        "within the league (same order: won, score, fewer moves, shorter time, earlier finish). Like the public "
        "board, `board=day` (the default) ranks the unassisted results and `board=all` every one, marked.",
    )
    def get(self, request: Request, league_id: int, date: str, game: str) -> Response:
        league = selectors.league_get(league_id=league_id, player=request_player(request))
        day, game = parse_challenge_path(date=date, game=game)
        query = validated(BoardPageInput, request.query_params)
        page = selectors.league_daily_board(
            league=league,
            day=day,
            game=game,
            offset=query["offset"],
            limit=query["limit"],
            clean=query["board"] == DAY_BOARD,
        )
        body = {"league": league.pk, "date": day, "game": game, "total": page.total, "entries": page.entries, **query}
        return Response(self.OutputSerializer(body).data)


class LeagueAllTimeBoardApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema_serializer(component_name="LeagueAllTimeBoard")
    class OutputSerializer(serializers.Serializer[Any]):
        @extend_schema_serializer(component_name="LeagueAllTimeBoardEntry")
        class EntryOutput(serializers.Serializer[Any]):
            rank = serializers.IntegerField()
            player = serializers.CharField()
            wins = serializers.IntegerField()
            played = serializers.IntegerField(help_text="Unassisted ranked results since the league was created.")
            score = serializers.IntegerField(help_text="Total score.")
            moves = serializers.IntegerField(help_text="Total moves.")
            guest = serializers.BooleanField(help_text='A guest player (not signed up): the page shows "Guest".')

        league = serializers.IntegerField()
        since = serializers.DateField(help_text="The league's creation day: results of earlier days do not count.")
        total = serializers.IntegerField(help_text="Members on this board (all of them).")
        offset = serializers.IntegerField()
        limit = serializers.IntegerField()
        entries = EntryOutput(many=True)

    @extend_schema(
        operation_id="league_alltime_board",
        parameters=[LEAGUE_ID, PageInput],
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(description="bad limit or offset"),
            404: NOT_FOUND,
        },
        description="Every member, by ranked wins since the league was created, then total score, "
        "then fewer total moves, then username: over the results of the day's boards (unassisted ones).",
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, player=request_player(request))
        query = validated(PageInput, request.query_params)
        page = selectors.league_alltime_board(league=league, offset=query["offset"], limit=query["limit"])
        body = {"league": league.pk, "since": page.since, "total": page.total, "entries": page.entries, **query}
        return Response(self.OutputSerializer(body).data)
