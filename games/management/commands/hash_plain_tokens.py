"""Move API tokens an older release stored in plain text to digests (``games.auth.tokens_hash_plain``).

    python manage.py hash_plain_tokens

Run once after an upgrade from a release that stored plain tokens, when no process of it runs any more
(docs/operations.md, "Upgrade"): a login answered by an old process during the upgrade stored its token
in plain text, which the new processes do not read. Its client keeps working once this has run.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games.auth import tokens_hash_plain


class Command(BaseCommand):
    help = "Store every API token left in plain text (authtoken_token) as its digest, and delete the plain row."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"{tokens_hash_plain()} plain token(s) now stored as digests.")
