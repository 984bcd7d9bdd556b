"""Regenerate ``engine/tests/data/perft.json``: move-sequence counts that guard the move generator.

    python -m engine.tests.make_perft            # check against the reference, then write the file
    python -m engine.tests.make_perft --check    # only compare the engine with the file

``perft(state, d)`` is the number of sequences of ``d`` moves taken from ``legal_moves()``
(undo excluded) from a position. The positions are, for every game, the deals of two fixed
seeds and one mid-game position reached by a fixed log stored in the file.

Before anything is written, every node of every tree down to depth 3 is checked against
``reference_moves``: a second, deliberately naive move generator written from SPEC section 1
and 4 alone (it shares no code with ``engine.state``). The property tests use it too.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from pathlib import Path
from typing import TypedDict

from engine import DRAW, F2T, GAME_IDS, REDEAL, T2F, T2T, W2F, W2T, Move, State, deal

DATA = Path(__file__).resolve().parent / "data" / "perft.json"

SEEDS = (1, 2026)
MIDGAME_SEED = 7
MIDGAME_LENGTH = 60
MAX_DEPTH = 4
DEPTH4_BUDGET_S = 2.0  # depth 4 is recorded only when the engine counts it this fast


class SpecGame(TypedDict):
    """A game's row of SPEC section 1's table."""

    decks: int
    columns: int
    rows: int | None  # None: Klondike's triangle
    stock: int
    draw: int
    passes: int | None  # None: unlimited
    build: str
    runs: bool
    king_only: bool
    aces_start: bool
    from_foundation: bool
    redeal_penalty: int


# SPEC section 1, restated by hand (not read from engine.rules).
SPEC_GAMES: dict[str, SpecGame] = {
    "josephine": dict(
        decks=2,
        columns=10,
        rows=4,
        stock=64,
        draw=1,
        passes=1,
        build="suit",
        runs=True,
        king_only=False,
        aces_start=False,
        from_foundation=False,
        redeal_penalty=0,
    ),
    "forty-thieves": dict(
        decks=2,
        columns=10,
        rows=4,
        stock=64,
        draw=1,
        passes=1,
        build="suit",
        runs=False,
        king_only=False,
        aces_start=False,
        from_foundation=False,
        redeal_penalty=0,
    ),
    "lucas": dict(
        decks=2,
        columns=13,
        rows=3,
        stock=57,
        draw=1,
        passes=1,
        build="suit",
        runs=False,
        king_only=False,
        aces_start=True,
        from_foundation=False,
        redeal_penalty=0,
    ),
    "limited": dict(
        decks=2,
        columns=12,
        rows=3,
        stock=68,
        draw=1,
        passes=1,
        build="suit",
        runs=False,
        king_only=False,
        aces_start=False,
        from_foundation=False,
        redeal_penalty=0,
    ),
    "maria": dict(
        decks=2,
        columns=9,
        rows=4,
        stock=68,
        draw=1,
        passes=1,
        build="alternate",
        runs=False,
        king_only=False,
        aces_start=False,
        from_foundation=False,
        redeal_penalty=0,
    ),
    "forty-and-eight": dict(
        decks=2,
        columns=8,
        rows=5,
        stock=64,
        draw=1,
        passes=2,
        build="suit",
        runs=False,
        king_only=False,
        aces_start=False,
        from_foundation=False,
        redeal_penalty=0,
    ),
    "klondike": dict(
        decks=1,
        columns=7,
        rows=None,
        stock=24,
        draw=1,
        passes=None,
        build="alternate",
        runs=True,
        king_only=True,
        aces_start=False,
        from_foundation=True,
        redeal_penalty=50,
    ),
    "klondike-3": dict(
        decks=1,
        columns=7,
        rows=None,
        stock=24,
        draw=3,
        passes=None,
        build="alternate",
        runs=True,
        king_only=True,
        aces_start=False,
        from_foundation=True,
        redeal_penalty=20,
    ),
}

KING = 12


def _rank(card: int) -> int:
    return card // 4


def _suit(card: int) -> int:
    return card % 4


def _red(card: int) -> bool:
    return _suit(card) in (1, 2)  # diamonds, hearts


def spec_builds(game: str, card: int, onto: int) -> bool:
    """May ``card`` lie on ``onto`` in a column (SPEC 1: down, in suit or in alternate colours)?"""
    if _rank(card) + 1 != _rank(onto):
        return False
    if SPEC_GAMES[game]["build"] == "suit":
        return _suit(card) == _suit(onto)
    return _red(card) != _red(onto)


def reference_moves(state: State) -> set[Move]:
    """Every legal move but undo, straight from the SPEC's wording; slow and simple on purpose."""
    game = state.rules.game
    spec = SPEC_GAMES[game]
    if state.won:
        return set()
    out: set[Move] = set()
    tab, down, found, waste = state.tab, state.down, state.found, state.waste

    def to_foundation_ok(card: int, top: int) -> bool:
        if top == -1:
            return _rank(card) == 0
        return _suit(card) == _suit(top) and _rank(card) == _rank(top) + 1

    def to_column_ok(card: int, column: list[int]) -> bool:
        if column:
            return spec_builds(game, card, column[-1])
        return _rank(card) == KING or not spec["king_only"]

    for f, top in enumerate(found):
        if waste and to_foundation_ok(waste[-1], top):
            out.add(Move(W2F, -1, f))
        for c, column in enumerate(tab):
            if len(column) > down[c] and to_foundation_ok(column[-1], top):
                out.add(Move(T2F, c, f))
    for d, column in enumerate(tab):
        if waste and to_column_ok(waste[-1], column):
            out.add(Move(W2T, -1, d))
    for s, column in enumerate(tab):
        face_up = len(column) - down[s]
        for n in range(1, (face_up if spec["runs"] else min(1, face_up)) + 1):
            unit = column[len(column) - n :]
            if any(not spec_builds(game, unit[i + 1], unit[i]) for i in range(n - 1)):
                continue
            for d, target in enumerate(tab):
                if d != s and to_column_ok(unit[0], target):
                    out.add(Move(T2T, s, d, n))
    if spec["from_foundation"]:
        for f, top in enumerate(found):
            for d, target in enumerate(tab):
                if top != -1 and to_column_ok(top, target):
                    out.add(Move(F2T, f, d))
    if state.stock:
        out.add(Move(DRAW))
    elif waste and state.passes_left != 0:
        out.add(Move(REDEAL))
    return out


def perft(state: State, depth: int) -> int:
    """Number of ``depth``-move sequences from ``state`` (restored by undo after each branch)."""
    if depth == 0:
        return 1
    moves = list(state.legal_moves())
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        if state.won:  # pragma: no cover - a deal is never won within a few moves
            raise AssertionError("perft reached a won position: undo would be illegal")
        score, count = state.score, state.moves
        state.play(move)
        total += perft(state, depth - 1)
        state.undo()
        state.score, state.moves = score, count
    return total


def checked_perft(state: State, depth: int) -> list[int]:
    """Counts at depths 1..depth, asserting at every node that the engine agrees with the reference."""
    counts = [0] * depth

    def walk(s: State, d: int) -> None:
        moves = list(s.legal_moves())
        if len(moves) != len(set(moves)):
            raise AssertionError(f"duplicate legal moves after {s.moves} moves: {moves}")
        ref = reference_moves(s)
        if set(moves) != ref:
            raise AssertionError(
                f"{s.rules.game}: engine and reference disagree: extra {sorted(map(str, set(moves) - ref))}, "
                f"missing {sorted(map(str, ref - set(moves)))}"
            )
        counts[depth - d] += len(moves)
        if d == 1:
            return
        for move in moves:
            child = copy.deepcopy(s)
            child.play(move)
            walk(child, d - 1)

    walk(state, depth)
    return counts


def _piles(move: Move) -> tuple[str, str]:
    text = str(move).split(":")[0]
    cut = 1 if text[0] == "w" else text.index(text[1:].lstrip("0123456789")[0], 1)
    return text[:cut], text[cut:]


def midgame_log(game: str, seed: int = MIDGAME_SEED, length: int = MIDGAME_LENGTH) -> list[str]:
    """A fixed, mildly greedy playout without undo: foundation and waste moves first, and no move
    that takes cards straight back to a pile they left during the last few moves."""
    rng = random.Random(f"{game}/{seed}")
    state = State(deal(game, seed))
    log: list[str] = []
    recent: list[tuple[str, str]] = []  # (from, to) piles of the last card moves

    def fresh(m: Move) -> bool:
        return m.kind in (DRAW, REDEAL) or _piles(m)[::-1] not in recent

    while len(log) < length:
        moves = sorted(state.legal_moves(), key=str)
        tiers = [
            [m for m in moves if m.kind in (W2F, T2F) and fresh(m)],
            [m for m in moves if m.kind == W2T],
            [m for m in moves if m.kind in (T2T, F2T) and fresh(m)],
            [m for m in moves if fresh(m)],
        ]
        pool = next((t for t in tiers if t and rng.random() < 0.8), tiers[3] or moves)
        if not pool:
            break
        move = rng.choice(pool)
        if move.kind not in (DRAW, REDEAL):
            recent = [*recent[-7:], _piles(move)]
        state.play(move)
        log.append(str(move))
    return log


def start(game: str, seed: int, log: list[str]) -> State:
    state = State(deal(game, seed))
    for text in log:
        state.play_text(text)
    return state


def generate(verbose: bool = True) -> dict[str, object]:
    positions = []
    for game in GAME_IDS:
        for seed, log in [(s, []) for s in SEEDS] + [(MIDGAME_SEED, midgame_log(game))]:
            counts = checked_perft(start(game, seed, log), 3)
            t0 = time.perf_counter()
            d4 = perft(start(game, seed, log), 4)
            elapsed = time.perf_counter() - t0
            if elapsed <= DEPTH4_BUDGET_S:
                counts.append(d4)
            if verbose:
                print(f"{game:16} {seed:5} log={len(log):3} {counts} (depth 4 in {elapsed:.2f}s)", file=sys.stderr)
            positions.append({"game": game, "seed": seed, "log": log, "counts": counts})
    return {
        "about": "perft counts: number of sequences of 1, 2, 3 (and 4) moves from legal_moves() (undo "
        "excluded) from the position reached by playing `log` on the deal of (game, seed). "
        "Regenerate with `python -m engine.tests.make_perft`.",
        "positions": positions,
    }


def check(data: dict[str, object]) -> list[str]:
    problems = []
    for pos in data["positions"]:  # type: ignore[attr-defined]
        for depth, expected in enumerate(pos["counts"], 1):
            got = perft(start(pos["game"], pos["seed"], pos["log"]), depth)
            if got != expected:
                problems.append(
                    f"{pos['game']} seed {pos['seed']} log {len(pos['log'])}: "
                    f"depth {depth} expected {expected}, got {got}"
                )
    return problems


def dumps(data: dict[str, object]) -> str:
    """One position per line, so that a change in the counts reads well in a diff."""
    lines = ",\n  ".join(json.dumps(pos) for pos in data["positions"])  # type: ignore[attr-defined]
    return f'{{"about": {json.dumps(data["about"])},\n "positions": [\n  {lines}\n ]}}\n'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare the engine with the stored file")
    args = parser.parse_args(argv)
    if args.check:
        problems = check(json.loads(DATA.read_text()))
        print("\n".join(problems) or "perft.json matches the engine")
        return 1 if problems else 0
    data = generate()
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text(dumps(data))
    print(f"wrote {DATA}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
