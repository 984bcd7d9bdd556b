"""docker-compose.yml's own environment passes `manage.py check --deploy --fail-level WARNING`.

The values are read from the compose file as Compose would substitute them with nothing set but the two
secrets it requires (``${VAR:?...}``: made here as README says to make them); ``${VAR:-default}`` takes
its default. A fresh interpreter runs the check on them, so nothing of the test's own environment leaks in.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_settings import run_python

ROOT = Path(__file__).resolve().parent.parent
SUBSTITUTION = re.compile(r"\$\{(?P<name>\w+)(?:(?P<op>:-|:\?|-|\?)(?P<arg>[^}]*))?\}")


def compose_environment(service: str, required: dict[str, str]) -> dict[str, str]:
    """The service's environment as `docker compose` gives it when only ``required`` is set."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    raw: dict[str, Any] = compose["services"][service]["environment"]

    def substitute(match: re.Match[str]) -> str:
        name, op = match["name"], match["op"]
        if name in required:
            return required[name]
        assert op not in (":?", "?"), f"compose requires {name}: give it to the test"
        return match["arg"] if op in (":-", "-") else ""

    return {key: SUBSTITUTION.sub(substitute, str(value)) for key, value in raw.items()}


@pytest.mark.slow
@pytest.mark.parametrize("service", ["web", "worker-validation", "beat"])
def test_compose_environment_passes_check_deploy(service: str, tmp_path: Path) -> None:
    required = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(48), "DAILY_SECRET": secrets.token_urlsafe(48)}
    env = compose_environment(service, required)
    assert env["DJANGO_DEBUG"] == "false"
    env["PROMETHEUS_MULTIPROC_DIR"] = str(tmp_path)  # the container's folder, here a temporary one
    result = run_python(
        "from django.core.management import execute_from_command_line;"
        " execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])",
        fresh=True,
        **env,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "System check identified no issues" in output and "security.W" not in output


def test_the_substitution_reads_compose_as_compose_does() -> None:
    env = compose_environment("web", {"DJANGO_SECRET_KEY": "k1", "DAILY_SECRET": "d1"})
    assert env["DJANGO_SECRET_KEY"] == "k1" and env["DAILY_SECRET"] == "d1"
    assert env["DJANGO_SECURE_PROXY_SSL_HEADER"] == "X-Forwarded-Proto"  # behind the TLS proxy
    assert env["DAILY_TIMEZONE"] == "UTC"
    with pytest.raises(AssertionError, match="compose requires DAILY_SECRET"):
        compose_environment("web", {"DJANGO_SECRET_KEY": "k1"})
