"""config/prometheus/alerts.yml: well formed, every metric it uses is one /metrics serves, every alert points
to a section of the runbook (docs/operations.md); and promtool's own check where promtool is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.cache import cache
from django.test import Client

from config import monitoring
from solver_worker.services import INTEGRITY_CACHE_KEY
from tests.test_monitoring import own_keys  # noqa: F401 (a fixture)
from tests.test_observability import scrape

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "config" / "prometheus" / "alerts.yml"
RUNBOOK = ROOT / "docs" / "operations.md"
METRIC = re.compile(r"\b((?:dailypatience|django)_[a-z0-9_]+)\b")
# What the docs say an operator is alerted on (docs/operations.md, "Alerts"): each needs its rule.
REQUIRED = {
    "DailyPatienceBeatDown",
    "DailyPatienceWorkerDown",
    "DailyPatienceNoDayPreparedAhead",
    "DailyPatienceChallengeBroken",
    "DailyPatienceChallengeCheckNotRunning",
    "DailyPatienceTasksFailing",
    "DailyPatienceHttpErrors",
    "DailyPatienceResultHeldOrphaned",
}


def rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a document's headings."""
    out = set()
    for heading in re.findall(r"^#+ (.+)$", markdown, re.M):
        out.add(re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-"))
    return out


def test_every_rule_is_well_formed_and_points_to_its_runbook_section() -> None:
    found = rules()
    names = [r["alert"] for r in found]
    assert len(names) == len(set(names))
    assert set(names) >= REQUIRED
    sections = anchors(RUNBOOK.read_text())
    for rule in found:
        assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule["alert"]
        assert rule["labels"]["severity"] in {"critical", "warning"}, rule["alert"]
        assert rule["annotations"]["summary"], rule["alert"]
        page, _, section = rule["annotations"]["runbook"].partition("#")
        assert page == "docs/operations.md" and section in sections, (rule["alert"], section)
        assert METRIC.search(rule["expr"]), rule["alert"]
    documented = RUNBOOK.read_text()
    for name in names:
        assert name in documented, f"docs/operations.md does not name {name}"


@pytest.mark.redis(reason="Celery's figures come from the broker's Redis")
@pytest.mark.django_db
def test_every_metric_a_rule_uses_is_served(own_keys: str) -> None:  # noqa: F811
    # Each kind of figure present once: heartbeats, a task run, the integrity check, a request.
    monitoring.stamp_beat()
    monitoring.stamp_queues(["validation"])
    monitoring.record_task(task="games.validate_submission", state="FAILURE", seconds=0.2)
    cache.set(INTEGRITY_CACHE_KEY, {"broken": 0, "checked": 3, "at": 1.0}, None)
    client = Client()
    client.get("/api/v1/health")
    served = {name for name, _ in scrape(client)}
    used = {name for rule in rules() for name in METRIC.findall(rule["expr"])}
    assert used - served == set(), "rules name metrics /metrics does not serve"


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool is not installed")
def test_promtool_accepts_the_rules() -> None:
    done = subprocess.run(["promtool", "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
