"""A winnability study solved by a real solver worker (manage.py study_on_workers)."""

from __future__ import annotations

import io
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from solver_worker import tasks
from study.rows import solve_row
from tests.processes import celery_worker


def test_the_task_gives_the_study_s_row() -> None:
    row = tasks.solve_seed("klondike", 2, 5.0)
    expected = solve_row("klondike", 2, 5.0, None)
    assert row["status"] == expected["status"] == "solved"
    assert {k: v for k, v in row.items() if k != "seconds"} == {k: v for k, v in expected.items() if k != "seconds"}


def _study(out: Path, *args: str) -> Any:
    stdout = io.StringIO()
    argv = ["klondike", "--seconds", "2", "--start", "2", "--out", str(out), *args]
    call_command("study_on_workers", *argv, stdout=stdout)
    return json.loads(stdout.getvalue().strip().splitlines()[-1])


@pytest.mark.broker
@pytest.mark.slow
@pytest.mark.redis(reason="the broker")
def test_a_study_on_workers_writes_every_deal_and_resumes(tmp_path: Path) -> None:
    queue = f"study-test-{uuid.uuid4().hex[:8]}"  # a queue of the study's own, read by this worker alone
    out = tmp_path / "study.jsonl"
    with celery_worker(tmp_path / "worker.log", queues=queue):
        _study(out, "--deals", "2", "--queue", queue)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert sorted(r["seed"] for r in rows) == [2, 3]
        assert all(r["status"] in {"solved", "unsolvable", "unknown"} for r in rows)
        assert all("error" not in r for r in rows), rows  # solved by the worker, not failed tasks
        summary = _study(out, "--deals", "3", "--queue", queue)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["seed"] for r in rows) == [2, 3, 4]  # seeds 2 and 3 were not solved again
    assert summary["deals"] == 3 and summary["won"] + summary["lost"] + summary["unknown"] == 3


def test_without_a_broker_nothing_is_sent(tmp_path: Path) -> None:
    """Tasks that would run in this process (no REDIS_URL: the embedded defaults, the tests) are refused."""
    with pytest.raises(CommandError, match="REDIS_URL"):
        _study(tmp_path / "s.jsonl", "--deals", "1")
    assert not (tmp_path / "s.jsonl").exists()


def test_bad_input_is_a_command_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="unknown game"):
        call_command("study_on_workers", "klondyke", "--deals", "1", "--seconds", "1")
