"""Daily challenges, attempts, submissions and results. PostgreSQL is the source of truth."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from engine import GAME_IDS, GAMES

if TYPE_CHECKING:
    from django import forms

GAME_CHOICES = [(g, GAMES[g].name) for g in GAME_IDS]

# The value types of a SeedField (django-stubs' pattern for a custom field: the plugin makes them
# optional for a nullable one).
_ST = TypeVar("_ST")
_GT = TypeVar("_GT")


class SeedField(models.BigIntegerField[_ST, _GT]):
    """An unsigned 64-bit seed in a signed bigint column (two's complement), exact on every database.

    numeric(20, 0) would be exact on PostgreSQL but SQLite turns large numerics into floats.
    """

    _pyi_private_set_type: int
    _pyi_private_get_type: int

    description = "Unsigned 64-bit integer"
    _HALF = 1 << 63
    _FULL = 1 << 64

    @property
    def validators(self) -> list[Callable[[Any], None]]:
        # the signed bigint range checks do not apply to the unsigned value
        return []

    def from_db_value(self, value: int | None, expression: object, connection: object) -> int | None:
        return None if value is None else (value + self._FULL if value < 0 else value)

    def to_python(self, value: object) -> int | None:
        if value is None:
            return None
        number: int = int(value)  # type: ignore[call-overload]
        return number + self._FULL if number < 0 else number

    def get_prep_value(self, value: object) -> int | None:
        if value is None:
            return None
        number: int = int(value)  # type: ignore[call-overload]
        if not 0 <= number < self._FULL:
            raise ValueError(f"seed {number} is outside 0..2^64-1")
        return number - self._FULL if number >= self._HALF else number

    def formfield(self, **kwargs: Any) -> forms.Field | None:
        from django import forms

        return forms.IntegerField(min_value=0, max_value=self._FULL - 1, **kwargs)


class ChallengeQuerySet(models.QuerySet["Challenge"]):
    def update(self, **kwargs: Any) -> int:
        """A challenge's date and game are never changed in bulk (Challenge.save says why)."""
        if fixed := sorted(set(kwargs) & {"date", "game"}):
            raise ChallengeFixed(f"a challenge's {' and '.join(fixed)} never change: add a new challenge instead")
        return super().update(**kwargs)


class ChallengeFixed(ValueError):
    """A write that would move a challenge's deal: its date or game, or the seed of a ready one."""


class Challenge(models.Model):
    """One deal per (date, game): published only once the solver proved it winnable.

    Its date and game are what players, boards and the seed's derivation know it by: fixed once it is
    stored. The seed of a ready challenge is fixed too, except through the solver task that proves a
    replacement while nobody has played (solver_worker.services.challenge_verify_seed).
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        VERIFYING = "verifying"
        READY = "ready"
        FAILED = "failed"

    date = models.DateField()
    game = models.CharField(max_length=32, choices=GAME_CHOICES)
    seed = SeedField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_default=Status.PENDING)
    difficulty = models.PositiveSmallIntegerField(null=True, blank=True)
    solution = models.JSONField(default=list, db_default=[], blank=True)
    solver_status = models.CharField(max_length=16, blank=True)
    solver_nodes = models.BigIntegerField(default=0, db_default=0)
    solver_seconds = models.FloatField(default=0.0, db_default=0.0)
    seeds_tried = models.PositiveIntegerField(default=0, db_default=0)
    # Secret-derived seeds passed over before the published one, and why: a daily deal should be a
    # fair draw from the winnable deals, not from the ones the solver finds easy (unknown ones).
    seeds_lost = models.PositiveIntegerField(default=0, db_default=0, help_text="Seeds skipped: proven unwinnable.")
    seeds_unknown = models.PositiveIntegerField(
        default=0, db_default=0, help_text="Seeds skipped: the solver decided nothing within its budget."
    )
    # The secret-derived seed (its attempt number) that the ordinary budget left undecided and that now
    # has a long solve on the solver queue (SOLVER_LONG_SECONDS): the preparation waits for its verdict
    # instead of passing it over. Empty when no long solve is pending (solver_worker.services).
    long_solve_attempt = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The seed (attempt number) waiting for its long solve on the solver queue, if any.",
    )
    failure = models.TextField(blank=True)
    # Who is preparing it while VERIFYING (host and process, set by the claim); with ``updated_at`` (a
    # preparer's last progress) the admin shows a stuck claim and releases it (games.services.challenges).
    claimed_by = models.CharField(max_length=200, blank=True, default="", db_default="")
    published = models.BooleanField(
        default=True, db_default=True, help_text="Players see a ready challenge only while it is published."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ChallengeQuerySet.as_manager()

    class Meta:
        ordering = ["-date", "game"]
        # The admin shows a day's seed and solution once the day is over; before, only with this (logged).
        permissions = [("view_future_deal", "Can see the seed and solution of a day not over")]
        constraints = [
            models.UniqueConstraint(fields=["date", "game"], name="challenge_one_per_date_game"),
            models.CheckConstraint(
                condition=Q(difficulty__isnull=True) | Q(difficulty__gte=1, difficulty__lte=5),
                name="challenge_difficulty_1_to_5",
            ),
            models.CheckConstraint(
                condition=~Q(status="ready") | Q(seed__isnull=False),
                name="challenge_ready_has_seed",
            ),
        ]
        indexes = [models.Index(fields=["date", "status"])]

    def __str__(self) -> str:
        return f"{self.date} {self.game}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding and self.pk is not None:
            stored = type(self).objects.filter(pk=self.pk).values("date", "game", "seed", "status").first()
            if stored is not None:
                self._refuse_moving(stored)
        super().save(*args, **kwargs)

    def _refuse_moving(self, stored: Mapping[str, Any]) -> None:
        date = self.date if isinstance(self.date, dt.date) else dt.date.fromisoformat(str(self.date))
        if (date, self.game) != (stored["date"], stored["game"]):
            raise ChallengeFixed(
                f"challenge {self.pk} is {stored['date']} {stored['game']}: its date and game never change "
                "(add a new challenge instead)"
            )
        seed = None if self.seed is None else int(self.seed)
        if stored["status"] == self.Status.READY and seed != stored["seed"]:
            raise ChallengeFixed(
                f"challenge {self.pk} is ready: its seed changes only through a proof of the new one (Verify now)"
            )

    @property
    def seed_int(self) -> int:
        if self.seed is None:
            raise ValueError(f"challenge {self} has no seed yet")
        return int(self.seed)

    @property
    def is_playable(self) -> bool:
        return self.status == self.Status.READY and self.published


class SeedVerification(models.Model):
    """An admin's request to prove a seed winnable for a challenge, run by a task on the solver queue.

    One row per request: the task takes its id, and a redelivered task finds it done.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        PROVEN = "proven"  # the challenge now uses the seed
        FAILED = "failed"  # not proven, or refused: see the message

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="verifications")
    seed = SeedField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED, db_default=Status.QUEUED)
    message = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"seed {self.seed} for {self.challenge}: {self.status}"


class Attempt(models.Model):
    """A player's play of a challenge; the server keeps the move log as it grows."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attempts")
    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="attempts")
    ranked = models.BooleanField()
    moves = models.JSONField(default=list, db_default=[], blank=True)
    assisted = models.BooleanField(
        default=False,
        db_default=False,
        help_text="A hint was used, or an undo took back a move that showed a hidden card (for good).",
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The server's receipt of each stored batch, for judging the pace of play (games.pace):
    # [milliseconds since the start, moves stored], in order; their counts add up to the log's length.
    batches = models.JSONField(
        default=list, db_default=[], blank=True, help_text="Per stored batch: [ms since the start, moves]."
    )
    # Where a ranked attempt was started from, as keyed hashes (never the address or the cookie itself):
    # accounts ranking on one challenge from one address or browser are flagged for a fair-play check.
    origin = models.CharField(max_length=32, blank=True, help_text="Keyed hash of the client address.")
    browser = models.CharField(max_length=32, blank=True, help_text="Keyed hash of the browser's cookie.")

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            # At most one ranked attempt per player and challenge, enforced by the database.
            models.UniqueConstraint(
                fields=["player", "challenge"], condition=Q(ranked=True), name="attempt_one_ranked_per_player"
            ),
            # At most one open attempt per player and challenge: a second start, or the loser of a
            # race of starts, is refused, so practice cannot run beside the ranked attempt.
            models.UniqueConstraint(
                fields=["player", "challenge"],
                condition=Q(finished_at__isnull=True),
                name="attempt_one_open_per_player",
            ),
        ]
        indexes = [models.Index(fields=["player", "challenge"])]

    def __str__(self) -> str:
        return f"attempt {self.pk} by {self.player_id} on {self.challenge}"

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    def play_time_ms(self, end: dt.datetime | None = None) -> int:
        """Milliseconds from the start to ``end`` (default: the finish, or now while it is open), cut
        to the hundredth of a second: the one play time of a game, shown to the hundredth everywhere
        (the table's clock, the result, the boards, the share text), so no display rounds it its own way."""
        return play_time_ms(self.started_at, end or self.finished_at or timezone.now())


def play_time_ms(started_at: dt.datetime, until: dt.datetime) -> int:
    """A game's play time in milliseconds, cut to the hundredth of a second (Attempt.play_time_ms)."""
    return max(0, (until - started_at) // dt.timedelta(milliseconds=10) * 10)


class Submission(models.Model):
    """The final log of an attempt, validated by a worker replaying it from the deal."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VALID = "valid"
        INVALID = "invalid"

    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, related_name="submission")
    moves = models.JSONField(default=list, db_default=[])
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_default=Status.PENDING)
    error = models.JSONField(null=True, blank=True, help_text="The replay error: index, move, reason.")
    created_at = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    validations = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"submission {self.pk} ({self.status})"


class Result(models.Model):
    """A validated outcome. Ranked, valid, not disqualified results make the leaderboards."""

    submission = models.OneToOneField(Submission, on_delete=models.CASCADE, related_name="result")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="results")
    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="results")
    ranked = models.BooleanField()
    assisted = models.BooleanField(default=False, db_default=False)
    won = models.BooleanField()
    score = models.PositiveIntegerField()
    moves = models.PositiveIntegerField()
    foundation_cards = models.PositiveSmallIntegerField()
    redeals = models.PositiveIntegerField(
        default=0, db_default=0, help_text="Redeals in the final line (undone ones aside)."
    )
    play_time_ms = models.PositiveBigIntegerField()
    finished_at = models.DateTimeField()
    disqualified = models.BooleanField(default=False, db_default=False)
    held = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Held for a fair-play check (games.FairPlayCase): on no public board until staff clear it.",
    )

    class Meta:
        ordering = ["-finished_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "challenge"], condition=Q(ranked=True), name="result_one_ranked_per_player"
            ),
        ]
        indexes = [
            models.Index(
                fields=[
                    "challenge",
                    "ranked",
                    "disqualified",
                    "-won",
                    "-score",
                    "moves",
                    "play_time_ms",
                    "finished_at",
                ],
                name="result_board_order",
            ),
            models.Index(fields=["player", "ranked", "finished_at"]),
            # The held results only (a handful): /metrics counts them, and the orphaned among them, at
            # every scrape without reading the whole table (config/metrics.py).
            models.Index(fields=["id"], condition=Q(held=True), name="result_held"),
        ]

    def __str__(self) -> str:
        return f"result {self.pk}: {'won' if self.won else 'lost'} {self.score}"


class Guest(models.Model):
    """A visitor playing before signing up: a real (passwordless) player row, marked as a guest.

    Its games move to the account it signs up as or logs in to (``games.services.guest_claim``).
    """

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="guest")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"guest {self.user_id}"


class FairPlayCase(models.Model):
    """A fair-play case: a ranked result staff should look at. Either it holds the result off the boards (an
    implausible pace, or SPEC section 7's disclosures shared between identities: one case per held result
    and kind), or it only flags it (players ranked on the same challenge from the same address or browser:
    one case per address or browser and day, naming them).

    Staff decide in the admin ("Fair-play cases"): clear (a held result goes on the boards) or disqualify;
    who and when are recorded. See ``games.services.fairplay``. (The after-game review of a game's play is
    another thing: the solver's game review.)

    The table keeps its first name, ``games_review``: the previous release, which reads it under that name,
    runs on this schema during a deploy and after a rollback.
    """

    class Kind(models.TextChoices):
        PACE = "pace", "implausible pace"
        ADDRESS = "address", "same address as another player"
        BROWSER = "browser", "same browser as another player"

    class Status(models.TextChoices):
        OPEN = "open"
        CLEARED = "cleared"
        DISQUALIFIED = "disqualified"

    result = models.ForeignKey(Result, on_delete=models.CASCADE, related_name="fair_play_cases")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    holds = models.BooleanField(help_text="While open, the result is on no public board.")
    reason = models.TextField()
    others = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        help_text="The players concerned (usernames; at most fairplay.NAMES_SHOWN, the count is in players).",
    )
    # A plain flag is one row per address (or browser) and day, whichever result raised it first (``result``):
    # however many players share an address, it makes one row, naming at most NAMES_SHOWN of them.
    origin = models.CharField(
        max_length=32, blank=True, default="", db_default="", help_text="A flag's keyed hash of the address or browser."
    )
    day = models.DateField(null=True, blank=True, help_text="A flag's day.")
    players = models.PositiveIntegerField(default=0, db_default=0, help_text="How many players the case names.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN, db_default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "games_review"
        verbose_name = "fair-play case"
        verbose_name_plural = "fair-play cases"
        ordering = ["-created_at", "-id"]
        constraints = [
            # A hold: one per result and kind (each held result is decided on its own).
            models.UniqueConstraint(
                fields=["result", "kind"], condition=Q(holds=True), name="fairplaycase_one_hold_per_result"
            ),
            # A plain flag: one per origin and day, whatever the number of players behind it.
            models.UniqueConstraint(
                fields=["kind", "origin", "day"],
                condition=Q(holds=False),
                name="fairplaycase_one_flag_per_origin_day",
            ),
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="fairplaycase_status_created")]

    def __str__(self) -> str:
        return f"fair-play case {self.pk}: {self.get_kind_display()} ({self.status})"


class PlayerNameKey(models.Model):
    """What makes a player's name unique as people read it, enforced by the database so that no race
    passes it: each name has a few keys (``core.names.name_keys``: the name case-folded, and the
    confusable skeletons of its lower-, upper- and own-case forms, case-folded), and a key belongs
    to one player only. Written with the player (``games.services.players``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="name_keys")
    key = models.CharField(max_length=1100, unique=True)

    def __str__(self) -> str:
        return f"{self.key!r} of {self.user_id}"


class ApiToken(models.Model):
    """An API client's token, stored as its SHA-256 digest only (``games.auth``): the key itself is shown
    once, in the answer that made it (register, log in), and nothing stored (a database dump, the cache,
    the admin) gives it back. A key is 160 random bits, so one unsalted digest is as hard to reverse as
    the key is to guess, and a lookup by digest is one index read."""

    digest = models.CharField(max_length=64, primary_key=True, help_text="SHA-256 of the key, in hex.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    created = models.DateTimeField(default=timezone.now, db_default=Now())

    class Meta:
        verbose_name = "API token"
        indexes = [models.Index(fields=["user", "created"])]

    def __str__(self) -> str:
        return f"API token of {self.user_id} made {self.created:%Y-%m-%d %H:%M}"


class PlayerBan(models.Model):
    """A player banned from the boards: none of their results counts (``selectors.counted_results``), so
    they are on no board, in PostgreSQL or on the Redis mirror; their profile is hidden, and a ranked
    start is refused with a message that says why. They can still sign in, export their data and delete
    their account. Made and lifted by ``accounts.services`` (player_ban / player_unban), which log who."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ban")
    reason = models.TextField(blank=True, help_text="Shown to the player.")
    banned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        permissions = [("ban_player", "Can ban and unban players")]

    def __str__(self) -> str:
        return f"ban of {self.player_id}"
