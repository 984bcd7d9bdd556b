"""README's curl walkthrough runs as written against a live server, on whatever database it has."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from games.tests.factories import make_challenge, make_user

README = Path(__file__).resolve().parent.parent / "README.md"

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def walkthrough() -> str:
    text = README.read_text()
    section = text[text.index("## Playing through the API with curl") :]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, "README has no curl walkthrough"
    return match.group(1)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_curl_walkthrough_runs_as_written(live_server: Any) -> None:
    make_challenge(game="klondike", seed=2026)
    make_user("ada1")  # the walkthrough must not depend on an empty database
    # One answer per line, to read them back (the README's commands print them as they come).
    script = walkthrough().replace("http://127.0.0.1:8000", live_server.url).replace("curl -s ", "curl -s -w '\\n' ")
    assert "attempts/1" not in script and "submissions/1 " not in script  # no hard-coded ids
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    submissions = [a for a in answers if a.get("status") in ("valid", "pending", "invalid") and "attempt" in a]
    assert submissions and submissions[-1]["status"] == "valid", done.stdout
    assert any(a.get("played") == 1 for a in answers), done.stdout  # the player's stats
