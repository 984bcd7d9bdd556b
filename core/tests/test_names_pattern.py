"""The schema's pattern of invisible characters is the server's own rule, written out."""

from __future__ import annotations

import re

from core import names


def test_the_written_out_class_is_what_the_rule_gives() -> None:
    assert names.invisible_pattern_class() == names.INVISIBLE_PATTERN_CLASS


def test_the_class_refuses_what_the_server_refuses_and_takes_emoji() -> None:
    invisible = re.compile(f"[{names.INVISIBLE_PATTERN_CLASS}]")
    for char in ("\u00ad", "\u200b", "\u202e", "\u2066", "\ufeff"):
        assert invisible.search(char) and names.hidden_characters(f"a{char}b"), repr(char)
    for char in ("\U000e0041", "\U000e0100"):  # beyond the class, refused by the server all the same
        assert not invisible.search(char) and names.hidden_characters(f"a{char}b"), repr(char)
    for text in ("Café", "Ünal", "🂡 club", "\u2764\ufe0f fans", "👨\u200d👩\u200d👧"):
        assert not invisible.search(text) and not names.hidden_characters(text), text
