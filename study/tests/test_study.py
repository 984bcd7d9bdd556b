"""Winnability runs and their study files: resuming, retries, the report, unreadable files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from study.cli import main
from study.figures import report
from study.rows import read_done


def test_report_counts_undecided_deals_as_neither(tmp_path: Path) -> None:
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
    assert sorted(read_done(str(study), "klondike", (5.0, None))) == [3, 5, 6]
    assert sorted(read_done(str(study), "klondike", (5.0, 9))) == [3, 4, 5, 6]  # a bound at least as tight
    assert sorted(read_done(str(study), "klondike", (1.0, None))) == [3, 5, 6]
    assert sorted(read_done(str(study), "klondike", (1.0, 1))) == [3, 4, 5, 6]
    assert sorted(read_done(str(study), "klondike", (10.0, None))) == []
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
    assert sorted(read_done(str(study), "klondike", (5.0, None), every=True)) == [3, 5]
    assert sorted(read_done(str(study), "klondike", (5.0, 9), every=True)) == [3]  # another bound: another budget
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
    assert sorted(read_done(str(study), "maria", (60.0, None))) == [7]
    assert sorted(read_done(str(study), "maria", (61.0, None))) == []
    assert sorted(read_done(str(study), "maria", (1.25, None), every=True)) == [7, 8]  # this pass's own
    assert read_done(str(tmp_path / "none.jsonl"), "maria", (60.0, None)) == {}


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
