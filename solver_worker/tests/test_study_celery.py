"""A winnability study sent as Celery tasks to a real worker process, and the CLI free of Django."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from solver_worker.cli import main
from tests.processes import celery_worker

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def solver_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A `celery worker` reading a solver queue of its own on the real broker (REDIS_URL)."""
    queue = f"solver-test-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("CELERY_SOLVER_QUEUE", queue)
    with celery_worker(tmp_path / "worker.log", queues=queue, env={"CELERY_SOLVER_QUEUE": queue}):
        yield queue


@pytest.mark.slow
@pytest.mark.redis(reason="the broker")
def test_a_celery_study_writes_every_deal_and_resumes(
    solver_worker: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "study.jsonl"
    assert (
        main(
            ["winnability", "klondike", "--deals", "2", "--seconds", "2", "--start", "2", "--celery", "--out", str(out)]
        )
        == 0
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["seed"] for r in rows) == [2, 3]
    assert all(r["status"] in {"solved", "unsolvable", "unknown"} for r in rows)
    assert all("error" not in r for r in rows), rows  # solved by the worker, not failed tasks
    assert (
        main(
            ["winnability", "klondike", "--deals", "3", "--seconds", "2", "--start", "2", "--celery", "--out", str(out)]
        )
        == 0
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["seed"] for r in rows) == [2, 3, 4]  # seeds 2 and 3 were not solved again
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["deals"] == 3 and summary["won"] + summary["lost"] + summary["unknown"] == 3


def test_the_cli_never_sets_django_up_even_to_send_celery_tasks() -> None:
    code = (
        "import sys\n"
        "from solver_worker import cli\n"
        "app = cli.celery_app()\n"
        "assert app.conf.task_default_queue == 'solver-q', app.conf.task_default_queue\n"
        # (kombu's JSON encoder imports django.utils.functional when Django is installed: a helper
        # module, not Django set up. Settings, apps and the ORM are what must stay out.)
        "loaded = sorted(m for m in ('django.conf', 'django.apps', 'django.db') if m in sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(REDIS_URL="redis://127.0.0.1:6379/15", CELERY_SOLVER_QUEUE="solver-q")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_celery_study_without_a_broker_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert (
        main(
            [
                "winnability",
                "klondike",
                "--deals",
                "1",
                "--seconds",
                "1",
                "--celery",
                "--out",
                str(tmp_path / "s.jsonl"),
            ]
        )
        == 2
    )
    assert "REDIS_URL" in capsys.readouterr().err


def test_report_counts_undecided_deals_as_neither(tmp_path: Path) -> None:
    from solver_worker.cli import report

    study = tmp_path / "maria.jsonl"
    rows = [
        {"game": "maria", "seed": s, "status": st, "seconds": 1.0}
        for s, st in enumerate(["solved"] * 6 + ["unsolvable"] * 2 + ["unknown"] * 2)
    ]
    study.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    line = report([str(study)]).splitlines()[-1]
    assert line.startswith("| maria | 10 | 6 | 2 | 2 |")
    low, high = (float(x.strip().rstrip("%")) for x in line.split("|")[6].split(" to "))
    assert low < 60 < 80 < high < 100  # proven 6/10, at most 8/10: the interval spans both


def test_retry_unknown_solves_undecided_seeds_again_and_never_drops_a_proof(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from solver_worker.cli import report

    study = tmp_path / "klondike.jsonl"
    # Seed 2 is a quick Klondike win; recorded here as undecided (as if its budget had been short).
    # Seed 3 carries a (made-up) win row followed by a later undecided one: the proof must stay.
    rows = [
        {"game": "klondike", "seed": 2, "status": "unknown", "seconds": 0.01},
        {"game": "klondike", "seed": 3, "status": "solved", "seconds": 0.5},
        {"game": "klondike", "seed": 3, "status": "unknown", "seconds": 3.0},
    ]
    study.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    args = [
        "winnability",
        "klondike",
        "--deals",
        "2",
        "--seconds",
        "5",
        "--start",
        "2",
        "--jobs",
        "1",
        "--out",
        str(study),
    ]
    assert main(args) == 0  # without the flag both seeds count as done: nothing is solved
    assert len(study.read_text().splitlines()) == 3
    assert main([*args, "--retry-unknown"]) == 0
    lines = study.read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[-1])["seed"] == 2
    assert json.loads(lines[-1])["status"] == "solved" and json.loads(lines[-1])["best_left"] == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["won"] == 2 and summary["unknown"] == 0
    assert report([str(study)]).splitlines()[-1].startswith("| klondike | 2 | 2 | 0 | 0 |")
    later = tmp_path / "later.jsonl"  # a second file's undecided row does not undo the first file's proof
    later.write_text(json.dumps({"game": "klondike", "seed": 2, "status": "unknown", "seconds": 1.0}) + "\n")
    assert report([str(study), str(later)]).splitlines()[-1].startswith("| klondike | 2 | 2 | 0 | 0 |")


def test_a_stopped_retry_resumes_instead_of_solving_again_what_already_had_its_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--retry-unknown leaves an undecided seed whose latest try had this run's budget (a retry
    stopped half-way, run again, goes on from where it stopped); a try with less time, or under
    a node bound when this run has none, is solved again. Seeds 2 and 4 are quick Klondike wins."""
    from solver_worker.cli import _read_done

    study = tmp_path / "klondike.jsonl"
    rows = [
        {"game": "klondike", "seed": 2, "status": "unknown", "seconds": 0.5},  # before rows had budgets
        {"game": "klondike", "seed": 3, "status": "unknown", "seconds": 5.003},  # used 5 s: had it
        {"game": "klondike", "seed": 4, "status": "unknown", "seconds": 0.2, "budget_seconds": 5, "budget_nodes": 9},
        {"game": "klondike", "seed": 5, "status": "unknown", "seconds": 5.0, "budget_seconds": 5, "budget_nodes": None},
        {"game": "klondike", "seed": 6, "status": "unknown", "seconds": 1.0, "budget_seconds": 1, "budget_nodes": None},
        {"game": "klondike", "seed": 6, "status": "unknown", "seconds": 9.0, "budget_seconds": 9, "budget_nodes": None},
        # figures that are not numbers (a hand-edited row) never count as a budget had
        {"game": "klondike", "seed": 7, "status": "unknown", "seconds": 9.0, "budget_seconds": True},
        {"game": "klondike", "seed": 8, "status": "unknown", "seconds": 9.0, "budget_seconds": 9, "budget_nodes": True},
    ]
    study.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert sorted(_read_done(str(study), "klondike", (5.0, None))) == [3, 5, 6]
    assert sorted(_read_done(str(study), "klondike", (5.0, 9))) == [3, 4, 5, 6]  # a bound at least as tight
    assert sorted(_read_done(str(study), "klondike", (1.0, None))) == [3, 5, 6]
    assert sorted(_read_done(str(study), "klondike", (1.0, 1))) == [3, 4, 5, 6]
    assert sorted(_read_done(str(study), "klondike", (10.0, None))) == []
    args = ["winnability", "klondike", "--deals", "5", "--seconds", "5", "--start", "2", "--jobs", "1"]
    assert main([*args, "--out", str(study), "--retry-unknown"]) == 0
    added = [json.loads(line) for line in study.read_text().splitlines()[len(rows) :]]
    assert [r["seed"] for r in added] == [2, 4]
    assert all(r["status"] == "solved" and r["budget_seconds"] == 5 and r["budget_nodes"] is None for r in added)
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["won"] == 2 and summary["unknown"] == 3  # the seeds left alone still count, as undecided
    assert main([*args, "--out", str(study), "--retry-unknown"]) == 0  # run again: nothing left to do
    assert len(study.read_text().splitlines()) == len(rows) + 2


def test_retry_all_tries_every_undecided_seed_again_whatever_its_budget_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After a change to the solver a short budget may decide what long ones did not: --retry-all
    solves every undecided seed again, even one that had far more time, except one whose latest try
    had exactly this run's budget (this pass's own row: a stopped pass resumes); a proof stays."""
    from solver_worker.cli import _read_done

    study = tmp_path / "klondike.jsonl"
    rows = [
        {
            "game": "klondike",
            "seed": 2,
            "status": "unknown",
            "seconds": 60.0,
            "budget_seconds": 60,
            "budget_nodes": None,
        },
        {"game": "klondike", "seed": 3, "status": "solved", "seconds": 0.5},
        {"game": "klondike", "seed": 4, "status": "unknown", "seconds": 90.0},  # before rows had budgets
        {"game": "klondike", "seed": 5, "status": "unknown", "seconds": 5.0, "budget_seconds": 5, "budget_nodes": None},
    ]
    study.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert sorted(_read_done(str(study), "klondike", (5.0, None), every=True)) == [3, 5]
    assert sorted(_read_done(str(study), "klondike", (5.0, 9), every=True)) == [3]  # another bound: another budget
    args = ["winnability", "klondike", "--deals", "4", "--seconds", "5", "--start", "2", "--jobs", "1"]
    assert main([*args, "--out", str(study), "--retry-all"]) == 0
    added = [json.loads(line) for line in study.read_text().splitlines()[len(rows) :]]
    assert [r["seed"] for r in added] == [2, 4]  # seeds 2 and 4 are quick Klondike wins
    assert all(r["status"] == "solved" for r in added)
    assert main([*args, "--out", str(study), "--retry-unknown"]) == 0  # --retry-unknown: seed 5 had 5 s
    assert len(study.read_text().splitlines()) == len(rows) + 2
    assert main([*args, "--out", str(study), "--retry-all"]) == 0  # run again: seed 5's latest try is this budget
    assert len(study.read_text().splitlines()) == len(rows) + 2
    capsys.readouterr()
    assert main([*args, "--out", str(study), "--retry-all", "--retry-unknown"]) == 2
    assert "give one" in capsys.readouterr().err


def test_a_shorter_later_try_does_not_undo_the_budget_an_earlier_one_had(tmp_path: Path) -> None:
    """A --retry-all pass writes shorter tries after longer ones: --retry-unknown still knows that
    the seed had its budget and does not spend it again."""
    from solver_worker.cli import _read_done

    study = tmp_path / "maria.jsonl"
    rows = [
        {"game": "maria", "seed": 7, "status": "unknown", "seconds": 60.0, "budget_seconds": 60, "budget_nodes": None},
        {
            "game": "maria",
            "seed": 7,
            "status": "unknown",
            "seconds": 1.25,
            "budget_seconds": 1.25,
            "budget_nodes": None,
        },
        {
            "game": "maria",
            "seed": 8,
            "status": "unknown",
            "seconds": 1.25,
            "budget_seconds": 1.25,
            "budget_nodes": None,
        },
    ]
    study.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert sorted(_read_done(str(study), "maria", (60.0, None))) == [7]
    assert sorted(_read_done(str(study), "maria", (61.0, None))) == []
    assert sorted(_read_done(str(study), "maria", (1.25, None), every=True)) == [7, 8]  # this pass's own
    assert _read_done(str(tmp_path / "none.jsonl"), "maria", (60.0, None)) == {}


@pytest.mark.parametrize("bad", ["directory", "binary"])
def test_a_study_file_that_cannot_be_read_is_a_usage_error_in_every_command(
    tmp_path: Path, bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory or a file that is not text given where a study file belongs: a one-line
    error and exit status 2 from each command that reads studies, no traceback, nothing written."""
    if bad == "directory":
        path = tmp_path / "studies"
        path.mkdir()
    else:
        path = tmp_path / "maria.jsonl"
        path.write_bytes(b"\xff\xfe\x00junk\n")
    good = tmp_path / "josephine.jsonl"
    good.write_text(json.dumps({"game": "josephine", "seed": 1, "status": "solved", "seconds": 1.0}) + "\n")
    svg = tmp_path / "out.svg"
    commands = [
        ["report", str(path)],
        ["plot", str(path), "--out", str(svg)],
        ["winnability", "maria", "--deals", "1", "--seconds", "1", "--out", str(path)],
        ["transfer", str(path), str(good)],
    ]
    for argv in commands:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"error: cannot read the study file {path}"), (argv, err)
        assert "Traceback" not in err
    assert not svg.exists()
    assert good.read_text().count("\n") == 1


def test_report_and_plot_take_rows_without_a_status_or_a_time_as_undecided_or_untimed(tmp_path: Path) -> None:
    """study_rows keeps any row with a game and a seed; report counts one without a status as
    undecided and leaves a won row without a number of seconds out of the median, no KeyError."""
    from solver_worker.cli import report

    study = tmp_path / "maria.jsonl"
    rows = [
        {"game": "maria", "seed": 1},
        {"game": "maria", "seed": 2, "status": "solved"},
        {"game": "maria", "seed": 3, "status": "solved", "seconds": "x"},
        {"game": "maria", "seed": 4, "status": "solved", "seconds": 2.5},
    ]
    study.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert report([str(study)]).splitlines()[-1].startswith("| maria | 4 | 3 | 0 | 1 |")
    assert report([str(study)]).splitlines()[-1].endswith("| 2.50 |")
    svg = tmp_path / "out.svg"
    assert main(["plot", str(study), "--out", str(svg)]) == 0 and svg.read_text().startswith("<svg")
