"""The REST API of the games app (SPEC section 8): one class per operation.

Views validate input, call one service or selector, and serialize the result.
Errors are raised (games.errors) and turned into JSON in config.exceptions.
"""

from __future__ import annotations

import datetime as dt
import io
from functools import lru_cache
from typing import Any, cast

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, UserRateThrottle
from rest_framework.views import APIView

from core.auth import request_player
from core.held import held
from core.net import client_network
from engine import GAME_IDS, GAMES, MAX_LOG_LENGTH, visible
from games import days, selectors, services, stats
from games.auth import CachedTokenAuthentication
from games.errors import IllegalMove, NotFound
from games.fields import MovesInput, game_field, moves_body, validated
from games.models import Attempt, Challenge, Submission, play_time_ms
from games.services.fairplay import BROWSER_COOKIE, origin_hash

# --- Output shapes ----------------------------------------------------------------------------------


class RulesOutput(serializers.Serializer[Any]):
    id = game_field()
    name = serializers.CharField()
    decks = serializers.IntegerField()
    columns = serializers.IntegerField()
    foundations = serializers.IntegerField()
    stock = serializers.IntegerField()
    draw = serializers.IntegerField()
    passes = serializers.IntegerField(allow_null=True)
    build = serializers.CharField()
    moves_as_unit = serializers.CharField()
    empty_column_takes = serializers.CharField()
    aces_start_on_foundations = serializers.BooleanField()
    foundation_to_tableau = serializers.BooleanField()
    summary = serializers.CharField()


class CardOutput(serializers.Serializer[Any]):
    card = serializers.CharField()
    up = serializers.BooleanField()


class StateOutput(serializers.Serializer[Any]):
    """The visible position: face-down cards are "??", the stock is a count."""

    game = game_field()
    tableau = serializers.ListField(child=serializers.ListField(child=CardOutput()))
    stock = serializers.IntegerField()
    waste = serializers.ListField(child=serializers.CharField())
    foundations = serializers.ListField(child=serializers.ListField(child=serializers.CharField()))
    redeals_left = serializers.IntegerField(allow_null=True)
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    foundation_cards = serializers.IntegerField()
    won = serializers.BooleanField()
    can_undo = serializers.BooleanField()
    undo_assists = serializers.BooleanField(
        help_text="An undo now would take back a move that showed a hidden card for the first time: it marks "
        "a ranked attempt assisted for good (SPEC section 7)."
    )


class ChallengeOutput(serializers.Serializer[Any]):
    date = serializers.DateField()
    game = game_field()
    name = serializers.CharField()
    difficulty = serializers.IntegerField(
        allow_null=True,
        help_text="1 (easy) .. 5: calibrated on past days' "
        "results once enough exist (difficulty_calibrated), else the solver's.",
    )
    difficulty_calibrated = serializers.BooleanField()
    players = serializers.IntegerField()
    won = serializers.IntegerField()
    over = serializers.BooleanField()
    ends_at = serializers.DateTimeField()
    layout = StateOutput()
    seed = serializers.CharField(allow_null=True, help_text="Disclosed once the day is over (a decimal string).")
    solution = serializers.ListField(child=serializers.CharField(), allow_null=True)


def challenge_data(challenge: Challenge, counts: selectors.ChallengeCounts) -> dict[str, Any]:
    over = selectors.challenge_is_over(challenge=challenge)
    rating = stats.challenge_rating(challenge)
    return {
        "date": challenge.date,
        "game": challenge.game,
        "name": GAMES[challenge.game].name,
        "difficulty": rating.value,
        "difficulty_calibrated": rating.calibrated,
        "players": counts.players,
        "won": counts.won,
        "over": over,
        "ends_at": days.next_day_starts_at(challenge.date),
        "layout": selectors.challenge_layout(challenge=challenge),
        "seed": str(challenge.seed_int) if over else None,
        "solution": list(challenge.solution) if over else None,
    }


class AfterTheDayOutput(serializers.Serializer[Any]):
    ready_at = serializers.DateTimeField(
        help_text="The day's end: the review of this game and the day's solution "
        "are published then (the review within minutes)."
    )
    ready_in_seconds = serializers.IntegerField(help_text="Seconds to go until then (0: the day is over).")
    review = serializers.CharField(help_text="Where the review of this game is read, once finished and published.")
    solution = serializers.CharField(help_text="Where the day's solution is read, once published.")


class AttemptOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    date = serializers.DateField(source="challenge.date")
    game = game_field(source="challenge.game")
    ranked = serializers.BooleanField()
    assisted = serializers.BooleanField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    moves = serializers.ListField(child=serializers.CharField())
    elapsed_ms = serializers.SerializerMethodField(
        help_text="Play time so far (or in all, once finished), by the server's clock: for the table's clock."
    )
    submission = serializers.SerializerMethodField()
    after_the_day = serializers.SerializerMethodField()

    def get_elapsed_ms(self, attempt: Attempt) -> int:
        return attempt.play_time_ms()

    @extend_schema_field(AfterTheDayOutput)
    def get_after_the_day(self, attempt: Attempt) -> dict[str, Any]:
        return after_the_day_data(attempt)

    def get_submission(self, attempt: Attempt) -> int | None:
        return _submission_id(attempt)


def after_the_day_data(attempt: Attempt) -> dict[str, Any]:
    """When the attempt's review and its day's solution are published, and where: AfterTheDayOutput's
    answer, built directly (games/tests/test_answers_by_hand.py holds it to the serializer's)."""
    challenge = attempt.challenge
    data: dict[str, Any] = days.after_the_day(challenge.date)
    return {
        "ready_at": _DATETIME.to_representation(data["ready_at"]),
        "ready_in_seconds": int(data["ready_in_seconds"]),
        "review": f"/api/v1/attempts/{attempt.pk}/review",
        "solution": f"/api/v1/daily/{challenge.date.isoformat()}/{challenge.game}/solution",
    }


def attempt_data(attempt: Attempt, state: Any) -> dict[str, Any]:
    """AttemptWithStateOutput's answer, built directly: the serializers over an attempt and its position
    were a quarter of a start's CPU. games/tests/test_answers_by_hand.py holds it to the serializers'."""
    challenge = attempt.challenge
    return {
        "id": attempt.pk,
        "date": challenge.date.isoformat(),
        "game": challenge.game,
        "ranked": bool(attempt.ranked),
        "assisted": bool(attempt.assisted),
        "started_at": _DATETIME.to_representation(attempt.started_at),
        "finished_at": None if attempt.finished_at is None else _DATETIME.to_representation(attempt.finished_at),
        "moves": [str(move) for move in attempt.moves],
        "elapsed_ms": attempt.play_time_ms(),
        "submission": _submission_id(attempt),
        "after_the_day": after_the_day_data(attempt),
        "state": visible(state),
    }


def _submission_id(attempt: Attempt) -> int | None:
    if attempt.finished_at is None:
        return None  # a submission is made as its attempt ends
    submission = Submission.objects.filter(attempt=attempt).only("id").first()
    return submission.pk if submission else None


class AttemptWithStateOutput(AttemptOutput):
    state = StateOutput()


class AttemptBatchOutput(serializers.Serializer[Any]):
    """The answer to a batch: the attempt, the new log length and position, not the whole log again."""

    id = serializers.IntegerField()
    date = serializers.DateField()
    game = serializers.CharField()
    ranked = serializers.BooleanField()
    assisted = serializers.BooleanField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    elapsed_ms = serializers.IntegerField()
    log_length = serializers.IntegerField(help_text="Moves the server now holds: the next batch's `from`.")
    applied = serializers.IntegerField(help_text="Moves of this batch newly stored.")
    state = StateOutput()


_DATETIME = serializers.DateTimeField()


def attempt_batch_data(outcome: services.MovesOutcome) -> dict[str, Any]:
    """AttemptBatchOutput's shape, built directly: the hot path of play (O(the position), not the log)."""
    attempt = outcome.attempt
    return {
        "id": attempt.id,
        "date": attempt.date.isoformat(),
        "game": attempt.game,
        "ranked": attempt.ranked,
        "assisted": attempt.assisted,
        "started_at": _DATETIME.to_representation(attempt.started_at),
        "finished_at": None,
        "elapsed_ms": play_time_ms(attempt.started_at, timezone.now()),  # the attempt is open
        "log_length": outcome.log_length,
        "applied": outcome.applied,
        "state": visible(outcome.state),
    }


# --- Endpoints ---------------------------------------------------------------------------------------

CHALLENGE_PATH = [
    OpenApiParameter("date", OpenApiTypes.DATE, OpenApiParameter.PATH, description="YYYY-MM-DD"),
    OpenApiParameter("game", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(GAME_IDS)),
]


class GamesApi(APIView):
    @extend_schema(operation_id="games_list", responses=RulesOutput(many=True))
    def get(self, request: Request) -> Response:
        return Response(RulesOutput([r.as_dict() for r in GAMES.values()], many=True).data)


class DailyOutput(serializers.Serializer[Any]):
    date = serializers.DateField()
    ends_at = serializers.DateTimeField()
    challenges = ChallengeOutput(many=True)


class DailyApi(APIView):
    @extend_schema(operation_id="daily_today", responses=DailyOutput)
    def get(self, request: Request) -> Response:
        today = days.today()
        # The same answer for every caller: each process holds it COUNTS_SECONDS (core.held), once the
        # day is whole (while its deals are being prepared, each one shows as soon as it is ready).
        return Response(
            held(
                ("daily", today),
                settings.COUNTS_SECONDS,
                lambda: _daily_data(today),
                keep=lambda data: len(data["challenges"]) == len(GAME_IDS),
            )
        )


def _daily_data(today: dt.date) -> dict[str, Any]:
    challenges = selectors.challenges_of_day(day=today)
    counts = selectors.challenge_counts(challenges=challenges)
    data = {
        "date": today,
        "ends_at": days.next_day_starts_at(today),
        "challenges": [challenge_data(c, counts[c.pk]) for c in challenges],
    }
    return dict(DailyOutput(data).data)


class ChallengeApi(APIView):
    @extend_schema(operation_id="daily_challenge", parameters=CHALLENGE_PATH, responses=ChallengeOutput)
    def get(self, request: Request, date: str, game: str) -> Response:
        challenge = selectors.challenge_from_path(date=date, game=game)
        counts = selectors.challenge_counts(challenges=[challenge])
        return Response(ChallengeOutput(challenge_data(challenge, counts[challenge.pk])).data)


class StatsBinOutput(serializers.Serializer[Any]):
    low = serializers.IntegerField(help_text="From (included).")
    high = serializers.IntegerField(help_text="To (excluded).")
    players = serializers.IntegerField()
    won = serializers.IntegerField()


class HistogramOutput(serializers.Serializer[Any]):
    width = serializers.IntegerField(help_text="Every bin's width (0 when nobody played).")
    bins = StatsBinOutput(many=True)
    mine = serializers.IntegerField(allow_null=True, help_text="The index of the caller's own bin, if they ranked.")


class StatsMineOutput(serializers.Serializer[Any]):
    won = serializers.BooleanField()
    moves = serializers.IntegerField()
    play_time_ms = serializers.IntegerField()
    moves_bin = serializers.IntegerField(allow_null=True)
    time_bin = serializers.IntegerField(allow_null=True)


class DifficultyOutput(serializers.Serializer[Any]):
    rating = serializers.IntegerField(
        allow_null=True,
        help_text="1 (easy) .. 5: the calibrated rating once the model has enough days, else the solver's.",
    )
    solver = serializers.IntegerField(allow_null=True, help_text="The solver's own rating (effort, moves per card).")
    calibrated = serializers.BooleanField()
    predicted_win_rate = serializers.FloatField(allow_null=True, help_text="The model's prediction, when calibrated.")
    model_days = serializers.IntegerField(help_text="Days the model was fitted on.")
    min_days = serializers.IntegerField(help_text="Days needed before the calibrated rating is used.")
    solver_nodes = serializers.IntegerField()
    solution_moves = serializers.IntegerField()
    seeds_skipped = serializers.IntegerField(help_text="Seeds proven unwinnable before the day's deal.")


class DayStatsOutput(serializers.Serializer[Any]):
    date = serializers.DateField()
    game = game_field()
    players = serializers.IntegerField(help_text="Ranked results on the boards (assisted ones included).")
    won = serializers.IntegerField()
    win_rate = serializers.FloatField(allow_null=True)
    moves = HistogramOutput()
    seconds = HistogramOutput(help_text="Play time, in whole seconds.")
    me = StatsMineOutput(allow_null=True, help_text="The caller's own ranked result, if any.")
    difficulty = DifficultyOutput()


class DayStatsApi(APIView):
    """How a day that is over went: the share of its ranked players who won, histograms of moves and of
    times (the caller's own marked), and how hard the solver rated the deal. Nothing before the day is over."""

    @extend_schema(
        operation_id="daily_stats",
        parameters=CHALLENGE_PATH,
        responses={
            200: DayStatsOutput,
            404: OpenApiResponse(
                description="no such challenge, or its day is not over (details: ready_at, ready_in_seconds)"
            ),
        },
    )
    def get(self, request: Request, date: str, game: str) -> Response:
        challenge = selectors.challenge_from_path(date=date, game=game)
        return Response(DayStatsOutput(stats.challenge_stats(challenge=challenge, viewer=request.user)).data)


class AttemptStartApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="attempt_start",
        parameters=CHALLENGE_PATH,
        request=None,
        responses={
            201: AttemptWithStateOutput,
            409: OpenApiResponse(description="the caller already has an open attempt on this challenge"),
        },
    )
    def post(self, request: Request, date: str, game: str) -> Response:
        challenge = selectors.challenge_from_path(date=date, game=game)
        attempt = services.attempt_start(
            player=request_player(request),
            challenge=challenge,
            origin=origin_hash(kind="address", value=client_network(request)),
            browser=origin_hash(kind="browser", value=request.COOKIES.get(BROWSER_COOKIE, "")),
        )
        state = services.attempt_replay(attempt=attempt)
        return Response(attempt_data(attempt, state), status=status.HTTP_201_CREATED)


class AttemptDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="attempt_detail", responses=AttemptWithStateOutput)
    def get(self, request: Request, attempt_id: int) -> Response:
        attempt = services.attempt_get(attempt_id=attempt_id, player=request_player(request))
        return Response(attempt_data(attempt, services.attempt_position(attempt=attempt)))


class AttemptMovesApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="attempt_moves",
        request=MovesInput,
        responses={
            200: AttemptBatchOutput,
            400: OpenApiResponse(
                description="bad input, or an illegal move (details: index, move, reason, and applied, log_length "
                "and state: the legal moves before it are stored)"
            ),
            409: OpenApiResponse(
                description="the batch does not start where the stored log ends, the attempt has ended, or "
                "(code day_over) the day of a ranked attempt is over"
            ),
        },
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        body = moves_body(request.data)
        if body is None:
            data = _validated(MovesInput, request)
            body = data["from"], data["moves"]
        outcome = services.attempt_append_moves(
            attempt_id=attempt_id, player=request_player(request), start=body[0], moves=body[1]
        )
        if outcome.error is not None:
            raise IllegalMove(_illegal_message(outcome), details=_illegal_details(outcome))
        return Response(attempt_batch_data(outcome))


# --- The moves batch without DRF around it ----------------------------------------------------------

_drf_moves = AttemptMovesApi.as_view()
_ACCEPT_JSON = frozenset({"", "*/*", "application/json"})
_ALLOW = "POST, OPTIONS"  # what DRF's view says it allows


@lru_cache(maxsize=1)
def _drf_parts() -> tuple[Any, Any, Any]:
    """The view's own parser, renderer and error handler (REST_FRAMEWORK's settings: JSON only)."""
    view = AttemptMovesApi()
    (parser,), (renderer,) = view.get_parsers(), view.get_renderers()
    return parser, renderer, view.get_exception_handler()


@csrf_exempt
def attempt_moves(request: HttpRequest, attempt_id: int) -> HttpResponse:
    """``POST /attempts/{id}/moves``: :class:`AttemptMovesApi`, the hot path of play, with the common batch
    served by plain Django.

    DRF's dispatch (the request wrapper, content negotiation, the parser's selection, authentication
    classes tried in turn, the response's template machinery) was a tenth of a one-move batch's CPU. A
    request that a token authenticates, with a JSON body of the common shape (``moves_body``) and an
    ``Accept`` that only JSON answers, is served here by the same steps in the same order (the token,
    the permission, the throttles, the service) and answered with the same bytes, status and headers;
    every other request (a session, another body, another method, ``Accept`` asking for an indented
    answer...) goes to the DRF view unchanged. tests/test_moves_view.py holds the two to the same answers.
    """
    plain = _moves_request(request)
    if plain is None:
        return _drf_moves(request, attempt_id=attempt_id)
    key, start, moves = plain
    try:
        user, token = CachedTokenAuthentication().authenticate_credentials(key)
        request.user, request.auth = user, token  # type: ignore[attr-defined]
        # DRF's throttles read only what a Django request has too (the user, the address): as DRF checks them.
        view, drf_like = AttemptMovesApi(), cast(Any, request)
        waits = [t.wait() for t in view.get_throttles() if not t.allow_request(drf_like, view)]
        if waits:
            raise exceptions.Throttled(max((w for w in waits if w is not None), default=None))
        outcome = services.attempt_append_moves(attempt_id=attempt_id, player=user, start=start, moves=moves)
        if outcome.error is not None:
            raise IllegalMove(_illegal_message(outcome), details=_illegal_details(outcome))
    except Exception as exc:  # every error is answered as the DRF view answers it
        return _error_answer(request, exc)
    renderer = _drf_parts()[1]
    response = HttpResponse(renderer.render(attempt_batch_data(outcome)), content_type="application/json")
    response["Allow"] = _ALLOW
    return response


# The schema (drf-spectacular) and anything else that reads the view's class find AttemptMovesApi.
attempt_moves.cls = AttemptMovesApi  # type: ignore[attr-defined]
attempt_moves.initkwargs = {}  # type: ignore[attr-defined]


def _moves_request(request: HttpRequest) -> tuple[str, int, list[str]] | None:
    """The token and the batch of a request the plain path serves, read without side effects; None for
    any other request (the DRF view's)."""
    if request.method != "POST" or request.content_type != "application/json":
        return None
    if request.META.get("HTTP_ACCEPT", "") not in _ACCEPT_JSON:
        return None
    parts = request.META.get("HTTP_AUTHORIZATION", "").split()
    if len(parts) != 2 or parts[0].lower() != "token" or not parts[1].isascii():
        return None
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if limit is not None and length > limit:
        return None
    try:
        data = _drf_parts()[0].parse(io.BytesIO(request.body))
    except exceptions.APIException:  # a body the parser refuses: the DRF view answers it
        return None
    body = moves_body(data)
    if body is None:
        return None
    return parts[1], body[0], body[1]


def _error_answer(request: HttpRequest, exc: Exception) -> HttpResponse:
    """The answer DRF's view gives for ``exc`` (its handler, its authentication header, its renderer)."""
    if isinstance(exc, exceptions.AuthenticationFailed | exceptions.NotAuthenticated):
        # As DRF's view: the first authentication's header, which makes the answer a 401.
        cast(Any, exc).auth_header = CachedTokenAuthentication().authenticate_header(cast(Any, request))
    _parser, renderer, handler = _drf_parts()
    response: Response = handler(exc, {"request": request, "view": None})
    response.accepted_renderer = renderer
    response.accepted_media_type = "application/json"
    response.renderer_context = {}  # type: ignore[attr-defined]  # DRF sets it in finalize_response; stubs omit it
    response["Allow"] = _ALLOW
    response.render()
    return response


def _illegal_message(outcome: services.MovesOutcome) -> str:
    error = outcome.error
    assert error is not None
    stored = (
        f"; the {outcome.applied} move{'s' if outcome.applied != 1 else ''} before it were stored"
        if outcome.applied
        else "; nothing of this batch was stored"
    )
    return f"move {error.index} ({error.move!r}) is illegal: {error.reason}{stored}"


def _illegal_details(outcome: services.MovesOutcome) -> dict[str, Any]:
    """SPEC section 6's index, move and reason, and where the stored log now stands (all from that log)."""
    assert outcome.error is not None
    return {
        **outcome.error.to_json(),
        "applied": outcome.applied,
        "log_length": outcome.log_length,
        "state": StateOutput(visible(outcome.state)).data,
    }


class FrameOutput(serializers.Serializer[Any]):
    t = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Columns, bottom to top; a face-down card is ??.",
    )
    s = serializers.IntegerField(help_text="Cards in the stock.")
    w = serializers.ListField(child=serializers.CharField(), help_text="The waste, bottom to top.")
    f = serializers.ListField(child=serializers.CharField(allow_null=True), help_text="Each foundation's top card.")
    r = serializers.IntegerField(allow_null=True, help_text="Redeals left (null: unlimited).")
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    home = serializers.IntegerField(help_text="Cards on the foundations.")
    won = serializers.BooleanField()


class ReplayOutput(serializers.Serializer[Any]):
    moves = serializers.ListField(child=serializers.CharField())
    frames = FrameOutput(many=True, help_text="The position before the first move, then after each move.")


class SolutionApi(APIView):
    """The solver's winning line of a day that is over, with a frame per move, to watch it played."""

    @extend_schema(operation_id="daily_solution", parameters=CHALLENGE_PATH, responses={200: ReplayOutput})
    def get(self, request: Request, date: str, game: str) -> Response:
        challenge = selectors.challenge_from_path(date=date, game=game)
        if not selectors.challenge_is_over(challenge=challenge):
            raise NotFound(
                f"the solution of the {challenge.game} challenge of {challenge.date} is published once that day is over"
            )
        return Response(selectors.challenge_solution_replay(challenge=challenge))  # plain data, as the replay's pages


class ReplayPageOutput(serializers.Serializer[Any]):
    length = serializers.IntegerField(help_text="Moves in the whole stored log.")
    page = serializers.IntegerField()
    pages = serializers.IntegerField(help_text="Pages of the replay (1 for an empty log: the deal).")
    page_moves = serializers.IntegerField(help_text="Moves per page.")
    first = serializers.IntegerField(help_text="The log index of this page's first move.")
    moves = serializers.ListField(child=serializers.CharField(), help_text="The page's moves.")
    frames = FrameOutput(many=True, help_text="The position before each of the page's moves, then after the last.")


class ReplayThrottle(UserRateThrottle):
    """A replay page costs 5-10 ms at worst (bench/replay_api.py): 60 a minute per player (a page is 100 moves)."""

    scope = "replay"
    rate = "60/min"


class AttemptReplayApi(APIView):
    """An attempt, a page of frames at a time: each shows only what its prefix disclosed. The player's own
    at any time; anybody's ranked game once it is finished and its day is over (practice stays the player's)."""

    permission_classes = [AllowAny]

    def get_throttles(self) -> list[BaseThrottle]:
        """The default throttles, plus ReplayThrottle unless throttling is off (API_THROTTLE=false)."""
        throttles = list(super().get_throttles())
        return [*throttles, ReplayThrottle()] if throttles else throttles

    class Query(serializers.Serializer[Any]):
        page = serializers.IntegerField(
            min_value=0,
            max_value=MAX_LOG_LENGTH // selectors.REPLAY_PAGE_MOVES,
            default=0,
            help_text="0 for the deal and the first moves.",
        )

    @extend_schema(
        operation_id="attempt_replay",
        parameters=[Query],
        responses={
            200: ReplayPageOutput,
            404: OpenApiResponse(
                description="no such attempt, or not the caller's while its day is not over, or "
                "another player's practice"
            ),
        },
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        query = validated(self.Query, request.query_params)
        attempt = selectors.attempt_visible(attempt_id=attempt_id, viewer=request.user)
        # Built as plain data and sent as is: FrameOutput over a page of frames would cost more than
        # making them (ReplayPageOutput is the schema).
        return Response(selectors.attempt_replay_page(attempt=attempt, page=query["page"]))


class HintOutput(serializers.Serializer[Any]):
    move = serializers.CharField(allow_null=True, help_text="A legal move in SPEC notation, or null: none is left.")
    reason = serializers.CharField()
    assisted = serializers.BooleanField(
        help_text="Whether the attempt is assisted now: asking for a hint marks a ranked attempt for good, even when "
        "it finds no legal move (it ranks on the assisted board); a practice attempt only by a hint that names a move."
    )


class AttemptHintApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="attempt_hint",
        request=None,
        responses={200: HintOutput, 409: OpenApiResponse(description="the attempt has ended")},
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        player = request_player(request)
        suggestion = services.attempt_hint(attempt_id=attempt_id, player=player)
        if suggestion is None:
            assisted = selectors.attempt_visible(attempt_id=attempt_id, viewer=player).assisted
            data = {"move": None, "reason": "no legal move is left: undo, or give up", "assisted": assisted}
        else:
            data = {"move": str(suggestion.move), "reason": suggestion.reason, "assisted": True}
        return Response(HintOutput(data).data)


def _validated(serializer_class: type[serializers.Serializer[Any]], request: Request) -> dict[str, Any]:
    return validated(serializer_class, request.data)
