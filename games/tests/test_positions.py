"""A moves batch starts from the position cached after the last one, never from a wrong one."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest
from django.core.cache import cache
from pytest_django import DjangoCaptureOnCommitCallbacks

from engine import State, deal
from games import services
from games.models import Attempt
from games.services import positions
from games.tests.factories import make_challenge, make_user

pytestmark = pytest.mark.django_db


def _replayed(moves: list[str], seed: int = 2026) -> State:
    state = State(deal("klondike", seed))
    for text in moves:
        state.play_text(text)
    return state


def test_the_next_batch_starts_from_the_cached_position_without_a_replay(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    player = make_user()
    attempt = services.attempt_start(player=player, challenge=make_challenge())
    with django_capture_on_commit_callbacks(execute=True):
        services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=["s", "s", "s"])

    def no_replay(*, attempt: Attempt) -> State:
        raise AssertionError("the position was replayed from the deal")

    monkeypatch.setattr(positions, "attempt_replay", no_replay)
    with django_capture_on_commit_callbacks(execute=True):
        outcome = services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=3, moves=["u", "s"])
    assert outcome.state.key() == _replayed(["s", "s", "s", "u", "s"]).key()
    assert outcome.state.score == _replayed(["s", "s", "s", "u", "s"]).score
    assert Attempt.objects.get(pk=attempt.pk).moves == ["s", "s", "s", "u", "s"]
    # And the one after that, from the snapshot written after this batch's commit.
    outcome = services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=5, moves=["s"])
    assert outcome.state.history == _replayed(["s", "s", "s", "u", "s", "s"]).history


def test_without_the_commit_no_snapshot_is_left_and_a_bad_one_is_ignored(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    player = make_user()
    attempt = services.attempt_start(player=player, challenge=make_challenge())
    with django_capture_on_commit_callbacks(execute=False):  # the batch's transaction never commits its hook
        services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=["s"])
    stored = Attempt.objects.get(pk=attempt.pk)
    key = positions.position_key(attempt_id=stored.pk)
    assert cache.get(key) is None
    positions.position_remember(
        attempt=positions.AttemptFacts.of(stored), state=_replayed(["s"]), length=len(stored.moves)
    )
    good = cache.get(key)
    assert good.fits(stored)
    for bad in (("not", "a", "snapshot"), (1, ("not", "a", "snapshot")), "junk", replace(good, snapshot=("x",))):
        cache.set(key, bad)
        positions.forget_local_positions()  # as a process that holds no copy sees it
        assert services.attempt_position(attempt=stored).key() == _replayed(["s"]).key()
    other = _replayed(["s"], seed=7).snapshot()  # a snapshot of another deal under this key
    cache.set(key, replace(good, snapshot=other))
    positions.forget_local_positions()  # as a process that holds no copy sees it
    assert services.attempt_position(attempt=stored).key() == _replayed(["s"]).key()
    older = _replayed([]).snapshot()  # an older batch's snapshot (length 0) is not used for length 1
    cache.set(key, replace(good, length=0, snapshot=older))
    positions.forget_local_positions()  # as a process that holds no copy sees it
    assert services.attempt_position(attempt=stored).key() == _replayed(["s"]).key()
    # Another attempt that reused this id (a test database) is told apart by its start time.
    moved = replace(good.attempt, started_at=good.attempt.started_at - dt.timedelta(seconds=1))
    cache.set(key, replace(good, attempt=moved, snapshot=older, length=1))
    positions.forget_local_positions()  # as a process that holds no copy sees it
    assert services.attempt_position(attempt=stored).key() == _replayed(["s"]).key()


def test_an_attempt_keeps_one_snapshot_whatever_its_number_of_batches(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    player = make_user()
    attempt = services.attempt_start(player=player, challenge=make_challenge())
    for i in range(5):
        with django_capture_on_commit_callbacks(execute=True):
            services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=i, moves=["s"])
    stored = Attempt.objects.get(pk=attempt.pk)
    cached = cache.get(positions.position_key(attempt_id=stored.pk))
    assert cached.length == 5 and cached.fits(stored)
    assert State.restore(deal("klondike", 2026), cached.snapshot).key() == _replayed(["s"] * 5).key()


def test_a_snapshot_restores_an_equal_state_for_every_game() -> None:
    import random

    from engine import GAME_IDS

    for game in GAME_IDS:
        rng = random.Random(game)
        state = State(deal(game, 5))
        for _ in range(80):
            moves = list(state.legal_moves())
            if not moves:
                break
            state.play(rng.choice(moves))
        back = State.restore(deal(game, 5), state.snapshot())
        assert (back.key(), back.score, back.moves, back.history, back.won) == (
            state.key(),
            state.score,
            state.moves,
            state.history,
            state.won,
        )
        assert list(back.legal_moves()) == list(state.legal_moves())
        with pytest.raises(ValueError):
            State.restore(deal(game, 6), state.snapshot())
