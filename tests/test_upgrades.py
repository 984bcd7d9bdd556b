"""Upgrades without a broken window: the schema the previous release can still write, /readyz not ready
before the migrations are applied, and compose's one-off migrate step before web and the workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.models import NOT_PROVIDED, Field
from django.test import Client

from config import views

ROOT = Path(__file__).resolve().parent.parent
APPS = ("games", "leaderboard", "leagues", "reviews")


def defaulted_columns() -> list[tuple[Any, Field[Any, Any]]]:
    """Every NOT NULL column of ours whose model field has a fixed default: what code that predates the
    column leaves out of its INSERT."""
    out = []
    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            for field in model._meta.concrete_fields:
                fixed = (field.has_default() and not callable(field.default)) or field.default in (list, dict)
                if not field.null and not field.primary_key and fixed:
                    out.append((model, field))
    return out


def test_every_not_null_column_with_a_default_has_it_in_the_database_too() -> None:
    """Old code on the new schema (a rolling deploy, or a rollback): an INSERT that leaves out a new column
    takes the database's default instead of failing (issue 52: `null value in column "held"`). So a new
    NOT NULL column gets `db_default` (Django 5) beside its `default`."""
    columns = defaulted_columns()
    assert len(columns) >= 25
    missing = [f"{m.__name__}.{f.name}" for m, f in columns if f.db_default is NOT_PROVIDED]
    assert missing == [], "give these db_default as well as default"


@pytest.mark.django_db
def test_the_database_has_those_defaults() -> None:
    with connection.cursor() as cursor:
        for model, field in defaulted_columns():
            described = {
                c.name: c for c in connection.introspection.get_table_description(cursor, model._meta.db_table)
            }
            assert described[field.column].default is not None, f"{model.__name__}.{field.name}"


@pytest.mark.django_db(transaction=True)
def test_readyz_is_not_ready_while_a_migration_is_unapplied(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(views, "_migrated", [])  # a process that has not seen the schema complete yet
    client = Client(HTTP_HOST="localhost")
    call_command("migrate", "games", "0011", verbosity=0)  # the new code's last migration not applied
    try:
        answer = client.get("/readyz")
        assert answer.status_code == 503 and "migrations" in answer.json()["down"]
    finally:
        call_command("migrate", "games", verbosity=0)
    answer = client.get("/readyz")
    assert answer.status_code == 200 and answer.json()["down"] == []
    assert views._migrated == [True]  # and not asked again by this process


def test_compose_migrates_once_before_web_workers_and_beat_start() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert "manage.py migrate" in services["migrate"]["command"] and services["migrate"]["restart"] == "no"
    assert "migrate" not in services["migrate"]["depends_on"]
    for name in ("web", "worker-validation", "worker-solver", "worker-winnable", "beat"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
