"""The rules engine of Daily Patience: plain, typed Python with no Django import.

>>> from engine import deal, replay
>>> replay("josephine", 1, ["s", "u"]).to_json()
{'won': False, 'score': 0, 'moves': 2, 'foundation_cards': 0}
"""

from .cards import card_text, parse_card
from .deal import Deal, deal
from .errors import (
    EngineError,
    IllegalMoveError,
    InvalidLogError,
    InvalidMoveError,
    InvalidSeedError,
    MoveError,
    UnknownGameError,
)
from .hints import Hint, hint
from .moves import DRAW, F2T, REDEAL, T2F, T2T, UNDO, W2F, W2T, Move
from .replay import MAX_LOG_LENGTH, Replay, ReplayError, check_log, play_log, replay
from .rules import GAME_IDS, GAMES, Rules, find_rules
from .state import State
from .view import full, visible

__all__ = [
    "DRAW",
    "F2T",
    "GAMES",
    "GAME_IDS",
    "MAX_LOG_LENGTH",
    "REDEAL",
    "T2F",
    "T2T",
    "UNDO",
    "W2F",
    "W2T",
    "Deal",
    "EngineError",
    "Hint",
    "IllegalMoveError",
    "InvalidLogError",
    "InvalidMoveError",
    "InvalidSeedError",
    "Move",
    "MoveError",
    "Replay",
    "ReplayError",
    "Rules",
    "State",
    "UnknownGameError",
    "card_text",
    "check_log",
    "deal",
    "find_rules",
    "full",
    "hint",
    "parse_card",
    "play_log",
    "replay",
    "visible",
]
