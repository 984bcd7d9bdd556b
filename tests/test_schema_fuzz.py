"""schemathesis against the live schema: 0 server errors, 0 responses the schema does not allow.

The schema is read from ``/api/schema/`` of the service's own WSGI application
(in process, on the test database), and every operation is called with data
generated from it, valid and invalid ("positive" and "negative" modes), as a
logged-in player (a real token), with a challenge of today in every game and
a league of the player's. Each response is checked: not a 5xx, a status the
operation documents, the content type and the body it documents, and a 4xx
for every request the schema calls invalid. The budget
is bounded: ``SCHEMA_FUZZ_EXAMPLES`` examples per operation (default 25;
about a minute on a busy CI machine).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from engine import GAME_IDS
from games import days, services
from games.tests.factories import make_challenge, make_user, token_for
from leagues.services import league_create

EXAMPLES = int(os.environ.get("SCHEMA_FUZZ_EXAMPLES", "25"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,  # what the schema calls invalid is refused with a 4xx
]


@pytest.fixture
def in_process_requests() -> Iterator[None]:
    """As Django's test client does: a request's end must not close the test's database connection."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


# Read at collection: generating the schema touches no database.
schema = schemathesis.openapi.from_wsgi("/api/schema/", application)


@dataclass
class World:
    """What the player owns: generated ids are aimed at these, so that real rows are exercised."""

    token: str
    attempts: list[int]
    submissions: list[int]
    leagues: list[int]


@pytest.fixture
def world(db: None, in_process_requests: None) -> World:
    player = make_user("fuzzer")
    today = days.today()
    challenges = [make_challenge(game=game, seed=seed, day=today) for seed, game in enumerate(GAME_IDS, start=100)]
    attempts = [services.attempt_start(player=player, challenge=c) for c in challenges[:3]]
    submission, _ = services.attempt_submit(attempt_id=attempts[2].pk, player=player, start=None, moves=None)
    league = league_create(owner=player, name="Fuzzers")
    return World(
        token=token_for(player),
        attempts=[a.pk for a in attempts],
        submissions=[submission.pk],
        leagues=[league.pk],
    )


def _aim(case: Any, world: World) -> None:
    """Most generated ids and dates name the player's own rows and today (others stay as generated)."""
    params = case.path_parameters or {}
    owned = (("attempt_id", world.attempts), ("submission_id", world.submissions), ("league_id", world.leagues))
    for name, real in owned:
        value = params.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value % 4 != 3:
            params[name] = real[value % len(real)]
    date = params.get("date")
    if isinstance(date, str) and len(date) == 10 and date[-1] in "02468":
        params["date"] = days.today().isoformat()


@pytest.mark.slow  # about 30 s: SCHEMA_FUZZ_EXAMPLES requests per operation
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_every_operation_answers_as_its_schema_says(case: Any, world: World) -> None:
    _aim(case, world)
    case.call_and_validate(headers={"Authorization": f"Token {world.token}"}, checks=CHECKS)


STATEFUL_EXAMPLES = int(os.environ.get("SCHEMA_FUZZ_STATEFUL_EXAMPLES", "25"))
# And: what the schema calls valid is accepted (or refused only for the state: 404, 409...).
STATEFUL_CHECKS = [*CHECKS, positive_data_acceptance]


def test_sequences_of_operations_answer_as_the_schema_says(world: World) -> None:
    """The stateful phase: schemathesis follows the links it infers between operations (a created
    attempt's id into its moves, replay and submit; a league's id, its invite code into join...)."""

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]
        """Each scenario starts from the same world: its writes are rolled back at its end (a replayed
        scenario must meet the answers it met the first time, or hypothesis calls it flaky)."""

        def setup(self) -> None:
            self.scenario = transaction.atomic()
            self.scenario.__enter__()

        def teardown(self) -> None:
            transaction.set_rollback(True)
            self.scenario.__exit__(None, None, None)

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"headers": {"Authorization": f"Token {world.token}"}}

        def validate_response(self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any) -> None:
            case.validate_response(response, checks=STATEFUL_CHECKS, transport_kwargs=kwargs)

    Workflow.run(
        settings=settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=8,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
    )


def test_the_schema_declares_what_the_server_refuses() -> None:
    """The four requests the stateful phase once found allowed by the schema and refused by the server."""
    import re

    raw = schema.raw_schema
    solution = raw["paths"]["/api/v1/daily/{date}/{game}/solution"]["get"]["parameters"]
    assert sorted(next(p for p in solution if p["name"] == "game")["schema"]["enum"]) == sorted(GAME_IDS)
    components = raw["components"]["schemas"]
    name = components["LeagueCreateInput"]["properties"]["name"]["pattern"]
    code = components["LeagueJoinInput"]["properties"]["invite_code"]["pattern"]
    move = components["MovesInput"]["properties"]["moves"]["items"]["oneOf"][0]["pattern"]
    assert not re.search(name, "Lea\x00gue") and re.search(name, " League ") and not re.search(name, " ab ")
    assert not re.search(code, "") and not re.search(code, "   ") and re.search(code, " AbC12 ")
    assert not re.search(move, "s\x00") and re.search(move, "t1t2")
