"""Accounts for API clients: register and log in for a token (browsers use the session)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import limits, names
from games import services
from games.auth import token_for_login, token_revoke
from games.errors import BadRequest
from games.fields import StrictStringField
from games.models import ApiToken


class CredentialsInput(serializers.Serializer[Any]):
    username = StrictStringField(max_length=150, allow_blank=False, trim_whitespace=True)
    password = StrictStringField(max_length=256, allow_blank=False)


class TokenOutput(serializers.Serializer[Any]):
    username = serializers.CharField()
    token = serializers.CharField()


def _credentials(request: Request) -> dict[str, str]:
    if not isinstance(request.data, dict):
        raise BadRequest("the request body is a JSON object {username, password}")
    serializer = CredentialsInput(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class RegisterApi(APIView):
    authentication_classes: list[type] = []
    throttle_scope = "auth"

    @extend_schema(
        operation_id="auth_register",
        request=CredentialsInput,
        responses={
            201: TokenOutput,
            409: OpenApiResponse(description="the username is taken, or looks like a taken one (case, confusables)"),
        },
    )
    def post(self, request: Request) -> Response:
        data = _credentials(request)
        limits.creation_guard(request=request, limit=limits.SIGNUP)  # per address and hour: 429 past it
        username, token = services.player_register(username=data["username"], password=data["password"])
        return Response({"username": username, "token": token}, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    authentication_classes: list[type] = []
    throttle_scope = "auth"

    @extend_schema(
        operation_id="auth_token",
        request=CredentialsInput,
        responses={200: TokenOutput, 401: OpenApiResponse(description="wrong username or password")},
    )
    def post(self, request: Request) -> Response:
        data = _credentials(request)
        # Per account and per address, with back-off (core.limits): 429 before the password is checked.
        with limits.login_guard(request=request, username=data["username"]) as outcome:
            username = names.normalize(data["username"])  # names are stored in NFKC, as the login page reads them
            user = authenticate(request._request, username=username, password=data["password"])
            if user is None:
                outcome.failure()
                raise exceptions.AuthenticationFailed("wrong username or password")
            outcome.success()
        key = token_for_login(user)  # a new token, shown this once (its digest is what is stored)
        response = Response({"username": user.get_username(), "token": key})
        limits.device_cookie_set(response, outcome, secure=request.is_secure())  # this client is known now
        return response

    def get_authenticate_header(self, request: Request) -> str:
        return "Token"


class LogoutApi(APIView):
    """The token this request carries is deleted: it is refused from now on (log in for a new one)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="auth_logout", request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        if isinstance(request.auth, ApiToken):
            token_revoke(request.auth.digest)
        return Response(status=status.HTTP_204_NO_CONTENT)
