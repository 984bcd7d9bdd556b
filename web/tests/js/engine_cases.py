"""The engine's verdicts on what the page can see, as JSON for the browser rules' tests (rules.test.mjs).

    python -m web.tests.js.engine_cases > cases.json

For every log of the engine's vectors (replay and assisted), each step: the visible state before it,
the move, and the engine's verdict (illegal; played, with the visible state after it; whether the
page could have known the outcome, i.e. no draw, redeal, undo or turn-up) and the legal moves. For
every perft position: the legal moves and the counts of sequences of moves the page can play itself.
Each step also carries ``safe``: the face-up column tops and the waste's top that the solver's safe
rule (solver.safe.is_safe) would send home, for the table's "safe cards home" option.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from engine import DRAW, REDEAL, IllegalMoveError, InvalidMoveError, Move, State, deal, find_rules
from engine.rules import Build
from engine.view import visible
from solver.reference.safe import is_safe

DATA = Path(__file__).resolve().parents[3] / "engine" / "tests" / "data"
STEP_LIMIT = 400


def local(state: State, move: Move) -> bool:
    """Did the visible state alone decide the move's outcome (nothing hidden came into view)?"""
    return move.kind not in (DRAW, REDEAL)


RANKS, SUITS = "A23456789TJQK", "CDHS"


def solver_safe(game: str, view: dict[str, Any]) -> list[str]:
    """The visible cards (column tops, the waste's top) the solver's rule deems safe to send home, asked
    of solver.safe.is_safe through the only parts of its state it reads: the piles' heights (per suit,
    two decks: the higher pile, then the lower), whether there are two decks, whether building is by suit."""
    rules = find_rules(game)
    heights: dict[str, list[int]] = {s: [] for s in SUITS}
    for pile in view["foundations"]:
        if pile:
            heights[pile[-1][1]].append(RANKS.index(pile[-1][0]) + 1)
    found: list[int] = []
    for s in SUITS:
        found += sorted(heights[s] + [0] * (rules.decks - len(heights[s])), reverse=True)
    st = SimpleNamespace(two=rules.decks == 2, suit_build=rules.build is Build.SUIT, found=found)
    cards = [col[-1]["card"] for col in view["tableau"] if col and col[-1]["up"]] + view["waste"][-1:]
    return sorted({c for c in cards if is_safe(st, RANKS.index(c[0]) * 4 + SUITS.index(c[1]))})  # type: ignore[arg-type]


def play_case(game: str, seed: int, moves: list[str]) -> dict[str, object]:
    state = State(deal(game, seed))
    steps: list[dict[str, object]] = []
    for text in moves[:STEP_LIMIT]:
        before = visible(state)
        step: dict[str, object] = {
            "before": before,
            "move": text,
            "legal": [str(m) for m in state.legal_moves()],
            "safe": solver_safe(game, before),
        }
        down = sum(state.down)
        try:
            if text == "u":
                state.undo()
                step["local"] = False
            else:
                move = state.play_text(text)
                step["local"] = local(state, move) and sum(state.down) == down
        except (IllegalMoveError, InvalidMoveError) as exc:
            step["illegal"] = str(exc)
            steps.append(step)
            break
        step["after"] = visible(state)
        steps.append(step)
    return {"game": game, "seed": seed, "steps": steps}


def visible_perft(state: State, depth: int) -> int:
    """Sequences of ``depth`` moves that the page plays itself (no draw, redeal or turn-up)."""
    if depth == 0:
        return 1
    total = 0
    for move in list(state.legal_moves()):
        if move.kind in (DRAW, REDEAL):
            continue
        score, count, down = state.score, state.moves, sum(state.down)
        state.play(move)
        if sum(state.down) == down and not state.won:
            total += visible_perft(state, depth - 1)
        state.undo()
        state.score, state.moves = score, count
    return total


def cases() -> dict[str, object]:
    logs = []
    for name in ("replay.jsonl", "assisted.jsonl"):
        for line in (DATA / "vectors" / name).read_text().splitlines():
            if line.strip():
                vector = json.loads(line)
                if isinstance(vector.get("moves"), list) and all(isinstance(m, str) for m in vector["moves"]):
                    logs.append(play_case(vector["game"], vector["seed"], vector["moves"]))
    positions = []
    for position in json.loads((DATA / "perft.json").read_text())["positions"]:
        state = State(deal(position["game"], position["seed"]))
        for text in position["log"]:
            state.play_text(text)
        positions.append(
            {
                "game": position["game"],
                "seed": position["seed"],
                "state": visible(state),
                "perft1": position["counts"][0],
                "visible": [visible_perft(state, d) for d in (1, 2, 3)],
            }
        )
    games = sorted({str(c["game"]) for c in logs} | {str(p["game"]) for p in positions})
    return {"rules": {g: find_rules(g).as_dict() for g in games}, "logs": logs, "positions": positions}


if __name__ == "__main__":
    json.dump(cases(), sys.stdout)
