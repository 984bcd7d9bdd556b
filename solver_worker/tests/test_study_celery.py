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
