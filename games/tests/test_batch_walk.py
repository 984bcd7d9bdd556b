"""The walk of a batch of moves visits each module once.

``POST /api/v1/attempts/{id}/moves`` is driven through the whole stack under ``sys.setprofile``, and every
call into a first-party module of the service (the packages of pyproject's import-linter
``root_packages`` but the engine and the solver, libraries called per move; tests aside) is recorded.

- The *walk* is the sequence of first-party modules in which execution runs, consecutive repeats
  collapsed; the code of Django, DRF and the other libraries in between is not a stay.
- An *entry* of module B is a call of a function of B whose nearest first-party caller on the stack is
  in another module A, however many library frames lie between (Django calling a view, a middleware, a
  cache backend). A return from B to A is no entry, nor is a call within B. A call with no first-party
  caller at all is the framework starting something (the middleware chain, a receiver of
  ``request_finished``, a log filter): it is listed, as from ``-``, and not counted.

The rule: within one request each module is entered at most once, but for the documented helpers of
:data:`HELPERS`, which must be leaves of the walk. A reader who follows a batch from its view reads
each module once, top to bottom, instead of coming back to one it already left. ``pytest -s`` prints
the walk of each path.
"""

from __future__ import annotations

import json
import sys
import tomllib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from games import days
from games.auth import forget_local_tokens
from games.services import positions
from games.services.positions import forget_local_positions
from games.tests.factories import make_challenge, make_user, token_for

pytestmark = [
    pytest.mark.django_db(transaction=True),  # autocommit, as a request runs: on_commit callbacks run in it
    pytest.mark.postgres(reason="the unlocked path is PostgreSQL's; elsewhere every batch takes the locked path"),
]

BASE_DIR = Path(__file__).resolve().parent.parent.parent
LIBRARIES = {"engine", "solver"}  # called per move, as any library: their modules are not the service's walk
APPLICATION = {
    p for p in tomllib.loads((BASE_DIR / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
} - LIBRARIES

# Modules that may be entered more than once per request: each is a helper called for one small thing at
# a time, and a leaf of the walk: it calls no module of the service but other helpers (checked below).
HELPERS = {
    "games.models": "the rows: their properties and methods (is_finished, seed_int...) wherever a row is read",
    "games.days": "the clock of the challenge days (is_over): asked by each rule that depends on the day",
    "games.services.positions": "the position snapshots: read when a batch starts, written once it is stored",
    "games.fields": "the input checks: the plain view reads a body's shape, the DRF view it hands others to again",
    "config.parsers": "the JSON body parser: the plain view parses to choose, the DRF view parses what it hands on",
    "core.errors": "the error root: an error built where it is raised",
    "config.postgres.base": "the database backend: Django calls it for each connection check, cursor, statement",
    "config.cache": "the cache backend: Django's cache calls it for each read and write",
    "core.circuit": "the cache backend's circuit breaker, asked on each cache operation",
}


def application_module(frame: FrameType) -> str | None:
    """The first-party module whose source the frame runs, or None (a library's, a test's, or code
    generated at run time, such as a dataclass's ``__init__``: no source to read)."""
    name = str(frame.f_globals.get("__name__", ""))
    parts = name.split(".")
    if parts[0] not in APPLICATION or "tests" in parts or not frame.f_code.co_filename.endswith(".py"):
        return None
    return name


@dataclass
class Walk:
    stays: list[str] = field(default_factory=list)  # the modules execution ran in, consecutive repeats collapsed
    entries: list[tuple[str, str, str]] = field(default_factory=list)  # (module entered, from module, function)
    called: set[str] = field(default_factory=set)  # module.function of every first-party call

    def stay(self, module: str) -> None:
        if not self.stays or self.stays[-1] != module:
            self.stays.append(module)

    def entered_twice(self) -> dict[str, int]:
        counts = Counter(module for module, caller, _function in self.entries if caller != "-")
        return {m: n for m, n in counts.items() if n > 1 and m not in HELPERS}

    def outline(self) -> list[str]:
        """The stays without the helpers': the modules a reader follows the request through."""
        shown: list[str] = []
        for module in self.stays:
            if module not in HELPERS and (not shown or shown[-1] != module):
                shown.append(module)
        return shown

    def helpers_calling_out(self) -> list[str]:
        """Calls from a helper into a module that is not one: a helper must be a leaf of the walk."""
        return [f"{c} -> {m} ({f})" for m, c, f in self.entries if c in HELPERS and m not in HELPERS]


@contextmanager
def walked() -> Iterator[Walk]:
    walk = Walk()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            module = application_module(frame)
            if module is None:
                return
            caller = frame.f_back
            while caller is not None and application_module(caller) is None:
                caller = caller.f_back
            from_module = "-" if caller is None else application_module(caller)
            walk.called.add(f"{module}.{frame.f_code.co_name}")
            if from_module != module:  # "-": the framework calls in (the middleware, a signal)
                walk.entries.append((module, str(from_module), frame.f_code.co_name))
            walk.stay(module)
        elif event == "return" and frame.f_back is not None:
            module = application_module(frame.f_back)
            if module is not None:
                walk.stay(module)

    sys.setprofile(profile)
    try:
        yield walk
    finally:
        sys.setprofile(None)


@pytest.fixture
def play() -> Any:
    """A player, a token client and an open attempt on today's klondike, as the API starts it; a
    ``send(start, moves)`` that answers the status, the body and the walk of the request."""
    make_challenge()
    user = make_user()
    client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    attempt_id = client.post(f"/api/v1/daily/{days.today()}/klondike/attempts").json()["id"]

    def send(start: int, moves: list[str], more: dict[str, Any] | None = None, **extra: Any) -> Any:
        body = json.dumps({"from": start, "moves": moves, **(more or {})})
        with walked() as walk:
            response = client.post(
                f"/api/v1/attempts/{attempt_id}/moves", body, content_type="application/json", **extra
            )
        return response.status_code, response.json(), walk

    return attempt_id, send


def _show(title: str, walk: Walk) -> str:
    lines = [f"{title}: {' > '.join(walk.outline())}", f"  with the helpers: {' > '.join(walk.stays)}"]
    lines += [f"    enters {module} from {caller} ({function})" for module, caller, function in walk.entries]
    return "\n".join(lines)


def test_each_path_of_a_batch_enters_each_module_once(play: Any) -> None:
    """Every path of a batch: the unlocked one (a process's first batch, a batch, an undo), the locked one
    (a resend, an illegal move, a conflict, a cold cache, an empty batch) and the DRF view's. The walks
    are printed (``pytest -s`` shows them)."""
    attempt_id, send = play
    walks = []

    def batch(title: str, start: int, moves: list[str], status: int, **extra: Any) -> None:
        got, body, walk = send(start, moves, **extra)
        assert got == status, body
        locked = "games.services.moves._append_locked" in walk.called
        assert locked == ("(locked" in title), title  # the path the title names
        walks.append((title, walk))

    forget_local_positions()  # as a process that has served none of this attempt's batches yet
    forget_local_tokens()
    batch("first batch (unlocked)", 0, ["s"], 200)
    batch("batch (unlocked)", 1, ["s", "s"], 200)
    batch("undo (unlocked)", 3, ["u"], 200)
    batch("resend (locked)", 2, ["s"], 200)
    batch("illegal move (locked, rejected)", 4, ["t1-f"], 400)
    batch("conflict (locked, rejected)", 9, ["s"], 409)
    cache.delete(positions.position_key(attempt_id=attempt_id))
    forget_local_positions()
    batch("cold cache (locked)", 4, ["s"], 200)
    batch("empty batch (locked)", 5, [], 200)
    batch("DRF view (unlocked, indented answer)", 5, ["s"], 200, HTTP_ACCEPT="application/json; indent=2")
    batch("DRF view, the serializer's body (unlocked)", 6, ["s"], 200, more={"note": "an unknown key"})
    batch("DRF view, a body the serializer refuses", 7, ["s"], 400, more={"from": "7"})
    print("\n" + "\n".join(_show(title, walk) for title, walk in walks))
    twice = {title: walk.entered_twice() for title, walk in walks if walk.entered_twice()}
    assert twice == {}, "\n".join(f"{title}: {counts}" for title, counts in twice.items())
    assert [f for _title, walk in walks for f in walk.helpers_calling_out()] == []


def test_the_walk_counts_a_module_entered_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorder itself, on a throwaway package: a module left for another and entered again is
    counted, a return to the caller's module is not, and a helper that calls out of the helpers is found."""
    (tmp_path / "walkdemo").mkdir()
    (tmp_path / "walkdemo" / "__init__.py").write_text("")
    (tmp_path / "walkdemo" / "view.py").write_text(
        "from walkdemo import service, util\n\ndef handle():\n    return service.run() + util.twice(1)\n"
    )
    (tmp_path / "walkdemo" / "service.py").write_text(
        "from walkdemo import util\n\ndef run():\n    return util.twice(1) + util.twice(2)\n"
    )
    (tmp_path / "walkdemo" / "util.py").write_text("def twice(n):\n    return 2 * n\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys.modules[__name__], "APPLICATION", {*APPLICATION, "walkdemo"})
    try:
        from walkdemo import view  # type: ignore[import-not-found]

        with walked() as walk:
            assert view.handle() == 8
        assert walk.stays == [
            "walkdemo.view",
            "walkdemo.service",
            "walkdemo.util",
            "walkdemo.service",
            "walkdemo.util",
            "walkdemo.service",
            "walkdemo.view",
            "walkdemo.util",
            "walkdemo.view",
        ]
        assert walk.entered_twice() == {"walkdemo.util": 3}  # view and service entered once each
        assert walk.helpers_calling_out() == []
        monkeypatch.setitem(HELPERS, "walkdemo.service", "a helper that is no leaf")
        assert walk.entered_twice() == {"walkdemo.util": 3}
        assert walk.helpers_calling_out() == ["walkdemo.service -> walkdemo.util (twice)"] * 2
    finally:
        for name in [m for m in sys.modules if m == "walkdemo" or m.startswith("walkdemo.")]:
            del sys.modules[name]
