"""The API of what a player gets after a game.

The review: ``GET /api/v1/attempts/{id}/review``, once the game's day is over: the player's own game,
and anybody's ranked game (``games.selectors.attempt_is_public``); ``POST`` the same path: the player asks
for the review of a practice game (ranked games are reviewed without asking); ``.../review/win`` (a win
from the last winnable position, to watch) and ``.../review/try`` (practice from there). The still-winnable
light of practice on a day that is over: ``GET /api/v1/attempts/{id}/winnable``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle
from rest_framework.views import APIView

from core.auth import request_player
from core.errors import NotFound
from core.net import client_network
from engine import MAX_LOG_LENGTH
from games.apis import FrameOutput
from games.fields import game_field, validated
from games.selectors import REPLAY_PAGE_MOVES
from games.services.practice import attempt_try_from
from reviews import selectors, services, winnable


class AddressThrottle(SimpleRateThrottle):
    """Requests per client address, an IPv6 address counted by its /64 (``core.net.client_network``)."""

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": client_network(request)}


class WinnableAddressThrottle(AddressThrottle):
    scope = "winnable_address"


class WinnablePlayerThrottle(SimpleRateThrottle):
    """Asks for the light per player (``winnable``), a guest fewer (``winnable_guest``)."""

    scope = "winnable"

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.user.is_authenticated and winnable.player_is_guest(user_id=request.user.pk):
            self.scope = "winnable_guest"
            self.rate = self.get_rate()
            self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        if not request.user.is_authenticated:
            return None  # refused by the permission anyway
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


def _with(view: APIView, throttles: list[BaseThrottle]) -> list[BaseThrottle]:
    """The default throttles plus ``throttles``, unless throttling is off (API_THROTTLE=false)."""
    default = list(APIView.get_throttles(view))
    return [*default, *throttles] if default else default


class PlayedMoveOutput(serializers.Serializer[Any]):
    ply = serializers.IntegerField(help_text="The move's number along the line played (undone moves left out).")
    index = serializers.IntegerField(help_text="Its 0-based index in the stored log.")
    move = serializers.CharField()
    words = serializers.CharField()


class ProbeOutput(serializers.Serializer[Any]):
    after_move = serializers.IntegerField()
    verdict = serializers.ChoiceField(choices=["winnable", "lost", "undecided"])
    nodes = serializers.IntegerField()
    seconds = serializers.FloatField()


class ReviewOutput(serializers.Serializer[Any]):
    """What the review proves. Positions are counted in moves of the line played: "after move k"."""

    outcome = serializers.ChoiceField(choices=["won", "lost", "gave_up_winnable", "never_winnable", "undecided"])
    claims = serializers.ListField(
        child=serializers.CharField(), help_text="Each checked by the engine or proven by the solver, in words."
    )
    closed_at_day_end = serializers.BooleanField(
        default=False, help_text="A ranked game still open at midnight, ended by the day's end, not by its player."
    )
    moves_played = serializers.IntegerField(help_text="Moves of the line played (undone ones and undos left out).")
    log_entries = serializers.IntegerField()
    undos = serializers.IntegerField()
    draws = serializers.IntegerField()
    redeals = serializers.IntegerField()
    log_error = serializers.JSONField(allow_null=True, help_text="The log's first illegal entry, if any.")
    winnable_after = serializers.IntegerField(allow_null=True, help_text="The last position proven winnable.")
    lost_after = serializers.IntegerField(allow_null=True, help_text="The first position proven lost.")
    undecided_between = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="First and last positions the solver left undecided.",
    )
    losing_move = PlayedMoveOutput(allow_null=True)
    win_from = serializers.IntegerField(allow_null=True, help_text="The position the win starts from.")
    win = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="A winning continuation from there, replayed by the engine.",
    )
    win_source = serializers.CharField(allow_null=True)
    line = serializers.ListField(child=serializers.CharField())
    line_index = serializers.ListField(child=serializers.IntegerField())
    comparison = serializers.JSONField(allow_null=True, help_text="A won game against the day's solution.")
    best_players = serializers.JSONField(required=False, help_text="A won game: the day's best ranked games.")
    play_time_ms = serializers.IntegerField()
    score = serializers.IntegerField(allow_null=True)
    probes = ProbeOutput(many=True)


class AttemptReviewOutput(serializers.Serializer[Any]):
    attempt = serializers.IntegerField()
    player = serializers.CharField(help_text="Who played it.")
    date = serializers.DateField()
    game = game_field()
    ranked = serializers.BooleanField()
    status = serializers.ChoiceField(
        choices=["pending", "done", "failed", "not_requested"],
        help_text="pending: queued on the solver (a ranked game's within minutes of the day's end); "
        "not_requested: a practice game, reviewed when its player asks (POST)",
    )
    review = ReviewOutput(allow_null=True)


class AttemptReviewApi(APIView):
    """An attempt's review: the player's own; anybody's ranked game once finished and its day is over. A
    practice game's is made when its player asks (POST)."""

    permission_classes = [AllowAny]  # POST: request_player (signed in)

    @extend_schema(
        operation_id="attempt_review",
        responses={
            200: AttemptReviewOutput,
            404: OpenApiResponse(
                description="no such attempt; another player's practice, or another player's game "
                "of a day not over yet; the caller's own before its day is over "
                "(details: ready_at, ready_in_seconds)"
            ),
            409: OpenApiResponse(description="the attempt is not finished"),
        },
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        return Response(_review_data(selectors.review_get(attempt_id=attempt_id, viewer=request.user)))

    @extend_schema(
        operation_id="attempt_review_request",
        request=None,
        responses={
            200: OpenApiResponse(
                AttemptReviewOutput,
                description="the review as it stands (asked for before, or "
                "a ranked game's: those are made without asking)",
            ),
            202: OpenApiResponse(AttemptReviewOutput, description="queued now: pending"),
            404: OpenApiResponse(description="not the caller's attempt; or its day is not over yet"),
            409: OpenApiResponse(description="the attempt is not finished"),
            429: OpenApiResponse(
                description="past the share: REVIEW_REQUESTS_PER_DAY a player (REVIEW_REQUESTS_PER_DAY_GUEST a "
                "guest) in 24 hours, REVIEW_REQUESTS_PER_ADDRESS_PER_DAY an address; the message says when"
            ),
        },
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        """The owner asks for the review of a practice game: queued once, a few a day."""
        view = services.review_request(
            attempt_id=attempt_id, player=request_player(request), address=client_network(request)
        )
        queued = not view.attempt.ranked and view.status == "pending"
        return Response(_review_data(view), status=202 if queued else 200)


def _review_data(view: selectors.ReviewView) -> dict[str, Any]:
    attempt = view.attempt
    data: dict[str, Any] = {
        "attempt": attempt.pk,
        "player": attempt.player.username,
        "date": attempt.challenge.date,
        "game": attempt.challenge.game,
        "ranked": attempt.ranked,
        "status": view.status,
        "review": view.review,
    }
    return dict(AttemptReviewOutput(data).data)


class ReviewWinPageOutput(serializers.Serializer[Any]):
    length = serializers.IntegerField(help_text="Moves in the whole line (played, then the win).")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    page_moves = serializers.IntegerField(help_text="Moves per page.")
    first = serializers.IntegerField(help_text="The index in the whole line of this page's first move.")
    moves = serializers.ListField(
        child=serializers.CharField(),
        help_text="The page's moves of the line played up to the last winnable position, then the review's "
        "winning continuation.",
    )
    frames = FrameOutput(many=True, help_text="The position before each of the page's moves, then after the last.")
    win_from = serializers.IntegerField(
        help_text="How many moves of the line the player played: the win starts after them."
    )


class ReviewWinThrottle(AddressThrottle):
    """A page of a win costs a page of frames when it is not cached yet: per client address."""

    scope = "review_win"


class AttemptReviewWinApi(APIView):
    """The review's "show a win from here": the line played to the last winnable position, then the win the
    engine checked, a frame per move to watch on the replay player, a page at a time (as ``/replay``), each
    page made once and cached. Who may see it: as the review. Throttled per address (API_THROTTLE_REVIEW_WIN)."""

    permission_classes = [AllowAny]

    def get_throttles(self) -> list[BaseThrottle]:
        return _with(self, [ReviewWinThrottle()])

    class Query(serializers.Serializer[Any]):
        page = serializers.IntegerField(
            min_value=0,
            max_value=2 * MAX_LOG_LENGTH // REPLAY_PAGE_MOVES,
            default=0,
            help_text="0 for the deal and the first moves.",
        )

    @extend_schema(
        operation_id="attempt_review_win",
        parameters=[Query],
        responses={
            200: ReviewWinPageOutput,
            404: OpenApiResponse(
                description="as the review; or the review is not made yet, or found no win; or past the last page"
            ),
        },
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        query = validated(self.Query, request.query_params)
        view = selectors.review_get(attempt_id=attempt_id, viewer=request.user)
        # Plain data, sent as is (as the replay's pages): ReviewWinPageOutput is the schema.
        return Response(selectors.review_win_page(view=view, page=query["page"]))


class TryFromHereOutput(serializers.Serializer[Any]):
    attempt = serializers.IntegerField(help_text="The new practice attempt, already at the position.")
    moves = serializers.IntegerField(help_text="Moves stored to reach it (the line played up to there).")
    play = serializers.CharField(help_text="The table's page, where the attempt goes on.")


class AttemptReviewTryApi(APIView):
    """ "Try from here": a practice attempt of the caller on the game's day (over) that starts at the review's
    last winnable position. Who may ask: whoever may read the review (so anybody's ranked game after its day)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="attempt_review_try",
        request=None,
        responses={
            201: TryFromHereOutput,
            404: OpenApiResponse(
                description="as the review; or the review is not made yet, or has no winnable position"
            ),
            409: OpenApiResponse(description="the caller has an open attempt on this challenge: finish it first"),
        },
    )
    def post(self, request: Request, attempt_id: int) -> Response:
        view = selectors.review_get(attempt_id=attempt_id, viewer=request.user)
        review = view.review or {}
        if view.status != "done" or review.get("win_from") is None:
            raise NotFound(
                f"the review of attempt {attempt_id} has no winnable position to try from"
                + ("" if view.status == "done" else f" (its review is {view.status})")
            )
        prefix = list(review["line"][: int(review["win_from"])])
        challenge = view.attempt.challenge
        attempt = attempt_try_from(player=request_player(request), challenge=challenge, moves=prefix)
        data = {"attempt": attempt.pk, "moves": len(prefix), "play": f"/play/{challenge.date}/{challenge.game}"}
        return Response(TryFromHereOutput(data).data, status=201)


class WinnableOutput(serializers.Serializer[Any]):
    attempt = serializers.IntegerField()
    moves = serializers.IntegerField(
        help_text="The length of the stored log the answer is for: a page whose log is longer has moved on "
        "since, and drops the answer."
    )
    state = serializers.ChoiceField(
        choices=["winnable", "lost", "undecided", "pending"],
        help_text="winnable: the solver found a win from the position and the engine replayed it; lost: the "
        "solver's complete search proved no win exists; undecided: the budget left it open; pending: being "
        "solved, ask again after retry_after_ms.",
    )
    words = serializers.CharField(help_text="The state in words, for the light's label.")
    nodes = serializers.IntegerField(allow_null=True, help_text="Positions the solver searched.")
    seconds = serializers.FloatField(allow_null=True, help_text="The solver's time on this position.")
    retry_after_ms = serializers.IntegerField(required=False, help_text="Only when pending.")


class AttemptWinnableApi(APIView):
    """The still-winnable light of the caller's practice attempt on a day that is over, for the position its
    stored log reaches (never one the client sends). Throttled per player (API_THROTTLE_WINNABLE, a guest
    API_THROTTLE_WINNABLE_GUEST) and per address (API_THROTTLE_WINNABLE_ADDRESS); the solves it sends are
    held to fair shares (reviews.winnable)."""

    permission_classes = [IsAuthenticated]

    def get_throttles(self) -> list[BaseThrottle]:
        return _with(self, [WinnablePlayerThrottle(), WinnableAddressThrottle()])

    @extend_schema(
        operation_id="attempt_winnable",
        responses={
            200: WinnableOutput,
            202: OpenApiResponse(WinnableOutput, description="pending: the solver is on it, ask again"),
            403: OpenApiResponse(description="a ranked attempt (code ranked_attempt): the light is for practice"),
            404: OpenApiResponse(
                description="no such attempt of the caller; or its day is not over yet (details: ready_at, "
                "ready_in_seconds)"
            ),
            429: OpenApiResponse(description="asked too often"),
        },
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        answer = winnable.winnable_ask(attempt_id=attempt_id, viewer=request.user, address=client_network(request))
        status = 202 if answer.state == winnable.PENDING else 200
        return Response(WinnableOutput(answer.to_json()).data, status=status)
