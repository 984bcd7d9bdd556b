"""The HTTP surface of the skeleton: health, error shape, schema and docs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import OperationalError
from django.http import Http404
from django.test import Client, RequestFactory
from rest_framework import exceptions, status

from config.exceptions import api_exception_handler
from config.views import server_error
from core.errors import ApplicationError


def assert_error_shape(body: Any, code: str) -> None:
    assert set(body) == {"error"}, body
    error = body["error"]
    assert isinstance(error["message"], str) and error["message"], body
    assert error["code"] == code, body


@pytest.fixture
def client() -> Client:
    return Client()


@pytest.mark.django_db
def test_health(client: Client) -> None:
    response = client.get("/api/v1/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_healthz_checks_the_database(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_healthz_reports_an_unreachable_database(client: Client) -> None:
    with mock.patch("config.views.connection.cursor", side_effect=OperationalError("down")):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "unreachable"}


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post", "delete"])
@pytest.mark.parametrize("path", ["/api/v1/no-such-thing", "/api/v1/", "/api/v2/health", "/api/x"])
def test_unknown_api_path_is_a_json_404(client: Client, method: str, path: str) -> None:
    response = getattr(client, method)(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert_error_shape(response.json(), "not_found")
    assert path in response.json()["error"]["message"]


@pytest.mark.django_db
def test_wrong_method_is_a_json_405(client: Client) -> None:
    response = client.post("/api/v1/health", data={}, content_type="application/json")
    assert response.status_code == 405
    assert_error_shape(response.json(), "method_not_allowed")


@pytest.mark.django_db
def test_unparseable_body_is_a_json_400(client: Client) -> None:
    # A view that accepts POST is needed for the parser to run; the catch-all
    # 404 view does not parse, so exercise the handler on DRF's ParseError.
    response = api_exception_handler(exceptions.ParseError(), {})
    assert response.status_code == 400
    assert_error_shape(response.data, "parse_error")


@pytest.mark.parametrize(
    ("exc", "status_code", "code"),
    [
        (Http404("gone"), 404, "not_found"),
        (DjangoPermissionDenied(), 403, "permission_denied"),
        (exceptions.NotAuthenticated(), 401, "not_authenticated"),
        (exceptions.Throttled(wait=7), 429, "throttled"),
    ],
)
def test_handler_maps_django_and_drf_errors(exc: Exception, status_code: int, code: str) -> None:
    response = api_exception_handler(exc, {})
    assert response.status_code == status_code
    assert_error_shape(response.data, code)


def test_handler_keeps_retry_after_on_throttling() -> None:
    response = api_exception_handler(exceptions.Throttled(wait=7), {})
    assert response["Retry-After"] == "7"


def test_handler_flattens_validation_errors_with_details() -> None:
    exc = exceptions.ValidationError({"moves": ["Not a list of strings."]})
    response = api_exception_handler(exc, {})
    assert response.status_code == 400
    error = response.data["error"]
    assert error["code"] == "invalid"
    assert error["message"] == "moves: Not a list of strings."
    assert error["details"] == {"moves": [{"message": "Not a list of strings.", "code": "invalid"}]}


def test_handler_maps_application_errors() -> None:
    class LogMismatch(ApplicationError):
        status_code = status.HTTP_409_CONFLICT
        code = "log_mismatch"

    response = api_exception_handler(LogMismatch("The log has 12 moves, not 10."), {})
    assert response.status_code == 409
    assert response.data == {"error": {"message": "The log has 12 moves, not 10.", "code": "log_mismatch"}}


def test_handler_turns_unexpected_errors_into_json_500() -> None:
    response = api_exception_handler(RuntimeError("boom"), {})
    assert response.status_code == 500
    assert_error_shape(response.data, "server_error")
    assert "boom" not in response.data["error"]["message"]


def test_django_500_page_is_json_under_api() -> None:
    response = server_error(RequestFactory().get("/api/v1/anything"))
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"


@pytest.mark.django_db
def test_schema_is_served(client: Client) -> None:
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert "/api/v1/health" in schema["paths"]


def test_schema_generates_without_warnings(tmp_path: Path) -> None:
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert "/api/v1/health" in (tmp_path / "schema.yaml").read_text()


@pytest.mark.django_db
def test_docs_use_only_local_assets(client: Client) -> None:
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assert not re.search(r"https?://", html), "the docs page references an external URL"
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets), assets
    for asset in assets:
        assert asset.startswith("/"), asset
        served = client.get(asset)
        assert served.status_code == 200, asset
