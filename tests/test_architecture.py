"""The rules engine (games.engine) and the solver's search import nothing from Django, DRF or Celery.

Checked with import-linter, using the contract in pyproject.toml.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent

LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    # import-linter has no `python -m` entry point; call its console script's
    # function with the interpreter running the tests. It reads pyproject.toml
    # in cwd and puts cwd first on sys.path.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--no-cache"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_engine_does_not_import_the_web_stack() -> None:
    if not (BASE_DIR / "games" / "engine").is_dir():
        pytest.skip("games/engine does not exist yet: nothing to check")
    result = lint_imports(BASE_DIR)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("forbidden", ["django", "rest_framework", "celery"])
def test_contract_catches_a_violation(tmp_path: Path, forbidden: str) -> None:
    """The contract is live: a throwaway tree whose engine imports `forbidden` fails."""
    shutil.copy(BASE_DIR / "pyproject.toml", tmp_path / "pyproject.toml")
    engine = tmp_path / "games" / "engine"
    engine.mkdir(parents=True)
    (tmp_path / "games" / "__init__.py").write_text("")
    (tmp_path / "games" / "services.py").write_text(f"import {forbidden}\n")
    (engine / "__init__.py").write_text("")
    # Indirectly, through another module of the project: still forbidden.
    (engine / "rules.py").write_text("from games import services\n")
    search = tmp_path / "solver_worker" / "search"
    search.mkdir(parents=True)
    (tmp_path / "solver_worker" / "__init__.py").write_text("")
    (search / "__init__.py").write_text("")
    empty_apps(tmp_path)

    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "BROKEN" in result.stdout
    assert "games.engine.rules -> games.services" in result.stdout


def empty_apps(root: Path, imports: dict[str, str] | None = None) -> None:
    """The packages the contracts name, empty unless ``imports`` gives a module its text."""
    for package in ("games", "games/engine", "solver_worker", "solver_worker/search", "leaderboard", "leagues", "web"):
        (root / package).mkdir(parents=True, exist_ok=True)
        init = root / package / "__init__.py"
        if not init.exists():
            init.write_text("")
    for module, text in (imports or {}).items():
        (root / module).write_text(text)


@pytest.mark.parametrize(
    ("module", "text", "broken"),
    [
        ("games/services.py", "from leaderboard import services\n", "games.services -> leaderboard"),
        ("leaderboard/services.py", "import leagues\n", "leaderboard.services -> leagues"),
        ("leagues/apis.py", "from web import views\n", "leagues.apis -> web"),
    ],
)
def test_the_layers_contract_catches_a_lower_app_importing_a_higher_one(
    tmp_path: Path, module: str, text: str, broken: str
) -> None:
    shutil.copy(BASE_DIR / "pyproject.toml", tmp_path / "pyproject.toml")
    empty_apps(tmp_path, {module: text})
    (tmp_path / "web" / "views.py").write_text("")
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "apps are layered" in result.stdout and broken in result.stdout, result.stdout
