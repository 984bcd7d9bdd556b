"""Game reviews: one row per finished attempt of a day that is over, made by a task on the solver queue."""

from __future__ import annotations

from django.db import models

from games.models import Attempt


class GameReview(models.Model):
    """Where the game of an attempt was lost, and a win from there (``solver.review``), stored once.

    The row is the job: the sweep creates it queued, the task ``solver_worker.review_attempt`` (a name kept
    from the app that first held it: reviews.tasks) takes its attempt's id and fills it; a redelivered task
    finds it done. ``data`` is the review's JSON (``solver.review.Review.to_json``) with the service's
    additions (time, the best players).
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"  # the review itself failed (a bug): tried again by the sweep, a few times

    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, related_name="review")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED, db_default=Status.QUEUED)
    outcome = models.CharField(max_length=24, blank=True, help_text="won, lost, gave_up_winnable, ...")
    winnable_after = models.IntegerField(null=True, blank=True, help_text="Moves of the line played.")
    lost_after = models.IntegerField(null=True, blank=True)
    data = models.JSONField(default=dict, db_default={}, blank=True)
    tries = models.PositiveSmallIntegerField(default=0, db_default=0)
    seconds = models.FloatField(default=0.0, db_default=0.0, help_text="Solver time the review took.")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # The table the model was made with, in the solver_worker app: moved here by state only
        # (migrations reviews 0001, solver_worker 0003), so the rows stay and the previous release,
        # which still names it so, runs on this schema.
        db_table = "solver_worker_gamereview"
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"review of attempt {self.attempt_id}: {self.status} {self.outcome}".rstrip()
