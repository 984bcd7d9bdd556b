"""A password validator for the game's own words: Django's common-password check on a list of ours
(``game_passwords.txt``), so "solitaire", "Klondike2026" or "patience!" is refused as a guess anyone would
try first on a solitaire site. Digits and signs around the word do not make it another word."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.contrib.auth.password_validation import CommonPasswordValidator
from django.core.exceptions import ValidationError

GAME_WORDS = Path(__file__).resolve().parent / "game_passwords.txt"
_EDGES = re.compile(r"^[\W\d_]+|[\W\d_]+$")


class GameWordsValidator(CommonPasswordValidator):
    def __init__(self, password_list_path: Path | str = GAME_WORDS) -> None:
        super().__init__(password_list_path=password_list_path)

    def validate(self, password: str, user: Any = None) -> None:
        word = password.lower().strip()
        if word in self.passwords or _EDGES.sub("", word) in self.passwords:
            raise ValidationError(self.get_error_message(), code="password_game_word")

    def get_error_message(self) -> str:
        return "This password is a word of the game (such as “solitaire”): it is among the first guesses."

    def get_help_text(self) -> str:
        return "Your password cannot be a word of the game, such as “solitaire”."
