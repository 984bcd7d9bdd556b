"""The command line as a third-party checker uses it: JSON out, exit 0 / 1 / 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "games", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def call(argv: list[str], monkeypatch: pytest.MonkeyPatch, stdin: str = "") -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out = io.StringIO()
    code = main(argv, out)
    return code, out.getvalue()


def test_deal_prints_spec_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = call(["deal", "josephine", "1"], monkeypatch)
    data = json.loads(out)
    assert code == 0
    assert set(data) == {"game", "seed", "tableau", "stock", "foundations"}
    assert [c["card"] for c in data["tableau"][0]] == ["6H", "5C", "JC", "8D"]
    assert data["stock"][:3] == ["6H", "KH", "3H"]


def test_deal_klondike_marks_face_down_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    _, out = call(["deal", "klondike", "2026"], monkeypatch)
    tableau = json.loads(out)["tableau"]
    assert [col[-1]["card"] for col in tableau] == ["8H", "8D", "KC", "TS", "KD", "7D", "TH"]
    assert [sum(not c["up"] for c in col) for col in tableau] == list(range(7))


def test_replay_result_and_exit_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "log.json"
    log.write_text(json.dumps(["s", "s", "u"]))
    code, out = call(["replay", "forty-thieves", "1", str(log)], monkeypatch)
    assert code == 0
    assert json.loads(out) == {"won": False, "score": 0, "moves": 3, "foundation_cards": 0}


def test_replay_illegal_entry_exit_one(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = call(["replay", "josephine", "1", "-"], monkeypatch, stdin='["s", "r"]')
    assert code == 1
    error = json.loads(out)["error"]
    assert error["index"] == 1 and error["move"] == "r" and "stock" in error["reason"]


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["replay", "josephine", "1"], '{"moves": []}', "JSON array"),
        (["replay", "josephine", "1"], '["s", 3]', "entry 1"),
        (["replay", "josephine", "1"], "[not json", "not valid JSON"),
        (["replay", "josephine", "1"], json.dumps(["s"] * 5001), "at most 5000"),
        (["deal", "solitaire", "1"], "", "unknown game 'solitaire'"),
        (["deal", "klondike", "-1"], "", "seed"),
        (["deal", "klondike", "18446744073709551616"], "", "outside 0..18446744073709551615"),
        (["deal", "klondike", "12abc"], "", "not a whole number"),
        (["moves", "maria", "x1"], "", "not a whole number"),
    ],
)
def test_bad_input_is_a_message_and_exit_two(args: list[str], stdin: str, message: str) -> None:
    proc = run(*args, stdin=stdin)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_largest_seed_is_accepted() -> None:
    proc = run("deal", "lucas", "18446744073709551615")
    assert proc.returncode == 0
    assert len(json.loads(proc.stdout)["foundations"]) == 8


def test_moves_lists_legal_moves_and_undo(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = call(["moves", "klondike", "2026"], monkeypatch)
    assert code == 0 and json.loads(out) == ["s"]
    code, out = call(["moves", "klondike", "2026", "-"], monkeypatch, stdin='["s"]')
    moves = json.loads(out)
    assert code == 0 and moves[-1] == "u" and "s" in moves


def test_moves_after_an_illegal_log_reports_it(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = call(["moves", "klondike", "2026", "-"], monkeypatch, stdin='["u"]')
    assert code == 1
    assert json.loads(out)["error"]["reason"] == "nothing to undo"


def test_replay_batch_keeps_going_after_bad_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [
        json.dumps({"game": "josephine", "seed": 1, "moves": ["s", "u"]}),
        "{broken",
        json.dumps({"game": "nope", "seed": 1, "moves": []}),
        json.dumps({"game": "klondike", "seed": -5, "moves": []}),
        json.dumps({"game": "klondike", "seed": 2026, "moves": "s"}),
        json.dumps([1, 2]),
        json.dumps({"game": "klondike", "seed": 2026}),
        json.dumps({"game": "klondike", "seed": 2026, "moves": ["s", "t9t1"]}),
        json.dumps({"game": "klondike-3", "seed": 2026, "moves": ["s"]}),
    ]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    code, out = call(["replay-batch", str(batch)], monkeypatch)
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert len(results) == len(lines)
    assert results[0] == {"won": False, "score": 0, "moves": 2, "foundation_cards": 0}
    for i in range(1, 7):
        assert results[i]["error"]["line"] == i + 1 and results[i]["error"]["reason"]
    assert results[7] == {"error": {"index": 1, "move": "t9t1", "reason": results[7]["error"]["reason"]}}
    assert "no column 9" in results[7]["error"]["reason"]
    assert results[8]["moves"] == 1


def test_replay_batch_agrees_with_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    vectors = (ROOT / "engine" / "tests" / "data" / "vectors" / "replay.jsonl").read_text().splitlines()
    code, out = call(["replay-batch", "-"], monkeypatch, stdin="\n".join(vectors) + "\n")
    assert code == 0
    for line, result in zip(vectors, out.splitlines(), strict=True):
        expect = json.loads(line)["expect"]
        got = json.loads(result)
        if "error" in expect:
            assert got["error"]["index"] == expect["error"]["index"]
            assert got["error"]["move"] == expect["error"]["move"]
        else:
            assert got == expect
