"""Moves as small hashable values with a notation round trip (SPEC section 4).

``Move.parse("t3t7:3")`` gives ``Move(T2T, 2, 6, 3)`` and ``str()`` of that is
``"t3t7:3"`` again. Pile indexes are 0-based inside the engine and 1-based in the
notation. Parsing only checks the notation; whether the position allows the
move (and whether the column exists) is the state's business.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from .errors import InvalidMoveError

# Move kinds, as plain ints for the hot path.
DRAW = 0
REDEAL = 1
UNDO = 2
W2T = 3
W2F = 4
T2F = 5
T2T = 6
F2T = 7

KIND_NAMES = (
    "draw",
    "redeal",
    "undo",
    "waste-to-column",
    "waste-to-foundation",
    "column-to-foundation",
    "column-to-column",
    "foundation-to-column",
)

MAX_MOVE_TEXT = 16

_MOVE_RE = re.compile(r"([wtf])([1-9][0-9]*)?([wtf])([1-9][0-9]*)?(?::([0-9]+))?")
_PILE = {"w": "waste", "t": "column", "f": "foundation"}
_EXPECTED = "expected s, r, u, or <from><to>[:n] such as wt3, t4f1, t2t9 or t3t7:3"


class Move(NamedTuple):
    kind: int
    src: int = -1
    dst: int = -1
    n: int = 1

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse SPEC notation; ``InvalidMoveError`` says what is wrong with the text."""
        if not isinstance(text, str):
            raise InvalidMoveError(repr(text), f"a move is a string, not {type(text).__name__}")
        move = _CACHE.get(text)
        if move is None:
            move = _parse(text)
            if len(_CACHE) < 4096:
                _CACHE[text] = move
        return move

    def __str__(self) -> str:
        kind = self.kind
        if kind == DRAW:
            return "s"
        if kind == REDEAL:
            return "r"
        if kind == UNDO:
            return "u"
        src = "w" if kind in (W2T, W2F) else ("f" if kind == F2T else "t")
        dst = "f" if kind in (W2F, T2F) else "t"
        text = f"{src}{'' if src == 'w' else self.src + 1}{dst}{self.dst + 1}"
        return f"{text}:{self.n}" if self.n > 1 else text

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


DRAW_MOVE = Move(DRAW)
REDEAL_MOVE = Move(REDEAL)
UNDO_MOVE = Move(UNDO)

_CACHE: dict[str, Move] = {"s": DRAW_MOVE, "r": REDEAL_MOVE, "u": UNDO_MOVE}


# ``lookup(text)``: the Move that ``Move.parse`` already made for ``text``, or None. It is the cache
# dict's own ``get`` (a C call, no Python frame): the replay loop's fast path.
lookup: Callable[[str], Move | None] = _CACHE.get


def _parse(text: str) -> Move:
    shown = text if len(text) <= MAX_MOVE_TEXT else text[:MAX_MOVE_TEXT] + "..."
    if len(text) > MAX_MOVE_TEXT:
        raise InvalidMoveError(shown, f"too long to be a move: {_EXPECTED}")
    m = _MOVE_RE.fullmatch(text)
    if m is None:
        hint = ""
        if any(ch.isspace() for ch in text):
            hint = " (no spaces)"
        elif text != text.lower():
            hint = " (moves are lower case)"
        elif re.search(r"[wtf]0", text):
            hint = " (piles are numbered from 1, without leading zeros)"
        raise InvalidMoveError(shown, f"not a move{hint}: {_EXPECTED}")
    src_pile, src_num, dst_pile, dst_num, count = m.groups()
    if src_pile == "w" and src_num is not None:
        raise InvalidMoveError(text, "the waste is written 'w', without a number")
    if src_pile != "w" and src_num is None:
        raise InvalidMoveError(text, f"which {_PILE[src_pile]}? write its number, like {src_pile}1")
    if dst_pile == "w":
        raise InvalidMoveError(text, "nothing moves onto the waste: only drawing ('s') fills it")
    if dst_num is None:
        raise InvalidMoveError(text, f"which {_PILE[dst_pile]}? write its number, like {dst_pile}1")
    if src_pile == "f" and dst_pile == "f":
        raise InvalidMoveError(text, "cards do not move from one foundation to another")
    n = 1
    if count is not None:
        if src_pile != "t" or dst_pile != "t":
            raise InvalidMoveError(text, "only column-to-column moves take a count ':n'")
        if count.startswith("0") or int(count) < 2:
            raise InvalidMoveError(
                text,
                "the count after ':' is a number of cards from 2 up, without leading zeros "
                "(a single card is written without ':n')",
            )
        n = int(count)
    src = -1 if src_num is None else int(src_num) - 1
    dst = int(dst_num) - 1
    if src_pile == "w":
        kind = W2T if dst_pile == "t" else W2F
    elif src_pile == "t":
        kind = T2T if dst_pile == "t" else T2F
    else:
        kind = F2T
    return Move(kind, src, dst, n)
