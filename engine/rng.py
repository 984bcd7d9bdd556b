"""SplitMix64 and the shuffle of SPEC section 3, exact on every platform."""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MUL1 = 0xBF58476D1CE4E5B9
MUL2 = 0x94D049BB133111EB
SEED_MAX = MASK64

T = TypeVar("T")


class SplitMix64:
    """``SplitMix64(0).next() == 0xE220A8397B1DCDAF``."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if not 0 <= seed <= SEED_MAX:
            raise ValueError(f"seed {seed} is outside 0..2^64-1")
        self.state = seed

    def next(self) -> int:
        self.state = z = (self.state + GOLDEN) & MASK64
        z = ((z ^ (z >> 30)) * MUL1) & MASK64
        z = ((z ^ (z >> 27)) * MUL2) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in 0..n-1 by rejection (SPEC 3.3)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n


def shuffle(items: MutableSequence[T], seed: int) -> None:
    """Fisher-Yates from the end, in place (SPEC 3.4)."""
    rng = SplitMix64(seed)
    below = rng.below
    for i in range(len(items) - 1, 0, -1):
        j = below(i + 1)
        items[i], items[j] = items[j], items[i]
