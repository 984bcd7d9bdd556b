"""A fixed corpus of move logs made with the engine from fixed seeds, for benchmarks and tests.

Each log is a random playout of 100 to 300 entries with undos (and redeals where the
game has them) mixed in, so it exercises every kind of move the replay meets.
"""

from __future__ import annotations

import random

from engine import GAME_IDS, REDEAL, UNDO, Move, State, deal


def playout(game: str, seed: int, length: int, rng: random.Random) -> list[str]:
    state = State(deal(game, seed))
    log: list[str] = []
    while len(log) < length and not state.won:
        moves = list(state.legal_moves())
        redeals = [m for m in moves if m.kind == REDEAL]
        if state.can_undo() and (not moves or rng.random() < 0.08):
            move = Move(UNDO)
        elif not moves:
            break
        elif redeals and rng.random() < 0.5:
            move = redeals[0]
        else:
            # Prefer real play over drawing so that logs reach deep positions.
            non_draw = [m for m in moves if m.kind != 0]
            pool = non_draw if non_draw and rng.random() < 0.7 else moves
            move = rng.choice(pool)
        state.play(move)
        log.append(str(move))
    return log


def corpus(size: int = 1000, base_seed: int = 20261130) -> list[tuple[str, int, list[str]]]:
    rng = random.Random(base_seed)
    out = []
    for i in range(size):
        game = GAME_IDS[i % len(GAME_IDS)]
        seed = rng.getrandbits(64)
        out.append((game, seed, playout(game, seed, rng.randint(100, 300), rng)))
    return out
