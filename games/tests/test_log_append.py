"""The one place an attempt's move log grows (games.services.moves.log_append), on any database.

Every writer of the log (the unlocked batch, the locked batch, the close) stores through it, so its
contract is checked here once: it writes all of a batch (moves, receipt, assisted mark, end) or
nothing, and only to the open attempt whose log has the length the caller saw.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from pathlib import Path

import pytest
from django.utils import timezone

from games.models import Attempt
from games.services.moves import log_append
from games.services.positions import AttemptFacts
from games.tests.factories import make_challenge, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def attempt() -> Attempt:
    return Attempt.objects.create(player=make_user(), challenge=make_challenge(), ranked=True)


def test_a_batch_is_appended_with_its_receipt(attempt: Attempt) -> None:
    facts = AttemptFacts.of(attempt)
    assert log_append(facts=facts, length=0, moves=["s", "s"], assisted=False) is False
    assert log_append(facts=facts, length=2, moves=["s"], assisted=False) is False
    stored = Attempt.objects.get(pk=attempt.pk)
    assert stored.moves == ["s", "s", "s"]
    assert [count for _ms, count in stored.batches] == [2, 1]
    assert all(ms >= 0 for ms, _count in stored.batches) and stored.finished_at is None


def test_a_log_of_another_length_is_left_as_it_is(attempt: Attempt) -> None:
    facts = AttemptFacts.of(attempt)
    log_append(facts=facts, length=0, moves=["s"], assisted=False)
    for length in (0, 2):  # a batch that lost a race, and one from a future the log never had
        assert log_append(facts=facts, length=length, moves=["s"], assisted=True) is None
    stored = Attempt.objects.get(pk=attempt.pk)
    assert (stored.moves, len(stored.batches), stored.assisted) == (["s"], 1, False)


def test_the_assisted_mark_only_turns_on(attempt: Attempt) -> None:
    facts = AttemptFacts.of(attempt)
    assert log_append(facts=facts, length=0, moves=["s"], assisted=True) is True
    assert log_append(facts=facts, length=1, moves=["s"], assisted=False) is True  # stays on
    assert log_append(facts=facts, length=2, moves=[], assisted=False) is True  # nothing new: no receipt
    stored = Attempt.objects.get(pk=attempt.pk)
    assert stored.assisted is True and [count for _ms, count in stored.batches] == [1, 1]


def test_the_close_ends_the_attempt_in_the_same_write_and_nothing_follows(attempt: Attempt) -> None:
    facts = AttemptFacts.of(attempt)
    end = timezone.now()
    assert log_append(facts=facts, length=0, moves=["s"], assisted=False, finished_at=end) is False
    stored = Attempt.objects.get(pk=attempt.pk)
    assert stored.moves == ["s"] and stored.finished_at == end
    assert log_append(facts=facts, length=1, moves=["s"], assisted=False) is None  # an ended attempt
    assert Attempt.objects.get(pk=attempt.pk).moves == ["s"]


@pytest.mark.parametrize(
    "change",
    [
        {"player_id": -1},  # someone else's id
        {"challenge_id": -1},
        {"started_at": dt.datetime(2000, 1, 1, tzinfo=dt.UTC)},  # another attempt under this id
        {"id": -1},
    ],
)
def test_only_the_attempt_the_facts_name_is_written(attempt: Attempt, change: dict[str, object]) -> None:
    facts = dataclasses.replace(AttemptFacts.of(attempt), **change)  # type: ignore[arg-type]
    assert log_append(facts=facts, length=0, moves=["s"], assisted=True) is None
    stored = Attempt.objects.get(pk=attempt.pk)
    assert (stored.moves, stored.batches, stored.assisted) == ([], [], False)


def test_the_log_grows_in_one_place() -> None:
    """No module but games/services/moves.py writes an attempt's log: no other SQL append, and no
    other assignment to an attempt's moves or batches outside the tests and migrations."""
    games = Path(__file__).resolve().parent.parent
    home = games / "services" / "moves.py"
    writes = re.compile(r"moves\s*\|\||batches\s*\|\||attempt\.(?:moves|batches)\s*=[^=]")
    found = [
        str(path.relative_to(games))
        for path in games.rglob("*.py")
        if path != home and "tests" not in path.parts and "migrations" not in path.parts
        if writes.search(path.read_text())
    ]
    assert found == []
