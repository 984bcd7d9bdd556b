"""The compiled core against the Python search it is modelled on, and against the engine.

The Python search (``search.search``) is the reference: on the same position the core must
try the same moves in the same order, so the same node counts, depths, lines and verdicts.
Every win the core returns is replayed by the engine; on positions small enough for the
engine's exhaustive search, the core's verdict is the engine's.
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pytest_django import Settings

from engine import GAME_IDS, Deal, State, deal, find_rules
from solver import core, reference, solve_deal
from solver.dead import never_all_up
from solver.log import to_log, wins
from solver.search import SearchOutcome
from solver.state import SearchMove, SearchState

from .test_search import blocked
from .test_search_helpers import brute_force, klondike_endgame, random_endgame

NEVER_ALL_UP_GAMES = [
    "forty-thieves",
    "josephine",
    "lucas",
    "limited",
    "maria",
    "forty-and-eight",
]  # one card drawn, passes limited


def compiled() -> ModuleType:
    """The compiled module itself (these tests need it built)."""
    assert core._core is not None
    return core._core


def both(d: Deal, **kw: Any) -> tuple[SearchOutcome, SearchOutcome]:
    """Both searches from ``d`` (a restart's ``rng`` is copied, so each draws the same numbers)."""
    rng = kw.pop("rng", None)
    py = reference.search(SearchState(d), deadline=1e18, rng=copy.deepcopy(rng), **kw)
    c = core.Compiled().search(SearchState(d), deadline=1e18, rng=copy.deepcopy(rng), **kw)
    return py, c


def assert_same(d: Deal, py: SearchOutcome, c: SearchOutcome) -> None:
    assert (c.status, c.nodes, c.depth) == (py.status, py.nodes, py.depth), d
    assert (c.path, c.best_left) == (py.path, py.best_left), d
    if c.status == "solved":
        assert wins(d, to_log(d, c.path))  # to_log replays every entry with the engine


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_IDS)
def test_same_search_as_python_on_real_deals(game: str) -> None:
    """Six deals of each game, 12,000 nodes each (most run out: the comparison then covers
    the first 12,000 nodes node for node), and the full first search of the easy ones."""
    for seed in range(1, 7):
        d = deal(game, seed)
        py, c = both(d, max_nodes=12_000)
        assert_same(d, py, c)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_IDS)
def test_same_complete_searches_and_oracle_on_small_positions(game: str) -> None:
    """Random small end positions searched to the end by both (wins and proofs of loss):
    the same verdicts, nodes and lines; where the engine can search exhaustively, the
    same verdict as the engine."""
    rng = random.Random(f"core-{game}")
    verdicts = set()
    oracle = 0
    for i in range(40):
        if find_rules(game).layout.value == "klondike" and i % 2:
            d = klondike_endgame(game, rng, rng.randint(14, 24), rng.choice((3, 4)))
        else:
            d = random_endgame(game, rng, rng.randint(10, 22), rng.choice((0.2, 0.5)), columns=rng.choice((2, 3, 4)))
        py, c = both(d, max_nodes=200_000)
        assert_same(d, py, c)
        if c.status == "unknown":
            continue
        verdicts.add(c.status)
        if oracle < 8:
            truth = brute_force(d, limit=20_000)
            if truth is not None:
                assert (c.status == "solved") == truth, d
                oracle += 1
    assert verdicts == {"solved", "unsolvable"}
    assert oracle >= 4


@pytest.mark.parametrize("game", NEVER_ALL_UP_GAMES)
def test_same_never_all_up_as_python(game: str) -> None:
    """The core's never-all-up (``never_all_up``) says what ``dead.never_all_up`` says, position for
    position: random small ones and random play-outs of real deals."""
    rng = random.Random(f"core-lemma-s-{game}")
    fired = 0
    for _ in range(300):
        d = random_endgame(game, rng, rng.randint(6, 40), rng.choice((0.2, 0.4, 0.6)), columns=rng.choice((1, 2, 3, 4)))
        st = SearchState(d)
        assert compiled().never_all_up(st) == never_all_up(st), d
        fired += never_all_up(st)
    for seed in range(1, 6):
        state = State(deal(game, seed))
        for _ in range(rng.randint(40, 160)):
            moves = list(state.legal_moves())
            if not moves:
                break
            state.play(rng.choice(moves))
        st = SearchState(state.as_deal())
        assert compiled().never_all_up(st) == never_all_up(st), (game, seed)
    assert fired >= 20


@pytest.mark.parametrize("game", NEVER_ALL_UP_GAMES)
def test_same_pruned_search_as_python(game: str) -> None:
    """With never-all-up at every position entered (``prune``): the same nodes, lines and verdicts as the
    Python search, on small positions searched to the end and on the first 300 nodes of a real
    deal; where the engine can search exhaustively, its verdict."""
    rng = random.Random(f"core-prune-{game}")
    verdicts: set[str] = set()
    for i in range(60):
        if i >= 12 and {"solved", "unsolvable"} <= verdicts:
            break
        d = random_endgame(game, rng, rng.randint(10, 20), rng.choice((0.2, 0.5)), columns=rng.choice((1, 2, 3)))
        py, c = both(d, max_nodes=50_000, prune=True)
        assert_same(d, py, c)
        verdicts.add(c.status)
        if c.status != "unknown":
            truth = brute_force(d, limit=20_000)
            assert truth is None or (c.status == "solved") == truth, d
    assert {"solved", "unsolvable"} <= verdicts
    d = deal(game, 1)
    py, c = both(d, max_nodes=300, prune=True)
    assert_same(d, py, c)


def test_same_best_line() -> None:
    d = deal("forty-thieves", 3)
    py, c = both(d, max_nodes=5000, keep_best=True)
    assert py.status == "unknown" and c.best_path == py.best_path


def test_same_restarts_as_python() -> None:
    """A restart's jitter is Python's generator run in C: the same numbers, so the same moves."""
    for game in GAME_IDS:
        d = deal(game, 3)
        py, c = both(d, max_nodes=3000, rng=random.Random(5), noise=400, keep_best=True)
        assert_same(d, py, c)
        assert c.best_path == py.best_path
    lost = blocked("forty-thieves")
    assert core.Compiled().search(SearchState(lost), deadline=1e18).status == "unsolvable"
    assert core.Compiled().search(SearchState(lost), deadline=1e18, rng=random.Random(1), noise=400).status == "unknown"


def test_a_prefix_played_by_the_core_is_the_position_after_it() -> None:
    d = deal("forty-thieves", 3)
    line = core.Compiled().search(SearchState(d), deadline=1e18, max_nodes=2000, keep_best=True).best_path[:25]
    after = SearchState(d)
    for m in line:
        after.play(m)
    root = SearchState(d)
    a = core.Compiled().search(root, deadline=1e18, max_nodes=3000, keep_best=True, prefix=line)
    b = core.Compiled().search(after, deadline=1e18, max_nodes=3000, keep_best=True)
    assert (a.status, a.nodes, a.best_left, a.best_path) == (b.status, b.nodes, b.best_left, b.best_path)
    assert root.cols == [list(c) for c in d.tableau]  # the caller's state is never touched
    with pytest.raises(ValueError, match="prefix"):
        core.Compiled().search(root, deadline=1e18, max_nodes=10, prefix=[SearchMove(0, 99, -1, 1, -1, 0, 0, 0)])


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_IDS)
def test_same_solve_as_python_under_a_node_budget(game: str) -> None:
    """The whole schedule (complete search, then restarts grown from the best line) under a
    node budget: the same verdicts, nodes, restarts and logs with either core. (The never-all-up
    games run it at every position, milliseconds each in Python: a smaller budget.)"""
    pruned = game in NEVER_ALL_UP_GAMES
    for seed in (1,) if pruned else (1, 2):
        d = deal(game, seed)
        budget = 3_000 if pruned else 30_000
        py = solve_deal(d, seconds=600, max_nodes=budget, shorten_log=False, searcher=reference.PYTHON)
        c = solve_deal(d, seconds=600, max_nodes=budget, shorten_log=False)
        assert (c.status, c.nodes, c.depth, c.moves) == (py.status, py.nodes, py.depth, py.moves)
        assert c.stats["restarts"] == py.stats["restarts"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "seed"), [("klondike", 11), ("klondike-3", 1), ("josephine", 2), ("forty-and-eight", 1), ("limited", 2)]
)
def test_a_tiny_table_replaces_entries_but_keeps_the_verdict(game: str, seed: int) -> None:
    """A table far smaller than the search (1,024 entries, the least it gets): entries are replaced, the path's
    never, so the search still ends, with the same verdict as with room for everything;
    a win still replays."""
    d = deal(game, seed)
    roomy = core.Compiled().search(SearchState(d), deadline=1e18, max_nodes=400_000)
    tiny = core.Compiled(0.001).search(SearchState(d), deadline=1e18, max_nodes=4_000_000)
    assert tiny.slots == 1024 and roomy.evictions == 0
    assert tiny.evictions > 0 or tiny.nodes < 1024
    if roomy.status != "unknown":
        assert tiny.status in (roomy.status, "unknown")
    if tiny.status == "solved":
        assert wins(d, to_log(d, tiny.path))


def test_tiny_table_on_small_lost_positions_still_proves_them_lost() -> None:
    rng = random.Random("tiny-table")
    proved = 0
    for _ in range(200):
        d = random_endgame("klondike", rng, rng.randint(20, 30), 0.5, columns=4)
        full = core.Compiled().search(SearchState(d), deadline=1e18, max_nodes=30_000)
        if full.status != "unsolvable" or full.nodes < 1000:
            continue
        tiny = core.Compiled(0.001).search(SearchState(d), deadline=1e18, max_nodes=20_000_000)
        assert tiny.status == "unsolvable" and tiny.evictions > 0, d
        proved += 1
        if proved >= 3:
            break
    assert proved >= 3


def test_table_memory_bound_from_the_settings(settings: Settings) -> None:
    """Django's app config hands settings.SOLVER_TABLE_MB to the core, for every solve in the
    process (the Celery worker's included): no table is larger."""
    assert core.table_mb() == settings.SOLVER_TABLE_MB
    out = core.Compiled().search(SearchState(deal("maria", 2)), deadline=1e18, max_nodes=2_000_000)
    assert out.slots * compiled().entry_bytes() <= settings.SOLVER_TABLE_MB * (1 << 20)


def test_table_memory_bound_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "_configured_mb", None)
    monkeypatch.setenv("SOLVER_TABLE_MB", "1")
    assert core.table_mb() == 1
    out = core.Compiled().search(SearchState(deal("maria", 2)), deadline=1e18, max_nodes=50_000)
    assert out.slots * compiled().entry_bytes() <= 1 << 20
    assert out.slots == 65_536  # 16-byte entries: the whole MiB is used
    monkeypatch.setenv("SOLVER_TABLE_MB", "lots")
    with pytest.raises(ValueError, match="SOLVER_TABLE_MB"):
        core.table_mb()
    monkeypatch.delenv("SOLVER_TABLE_MB")
    assert core.table_mb() == core.DEFAULT_TABLE_MB
    capped = core.Compiled().search(SearchState(deal("maria", 2)), deadline=1e18, max_nodes=1000)
    assert capped.slots <= 4096  # a capped search gets only the room it can use


def test_the_table_grows_only_as_far_as_the_search_needs() -> None:
    """The table starts at 1,024 buckets and doubles while the bucket a position goes to is full,
    up to its bound: a search of 100,000 nodes under a 64 MiB bound uses a twentieth of it, and
    replaces nothing (so it is the search a table of the bound's full size makes)."""
    d = deal("klondike", 11)
    out = core.Compiled(64).search(SearchState(d), deadline=1e18)
    assert out.status == "solved" and out.nodes > 100_000 and out.evictions == 0
    assert out.stored < out.slots and out.slots * compiled().entry_bytes() * 20 <= 64 << 20
    capped = core.Compiled(64).search(SearchState(d), deadline=1e18, max_nodes=out.nodes + 1)
    assert (capped.status, capped.nodes, capped.path) == (out.status, out.nodes, out.path)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_IDS)
def test_solve_deal_with_the_core_replays_its_wins(game: str) -> None:
    for seed in range(1, 4):
        d = deal(game, seed)
        result = solve_deal(d, seconds=30, max_nodes=60_000)
        assert result.status in ("solved", "unsolvable", "unknown")
        if result.status == "solved":
            state = State(d)
            assert result.moves is not None
            for text in result.moves:
                state.play_text(text)
            assert state.won


def test_missing_core_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core, "_core", None)
    with pytest.raises(core.CoreMissing, match="bin/setup"):
        solve_deal(deal("klondike", 2), seconds=1)
    assert solve_deal(deal("klondike", 2), seconds=5, searcher=reference.PYTHON).status == "solved"


def test_a_core_built_from_another_source_is_refused(tmp_path: Path) -> None:
    assert not core.stale(core._core)  # the one bin/setup built from this checkout
    (tmp_path / "core.h").write_text("/* another version */")
    assert core.stale(core._core, tmp_path)
    assert not core.stale(core._core, tmp_path / "absent")  # no sources to compare with


def test_the_core_takes_its_options_and_returns_an_outcome_by_name() -> None:
    """The boundary: a position and ``core.Options`` in, the core's ``Outcome`` out (named
    fields); a missing option or a bad generator state is an error, never a default."""
    assert core._core is not None
    st = SearchState(deal("forty-thieves", 3))
    out = compiled().search(st, core.Options(seconds=60, max_nodes=500, keep_best=True))
    assert (out.status, out.nodes, out.line) == (2, 500, []) and out.best_line and out.slots >= 512
    with pytest.raises(AttributeError):
        compiled().search(st, object())
    with pytest.raises(ValueError, match="625 words"):
        compiled().search(st, core.Options(seconds=60, max_nodes=10, rng=b"123"))
    with pytest.raises(ValueError, match="width and cap"):
        compiled().beam(st, core.Options(seconds=60, max_nodes=10, width=0))


def test_the_core_reads_the_one_weights_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The move order's and the beam's weights live in ``moves.WEIGHTS`` and ``beam.WEIGHTS``
    only: with other weights handed to the core, both searches still agree node for node, and
    search otherwise than with the shipped ones. A table with a field the core does not know is
    refused."""
    from solver import beam, moves

    d = deal("forty-thieves", 3)
    shipped = both(d, max_nodes=3000, rng=random.Random(5), noise=400, keep_best=True)[1]
    swapped = moves.WEIGHTS._replace(draw=5, to_empty=0, up=10, waste_up=2000)
    monkeypatch.setattr(moves, "WEIGHTS", swapped)
    monkeypatch.setattr(beam, "WEIGHTS", beam.WEIGHTS._replace(up=1, empty=9000))
    try:
        core.init_weights()
        py, c = both(d, max_nodes=3000, rng=random.Random(5), noise=400, keep_best=True)
        assert_same(d, py, c)
        assert (c.nodes, c.best_left, c.best_path) != (shipped.nodes, shipped.best_left, shipped.best_path)
        b_py = reference.python_beam(SearchState(d), deadline=1e18, max_nodes=3000, width=5, cap=60)
        b_c = core.Compiled().beam(SearchState(d), deadline=1e18, max_nodes=3000, width=5, cap=60)
        assert (b_c.nodes, b_c.best_left, b_c.best_path) == (b_py.nodes, b_py.best_left, b_py.best_path)
        assert core._core is not None
        with pytest.raises(ValueError, match="other fields"):
            compiled().init((*swapped, 1), beam.WEIGHTS)
    finally:
        monkeypatch.undo()
        core.init_weights()


def test_the_core_names_the_engines_move_kinds() -> None:
    """One set of move kinds: the solver's moves and the core's constants are ``engine.moves``'s
    (core.py refuses a module whose kinds differ)."""
    from engine import moves as engine_moves

    assert core._core is not None
    assert {name: getattr(engine_moves, name) for name in core.KINDS} == compiled().KINDS
