"""The compiled search core (``csrc/``, the module ``_core``) behind the search phases'
interface (``search.Searcher``): the searches of ``reference``, node for node (docs/solver.md,
"The compiled core"). The boundary is small: a position and an ``Options`` in, the core's
``Outcome`` back. There is no fallback: without the built extension every use raises
``CoreMissing``.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import random
import struct
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

from engine import moves as engine_moves

from . import beam as beam_module
from . import moves
from .abstract import Outcome as ImageOutcome
from .beam import BEAM_CAP, BeamOutcome, widths_within
from .search import SOLVED, UNKNOWN, UNSOLVABLE, SearchOutcome
from .state import SearchMove, SearchState

_SOURCES = Path(__file__).with_name("csrc")
_IMPORT_ERROR: Exception | None = None
_core: ModuleType | None
KINDS = ("DRAW", "REDEAL", "T2F", "T2T", "W2F", "W2T", "F2T")  # engine.moves' kinds, which the core names


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
    elif {name: getattr(engine_moves, name) for name in KINDS} != _core.KINDS:
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
    if _core is None:
        raise CoreMissing(
            "the solver's compiled search core (solver/csrc) is not built, or was "
            f"built from another version of it: run bin/setup ({_IMPORT_ERROR})"
        )


def init_weights() -> None:
    """Hand the core the one weights table of the move order (``moves.WEIGHTS``) and of the
    beam's score (``beam.WEIGHTS``), as they are now: the core holds no copy of the numbers."""
    assert _core is not None
    _core.init(moves.WEIGHTS, beam_module.WEIGHTS)


if _core is not None:
    init_weights()


class Options(NamedTuple):
    """What one search or beam of the core is asked (the core reads these fields by name)."""

    seconds: float
    max_nodes: int = -1  # < 0: no cap
    table_mb: float = DEFAULT_TABLE_MB  # search: the table's bound
    rng: bytes | None = None  # search: a restart's generator (``random.Random.getstate()[1]``, 625 words)
    noise: float = 0  # ...and the jitter's bound
    keep_best: bool = False  # search: keep the line to the fewest cards left
    prefix: Sequence[SearchMove] = ()  # search: moves played first (checked; lines start after them)
    width: int = 0  # beam: states kept a level
    cap: int = BEAM_CAP  # beam: moves a state's closure may try
    prune: bool = False  # search: never-all-up at every position entered (``dead.never_all_up``)
    # search: dead weight in the waste (``reference.dead_weight``): positions no better than one in the table left out
    dominate: bool = False


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
        prune: bool = False,
        dominate: bool = False,
    ) -> SearchOutcome:
        """``reference.search`` in C (``rng``: the core runs Python's generator from its state, which
        is not advanced). ``prefix`` moves that do not fit raise ValueError."""
        assert _core is not None
        words = None if rng is None else struct.pack("625I", *rng.getstate()[1])
        seconds = max(0.0, deadline - time.perf_counter())
        nodes = -1 if max_nodes is None else max_nodes
        out = _core.search(
            root, Options(seconds, nodes, self.mb, words, noise, keep_best, prefix, prune=prune, dominate=dominate)
        )
        verdict = _STATUS[out.status]
        if verdict == SOLVED:  # as ``reference.search`` returns a win: no best line
            # The core's moves are plain 8-tuples of SearchMove's fields; a win is named once.
            found = SearchOutcome(verdict, [SearchMove._make(m) for m in out.line], out.nodes, out.depth, out.replaced)
        else:
            # A restart's best line stays as the core made it: it only goes back to the core as a
            # prefix, and naming its moves at every restart cost about a tenth of a solve's time.
            best = out.best_line if keep_best else []
            found = SearchOutcome(verdict, [], out.nodes, out.depth, out.replaced, out.best_left, best)
        found.stored, found.slots = out.stored, out.slots
        return found

    def beam(
        self, root: SearchState, *, deadline: float, max_nodes: int | None, width: int, cap: int = BEAM_CAP
    ) -> BeamOutcome:
        """``reference.python_beam`` in C."""
        assert _core is not None
        seconds = max(0.0, deadline - time.perf_counter())
        out = _core.beam(root, Options(seconds, -1 if max_nodes is None else max_nodes, width=width, cap=cap))
        moves = [SearchMove._make(m) for m in out.line], [SearchMove._make(m) for m in out.best_line]
        return BeamOutcome("solved" if out.status == 0 else "unknown", moves[0], out.nodes, out.best_left, moves[1])

    def image(self, root: SearchState, *, deadline: float, max_positions: int | None = None) -> ImageOutcome:
        """``reference.image.search`` in C: the image game from ``root`` (one-deck Klondike); "lost"
        proves ``root`` lost, "won" comes with the image's line (``abstract.realize``). A full table
        ends it as "unknown"."""
        assert _core is not None
        t0 = time.perf_counter()
        nodes = -1 if max_positions is None else max_positions
        out = _core.image(root, Options(max(0.0, deadline - t0), nodes, self.mb))
        status = ("won", "lost", "unknown")[out.status]
        line = [(m[0], m[1], m[6]) for m in out.line]  # the core's Move fields: kind, a (card, column or j), rd
        return ImageOutcome(status, out.nodes, time.perf_counter() - t0, line)

    def beam_widths(self) -> tuple[int, ...]:
        return widths_within(self.mb)  # a beam stays within the table's memory bound
