import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory

from core.auth import request_player


@pytest.mark.django_db
def test_the_signed_in_user_is_the_player() -> None:
    request = RequestFactory().get("/")
    request.user = User.objects.create_user(username="ann", password="long enough pass")
    assert request_player(request) is request.user


def test_an_anonymous_request_is_refused_not_passed_on() -> None:
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    with pytest.raises(PermissionDenied):
        request_player(request)
