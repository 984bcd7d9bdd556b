"""Verdicts carried between the studies of two games that deal the same cards, where one game's moves
are moves or runs of moves of the other's (``engine.rules.weaker_game``: Forty Thieves in Josephine,
Klondike draw 3 in Klondike).

A win of the weaker game, found again, written as the stronger game's log and replayed by the engine
under its rules, is a win there; a loss of the stronger game is a loss of the weaker one. Rows it adds
say ``"via": GAME``.
"""

from __future__ import annotations

import json
import sys

from engine import State, find_rules
from engine.deal import deal
from engine.rules import weaker_game
from solver import solve
from solver.log import wins
from study.rows import DECIDED, Row, StudyError, study_rows


def as_log_of(game: str, seed: int, weak: str, moves: list[str]) -> list[str]:
    """``moves``, a log of ``weak`` from the seed's deal, written as a log of ``game``, its stronger
    game: a draw of k cards becomes k draws of one where ``game`` draws one at a time. A log the
    weaker game refuses is returned as it is (the engine then refuses it under ``game`` too, or
    the caller's replay finds no win)."""
    if find_rules(game).draw == find_rules(weak).draw:
        return list(moves)
    state, out = State(deal(weak, seed)), []
    for text in moves:
        drawn = min(len(state.stock), state.rules.draw) if text == "s" else 1
        try:
            state.play_text(text)
        except ValueError:
            return list(moves)
        out.extend([text] * drawn)
    return out


def transfer(weak_path: str, strong_path: str, seconds: float) -> dict[str, int]:
    """Append to STRONG the wins of WEAK it lacks and to WEAK the losses of STRONG it lacks (see the
    module's docstring); only for seeds both files hold. A weaker game's win counts only once the
    solver finds a win again and the engine replays its log to a win under the stronger game's rules."""
    weak_rows, strong_rows = study_rows(weak_path), study_rows(strong_path)
    games = {g for g, _ in weak_rows}, {g for g, _ in strong_rows}
    if len(games[0]) != 1 or len(games[1]) != 1:
        raise StudyError("each file must be the study of one game")
    weak, strong = next(iter(games[0])), next(iter(games[1]))
    if weaker_game(find_rules(strong)) != weak:
        raise StudyError(f"{weak} is not a weaker game of {strong}: no verdict carries over")
    counts = {"wins": 0, "losses": 0, "not_found_again": 0}
    seeds = sorted({s for _, s in weak_rows} & {s for _, s in strong_rows})
    with open(strong_path, "a", encoding="utf-8") as out:
        for seed in seeds:
            if weak_rows[weak, seed].get("status") != "solved" or strong_rows[strong, seed].get("status") in DECIDED:
                continue
            result = solve(weak, seed, seconds=seconds)
            log = as_log_of(strong, seed, weak, list(result.moves or []))
            if result.status != "solved" or not wins(deal(strong, seed), log):
                counts["not_found_again"] += 1
                print(f"{weak} {seed}: no win found again in {seconds:g} s, left undecided", file=sys.stderr)
                continue
            row: Row = {
                **result.to_json(),
                "game": strong,
                "difficulty": None,
                "length": len(log),
                "via": weak,
            }
            del row["moves"]
            out.write(json.dumps(row) + "\n")
            counts["wins"] += 1
    with open(weak_path, "a", encoding="utf-8") as out:
        for seed in seeds:
            if (
                strong_rows[strong, seed].get("status") != "unsolvable"
                or weak_rows[weak, seed].get("status") in DECIDED
            ):
                continue
            row = {"game": weak, "seed": seed, "status": "unsolvable", "nodes": 0, "seconds": 0.0, "via": strong}
            out.write(json.dumps(row) + "\n")
            counts["losses"] += 1
    return counts
