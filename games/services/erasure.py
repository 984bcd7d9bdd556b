"""Erasing a player's name from what the games app keeps about other players.

A fair-play case of another player's result (``models.FairPlayCase``) names the players it concerns, in ``others``
and in its ``reason`` text. When a player's row is deleted (an account deleted, ``accounts.services``;
an idle guest swept, ``.guests``), those names must go too: the cases stay (they are about someone
else's result), each deleted name replaced by :data:`DELETED_PLAYER`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.db.models import Q

from games.models import FairPlayCase

DELETED_PLAYER = "(a deleted player)"


def fair_play_cases_forget_players(*, usernames: Iterable[str]) -> int:
    """Replace ``usernames`` by :data:`DELETED_PLAYER` in every fair-play case naming them; how many changed.

    Call it inside the transaction that deletes the players: both stand or fall together.
    """
    names = sorted({name for name in usernames if name})
    if not names:
        return 0
    where = Q(pk__in=[])
    for name in names:
        where |= Q(reason__contains=name)  # the reason names everyone in ``others`` (JSON lookups vary by database)
    gone = set(names)
    changed = 0
    for case in FairPlayCase.objects.select_for_update().filter(where):
        others = [str(other) for other in (case.others or [])]
        kept = [DELETED_PLAYER if other in gone else other for other in others]
        reason = case.reason
        if others and kept != others:
            reason = reason.replace(", ".join(others), ", ".join(kept))
        # Whatever the reason's wording, no deleted name is left in it.
        for name in names:
            reason = name_replace(text=reason, name=name, by=DELETED_PLAYER)
        if kept != others or reason != case.reason:
            case.others = kept
            case.reason = reason
            case.save(update_fields=["others", "reason"])
            changed += 1
    return changed


def name_replace(*, text: str, name: str, by: str) -> str:
    """``text`` with every whole occurrence of the username ``name`` replaced by ``by``: a character a
    username may hold (letters, digits, ``.@+-_``) next to it means it is part of a longer name."""
    return re.sub(rf"(?<![\w.@+-]){re.escape(name)}(?![\w.@+-])", lambda _: by, text)
