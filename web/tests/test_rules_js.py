"""The browser's rules (web/static/web/js/rules.js) checked against the engine by node's own test runner."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None and not os.environ.get("CI"), reason="node is not installed")
def test_rules_js_agree_with_the_engine() -> None:
    assert NODE, "CI runs the browser rules' tests: node (20 or later) must be installed"
    done = subprocess.run(
        [NODE, "--test", str(ROOT / "web" / "tests" / "js")],
        cwd=ROOT,
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=600,
    )
    tail = "\n".join(done.stdout.splitlines()[-12:])
    assert done.returncode == 0, f"{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout, tail
