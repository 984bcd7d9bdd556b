"""What a player may see (SPEC section 7): face-down cards and the stock stay hidden."""

from __future__ import annotations

from .cards import HIDDEN, card_text
from .state import State


def foundation_pile(top: int) -> list[str]:
    """A foundation holds the suit of its top card from the ace up."""
    if top < 0:
        return []
    suit = top & 3
    return [card_text(rank * 4 + suit) for rank in range((top >> 2) + 1)]


def visible(state: State) -> dict[str, object]:
    """The position as the player sees it: no card that the moves have not exposed."""
    tableau = []
    for col, down in zip(state.tab, state.down, strict=True):
        tableau.append(
            [
                {"card": HIDDEN, "up": False} if i < down else {"card": card_text(c), "up": True}
                for i, c in enumerate(col)
            ]
        )
    return {
        "game": state.rules.game,
        "tableau": tableau,
        "stock": len(state.stock),
        "waste": [card_text(c) for c in state.waste],
        "foundations": [foundation_pile(top) for top in state.found],
        "redeals_left": None if state.passes_left < 0 else state.passes_left,
        "score": state.score,
        "moves": state.moves,
        "foundation_cards": state.on_foundations,
        "won": state.won,
        "can_undo": state.can_undo(),
        # Would an undo now take back a move that showed a card for the first time (SPEC section 7)? The
        # table asks before such an undo of a ranked attempt: it marks the attempt assisted.
        "undo_assists": state.undo_would_assist(),
    }


def full(state: State) -> dict[str, object]:
    """Everything, hidden cards included: for the server side, tools and debugging only."""
    return {
        "game": state.rules.game,
        "tableau": [
            [{"card": card_text(c), "up": i >= down} for i, c in enumerate(col)]
            for col, down in zip(state.tab, state.down, strict=True)
        ],
        "stock": [card_text(c) for c in reversed(state.stock)],
        "waste": [card_text(c) for c in state.waste],
        "foundations": [foundation_pile(top) for top in state.found],
    }
