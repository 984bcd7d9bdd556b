"""The compiled search core (``csrc/*.c``, the module ``_core``) behind the search phases'
interface (``search.Searcher``).

The C loop is the Python loop of ``search`` (same moves, order, safe moves and key; see
``csrc/core.h`` for the two differences: 128-bit hashed keys and a bounded table that keeps
the current path), root included: its safe moves, then Lemma D (``dead``) on the result, as
``search`` does it, so both searches count the same nodes and give the same verdicts; and
the beam is ``beam.python_beam``'s. The boundary is small: a position, an ``Options``, and
the core's ``Outcome`` back.

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
from typing import NamedTuple

from . import beam as beam_module
from . import moves
from .beam import BEAM_CAP, BeamOutcome, widths_within
from .search import SOLVED, UNKNOWN, UNSOLVABLE, SearchOutcome
from .state import KINDS, SearchMove, SearchState

_SOURCES = Path(__file__).with_name("csrc")
_IMPORT_ERROR: Exception | None = None
_core: ModuleType | None


def stale(module: object, sources: Path = _SOURCES) -> bool:
    """Whether ``module`` was built from other C sources than those in ``sources`` (when there
    are any): the hash setup.py builds in, of the *.c and *.h files in name order."""
    files = sorted(sources.glob("*.[ch]"))
    if not files:
        return False  # an installation without the sources: nothing to compare with
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()
    return getattr(module, "SOURCE_SHA256", "") != digest


try:
    # The compiled extension, by its full name: a static ``from . import _core`` reads to the import graph
    # (grimp, which has no source for it) as an import of the ``solver`` package itself, a false circle.
    _core = importlib.import_module(f"{__package__}._core")
except ImportError as exc:  # not built: reported when the solver is used
    _core = None
    _IMPORT_ERROR = exc
else:
    # A module built from another version of the sources would search differently from this
    # source (and from the Python reference): refuse it like a missing one.
    if stale(_core):
        _core = None
        _IMPORT_ERROR = ImportError("the built module is stale: it was built from other sources than solver/csrc")
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
            "the solver's compiled search core (solver/csrc) is not built, or was "
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


class Options(NamedTuple):
    """What one search or beam of the core is asked (the core reads these fields by name)."""

    seconds: float
    max_nodes: int = -1  # < 0: no cap
    table_mb: float = DEFAULT_TABLE_MB  # search: the table's bound
    rng: list[int] | None = None  # search: a restart's generator (``random.Random.getstate()[1]``)
    noise: float = 0  # ...and the jitter's bound
    keep_best: bool = False  # search: keep the line to the fewest cards left
    prefix: Sequence[SearchMove] = ()  # search: moves played first (checked; lines start after them)
    width: int = 0  # beam: states kept a level
    cap: int = BEAM_CAP  # beam: moves a state's closure may try


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
    ``mb`` bounds the table (default: ``table_mb()``). ``st`` is left as it is (the core
    searches a copy), ``prefix`` is played on the copy first (moves that do not fit raise
    ValueError); the lines returned start after it."""
    require()
    assert _core is not None
    out = _core.search(
        st,
        Options(
            seconds=max(0.0, deadline - time.perf_counter()),
            max_nodes=-1 if max_nodes is None else max_nodes,
            table_mb=table_mb() if mb is None else mb,
            rng=None if rng is None else list(rng.getstate()[1]),
            noise=noise,
            keep_best=keep_best,
            prefix=prefix,
        ),
    )
    verdict = _STATUS[out.status]
    if verdict == SOLVED:  # as ``search.search`` returns a win: no best line
        # The core's moves are plain 8-tuples of SearchMove's fields; a win is named once.
        found = SearchOutcome(verdict, [SearchMove._make(m) for m in out.line], out.nodes, out.depth, out.replaced)
    else:
        # A restart's best line stays as the core made it: it only goes back to the core as a
        # prefix, and naming its moves at every restart cost about a tenth of a solve's time.
        found = SearchOutcome(
            verdict, [], out.nodes, out.depth, out.replaced, out.best_left, out.best_line if keep_best else []
        )
    found.stored, found.slots = out.stored, out.slots
    return found


def beam(root: SearchState, *, deadline: float, max_nodes: int | None, width: int, cap: int = BEAM_CAP) -> BeamOutcome:
    """``beam.python_beam`` in C: one beam of ``width`` from ``root`` (not changed)."""
    require()
    assert _core is not None
    seconds = max(0.0, deadline - time.perf_counter())
    out = _core.beam(root, Options(seconds, -1 if max_nodes is None else max_nodes, width=width, cap=cap))
    return BeamOutcome(
        "solved" if out.status == 0 else "unknown",
        [SearchMove._make(m) for m in out.line],
        out.nodes,
        out.best_left,
        [SearchMove._make(m) for m in out.best_line],
    )
