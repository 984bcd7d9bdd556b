"""A rolling deploy, for real: the previous release's code against this one's schema, and this code against
the previous schema, each in its own processes on a database of its own.

During an upgrade the one-off `migrate` runs first (docker-compose.yml), then the old web processes and
workers keep serving on the new schema until each is replaced; a rollback runs the old code on the new
schema for as long as it is kept. So the old code must still prepare a day, start an attempt, take its
moves, submit and validate it (the row insert that failed in issue 52: `null value in column "held"`),
and read a board, with every migration of this code applied. And this code on the old schema must never
be routed to: `/readyz` answers 503 naming the migrations until they are applied, and once they are
(on the old release's played data) /daily, the boards and starting an attempt work.

The previous release is ``UPGRADE_FROM`` (a commit) when set, else the commit before the newest one on
this branch's first-parent line that changed a migration: the newest schema change is the one
exercised. Its code is taken with ``git archive`` into a temporary folder (the compiled solver copied
beside it, or built there when its C sources differ) and run with this checkout's interpreter. One test
proves the harness can fail: a column added NOT NULL without a database default (what ``AddField`` with
a Python ``default`` alone makes) breaks the old code's validation, and the test sees it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import uuid
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path

import pytest

from tests.test_settings import SETTINGS_VARS

pytestmark = [pytest.mark.slow, pytest.mark.postgres(reason="the upgrade's own database")]

ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS = ":(glob)**/migrations/0*.py"

# Through the API, as the old web processes serve it (the SPEC's paths: the contract both releases keep),
# with the tasks run in process (no REDIS_URL): the submission is validated as a worker would.
PLAY = r"""
import datetime as dt, json, sys
import django
django.setup()
from django.core.management import call_command
from django.test import Client
from games import days
from games.models import Challenge

prepare, name = sys.argv[1], sys.argv[2]
today = days.today()
if prepare != "none":  # what a prepare worker does: prove a day (today, or tomorrow) and store it
    day = today + dt.timedelta(days=1 if prepare == "tomorrow" else 0)
    call_command("prepare_day", day.isoformat(), "--games", "klondike", "--seconds", "5", "--max-seeds", "5")
    assert Challenge.objects.filter(date=day, game="klondike", status="ready").exists()
challenge = Challenge.objects.get(date=today, game="klondike", status="ready")
client = Client(HTTP_HOST="localhost", REMOTE_ADDR="10.9.8.7")
out = []
def call(method, path, body=None, token=None, want=(200,)):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    if method == "GET":
        answer = client.get(f"/api/v1/{path}", **headers)
    else:
        answer = client.post(f"/api/v1/{path}", data=json.dumps(body or {}), content_type="application/json", **headers)
    assert answer.status_code in want, (method, path, answer.status_code, answer.content[:2000])
    out.append(f"{method} {path.split('/')[0]} {answer.status_code}")
    return answer.json() if answer.content else None
token = call("POST", "auth/register", {"username": name, "password": "a long passphrase 42"}, want=(201,))["token"]
listed = call("GET", "daily")
assert "klondike" in {c["game"] for c in listed["challenges"]}, listed
attempt = call("POST", f"daily/{today}/klondike/attempts", token=token, want=(201,))["id"]
moves = list(challenge.solution)
for start in range(0, len(moves), 50):
    call("POST", f"attempts/{attempt}/moves", {"from": start, "moves": moves[start:start + 50]}, token=token)
submission = call("POST", f"attempts/{attempt}/submit", token=token, want=(202,))["id"]
validated = call("GET", f"submissions/{submission}", token=token)
assert validated["status"] == "valid" and validated["result"]["won"] is True, validated
call("GET", f"leaderboards/{today}/klondike?board=all")
call("GET", f"leaderboards/{today}/klondike")
print(json.dumps(sorted(set(out))))
"""

# This code before its migrations are applied: is it kept out of rotation?
READY = r"""
import json
import django
django.setup()
from django.test import Client
answer = Client(HTTP_HOST="localhost").get("/readyz")
print(json.dumps({"status": answer.status_code, "down": answer.json().get("down")}))
"""

# A migration that breaks old code: a NOT NULL column with a Python default only, as Django makes it.
BAD_COLUMN = r"""
import django
django.setup()
from django.db import connection, models
from games.models import Result
field = models.IntegerField(default=0)
field.set_attributes_from_name("upgrade_probe")
with connection.schema_editor() as editor:
    editor.add_field(Result, field)
"""


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def previous_release() -> str:
    chosen = os.environ.get("UPGRADE_FROM")
    if chosen:
        return git("rev-parse", "--verify", f"{chosen}^{{commit}}")
    if git("rev-parse", "--is-shallow-repository") == "true":
        pytest.skip("a shallow clone has no previous release: fetch the history, or set UPGRADE_FROM")
    newest = git("log", "--first-parent", "-1", "--format=%H", "HEAD", "--", MIGRATIONS)
    return git("rev-parse", f"{newest}^1")


def migrations_at(commit: str) -> set[str]:
    return {p for p in git("ls-tree", "-r", "--name-only", commit).splitlines() if "/migrations/0" in p}


@pytest.fixture(scope="module")
def old_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The previous release's files (git archive: the repository is left as it is)."""
    commit = previous_release()
    where = tmp_path_factory.mktemp("previous-release")
    archive = subprocess.run(["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(where, filter="data")
    for built in (ROOT / "solver").glob("_core*.so"):
        shutil.copy2(built, where / "solver" / built.name)
    check = [sys.executable, "-c", "from solver import core; core.require()"]
    if subprocess.run(check, cwd=where, capture_output=True).returncode != 0:  # built from another _core.c
        for built in (where / "solver").glob("_core*.so"):
            built.unlink()
        subprocess.run([sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"], cwd=where, check=True)
    (where / "RELEASE").write_text(commit)
    return where


def admin(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{os.environ['DATABASE_URL'].rsplit('/', 1)[0]}/postgres", autocommit=True) as conn:
        conn.execute(statement)


def url(name: str) -> str:
    return f"{os.environ['DATABASE_URL'].rsplit('/', 1)[0]}/{name}"


@pytest.fixture(scope="module")
def played_before(old_tree: Path) -> Iterator[str]:
    """A database as the previous release left it: its schema, today's klondike prepared, a game played."""
    name = f"upgrade_{uuid.uuid4().hex[:12]}_before"
    admin(f"CREATE DATABASE {name}")
    try:
        ok(run(old_tree, url(name), "migrate", "--noinput", "-v", "0"))
        ok(run(old_tree, url(name), "today", "player-before", code=PLAY))
        yield name
    finally:
        admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def database(played_before: str) -> Iterator[str]:
    """A copy of ``played_before`` of the test's own, dropped afterwards."""
    name = f"upgrade_{uuid.uuid4().hex[:12]}"
    admin(f"CREATE DATABASE {name} TEMPLATE {played_before}")
    try:
        yield url(name)
    finally:
        admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def run(tree: Path, database: str, *args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    """``manage.py args`` (or ``code``) with ``tree``'s code on ``database``: debug, no Redis (tasks in process)."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARS and k != "PYTHONPATH"}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", DJANGO_DEBUG="true", DATABASE_URL=database)
    command = [sys.executable, "-c", code, *args] if code is not None else [sys.executable, "manage.py", *args]
    return subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=300)


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]
    return done.stdout


def test_there_is_a_schema_change_to_cross(old_tree: Path) -> None:
    """Else the tests below would compare a release with itself."""
    old = migrations_at((old_tree / "RELEASE").read_text())
    new = {str(p.relative_to(ROOT)) for p in ROOT.glob("*/migrations/0*.py")}
    assert old < new, "the previous release has no migration this code lacks, and lacks one this code has"


PLAYED = [
    "GET daily 200",
    "GET leaderboards 200",
    "GET submissions 200",
    "POST attempts 200",
    "POST attempts 202",
    "POST auth 201",
    "POST daily 201",
]


def test_the_previous_release_runs_on_this_schema(old_tree: Path, database: str) -> None:
    """The database holds the old release's data and schema (``played_before``)."""
    ok(run(ROOT, database, "migrate", "--noinput", "-v", "0"))  # the deploy's one-off step
    # The old processes still running: a day prepared, a game played, submitted, validated, ranked.
    played = json.loads(ok(run(old_tree, database, "tomorrow", "old-after", code=PLAY)).splitlines()[-1])
    assert played == PLAYED


def test_this_code_is_not_ready_on_the_old_schema_and_works_once_migrated(old_tree: Path, database: str) -> None:
    ready = json.loads(ok(run(ROOT, database, code=READY)).splitlines()[-1])
    assert ready == {"status": 503, "down": ["migrations"]}  # the load balancer keeps it out
    ok(run(ROOT, database, "migrate", "--noinput", "-v", "0"))
    ready = json.loads(ok(run(ROOT, database, code=READY)).splitlines()[-1])
    assert ready == {"status": 200, "down": []}
    played = json.loads(ok(run(ROOT, database, "tomorrow", "player-new", code=PLAY)).splitlines()[-1])
    assert played == PLAYED


def test_a_not_null_column_without_a_database_default_breaks_the_old_code_and_this_test_sees_it(
    old_tree: Path, database: str
) -> None:
    ok(run(ROOT, database, "migrate", "--noinput", "-v", "0"))
    ok(run(ROOT, database, code=BAD_COLUMN))
    broken = run(old_tree, database, "none", "old-broken", code=PLAY)
    assert broken.returncode != 0
    assert 'null value in column "upgrade_probe"' in broken.stderr, broken.stderr[-3000:]
