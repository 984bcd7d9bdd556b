"""A winnability study sent as Celery tasks (in process here; workers anywhere in service)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver_worker.cli import main


def test_a_celery_study_writes_every_deal_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "study.jsonl"
    assert main(["winnability", "klondike", "--deals", "2", "--seconds", "2", "--start", "2",
                 "--celery", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["seed"] for r in rows) == [2, 3]
    assert all(r["status"] in {"solved", "unsolvable", "unknown"} for r in rows)
    assert main(["winnability", "klondike", "--deals", "3", "--seconds", "2", "--start", "2",
                 "--celery", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["seed"] for r in rows) == [2, 3, 4]  # seeds 2 and 3 were not solved again
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["deals"] == 3 and summary["won"] + summary["lost"] + summary["unknown"] == 3


def test_report_counts_undecided_deals_as_neither(tmp_path: Path) -> None:
    from solver_worker.cli import report

    study = tmp_path / "maria.jsonl"
    rows = [{"game": "maria", "seed": s, "status": st, "seconds": 1.0}
            for s, st in enumerate(["solved"] * 6 + ["unsolvable"] * 2 + ["unknown"] * 2)]
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
    rows = [{"game": "klondike", "seed": 2, "status": "unknown", "seconds": 0.01},
            {"game": "klondike", "seed": 3, "status": "solved", "seconds": 0.5},
            {"game": "klondike", "seed": 3, "status": "unknown", "seconds": 3.0}]
    study.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    args = ["winnability", "klondike", "--deals", "2", "--seconds", "5", "--start", "2", "--jobs", "1",
            "--out", str(study)]
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
