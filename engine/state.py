"""The position during play: checked moves, undo from a stack, legal moves, score.

Designed for replay speed: piles are plain lists of ints, a move changes only the
piles it touches, and undo restores from a small record per move instead of a
copy of the state. ``play`` checks and applies in one pass; it either raises
``IllegalMoveError`` having changed nothing, or applies the move completely.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .cards import KING_RANK, card_text
from .deal import Deal
from .errors import IllegalMoveError
from .moves import DRAW, F2T, REDEAL, T2F, T2T, UNDO, W2F, W2T, Move
from .rules import Build, Rules, Unit

# Score events (SPEC section 5).
TO_FOUNDATION = 10
WASTE_TO_TABLEAU = 5
TURN_UP = 5
FROM_FOUNDATION = -15
UNDO_PENALTY = -10
WIN_BONUS_BASE = 700

# The last field of an undo record: bit flags.
TURNED_UP = 1  # a Klondike face-down card turned up after the move
DISCLOSED = 2  # the move showed a card for the first time in the game (SPEC section 7)


def _build_table(build: Build) -> tuple[bool, ...]:
    """``table[top * 52 + card]``: may ``card`` go onto ``top`` in a column."""
    table = [False] * (52 * 52)
    for top in range(52):
        for card in range(52):
            if (card >> 2) + 1 != (top >> 2):
                continue
            same_suit = (card & 3) == (top & 3)
            other_colour = ((card & 3) in (1, 2)) != ((top & 3) in (1, 2))
            table[top * 52 + card] = same_suit if build is Build.SUIT else other_colour
    return tuple(table)


_BUILD_TABLES = {b: _build_table(b) for b in Build}
_BUILD_WORDS = {Build.SUIT: "columns build down in suit", Build.ALTERNATE: "columns build down in alternate colours"}


class State:
    """A game in progress. ``State(deal)`` starts it; ``play``/``undo`` change it."""

    __slots__ = (
        "_builds",
        "_stock_size",
        "_total",
        "assisted_at",
        "deal",
        "down",
        "found",
        "history",
        "moves",
        "on_foundations",
        "passes_left",
        "rules",
        "score",
        "seen_down",
        "seen_stock",
        "stock",
        "tab",
        "waste",
        "won",
    )

    def __init__(self, deal: Deal) -> None:
        rules = deal.rules
        self.rules: Rules = rules
        self.deal = deal
        self.tab: list[list[int]] = [list(col) for col in deal.tableau]
        self.down: list[int] = list(deal.face_down)
        self.stock: list[int] = list(reversed(deal.stock))  # next card drawn is at the end
        self.waste: list[int] = list(deal.waste)
        self.found: list[int] = list(deal.foundations)  # top card per foundation, -1 empty
        self.score = 0
        self.moves = 0  # log entries played, undos, draws and redeals included
        self.on_foundations = sum((top >> 2) + 1 for top in deal.foundations if top >= 0)
        self.passes_left = -1 if rules.passes is None else rules.passes - 1  # redeals left; -1: unlimited
        if deal.passes_left is not None:
            self.passes_left = deal.passes_left
        self.won = False
        # One record per move still on the stack: (kind, src, dst, n, score_before, flags), flags of
        # TURNED_UP and DISCLOSED.
        self.history: list[tuple[int, int, int, int, int, int]] = []
        # What the game has disclosed so far (SPEC section 7), which undo never takes back: the most
        # cards ever drawn out of the stock at once (the stock is always the deal's stock less a prefix
        # drawn, until the first redeal, which needs every card drawn), and per column the fewest
        # face-down cards ever (a face-down card never moves, so the deepest turned up is the limit).
        self.seen_stock = 0
        self.seen_down: list[int] = list(deal.face_down)
        # The index of the first undo that took back a move which disclosed a card: from then on the
        # game is assisted (SPEC section 7). None while there is none.
        self.assisted_at: int | None = None
        self._stock_size = len(deal.stock)
        self._builds = _BUILD_TABLES[rules.build]
        self._total = rules.cards

    # -- playing ---------------------------------------------------------------------------------

    def play_text(self, text: str) -> Move:
        move = Move.parse(text)
        self.play(move)
        return move

    def play(self, move: Move) -> None:
        """Check and apply one move (an undo included); raises ``IllegalMoveError`` and changes nothing.

        One method per kind of move checks and applies it, and returns what the undo record needs:
        the number of cards moved and whether a face-down card turned up.
        """
        if self.won:
            raise IllegalMoveError(str(move), "the game is already won: no move follows the winning one")
        kind, src, dst, n = move
        if kind == UNDO:
            disclosed = bool(self.history) and bool(self.history[-1][5] & DISCLOSED)
            self._undo()
            if disclosed and self.assisted_at is None:
                self.assisted_at = self.moves
            self.moves += 1
            return
        score = self.score
        n, flags = _APPLY[kind](self, move, src, dst, n)
        if kind == DRAW:
            out = self._stock_size - len(self.stock)
            if out > self.seen_stock:
                self.seen_stock = out
                flags |= DISCLOSED
        elif flags:
            down = self.down[src]
            if down < self.seen_down[src]:
                self.seen_down[src] = down
                flags |= DISCLOSED
        self.history.append((kind, src, dst, n, score, flags))
        self.moves += 1
        if self.on_foundations == self._total and kind in (T2F, W2F):
            self.won = True
            self.score += max(0, WIN_BONUS_BASE - 2 * self.moves)

    def _draw(self, move: Move, src: int, dst: int, n: int) -> tuple[int, int]:
        stock = self.stock
        if not stock:
            raise IllegalMoveError("s", self._empty_stock_reason())
        waste = self.waste
        n = self.rules.draw
        if n == 1:
            waste.append(stock.pop())
            return 1, 0
        n = min(n, len(stock))
        for _ in range(n):
            waste.append(stock.pop())
        return n, 0

    def _redeal(self, move: Move, src: int, dst: int, n: int) -> tuple[int, int]:
        self._check_redeal()
        self.stock = self.waste[::-1]
        self.waste = []
        if self.passes_left > 0:
            self.passes_left -= 1
        penalty = self.rules.redeal_penalty
        if penalty:
            self.score = max(0, self.score - penalty)
        return 1, 0

    def _column_to_column(self, move: Move, src: int, dst: int, n: int) -> tuple[int, int]:
        tab = self.tab
        if src >= len(tab) or dst >= len(tab):
            raise IllegalMoveError(str(move), self._no_column(max(src, dst)))
        col = tab[src]
        to = tab[dst]
        size = len(col)
        if src == dst:
            raise IllegalMoveError(str(move), "a column cannot move onto itself")
        if n > 1 and self.rules.unit is Unit.CARD:
            raise IllegalMoveError(str(move), f"{self.rules.name} moves one card at a time: write t{src + 1}t{dst + 1}")
        if n > size - self.down[src]:
            raise IllegalMoveError(str(move), self._too_few_reason(src, n))
        first = size - n
        card = col[first]
        if n > 1:
            builds = self._builds
            for i in range(first, size - 1):
                if not builds[col[i] * 52 + col[i + 1]]:
                    raise IllegalMoveError(str(move), self._not_a_run_reason(src, n, col[i], col[i + 1]))
        self._check_column_takes(move, to, card)
        if n == 1:
            to.append(col.pop())
        else:
            to.extend(col[first:])
            del col[first:]
        return n, self._turn_up(src)

    def _waste_to_column(self, move: Move, src: int, dst: int, n: int) -> tuple[int, int]:
        tab = self.tab
        if dst >= len(tab):
            raise IllegalMoveError(str(move), self._no_column(dst))
        waste = self.waste
        if not waste:
            raise IllegalMoveError(str(move), "the waste is empty: draw from the stock first")
        to = tab[dst]
        self._check_column_takes(move, to, waste[-1])
        to.append(waste.pop())
        self.score += WASTE_TO_TABLEAU
        return 1, 0

    def _column_to_foundation(self, move: Move, src: int, dst: int, n: int) -> tuple[int, int]:
        tab = self.tab
        if src >= len(tab):
            raise IllegalMoveError(str(move), self._no_column(src))
        col = tab[src]
        if not col:
            self._check_foundation_exists(move, dst)
            raise IllegalMoveError(str(move), f"column {src + 1} is empty")
        self._check_foundation(move, col[-1], dst)
        self.found[dst] = col.pop()
        self.on_foundations += 1
        self.score += TO_FOUNDATION
        return 1, self._turn_up(src)

    def _waste_to_foundation(self, move: Move, src: int, dst: int, n: int) -> tuple[int, int]:
        waste = self.waste
        if not waste:
            self._check_foundation_exists(move, dst)
            raise IllegalMoveError(str(move), "the waste is empty: draw from the stock first")
        self._check_foundation(move, waste[-1], dst)
        self.found[dst] = waste.pop()
        self.on_foundations += 1
        self.score += TO_FOUNDATION
        return 1, 0

    def _foundation_to_column(self, move: Move, src: int, dst: int, n: int) -> tuple[int, int]:
        self._check_from_foundation(move)
        top = self.found[src]
        self.tab[dst].append(top)
        self.found[src] = top - 4 if top >= 4 else -1
        self.on_foundations -= 1
        self.score = max(0, self.score + FROM_FOUNDATION)
        return 1, 0

    def _turn_up(self, src: int) -> int:
        """Klondike: the face-down card that became the last of column ``src`` turns up (+5)."""
        down = self.down[src]
        if down and len(self.tab[src]) == down:
            self.down[src] = down - 1
            self.score += TURN_UP
            return TURNED_UP
        return 0

    def _check_column_takes(self, move: Move, to: list[int], card: int) -> None:
        if to:
            if not self._builds[to[-1] * 52 + card]:
                raise IllegalMoveError(str(move), self._build_reason(card, to[-1]))
        elif self.rules.empty_takes_king_only and card >> 2 != KING_RANK:
            raise IllegalMoveError(str(move), self._king_only_reason(card))

    def undo(self) -> None:
        """Play ``u``: the last move not yet undone is taken back, then -10 (SPEC section 5)."""
        self.play(Move(UNDO))

    def _undo(self) -> None:
        history = self.history
        if not history:
            raise IllegalMoveError("u", "nothing to undo")
        kind, src, dst, n, score, flags = history.pop()
        flipped = flags & TURNED_UP
        if kind == DRAW:
            stock = self.stock
            waste = self.waste
            for _ in range(n):
                stock.append(waste.pop())
        elif kind == T2T:
            if flipped:
                self.down[src] += 1
            to = self.tab[dst]
            if n == 1:
                self.tab[src].append(to.pop())
            else:
                self.tab[src].extend(to[-n:])
                del to[-n:]
        elif kind == W2T:
            self.waste.append(self.tab[dst].pop())
        elif kind in (T2F, W2F):
            top = self.found[dst]
            self.found[dst] = top - 4 if top >= 4 else -1
            self.on_foundations -= 1
            if kind == W2F:
                self.waste.append(top)
            else:
                if flipped:
                    self.down[src] += 1
                self.tab[src].append(top)
        elif kind == REDEAL:
            self.waste = self.stock[::-1]
            self.stock = []
            if self.rules.passes is not None:
                self.passes_left += 1
        elif kind == F2T:
            self.found[src] = self.tab[dst].pop()
            self.on_foundations += 1
        self.score = max(0, score + UNDO_PENALTY)

    # -- checks and their reasons -----------------------------------------------------------------

    def _check_foundation_exists(self, move: Move, index: int) -> None:
        if index >= len(self.found):
            raise IllegalMoveError(
                str(move), f"there is no foundation {index + 1}: {self.rules.name} has {len(self.found)} foundations"
            )

    def _check_foundation(self, move: Move, card: int, dst: int) -> None:
        self._check_foundation_exists(move, dst)
        top = self.found[dst]
        if top < 0:
            if card >= 4:
                raise IllegalMoveError(
                    str(move), f"{card_text(card)} cannot start foundation {dst + 1}: an empty foundation takes an ace"
                )
        elif card != top + 4:
            raise IllegalMoveError(
                str(move),
                f"{card_text(card)} cannot go onto {card_text(top)} on foundation {dst + 1}: "
                "foundations build up in suit",
            )

    def _check_redeal(self) -> None:
        if self.stock:
            raise IllegalMoveError("r", "the stock is not empty yet: redeal only when it is")
        if not self.waste:
            raise IllegalMoveError("r", "the waste is empty: there is nothing to redeal")
        if self.passes_left == 0:
            passes = self.rules.passes
            allowed = "no redeal" if passes == 1 else f"{passes} passes through the stock"
            raise IllegalMoveError("r", f"no redeal left: {self.rules.name} allows {allowed}")

    def _check_from_foundation(self, move: Move) -> None:
        src, dst = move.src, move.dst
        if not self.rules.foundation_to_tableau:
            raise IllegalMoveError(str(move), f"in {self.rules.name} cards never leave the foundations")
        self._check_foundation_exists(move, src)
        if dst >= len(self.tab):
            raise IllegalMoveError(str(move), self._no_column(dst))
        top = self.found[src]
        if top < 0:
            raise IllegalMoveError(str(move), f"foundation {src + 1} is empty")
        self._check_column_takes(move, self.tab[dst], top)

    def _empty_stock_reason(self) -> str:
        if self.waste and self.passes_left != 0:
            return "the stock is empty: redeal with 'r'"
        return "the stock is empty"

    def _no_column(self, index: int) -> str:
        return f"there is no column {index + 1}: {self.rules.name} has {len(self.tab)} columns"

    def _too_few_reason(self, src: int, n: int) -> str:
        col = self.tab[src]
        if not col:
            return f"column {src + 1} is empty"
        up = len(col) - self.down[src]
        if up < len(col):
            return f"column {src + 1} has only {up} face-up card{'s' if up != 1 else ''}, not {n}"
        return f"column {src + 1} has only {len(col)} card{'s' if len(col) != 1 else ''}, not {n}"

    def _build_reason(self, card: int, top: int) -> str:
        return f"{card_text(card)} does not build on {card_text(top)}: {_BUILD_WORDS[self.rules.build]}"

    def _not_a_run_reason(self, src: int, n: int, lower: int, upper: int) -> str:
        return (
            f"the last {n} cards of column {src + 1} are not a run: {card_text(upper)} does not build on "
            f"{card_text(lower)} ({_BUILD_WORDS[self.rules.build]})"
        )

    def _king_only_reason(self, card: int) -> str:
        return f"{card_text(card)} cannot fill an empty column: only a king (or a run from a king) can"

    # -- questions ---------------------------------------------------------------------------------

    def builds_on(self, card: int, top: int) -> bool:
        """May ``card`` go onto ``top`` in a column, by this game's building rule?"""
        return self._builds[top * 52 + card]

    def can_undo(self) -> bool:
        return bool(self.history) and not self.won

    @property
    def assisted(self) -> bool:
        """Has an undo taken back a move that disclosed a card (SPEC section 7)?"""
        return self.assisted_at is not None

    def undo_would_assist(self) -> bool:
        """Would ``u`` now take back a move that disclosed a card for the first time, marking the game
        assisted? (False once it is assisted: nothing more to mark.)"""
        return self.assisted_at is None and self.can_undo() and bool(self.history[-1][5] & DISCLOSED)

    def legal_moves(self) -> Iterator[Move]:
        """Every legal move but ``u``, in a fixed order: to foundations, to columns, stock."""
        if self.won:
            return
        rules = self.rules
        tab, found, waste, builds = self.tab, self.found, self.waste, self._builds
        king_only = rules.empty_takes_king_only
        ncols = len(tab)
        # To foundations.
        sources: list[tuple[int, int, int]] = []  # (kind, src, card)
        if waste:
            sources.append((W2F, -1, waste[-1]))
        for i, col in enumerate(tab):
            if col:
                sources.append((T2F, i, col[-1]))
        for kind, src, card in sources:
            for f, top in enumerate(found):
                if (card < 4 and top < 0) or (top >= 0 and card == top + 4):
                    yield Move(kind, src, f)
        # Waste to columns.
        if waste:
            card = waste[-1]
            for d in range(ncols):
                to = tab[d]
                if builds[to[-1] * 52 + card] if to else (not king_only or card >> 2 == KING_RANK):
                    yield Move(W2T, -1, d)
        # Columns to columns: single cards, then longer runs where the game moves them.
        runs = rules.unit is Unit.RUN
        for s in range(ncols):
            col = tab[s]
            size = len(col)
            if not size:
                continue
            longest = 1
            if runs:
                lowest = self.down[s]
                while size - longest - 1 >= lowest and builds[col[size - longest - 1] * 52 + col[size - longest]]:
                    longest += 1
            for n in range(1, longest + 1):
                card = col[size - n]
                for d in range(ncols):
                    if d == s:
                        continue
                    to = tab[d]
                    if builds[to[-1] * 52 + card] if to else (not king_only or card >> 2 == KING_RANK):
                        yield Move(T2T, s, d, n)
        # Foundations back to columns (Klondike).
        if rules.foundation_to_tableau:
            for f, top in enumerate(found):
                if top < 0:
                    continue
                for d in range(ncols):
                    to = tab[d]
                    if builds[to[-1] * 52 + top] if to else (not king_only or top >> 2 == KING_RANK):
                        yield Move(F2T, f, d)
        if self.stock:
            yield Move(DRAW)
        elif waste and self.passes_left != 0:
            yield Move(REDEAL)

    # -- snapshots -------------------------------------------------------------------------------

    SNAPSHOT_VERSION = 2

    def snapshot(self) -> tuple[object, ...]:
        """The position and its undo stack as plain data (ints, lists, tuples), e.g. for a cache.

        ``State.restore(deal, snapshot)`` gives an equal state without replaying the log.
        """
        return (
            self.SNAPSHOT_VERSION,
            self.rules.game,
            self.deal.seed,
            [list(col) for col in self.tab],
            list(self.down),
            list(self.stock),
            list(self.waste),
            list(self.found),
            self.score,
            self.moves,
            self.on_foundations,
            self.passes_left,
            self.won,
            [tuple(r) for r in self.history],
            self.seen_stock,
            list(self.seen_down),
            self.assisted_at,
        )

    @classmethod
    def restore(cls, deal: Deal, snapshot: tuple[object, ...]) -> State:
        """The state a ``snapshot()`` of a game of ``deal`` describes; ``ValueError`` if it is not one."""
        try:
            (
                version,
                game,
                seed,
                tab,
                down,
                stock,
                waste,
                found,
                score,
                moves,
                home,
                passes,
                won,
                history,
                seen_stock,
                seen_down,
                assisted_at,
            ) = snapshot
        except (TypeError, ValueError):
            raise ValueError("not a state snapshot") from None
        if version != cls.SNAPSHOT_VERSION or game != deal.rules.game or seed != deal.seed:
            raise ValueError("the snapshot is of another deal or format")
        state = cls(deal)
        state.tab = [list(col) for col in tab]  # type: ignore[attr-defined]
        state.down = list(down)  # type: ignore[call-overload]
        state.stock = list(stock)  # type: ignore[call-overload]
        state.waste = list(waste)  # type: ignore[call-overload]
        state.found = list(found)  # type: ignore[call-overload]
        state.score, state.moves, state.on_foundations = int(score), int(moves), int(home)  # type: ignore[call-overload]
        state.passes_left, state.won = int(passes), bool(won)  # type: ignore[call-overload]
        state.history = [tuple(r) for r in history]  # type: ignore[attr-defined]
        state.seen_stock = int(seen_stock)  # type: ignore[call-overload]
        state.seen_down = list(seen_down)  # type: ignore[call-overload]
        state.assisted_at = None if assisted_at is None else int(assisted_at)  # type: ignore[call-overload]
        return state

    def as_deal(self) -> Deal:
        """This position as a deal to start from (score, move count and undo stack left behind):
        ``State(state.as_deal())`` plays on exactly as ``state`` does, and the solver can search it."""
        return Deal(
            rules=self.rules,
            seed=self.deal.seed,
            tableau=tuple(tuple(col) for col in self.tab),
            face_down=tuple(self.down),
            stock=tuple(reversed(self.stock)),
            foundations=tuple(self.found),
            waste=tuple(self.waste),
            passes_left=self.passes_left,
        )

    @property
    def redeals(self) -> int:
        """Redeals in the line as it stands (undone ones not counted)."""
        return sum(1 for record in self.history if record[0] == REDEAL)

    @property
    def last_move(self) -> Move | None:
        """The last move not undone, as played (a draw of fewer cards is still ``s``), or None."""
        if not self.history:
            return None
        kind, src, dst, n = self.history[-1][:4]
        if kind in (DRAW, REDEAL):
            return Move(kind)
        return Move(kind, src, dst, n)

    def result(self) -> dict[str, object]:
        return {"won": self.won, "score": self.score, "moves": self.moves, "foundation_cards": self.on_foundations}

    def key(self) -> tuple[object, ...]:
        """Everything that decides the future of the game (score and move count aside)."""
        return (
            tuple(tuple(c) for c in self.tab),
            tuple(self.down),
            tuple(self.stock),
            tuple(self.waste),
            tuple(self.found),
            self.passes_left,
        )


def _no_apply(state: State, move: Move, src: int, dst: int, n: int) -> tuple[int, int]:  # pragma: no cover
    raise AssertionError("an undo is not applied through the move table")


# The method that checks and applies each kind of move, indexed by kind (DRAW = 0 ... F2T = 7).
_APPLY: tuple[Callable[[State, Move, int, int, int], tuple[int, int]], ...] = (
    State._draw,
    State._redeal,
    _no_apply,
    State._waste_to_column,
    State._waste_to_foundation,
    State._column_to_foundation,
    State._column_to_column,
    State._foundation_to_column,
)
assert tuple(range(8)) == (DRAW, REDEAL, UNDO, W2T, W2F, T2F, T2T, F2T)
