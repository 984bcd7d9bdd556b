"""Accounts for API clients: register and log in for a token (browsers use the session)."""

from __future__ import annotations

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.errors import BadRequest, Conflict
from games.fields import StrictStringField


class CredentialsInput(serializers.Serializer):
    username = StrictStringField(max_length=150, allow_blank=False, trim_whitespace=True)
    password = StrictStringField(max_length=256, allow_blank=False)


class TokenOutput(serializers.Serializer):
    username = serializers.CharField()
    token = serializers.CharField()


def _credentials(request: Request) -> dict[str, str]:
    if not isinstance(request.data, dict):
        raise BadRequest("the request body is a JSON object {username, password}")
    serializer = CredentialsInput(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def user_register(*, username: str, password: str) -> str:
    """Create a player and return an API token. A taken name is a 409, a weak password a 400."""
    User = get_user_model()
    username_field = User._meta.get_field("username")
    try:
        for validator in username_field.validators:
            validator(username)
        validate_password(password, user=User(username=username))
    except DjangoValidationError as exc:
        raise BadRequest(" ".join(exc.messages)) from None
    if User.objects.filter(username__iexact=username).exists():
        raise Conflict(f"the username {username!r} is taken")
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            token = Token.objects.create(user=user)
    except IntegrityError:
        raise Conflict(f"the username {username!r} is taken") from None
    return token.key


class RegisterApi(APIView):
    authentication_classes: list[type] = []
    throttle_scope = "auth"

    @extend_schema(
        operation_id="auth_register",
        request=CredentialsInput,
        responses={201: TokenOutput, 409: OpenApiResponse(description="the username is taken")},
    )
    def post(self, request: Request) -> Response:
        data = _credentials(request)
        token = user_register(username=data["username"], password=data["password"])
        return Response({"username": data["username"], "token": token}, status=status.HTTP_201_CREATED)


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
        user = authenticate(request._request, username=data["username"], password=data["password"])
        if user is None:
            raise exceptions.AuthenticationFailed("wrong username or password")
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"username": user.get_username(), "token": token.key})

    def get_authenticate_header(self, request: Request) -> str:
        return "Token"
