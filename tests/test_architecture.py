"""The import graph: pure packages at the ground, every package layered, no circle between files.

The contracts are import-linter's, in pyproject.toml; each is shown to fail on a throwaway tree that
breaks it, so a contract that no longer checks anything cannot pass unnoticed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

BASE_DIR = Path(__file__).resolve().parent.parent
# Every package of the service, top layer first, as the layers contract lists them.
PACKAGES = [
    "config",
    "web",
    "accounts",
    "leagues",
    "follows",
    "habits",
    "leaderboard",
    "solver_worker",
    "reviews",
    "ratings",
    "games",
    "core",
    "study",
    "solver",
    "engine",
]

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
        timeout=180,
    )


def test_the_contracts_are_kept() -> None:
    result = lint_imports(BASE_DIR)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_every_package_is_in_the_layers_contract() -> None:
    """A new top-level package must be placed in the layers (or it would be checked by nothing)."""
    found = sorted(
        p.name for p in BASE_DIR.iterdir() if (p / "__init__.py").is_file() and p.name not in ("tests", "bench", "docs")
    )
    assert found == sorted(PACKAGES)
    text = (BASE_DIR / "pyproject.toml").read_text()
    assert f"root_packages = {PACKAGES!r}".replace("'", '"') in text


def test_no_module_imports_in_a_circle() -> None:
    """Zero import circles between files, in the graph import-linter reads (imports inside functions included)."""
    sys.path.insert(0, str(BASE_DIR))
    graph = grimp.build_graph(*PACKAGES)
    assert strongly_connected(graph) == []


def strongly_connected(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import circles: Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for module in sorted(graph.modules):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return circles


def test_the_circle_finder_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.x", "a.y", "a.z"):
        graph.add_module(module)
    graph.add_import(importer="a.x", imported="a.y")
    graph.add_import(importer="a.y", imported="a.x")
    graph.add_import(importer="a.y", imported="a.z")
    assert strongly_connected(graph) == [["a.x", "a.y"]]


def named_modules() -> set[str]:
    """The modules below a package that the contracts name (``solver.api``)."""
    contracts = tomllib.loads((BASE_DIR / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    names = {m for c in contracts for key in ("source_modules", "forbidden_modules") for m in c.get(key, [])}
    return {m for m in names if "." in m and m.split(".")[0] in PACKAGES}


def packages_tree(root: Path, imports: dict[str, str] | None = None) -> None:
    """The packages the contracts name, empty unless ``imports`` gives a module its text."""
    shutil.copy(BASE_DIR / "pyproject.toml", root / "pyproject.toml")
    for package in PACKAGES:
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").write_text("")
    names = named_modules()
    for module in sorted(names):  # a contract naming a module that does not exist fails as a whole
        path = root / module.replace(".", "/")
        if any(other.startswith(module + ".") for other in names):  # a package: solver.reference
            path.mkdir(parents=True, exist_ok=True)
            (path / "__init__.py").touch()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.with_suffix(".py").touch()
    for module, text in (imports or {}).items():
        (root / module).write_text(text)


@pytest.mark.slow
@pytest.mark.parametrize("pure", ["engine", "solver", "study"])
@pytest.mark.parametrize("forbidden", ["django", "rest_framework", "celery", "redis"])
def test_the_pure_packages_contract_catches_a_framework_import(tmp_path: Path, pure: str, forbidden: str) -> None:
    """Even indirectly, through a module of the project, and from inside a function."""
    packages_tree(
        tmp_path,
        {
            "games/services.py": f"import {forbidden}\n",
            f"{pure}/rules.py": "def f():\n    from games import services\n",
        },
    )
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "import no framework BROKEN" in result.stdout.replace("\n", " ")
    assert f"{pure}.rules -> games.services" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "text", "broken"),
    [
        ("engine/rules.py", "import solver\n", "engine.rules -> solver"),
        ("solver/api.py", "from core import errors\n", "solver.api -> core"),
        ("core/errors.py", "import games\n", "core.errors -> games"),
        ("games/services.py", "def f():\n    from solver_worker import tasks\n", "games.services -> solver_worker"),
        ("games/services.py", "from leaderboard import services\n", "games.services -> leaderboard"),
        ("leaderboard/services.py", "import solver_worker\n", "leaderboard.services -> solver_worker"),
        ("solver_worker/tasks.py", "import leaderboard\n", "solver_worker.tasks -> leaderboard"),
        ("reviews/services.py", "def f():\n    import solver_worker\n", "reviews.services -> solver_worker"),
        ("solver_worker/tasks.py", "import reviews\n", "solver_worker.tasks -> reviews"),
        ("reviews/apis.py", "from accounts import services\n", "reviews.apis -> accounts"),
        ("games/selectors.py", "from reviews import selectors\n", "games.selectors -> reviews"),
        ("leaderboard/services.py", "import leagues\n", "leaderboard.services -> leagues"),
        ("leagues/apis.py", "from web import views\n", "leagues.apis -> web"),
        ("ratings/services.py", "import leaderboard\n", "ratings.services -> leaderboard"),
        ("follows/selectors.py", "import leagues\n", "follows.selectors -> leagues"),
        ("leaderboard/apis.py", "from follows import selectors\n", "leaderboard.apis -> follows"),
        ("web/views.py", "from config import urls\n", "web.views -> config"),
        ("study/cli.py", "def f():\n    from solver_worker import tasks\n", "study.cli -> solver_worker"),
        ("study/cli.py", "from core import errors\n", "study.cli -> core"),
        ("solver/api.py", "import study\n", "solver.api -> study"),
    ],
)
def test_the_layers_contract_catches_a_lower_package_importing_a_higher_one(
    tmp_path: Path, module: str, text: str, broken: str
) -> None:
    packages_tree(tmp_path, {module: text})
    (tmp_path / "web" / "views.py").touch()
    (tmp_path / "config" / "urls.py").touch()
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "are layered" in result.stdout and broken in result.stdout, result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "text"),
    [
        ("solver/api.py", "from . import reference\n"),
        ("solver/dead.py", "def f():\n    from .reference.frozen import lost\n"),
        ("solver/options.py", "from solver.reference import searches\n"),
        ("solver_worker/services.py", "from solver.reference import PYTHON\n"),
        ("reviews/winnable.py", "def f():\n    import solver.reference.searches\n"),
        ("games/services.py", "def f():\n    import solver.reference\n"),
        ("study/rows.py", "from solver.reference import searches\n"),
    ],
)
def test_the_service_never_reaches_the_python_reference_searches(tmp_path: Path, module: str, text: str) -> None:
    packages_tree(tmp_path, {module: text})
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "never runs the Python reference searches BROKEN" in result.stdout, result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("text", ["from .reference import PYTHON\n", "from .reference.safe import safe_move\n"])
def test_the_solver_s_public_names_never_come_from_the_reference(tmp_path: Path, text: str) -> None:
    packages_tree(tmp_path, {"solver/__init__.py": text})
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "public names never come from the reference BROKEN" in result.stdout, result.stdout


def test_every_solver_module_is_on_one_side_of_the_reference_fence() -> None:
    """Each module of the solver is the service's (a source of the contract that keeps the reference
    out of it) or the reference's (named by the contract on the package's public names): a new module
    is checked by the contracts from the start."""
    contracts = tomllib.loads((BASE_DIR / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    fence = next(c for c in contracts if c["name"] == "the service never runs the Python reference searches")
    names = next(c for c in contracts if c["name"] == "the solver's public names never come from the reference")
    solver = BASE_DIR / "solver"
    service = {f"solver.{p.stem}" for p in solver.glob("*.py") if p.stem != "__init__"}
    reference = {"solver.reference"} | {f"solver.reference.{p.stem}" for p in (solver / "reference").glob("*.py")}
    reference.discard("solver.reference.__init__")
    assert service == {m for m in fence["source_modules"] if m.startswith("solver.")}
    assert reference == set(names["forbidden_modules"])


def test_bin_test_collects_every_package_s_tests() -> None:
    """`bin/test` runs pytest without paths, so pytest's testpaths decide what CI runs: a package whose
    tests/ folder is missing there has tests that never run."""
    testpaths = set(
        tomllib.loads((BASE_DIR / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["testpaths"]
    )
    with_tests = {p.parent.name for p in BASE_DIR.glob("*/tests") if (p.parent / "__init__.py").exists()}
    assert with_tests - testpaths == set()
    assert "tests" in testpaths
