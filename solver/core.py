"""The compiled search core (``_core.c``) behind the same interface as ``search.search``.

The C loop is the Python loop of ``search`` (same moves, order, safe moves and key; see
the head of ``_core.c`` for the two differences: 128-bit hashed keys and a bounded table
that keeps the current path), root included: its safe moves, then Lemma D (``dead``) on
the result, as ``search`` does it, so both searches count the same nodes and give the same
verdicts.

There is no fallback: without the built extension every use raises ``CoreMissing``.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import random
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from . import beam as beam_module
from . import moves
from .beam import BEAM_CAP, BeamOutcome, widths_within
from .search import SOLVED, UNKNOWN, UNSOLVABLE, SearchOutcome
from .state import KINDS, SearchMove, SearchState

_SOURCE = Path(__file__).with_name("_core.c")
_IMPORT_ERROR: Exception | None = None
_core: ModuleType | None


def stale(module: object, source: Path = _SOURCE) -> bool:
    """Whether ``module`` was built from another _core.c than ``source`` (when it exists)."""
    if not source.exists():
        return False  # an installation without the sources: nothing to compare with
    return getattr(module, "SOURCE_SHA256", "") != hashlib.sha256(source.read_bytes()).hexdigest()


try:
    # The compiled extension, by its full name: a static ``from . import _core`` reads to the import graph
    # (grimp, which has no source for it) as an import of the ``solver`` package itself, a false circle.
    _core = importlib.import_module(f"{__package__}._core")
except ImportError as exc:  # not built: reported when the solver is used
    _core = None
    _IMPORT_ERROR = exc
else:
    # A module built from another version of _core.c would search differently from this
    # source (and from the Python reference): refuse it like a missing one.
    if stale(_core):
        _core = None
        _IMPORT_ERROR = ImportError("the built module is stale: it was built from another _core.c")
    elif _core.KINDS != KINDS:  # the engine's move kinds, which the core names as constants
        _core = None
        _IMPORT_ERROR = ImportError("the built module's move kinds are not the engine's (engine/moves.py)")

# The table's memory bound in MiB (the C core allocates at most this, once per search).
# ``configure`` (Django's settings.SOLVER_TABLE_MB, from the app's ready()) or else the
# SOLVER_TABLE_MB environment variable overrides it.
DEFAULT_TABLE_MB = 256
_configured_mb: float | None = None
_STATUS = {0: SOLVED, 1: UNSOLVABLE, 2: UNKNOWN}


class CoreMissing(RuntimeError):
    """The compiled search core is not built (no silent slow fallback)."""


def available() -> bool:
    return _core is not None


def configure(*, table_mb: float | None) -> None:
    """Set this process's table bound in MiB (None: back to the environment / default)."""
    global _configured_mb
    if table_mb is not None and table_mb < 1:
        raise ValueError("SOLVER_TABLE_MB must be at least 1")
    _configured_mb = table_mb


def table_mb() -> float:
    """The table bound: as configured, else SOLVER_TABLE_MB if set, else DEFAULT_TABLE_MB."""
    if _configured_mb is not None:
        return _configured_mb
    raw = os.environ.get("SOLVER_TABLE_MB", "")
    if not raw:
        return DEFAULT_TABLE_MB
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"SOLVER_TABLE_MB must be a number of MiB, not {raw!r}") from None
    if value < 1:
        raise ValueError("SOLVER_TABLE_MB must be at least 1")
    return value


def require() -> None:
    global _weighted
    if _core is None:
        raise CoreMissing(
            "the solver's compiled search core (solver/_core.c) is not built, or was "
            f"built from another version of it: run bin/setup ({_IMPORT_ERROR})"
        )
    if not _weighted:
        init_weights()
        _weighted = True


def init_weights() -> None:
    """Hand the core the one weights table of the move order (``moves.WEIGHTS``) and of the
    beam's score (``beam.WEIGHTS``), as they are now: the core holds no copy of the numbers."""
    assert _core is not None
    _core.init(moves.WEIGHTS, beam_module.WEIGHTS)


_weighted = False


class Compiled:
    """The compiled core behind the search phases' interface (``search.Searcher``), with the
    table bound ``mb`` (MiB; default ``table_mb()``)."""

    def __init__(self, mb: float | None = None) -> None:
        require()
        self.mb = table_mb() if mb is None else mb

    def search(
        self,
        root: SearchState,
        *,
        deadline: float,
        max_nodes: int | None = None,
        rng: random.Random | None = None,
        noise: int = 0,
        keep_best: bool = False,
        prefix: Sequence[SearchMove] = (),
    ) -> SearchOutcome:
        return search(
            root,
            deadline=deadline,
            max_nodes=max_nodes,
            mb=self.mb,
            rng=rng,
            noise=noise,
            keep_best=keep_best,
            prefix=prefix,
        )

    def beam(
        self, root: SearchState, *, deadline: float, max_nodes: int | None, width: int, cap: int = BEAM_CAP
    ) -> BeamOutcome:
        return beam(root, deadline=deadline, max_nodes=max_nodes, width=width, cap=cap)

    def beam_widths(self) -> tuple[int, ...]:
        return widths_within(self.mb)  # a beam stays within the table's memory bound


def search(
    st: SearchState,
    *,
    deadline: float,
    max_nodes: int | None = None,
    mb: float | None = None,
    rng: random.Random | None = None,
    noise: int = 0,
    keep_best: bool = False,
    prefix: Sequence[SearchMove] = (),
) -> SearchOutcome:
    """``search.search`` in C. ``rng`` jitters the move order as in ``search.search``: the
    core runs Python's generator from ``rng``'s state (``rng`` itself is not advanced).
    ``mb`` bounds the table (default: ``table_mb()``). ``st`` is
    left as it is (the core searches a copy), ``prefix`` is played on the copy first (moves
    that do not fit raise ValueError); the lines returned start after it."""
    require()
    assert _core is not None
    seconds = max(0.0, deadline - time.perf_counter())
    status, path, nodes, depth, replaced, best_left, best_path, stored, slots = _core.search(
        st,
        seconds,
        -1 if max_nodes is None else max_nodes,
        table_mb() if mb is None else mb,
        None if rng is None else rng.getstate()[1],
        noise,
        keep_best,
        prefix,
    )
    verdict = _STATUS[status]
    if verdict == SOLVED:  # as ``search.search`` returns a win: no best line
        # The core's moves are plain 8-tuples of SearchMove's fields; a win is named once.
        out = SearchOutcome(verdict, [SearchMove._make(m) for m in path], nodes, depth, replaced)
    else:
        # A restart's best line stays as the core made it: it only goes back to the core as a
        # prefix, and naming its moves at every restart cost about a tenth of a solve's time.
        out = SearchOutcome(verdict, [], nodes, depth, replaced, best_left, best_path if keep_best else [])
    out.stored, out.slots = stored, slots
    return out


def beam(root: SearchState, *, deadline: float, max_nodes: int | None, width: int, cap: int = BEAM_CAP) -> BeamOutcome:
    """``beam.python_beam`` in C: one beam of ``width`` from ``root`` (not changed)."""
    require()
    assert _core is not None
    seconds = max(0.0, deadline - time.perf_counter())
    status, line, nodes, best_left, best = _core.beam(root, seconds, -1 if max_nodes is None else max_nodes, width, cap)
    return BeamOutcome(
        "solved" if status == 0 else "unknown",
        [SearchMove._make(m) for m in line],
        nodes,
        best_left,
        [SearchMove._make(m) for m in best],
    )
