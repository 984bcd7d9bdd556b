"""House rules of the code that a reader cannot check at a glance, held by walking the code itself.

Services (writes) and selectors (reads) take keyword-only arguments (STYLE.md: ``def attempt_start(*,
player, challenge)``): a call names what it passes, so two arguments of one type cannot be swapped
unnoticed, and a parameter can be added or reordered without touching the callers. The walk covers
every package of pyproject's import-linter ``root_packages``, so a new app is held to it from its first
service.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import tomllib
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent

POSITIONAL = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.VAR_POSITIONAL,
)


def service_modules(root: Path) -> list[str]:
    """Every ``services`` and ``selectors`` module (or package of modules) of the tree's packages."""
    packages = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    found: list[str] = []
    for package in packages:
        for kind in ("services", "selectors"):
            if (root / package / f"{kind}.py").is_file():
                found.append(f"{package}.{kind}")
            for path in sorted((root / package / kind).glob("*.py")):
                found.append(f"{package}.{kind}" if path.stem == "__init__" else f"{package}.{kind}.{path.stem}")
    return found


def positional_functions(module_name: str) -> list[str]:
    """The public functions a module defines (not those it imports) that take an argument by position."""
    module = importlib.import_module(module_name)
    found = []
    for name, value in vars(module).items():
        function = inspect.unwrap(value) if callable(value) else None
        if name.startswith("_") or not inspect.isfunction(function) or function.__module__ != module_name:
            continue
        taken = [p.name for p in inspect.signature(function).parameters.values() if p.kind in POSITIONAL]
        if taken:
            found.append(f"{module_name}.{name}({', '.join(taken)})")
    return found


def test_services_and_selectors_take_keyword_arguments_only() -> None:
    modules = service_modules(BASE_DIR)
    assert "games.services.attempts" in modules and "leaderboard.selectors.ranks" in modules  # the walk finds them
    offenders = [f for m in modules for f in positional_functions(m)]
    assert offenders == [], "make these keyword-only (def name(*, ...)):\n" + "\n".join(offenders)


def test_the_walk_finds_a_positional_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself, on a throwaway tree: an app named only in pyproject, with one positional service."""
    (tmp_path / "pyproject.toml").write_text('[tool.importlinter]\nroot_packages = ["styledemo"]\n')
    app = tmp_path / "styledemo"
    (app / "services").mkdir(parents=True)
    (app / "__init__.py").write_text("")
    (app / "services" / "__init__.py").write_text("from styledemo.services.things import thing_make\n")
    (app / "services" / "things.py").write_text(
        "import functools\n"
        "from os.path import join\n\n"  # imported, not defined here: not this module's
        "def thing_make(*, name: str) -> str:\n    return name\n\n"
        "def thing_rename(thing: str, *, name: str) -> str:\n    return name\n\n"
        "@functools.cache\n"
        "def thing_count(*args: int) -> int:\n    return len(args)\n\n"
        "def _thing_helper(thing: str) -> str:\n    return thing\n"
    )
    (app / "selectors.py").write_text("def thing_get(*, name: str) -> str:\n    return name\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        modules = service_modules(tmp_path)
        assert modules == ["styledemo.services", "styledemo.services.things", "styledemo.selectors"]
        offenders = [f for m in modules for f in positional_functions(m)]
        assert offenders == [
            "styledemo.services.things.thing_rename(thing)",
            "styledemo.services.things.thing_count(args)",
        ]
    finally:
        for name in [m for m in sys.modules if m == "styledemo" or m.startswith("styledemo.")]:
            del sys.modules[name]
