"""Leaderboard and player endpoints: public reads (``?around=me`` needs a login)."""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any, cast

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from core.auth import request_player
from core.errors import ApplicationError
from games import days as dates
from games.apis import CHALLENGE_PATH, AfterTheDayOutput, after_the_day_data
from games.errors import NotFound
from games.fields import StrictIntegerField, game_field, move_list, validated, validated_query
from games.models import Submission
from games.selectors import parse_challenge_path, player_hidden
from games.services.attempts import attempt_submit
from leaderboard.errors import PlayerNotFound
from leaderboard.selectors.boards import BoardView, leaderboard_view, leaderboard_view_rendered
from leaderboard.selectors.days import player_today_summary
from leaderboard.selectors.profiles import player_profile
from leaderboard.selectors.ranks import submission_result
from leaderboard.selectors.stats import player_game_stats
from leaderboard.serializers import (
    ALL_BOARD,
    BOARDS,
    DAY_BOARD,
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MAX_OFFSET,
    EntrySerializer,
    QueryInput,
    board_data,
    game_links,
)
from ratings.apis import RatingOutput
from ratings.selectors import player_ratings

AROUND_RADIUS = 5
USERNAME_MAX_LENGTH = 150


def refuse_impossible_username(username: str) -> None:
    """A 404 for a name no player can have (a NUL byte, which PostgreSQL refuses in a query, or too long),
    before any query; and for a banned player, whose profile is hidden."""
    if "\x00" in username or len(username) > USERNAME_MAX_LENGTH:
        raise PlayerNotFound(f"There is no player named {username[:USERNAME_MAX_LENGTH]!r}.")
    if player_hidden(username=username):  # a banned player's profile is hidden (games.models.PlayerBan)
        raise PlayerNotFound(f"There is no player named {username!r}.")


class LeaderboardApi(APIView):
    """One day's board of one game, best first."""

    permission_classes = [AllowAny]

    class InputSerializer(QueryInput):
        limit = serializers.IntegerField(min_value=1, max_value=MAX_LIMIT, default=DEFAULT_LIMIT, required=False)
        offset = serializers.IntegerField(min_value=0, max_value=MAX_OFFSET, default=0, required=False)
        around = serializers.ChoiceField(choices=["me"], required=False, help_text="`me`: the caller's neighbourhood.")
        board = serializers.ChoiceField(
            choices=BOARDS,
            default=DAY_BOARD,
            required=False,
            help_text="`day` (the default): the day's board, unassisted ranked results only. `all`: every ranked "
            "result, the assisted ones marked (SPEC section 7).",
        )

    @extend_schema_serializer(component_name="Leaderboard")
    class OutputSerializer(serializers.Serializer[Any]):
        @extend_schema_serializer(component_name="LeaderboardMe")
        class MeSerializer(serializers.Serializer[Any]):
            rank = serializers.IntegerField(allow_null=True)
            entry = EntrySerializer(allow_null=True)

        date = serializers.DateField()
        game = game_field()
        board = serializers.ChoiceField(choices=BOARDS, help_text="Which board: `day` or `all`.")
        total = serializers.IntegerField(help_text="Entries on the board.")
        offset = serializers.IntegerField()
        limit = serializers.IntegerField()
        entries = EntrySerializer(many=True)
        me = MeSerializer(required=False, help_text="Only when authenticated: the caller's rank and entry.")

    @extend_schema(
        operation_id="leaderboard",
        parameters=[*CHALLENGE_PATH, InputSerializer],
        responses=OutputSerializer,
        description=(
            "Ranked results: won first, then higher score, fewer moves, shorter play time, earlier finish. "
            "The day's board (the default) ranks the unassisted results; `board=all` ranks every ranked result, "
            "each entry's `assisted` marking a hint or an undo that took back a look at a hidden card. "
            "`around=me` (login required) "
            "returns the caller's neighbourhood instead of a page: an empty list and `me.rank: null` "
            "without a ranked result."
        ),
    )
    def get(self, request: Request, date: str, game: str) -> HttpResponse:
        day, game = parse_challenge_path(date=date, game=game)
        query = validated_query(self.InputSerializer, request)
        clean = query["board"] == DAY_BOARD
        player = request.user if request.user.is_authenticated else None
        around = query.get("around") == "me"
        if around and player is None:
            raise exceptions.NotAuthenticated("Log in to see your neighbourhood on the board (?around=me).")
        if player is None and not around:
            # A public page is the same for every anonymous caller: served rendered from Redis until the
            # board's next write.
            return board_response(day=day, game=game, clean=clean, offset=query["offset"], limit=query["limit"])
        view = leaderboard_view(
            date=day,
            game=game,
            clean=clean,
            offset=query["offset"],
            limit=query["limit"],
            player=player,
            around=around,
            radius=AROUND_RADIUS,
        )
        return Response(board_data(view))  # OutputSerializer's shape, built directly: see board_data

    def check_throttles(self, request: Request) -> None:
        waits = getattr(request._request, "board_throttle_waits", None)
        if waits is None:
            super().check_throttles(request)
        elif waits:  # decided (and counted) once, by anonymous_board: the same refusal as DRF's
            wait = max((w for w in waits if w is not None), default=None)
            self.throttled(request, wait)  # type: ignore[arg-type]  # (None: no wait known, as DRF's own)

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        view = super().as_view(**initkwargs)

        @functools.wraps(view)  # (keeps the DRF view's attributes: csrf_exempt, cls for the schema)
        def board(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            fast = anonymous_board(request, view_class=cls, **kwargs)
            return fast if fast is not None else view(request, *args, **kwargs)

        return board


def render_board(view: BoardView) -> str:
    """The board's answer as JSON text (for the page cache), by the API's renderer (DRF's setting)."""
    renderer = cast("type[BaseRenderer]", api_settings.DEFAULT_RENDERER_CLASSES[0])()
    rendered = renderer.render(board_data(view), renderer.media_type, {})
    return rendered if isinstance(rendered, str) else rendered.decode()


def board_response(*, day: dt.date, game: str, clean: bool, offset: int, limit: int) -> HttpResponse:
    rendered = leaderboard_view_rendered(
        date=day, game=game, clean=clean, offset=offset, limit=limit, render=render_board
    )
    return HttpResponse(rendered, content_type="application/json")


ANONYMOUS_ACCEPT = frozenset(["", "*/*", "application/json"])  # what DRF's negotiation gives JSON without question


def anonymous_board(
    request: HttpRequest, *, view_class: type[LeaderboardApi], date: str, game: str
) -> HttpResponseBase | None:
    """An anonymous GET of a board page, answered without DRF's request cycle (the most read answer of
    the site, from the page cache: DRF's cycle cost more than the rest of it), or None: the full view
    answers (a login or a token, ``around``, any other method, an ``Accept`` to negotiate, anything
    the view refuses). The same checks as the view, in the same order, and the same answer: the
    query through the view's serializer, the view's throttles (a refusal is handed to the view, which
    answers it as DRF does without counting the request again), the page cache."""
    meta = request.META
    if request.method != "GET" or "HTTP_AUTHORIZATION" in meta or meta.get("HTTP_ACCEPT", "") not in ANONYMOUS_ACCEPT:
        return None
    if "format" in meta.get("QUERY_STRING", "") or request.user.is_authenticated:  # (?format= is negotiation)
        return None
    try:
        day, game_id = parse_challenge_path(date=date, game=game)
        query = validated_query(view_class.InputSerializer, request)
    except (ApplicationError, serializers.ValidationError):
        return None
    if "around" in query:
        return None
    view = view_class()
    view.setup(request, date=date, game=game)  # as Django's as_view does (HEAD, in the Allow header)
    throttles = view.get_throttles()
    if throttles:
        # (a throttle reads the request's META and user: the Django request has both)
        waits = [t.wait() for t in throttles if not t.allow_request(cast(Request, request), view)]
        if waits:
            setattr(request, "board_throttle_waits", waits)  # noqa: B010
            return None
        setattr(request, "board_throttle_waits", [])  # noqa: B010  (counted: not again in the view)
    clean = query["board"] == DAY_BOARD
    try:
        response = board_response(day=day, game=game_id, clean=clean, offset=query["offset"], limit=query["limit"])
    except ApplicationError:
        return None
    for header, value in view.default_response_headers.items():  # what DRF's finalize_response adds
        response[header] = value
    return response


class PlayerApi(APIView):
    """A player's statistics and latest ranked results."""

    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="PlayerProfile")
    class OutputSerializer(serializers.Serializer[Any]):
        @extend_schema_serializer(component_name="PlayerRecentResult")
        class RecentSerializer(serializers.Serializer[Any]):
            date = serializers.DateField()
            game = game_field()
            won = serializers.BooleanField()
            score = serializers.IntegerField()
            moves = serializers.IntegerField()
            play_time_ms = serializers.IntegerField()
            time = serializers.FloatField(source="seconds", help_text="Play time in seconds.")
            assisted = serializers.BooleanField(
                help_text="A hint, or an undo that took back a look at a hidden card: ranked on the `all` board only."
            )
            finished_at = serializers.DateTimeField()
            rank = serializers.IntegerField(
                allow_null=True, help_text="Rank on that day's board (`day`), or on the `all` board when assisted."
            )
            board = serializers.SerializerMethodField(help_text="The board of `rank`: `day` or `all`.")
            attempt = serializers.IntegerField(
                allow_null=True,
                help_text="The game's attempt id once its day is over (ranked games are public then); null before.",
            )
            replay = serializers.SerializerMethodField(help_text="Where the game is watched, after its day.")
            review = serializers.SerializerMethodField(help_text="Where its review is read, after its day.")

            def get_board(self, recent: Any) -> str:
                return ALL_BOARD if recent.assisted else DAY_BOARD

            def get_replay(self, recent: Any) -> str | None:
                replay: str | None = game_links(recent.attempt)["replay"]
                return replay

            def get_review(self, recent: Any) -> str | None:
                review: str | None = game_links(recent.attempt)["review"]
                return review

        username = serializers.CharField()
        played = serializers.IntegerField(help_text="Ranked, valid, not disqualified results.")
        won = serializers.IntegerField()
        win_rate = serializers.FloatField(help_text="won / played, 0 when nothing was played.")
        current_streak = serializers.IntegerField(help_text="Consecutive days with a ranked win, up to yesterday.")
        best_streak = serializers.IntegerField()
        last_played_date = serializers.DateField(allow_null=True)
        last_won_date = serializers.DateField(allow_null=True)
        recent = RecentSerializer(many=True, help_text="The last 30 ranked results, newest day first.")
        ratings = RatingOutput(
            many=True,
            required=False,
            help_text="The rating in each game rated at least once (history: GET /players/{username}/ratings/{game}).",
        )

    @extend_schema(operation_id="player", responses=OutputSerializer)
    def get(self, request: Request, username: str) -> Response:
        refuse_impossible_username(username)
        profile = player_profile(username=username, today=dates.today())
        body = self.OutputSerializer(profile).data
        body["ratings"] = RatingOutput(player_ratings(username=profile.username), many=True).data
        return Response(body)


@extend_schema_serializer(component_name="PlayerStatsBucket")
class StatsBucketOutput(serializers.Serializer[Any]):
    label = serializers.CharField(help_text="`under 1 min`, `1-2 min`, ... `10+ min`, `not won`.")  # type: ignore[assignment]
    won = serializers.BooleanField(help_text="A bar of won games (by play time), or the bar of games not won.")
    low_ms = serializers.IntegerField(allow_null=True, help_text="Play time from (inclusive); null: from 0.")
    high_ms = serializers.IntegerField(allow_null=True, help_text="Play time up to (exclusive); null: no bound.")
    count = serializers.IntegerField()
    today = serializers.IntegerField(help_text="How many of the player's results of today are in this bar.")


@extend_schema_serializer(component_name="PlayerStatsToday")
class StatsTodayOutput(serializers.Serializer[Any]):
    won = serializers.BooleanField()
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    play_time_ms = serializers.IntegerField()
    assisted = serializers.BooleanField()
    bucket = serializers.IntegerField(help_text="Its bar in `distribution`.")


@extend_schema_serializer(component_name="PlayerGameStats")
class GameStatsOutput(serializers.Serializer[Any]):
    game = game_field(allow_null=True, help_text="null: every game together.")
    played = serializers.IntegerField(help_text="Ranked results that count (valid, not disqualified, not held).")
    won = serializers.IntegerField()
    win_rate = serializers.FloatField(help_text="won / played, 0 when nothing was played.")
    current_streak = serializers.IntegerField(
        help_text="Consecutive days with a ranked win, ending today, or yesterday while today can still be won "
        "(today's game not played yet, or not lost: a lost ranked game of today ends it)."
    )
    best_streak = serializers.IntegerField(help_text="The longest run of consecutive days with a ranked win.")
    best_time_ms = serializers.IntegerField(allow_null=True, help_text="The fastest unassisted win.")
    best_score = serializers.IntegerField(allow_null=True, help_text="The highest unassisted score.")
    last_played_date = serializers.DateField(allow_null=True)
    distribution = StatsBucketOutput(many=True, help_text="Won games by play time, then the games not won.")
    today = StatsTodayOutput(allow_null=True, help_text="The player's own result of today in this game.")


class PlayerStatsApi(APIView):
    """A player's statistics over every game and per game, with the distribution of their results."""

    permission_classes = [AllowAny]

    class InputSerializer(QueryInput):
        game = game_field(required=False, help_text="Only this game in `games` (the overall figures stay).")

    @extend_schema_serializer(component_name="PlayerStats")
    class OutputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField()
        today = serializers.DateField(help_text="The challenge day the figures are as of.")
        own = serializers.BooleanField(
            help_text="true: the caller's own statistics (every counted result); false: another player's, "
            "from their results on the public boards only."
        )
        overall = GameStatsOutput()
        games = GameStatsOutput(many=True, help_text="Each game played (or only `?game=`), in the games' order.")

    @extend_schema(
        operation_id="player_stats",
        parameters=[InputSerializer],
        responses=OutputSerializer,
        description=(
            "Played, won, win share, current and best streak, best time and score, and the distribution of "
            "results (won games by play time, then not won; today's result marked), over every game and per "
            "game. Only ranked results count, never practice. The player themself sees every counted result "
            "of theirs (a guest's too); anybody else sees what the public boards show of them."
        ),
    )
    def get(self, request: Request, username: str) -> Response:
        refuse_impossible_username(username)
        query = validated_query(self.InputSerializer, request)
        stats = player_game_stats(username=username, viewer=request.user, today=dates.today(), game=query.get("game"))
        return Response(self.OutputSerializer(stats).data)


class DaySummaryApi(APIView):
    """The caller's day over every game, and its share (the home page's summary)."""

    permission_classes = [IsAuthenticated]

    class DayGameOutput(serializers.Serializer[Any]):
        game = serializers.CharField()
        name = serializers.CharField()
        status = serializers.CharField(
            help_text="won, lost, held (for a fair-play check), checking, playing, new (not played) or absent (not "
            "out yet)."
        )
        words = serializers.CharField()
        square = serializers.CharField(help_text="🟩 won, 🟥 lost, ⬜ anything else.")

    @extend_schema_serializer(component_name="DaySummary")
    class OutputSerializer(serializers.Serializer[Any]):
        day = serializers.DateField()
        games = serializers.ListField(child=serializers.DictField(), help_text="Every game, in the games' order.")
        won = serializers.IntegerField()
        lost = serializers.IntegerField()
        not_played = serializers.IntegerField()
        streak = serializers.IntegerField()
        share = serializers.CharField(help_text="Spoiler-free: a square per game in the games' order, the streak.")

    @extend_schema(operation_id="my_day", responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        summary = player_today_summary(player=request_player(request))
        data = {
            **{k: getattr(summary, k) for k in ("day", "won", "lost", "not_played", "streak", "share")},
            "games": [self.DayGameOutput(g).data for g in summary.games],
        }
        return Response(self.OutputSerializer(data).data)


# --- Submissions: their answers carry the result's rank on the board, which is this app's ----------------


class SubmissionOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    attempt = serializers.IntegerField(source="attempt_id")
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    validated_at = serializers.DateTimeField(allow_null=True)
    error = serializers.JSONField(allow_null=True)
    result = serializers.SerializerMethodField()
    after_the_day = serializers.SerializerMethodField()

    def get_result(self, submission: Submission) -> dict[str, Any] | None:
        return submission_result(submission=submission)

    @extend_schema_field(AfterTheDayOutput)
    def get_after_the_day(self, submission: Submission) -> dict[str, Any]:
        return after_the_day_data(submission.attempt)


class SubmitInput(serializers.Serializer[Any]):
    moves = move_list(required=False)

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["from"] = StrictIntegerField(min_value=0, required=False)
        return fields


class AttemptSubmitApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="attempt_submit",
        request=SubmitInput,
        responses={
            202: SubmissionOutput,
            409: OpenApiResponse(description="the final batch does not start where the stored log ends"),
        },
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        data = validated(SubmitInput, request.data)
        submission, _created = attempt_submit(
            attempt_id=attempt_id, player=request_player(request), start=data.get("from"), moves=data.get("moves")
        )
        # Its status as it stands now (a validation run in process has decided it already): the fields a
        # validation writes, read again; the attempt and its challenge stay as the submit loaded them.
        submission.refresh_from_db(fields=["status", "error", "validated_at", "validations"])
        return Response(SubmissionOutput(submission).data, status=status.HTTP_202_ACCEPTED)


class SubmissionDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="submission_detail", responses=SubmissionOutput)
    def get(self, request: Request, submission_id: int) -> Response:
        submission = (
            Submission.objects.select_related("attempt__challenge")
            .filter(pk=submission_id, attempt__player=request_player(request))
            .first()
        )
        if submission is None:
            raise NotFound(f"submission {submission_id} not found")
        return Response(SubmissionOutput(submission).data)
