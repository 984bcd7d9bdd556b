"""Replaying move logs from the deal: the one path every caller uses (SPEC sections 4 to 6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .deal import deal
from .errors import InvalidLogError, MoveError
from .moves import Move, lookup
from .rules import Rules
from .state import State

MAX_LOG_LENGTH = 5000


@dataclass(frozen=True, slots=True)
class ReplayError:
    index: int  # 0-based index of the first illegal entry
    move: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"index": self.index, "move": self.move, "reason": self.reason}


@dataclass(slots=True)
class Replay:
    """The state after the legal prefix of a log, and the first error if there was one."""

    state: State
    error: ReplayError | None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def assisted(self) -> bool:
        """Did the legal prefix undo a move that disclosed a card for the first time (SPEC section 7)?"""
        return self.state.assisted_at is not None

    @property
    def assisted_at(self) -> int | None:
        """The index of that first undo in the log, or None."""
        return self.state.assisted_at

    def to_json(self) -> dict[str, object]:
        """The command line's and the API's shape: a result, or ``{"error": {...}}``."""
        if self.error is not None:
            return {"error": self.error.to_json()}
        return self.state.result()


def check_log(log: object) -> list[str]:
    """A log is a JSON array of at most 5,000 strings; anything else is rejected whole."""
    if not isinstance(log, list):
        raise InvalidLogError(f"a move log is a JSON array of move strings, not {_json_type(log)}")
    if len(log) > MAX_LOG_LENGTH:
        raise InvalidLogError(f"a move log holds at most {MAX_LOG_LENGTH} moves; this one has {len(log)}")
    for i, entry in enumerate(log):
        if not isinstance(entry, str):
            raise InvalidLogError(f"entry {i} of the move log is {_json_type(entry)}, not a move string")
    return log


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def play_log(state: State, log: Sequence[str], start: int = 0) -> ReplayError | None:
    """Play ``log`` on ``state`` until the first illegal entry, which is returned (indexes from ``start``)."""
    parse = Move.parse
    play = state.play
    index = start
    try:
        for text in log:
            move = lookup(text)  # a move parsed before costs one dict lookup
            play(move if move is not None else parse(text))
            index += 1
    except MoveError as exc:
        return ReplayError(index=index, move=log[index - start], reason=exc.reason)
    return None


def replay(game: str | Rules, seed: int, log: object) -> Replay:
    """Replay a whole log from the deal of (game, seed).

    ``InvalidLogError`` when the log is not an array of at most 5,000 strings; an
    illegal entry stops the replay and is reported in ``Replay.error``.
    """
    moves = check_log(log)
    state = State(deal(game, seed))
    error = play_log(state, moves)
    return Replay(state=state, error=error)
