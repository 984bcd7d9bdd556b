"""``python -m study``, run as a user runs it: JSON out, exit status 2 on bad input, a run that resumes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import deal
from solver.log import wins


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "study", *args], capture_output=True, text=True, timeout=120)


def test_cli_solve_prints_json() -> None:
    proc = run_cli("solve", "klondike", "2", "--seconds", "10")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"status", "moves", "nodes", "seconds", "difficulty"}
    assert out["status"] == "solved" and wins(deal("klondike", 2), out["moves"])


@pytest.mark.parametrize(
    "args",
    [
        ("solve", "klondyke", "1"),
        ("solve", "klondike", "-3"),
        ("solve", "klondike", "x"),
        ("solve", "klondike", "1", "--seconds", "0"),
        ("winnability", "nope", "--deals", "2", "--seconds", "1"),
    ],
)
def test_cli_bad_input_exits_2_without_traceback(args: tuple[str, ...]) -> None:
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "error:" in proc.stderr


def test_cli_winnability_resumes(tmp_path: Path) -> None:
    out = tmp_path / "k.jsonl"
    proc = run_cli(
        "winnability", "klondike", "--deals", "2", "--seconds", "2", "--start", "2", "--jobs", "1", "--out", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert len(out.read_text().splitlines()) == 2
    proc = run_cli(
        "winnability", "klondike", "--deals", "3", "--seconds", "2", "--start", "2", "--jobs", "2", "--out", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["seed"] for r in rows) == [2, 3, 4]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["deals"] == 3 and summary["won"] + summary["lost"] + summary["unknown"] == 3
    assert "2 seeds already" in proc.stderr
