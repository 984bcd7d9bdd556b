"""Is a secret strong enough to derive every future deal from it (``DAILY_SECRET``), or to sign sessions
and reset links (``DJANGO_SECRET_KEY``)? Production refuses either when this finds it weak.

``DAILY_SECRET`` keys the HMAC that gives each day's seeds. Past seeds are published once a day is
over, so anyone may try candidate secrets offline against them at full speed: a short, dictionary or
patterned secret falls, and with it every future deal. Production therefore wants at least as much
as 32 random bytes (256 bits), e.g. ``python -c 'import secrets; print(secrets.token_urlsafe(48))'``.

There is no way to measure the randomness of one string; these are conservative estimates that a
generated secret passes and the usual human choices fail:

- the length times the bits of the alphabet it is written in is at least 256 bits: 43 characters
  of ``token_urlsafe`` (base 64), 64 of ``token_hex`` (base 16); another secret counts the character
  classes it uses (lower case, upper case, digits, other printable ASCII, anything else);
- its characters are not few and repeated: at least 3 bits of entropy per character, as counted
  from their frequencies in the string (hex of 32 bytes has about 3.8, a repeated word far less),
  and no stretch of 8 characters occurs twice (a pattern typed again);
- it is not mostly words: refused when more than 65 % of it is runs of three or more lower-case
  letters of which at least 30 % are vowels, as in words (a passphrase, or a placeholder such as
  ``change-me-to-a-long-secret``); random letters have about 19 % vowels, and about 2 in a million
  ``token_urlsafe(32)`` draws are refused (generate another), none of ``token_urlsafe(48)``.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter

MIN_BITS = 256
MIN_BITS_PER_CHAR = 3.0
MAX_WORDY_SHARE = 0.65
MIN_WORDY_VOWELS = 0.3
REPEAT_LENGTH = 8
HOW_TO_MAKE_ONE = "python -c 'import secrets; print(secrets.token_urlsafe(48))'"

_CLASSES = (
    (set(string.ascii_lowercase), 26),
    (set(string.ascii_uppercase), 26),
    (set(string.digits), 10),
    (set(string.punctuation), 32),
)
_HEX = set(string.hexdigits)
_BASE64 = set(string.ascii_letters + string.digits + "-_+/=")
_WORD_RUN = re.compile(r"[a-z]{3,}")


def estimated_bits(secret: str) -> float:
    """Length times log2 of the alphabet the secret is written in (an upper bound)."""
    if set(secret) <= _HEX:
        return len(secret) * 4.0
    if set(secret) <= _BASE64:
        return len(secret) * 6.0
    pool = 0
    rest = set(secret)
    for members, size in _CLASSES:
        if rest & members:
            pool += size
            rest -= members
    if rest:  # spaces, non-ASCII: count them generously as one more large class
        pool += 64
    return len(secret) * math.log2(pool) if pool > 1 else 0.0


def bits_per_char(secret: str) -> float:
    """Shannon entropy of the secret's own character frequencies."""
    if not secret:
        return 0.0
    n = len(secret)
    return -sum(c / n * math.log2(c / n) for c in Counter(secret).values())


def _repeats(secret: str) -> bool:
    seen: set[str] = set()
    for i in range(len(secret) - REPEAT_LENGTH + 1):
        part = secret[i : i + REPEAT_LENGTH]
        if part in seen:
            return True
        seen.add(part)
    return False


def secret_problem(secret: str) -> str | None:
    """Why ``secret`` is too weak for production, or None when it passes."""
    if estimated_bits(secret) < MIN_BITS:
        return f"it is too short: it holds less than 32 random bytes ({MIN_BITS} bits) however it was made"
    if bits_per_char(secret) < MIN_BITS_PER_CHAR or _repeats(secret):
        return "it repeats characters or a pattern: it has too little entropy"
    letters = "".join(_WORD_RUN.findall(secret))
    vowels = sum(c in "aeiouy" for c in letters)
    if len(letters) > len(secret) * MAX_WORDY_SHARE and vowels >= len(letters) * MIN_WORDY_VOWELS:
        return "it is mostly words: a passphrase or a placeholder can be guessed"
    return None
