"""The engine's errors: all are ``ValueError``s, notation kept apart from rules."""

from __future__ import annotations


class EngineError(ValueError):
    """Root of the engine's errors."""


class UnknownGameError(EngineError):
    def __init__(self, game: object, known: tuple[str, ...]) -> None:
        self.game = game
        super().__init__(f"unknown game {game!r}: expected one of {', '.join(known)}")


class InvalidSeedError(EngineError):
    def __init__(self, seed: object) -> None:
        self.seed = seed
        super().__init__(f"seed {seed!r} is not an integer in 0..18446744073709551615")


class MoveError(EngineError):
    """A move that cannot be played; ``reason`` says why in words a player understands."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"{text}: {reason}")


class InvalidMoveError(MoveError):
    """The text is not a move in SPEC section 4's notation."""


class IllegalMoveError(MoveError):
    """A well-formed move that the position forbids."""


class InvalidLogError(EngineError):
    """A move log that is rejected as a whole (not an array of strings, or too long)."""
