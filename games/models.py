"""Daily challenges, attempts, submissions and results. PostgreSQL is the source of truth."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from engine import GAME_IDS, GAMES

GAME_CHOICES = [(g, GAMES[g].name) for g in GAME_IDS]


class SeedField(models.BigIntegerField):
    """An unsigned 64-bit seed in a signed bigint column (two's complement), exact on every database.

    numeric(20, 0) would be exact on PostgreSQL but SQLite turns large numerics into floats.
    """

    description = "Unsigned 64-bit integer"
    _HALF = 1 << 63
    _FULL = 1 << 64

    @property
    def validators(self) -> list[object]:  # the signed bigint range checks do not apply to the unsigned value
        return []

    def from_db_value(self, value: int | None, expression: object, connection: object) -> int | None:
        return None if value is None else (value + self._FULL if value < 0 else value)

    def to_python(self, value: object) -> int | None:
        if value is None:
            return None
        number = int(value)  # type: ignore[call-overload]
        return number + self._FULL if number < 0 else number

    def get_prep_value(self, value: object) -> int | None:
        if value is None:
            return None
        number = int(value)  # type: ignore[call-overload]
        if not 0 <= number < self._FULL:
            raise ValueError(f"seed {number} is outside 0..2^64-1")
        return number - self._FULL if number >= self._HALF else number

    def formfield(self, **kwargs: object) -> object:
        from django import forms

        return forms.IntegerField(min_value=0, max_value=self._FULL - 1, **kwargs)  # type: ignore[arg-type]


class Challenge(models.Model):
    """One deal per (date, game): published only once the solver proved it winnable."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VERIFYING = "verifying"
        READY = "ready"
        FAILED = "failed"

    date = models.DateField()
    game = models.CharField(max_length=32, choices=GAME_CHOICES)
    seed = SeedField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    difficulty = models.PositiveSmallIntegerField(null=True, blank=True)
    solution = models.JSONField(default=list, blank=True)
    solver_status = models.CharField(max_length=16, blank=True)
    solver_nodes = models.BigIntegerField(default=0)
    solver_seconds = models.FloatField(default=0.0)
    seeds_tried = models.PositiveIntegerField(default=0)
    # Secret-derived seeds passed over before the published one, and why: a daily deal should be a
    # fair draw from the winnable deals, not from the ones the solver finds easy (unknown ones).
    seeds_lost = models.PositiveIntegerField(default=0, help_text="Seeds skipped: proven unwinnable.")
    seeds_unknown = models.PositiveIntegerField(
        default=0, help_text="Seeds skipped: the solver decided nothing within its budget."
    )
    failure = models.TextField(blank=True)
    published = models.BooleanField(
        default=True, help_text="Players see a ready challenge only while it is published."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-date", "game"]
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
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
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
    moves = models.JSONField(default=list, blank=True)
    assisted = models.BooleanField(default=False, help_text="A hint was used.")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

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
        """Milliseconds from the start to ``end`` (default: the finish, or now while it is open)."""
        until = end or self.finished_at or timezone.now()
        return max(0, int((until - self.started_at).total_seconds() * 1000))


class Submission(models.Model):
    """The final log of an attempt, validated by a worker replaying it from the deal."""

    class Status(models.TextChoices):
        PENDING = "pending"
        VALID = "valid"
        INVALID = "invalid"

    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, related_name="submission")
    moves = models.JSONField(default=list)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    error = models.JSONField(null=True, blank=True, help_text="The replay error: index, move, reason.")
    created_at = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    validations = models.PositiveIntegerField(default=0)

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
    assisted = models.BooleanField(default=False)
    won = models.BooleanField()
    score = models.PositiveIntegerField()
    moves = models.PositiveIntegerField()
    foundation_cards = models.PositiveSmallIntegerField()
    redeals = models.PositiveIntegerField(default=0, help_text="Redeals in the final line (undone ones aside).")
    play_time_ms = models.PositiveBigIntegerField()
    finished_at = models.DateTimeField()
    disqualified = models.BooleanField(default=False)

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
                    "challenge", "ranked", "disqualified", "-won", "-score", "moves", "play_time_ms", "finished_at"
                ],
                name="result_board_order",
            ),
            models.Index(fields=["player", "ranked", "finished_at"]),
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



class PlayerNameKey(models.Model):
    """What makes a player's name unique as people read it, enforced by the database so that no race
    passes it: each name has a few keys (``core.names.name_keys``: the name case-folded, and the
    confusable skeletons of its lower-, upper- and own-case forms, case-folded), and a key belongs
    to one player only. Written with the player (``games.services.players``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="name_keys")
    key = models.CharField(max_length=1100, unique=True)

    def __str__(self) -> str:
        return f"{self.key!r} of {self.user_id}"
