"""The admin of game reviews (reviews.admin): read only, for staff with the model's permissions, which
kept their holders when the model moved here from solver_worker (migration reviews 0001)."""

from __future__ import annotations

import datetime as dt
import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import Client
from django.utils import timezone

from games import days
from games.models import Attempt
from games.tests.factories import make_challenge, make_user
from reviews.models import GameReview

pytestmark = pytest.mark.django_db

MOVE = importlib.import_module("reviews.migrations.0001_initial")
LIST = "/admin/reviews/gamereview/"


def reviewed() -> GameReview:
    """A finished game of yesterday and its review, as the solver left it."""
    challenge = make_challenge(day=days.today() - dt.timedelta(days=1))
    attempt = Attempt.objects.create(
        player=make_user(), challenge=challenge, ranked=True, moves=["s"], finished_at=timezone.now()
    )
    return GameReview.objects.create(attempt=attempt, status=GameReview.Status.DONE, outcome="lost")


def staff(*permissions: Permission) -> tuple[Client, User]:
    user = make_user()
    user.is_staff = True
    user.save()
    user.user_permissions.add(*permissions)
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    return client, user


def test_the_admin_lists_reviews_read_only(admin_client: Client) -> None:
    row = reviewed()
    assert admin_client.get(LIST).status_code == 200
    page = admin_client.get(f"{LIST}{row.pk}/change/")
    assert page.status_code == 200 and row.outcome in page.content.decode()
    assert admin_client.get(f"{LIST}add/").status_code == 403


def test_staff_need_the_reviews_app_s_view_permission() -> None:
    row = reviewed()
    viewer, _ = staff(Permission.objects.get(content_type__app_label="reviews", codename="view_gamereview"))
    assert viewer.get(LIST).status_code == 200
    assert viewer.get(f"{LIST}{row.pk}/change/").status_code == 200
    other, _ = staff()
    assert other.get(LIST).status_code == 403


def relabel(direction: str) -> None:
    getattr(MOVE, f"relabel_{direction}")(apps, SimpleNamespace(connection=connection))
    ContentType.objects.clear_cache()


def as_before_the_move() -> tuple[User, Group]:
    """The content type and permissions as the previous release made them (solver_worker.gamereview), held
    by a user and a group."""
    ContentType.objects.filter(app_label="reviews", model="gamereview").delete()  # its permissions with it
    old = ContentType.objects.create(app_label="solver_worker", model="gamereview")
    for action in ("add", "change", "delete", "view"):
        Permission.objects.create(content_type=old, codename=f"{action}_gamereview", name=f"Can {action} game review")
    view = Permission.objects.get(content_type=old, codename="view_gamereview")
    group = Group.objects.create(name="reviewers")
    group.permissions.add(view)
    _, user = staff(view)
    return user, group


def test_the_move_relabels_the_content_type_so_staff_keep_their_permissions() -> None:
    user, group = as_before_the_move()
    old = ContentType.objects.get(app_label="solver_worker", model="gamereview")
    relabel("forwards")
    moved = ContentType.objects.get(pk=old.pk)  # the same row: the admin's history of reviews stays with it
    assert (moved.app_label, moved.model) == ("reviews", "gamereview")
    assert ContentType.objects.get_for_model(GameReview) == moved
    assert User.objects.get(pk=user.pk).has_perm("reviews.view_gamereview")
    assert set(group.permissions.values_list("content_type__app_label", "codename")) == {("reviews", "view_gamereview")}
    row = reviewed()
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    assert client.get(f"{LIST}{row.pk}/change/").status_code == 200

    relabel("backwards")  # migrating back gives the old label again
    assert ContentType.objects.get(pk=old.pk).app_label == "solver_worker"


def test_when_both_content_types_exist_the_holders_get_the_new_permissions() -> None:
    user, group = as_before_the_move()
    new = ContentType.objects.create(app_label="reviews", model="gamereview")  # a partial migrate's post_migrate
    Permission.objects.create(content_type=new, codename="view_gamereview", name="Can view game review")
    relabel("forwards")
    assert User.objects.get(pk=user.pk).has_perm("reviews.view_gamereview")
    assert group.permissions.filter(content_type=new, codename="view_gamereview").exists()


def test_a_new_database_has_nothing_to_relabel() -> None:
    relabel("forwards")
    assert not ContentType.objects.filter(app_label="solver_worker", model="gamereview").exists()
    assert ContentType.objects.get_for_model(GameReview).app_label == "reviews"
