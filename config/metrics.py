"""Prometheus metrics at ``/metrics``: django-prometheus's request metrics plus the service's own.

The service's figures are computed at scrape time (``ServiceCollector``) from PostgreSQL and the
broker's Redis, with a handful of indexed queries and one pipeline of LLENs, so every web process
answers the same and no worker has to expose anything:

- ``dailypatience_celery_queue_length{queue}``: tasks waiting in each Celery queue (the broker's lists);
  ``dailypatience_celery_unacked``: tasks taken by a worker and not yet acknowledged;
  ``dailypatience_broker_up``: 1 when the broker answered this scrape.
- ``dailypatience_submissions_pending``, ``dailypatience_submission_oldest_pending_seconds``.
- ``dailypatience_validation_latency_seconds{quantile}`` (0.5, 0.9, 0.99, max) and
  ``dailypatience_validations_recent``: submit to validated, over the submissions made in the last
  ``METRICS_WINDOW_SECONDS`` (300) that are validated.
- ``dailypatience_days_prepared_ahead{game}``: consecutive days from today whose challenge is ready
  (1 = today only; 0 = not even today).
- ``dailypatience_challenge_solver_seconds{game, days_ahead}``, ``dailypatience_challenge_seeds_tried{...}``:
  the solver's time and seeds for each prepared challenge from today to ``METRICS_DAYS_AHEAD`` (8) days on.
- ``dailypatience_challenges_broken``, ``dailypatience_challenges_checked``,
  ``dailypatience_challenges_check_timestamp_seconds``: the last integrity check (beat, hourly) of the
  upcoming ready challenges, their solutions replayed (alert on broken > 0, or a check older than 2 h).
- ``dailypatience_results_held``, ``dailypatience_results_held_orphaned`` (held with no open fair-play
  case holding them), ``dailypatience_fair_play_hold_oldest_seconds``: results held off the boards for a
  fair-play check.
- Celery, from the keys its processes write into the broker's Redis (config/monitoring.py), read in the
  same pipeline as the queues: ``dailypatience_beat_heartbeat_age_seconds``,
  ``dailypatience_worker_heartbeat_age_seconds{queue}`` (+Inf when never seen),
  ``dailypatience_celery_tasks_total{task, state}`` and the histogram
  ``dailypatience_celery_task_duration_seconds{task}``.
- ``dailypatience_metrics_scrape_seconds``: what computing these cost.

config/prometheus/alerts.yml holds the alerting rules on these figures (docs/operations.md, "Monitoring
and alerts").

Request latency and counts (``django_http_requests_latency_seconds_by_view_method``, ...) come from
django-prometheus's middleware. With several gunicorn workers, set ``PROMETHEUS_MULTIPROC_DIR`` (an
empty directory, emptied at each start: ``config/gunicorn.py``) so that a scrape sums all of them.

Access (``metrics`` below): with ``METRICS_TOKEN`` set, only ``Authorization: Bearer <token>``; without
it, open in debug and 404 otherwise (so that nothing is exposed by accident).
"""

from __future__ import annotations

import datetime as dt
import hmac
import logging
import os
import statistics
import time
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db.models import Count, Exists, Min, OuterRef
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_safe
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from config import monitoring

logger = logging.getLogger(__name__)

# kombu's Redis transport keeps a queue as a list named after it, plus one list per priority step.
_PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


def _broker_figures() -> tuple[dict[str, int], int, dict[str, Any]] | None:
    """(tasks waiting per queue, unacknowledged tasks, Celery's figures: config.monitoring.parse), in one
    round trip; None when there is no Redis broker. Raises when it is down."""
    client = monitoring.broker_client()
    if client is None:
        return None
    try:
        pipe = client.pipeline(transaction=False)
        for queue in _queues():
            for suffix in _PRIORITY_SUFFIXES:
                pipe.llen(queue + suffix)
        pipe.hlen("unacked")
        n = monitoring.read_commands(pipe)
        answers = pipe.execute()
    finally:
        client.close()
    steps = len(_PRIORITY_SUFFIXES)
    lengths = {q: sum(answers[i * steps : (i + 1) * steps]) for i, q in enumerate(_queues())}
    return lengths, int(answers[-n - 1]), monitoring.parse(answers[-n:])


def _queues() -> list[str]:
    return [
        settings.CELERY_QUEUE,
        settings.CELERY_SOLVER_QUEUE,
        settings.CELERY_WINNABLE_QUEUE,
        settings.CELERY_PREPARE_QUEUE,
    ]


def _quantile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=1000, method="inclusive")[round(q * 1000) - 1]


class ServiceCollector(Collector):
    """The service's own figures, read at each scrape (see the module's docstring)."""

    def describe(self) -> list[Metric]:
        return []  # registering must not query the database

    def collect(self) -> Iterator[Metric]:
        started = time.perf_counter()
        yield from self._broker()
        yield from self._submissions()
        yield from self._held()
        yield from self._challenges()
        scrape = GaugeMetricFamily("dailypatience_metrics_scrape_seconds", "Time to compute the service's metrics.")
        scrape.add_metric([], time.perf_counter() - started)
        yield scrape

    def _broker(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("dailypatience_broker_up", "1 when the broker (Redis) answered this scrape.")
        try:
            answer = _broker_figures()
        except Exception as exc:  # a broker that is down is a figure, not a failed scrape
            logger.warning("metrics: the broker did not answer: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        if answer is None:
            return
        lengths, unacked, celery = answer
        up.add_metric([], 1)
        yield up
        depth = GaugeMetricFamily(
            "dailypatience_celery_queue_length", "Tasks waiting in a Celery queue.", labels=["queue"]
        )
        for queue, n in lengths.items():
            depth.add_metric([queue], n)
        yield depth
        taken = GaugeMetricFamily("dailypatience_celery_unacked", "Tasks a worker took and has not acknowledged yet.")
        taken.add_metric([], unacked)
        yield taken
        yield from self._celery(celery, queues=list(lengths))

    def _celery(self, figures: dict[str, Any], *, queues: list[str]) -> Iterator[Metric]:
        """Beat's and the workers' heartbeats, the tasks' outcomes and durations (config/monitoring.py)."""
        now = time.time()
        inf = float("inf")  # never stamped (or Redis lost it): as dead as can be, so the alert fires
        beat = GaugeMetricFamily(
            "dailypatience_beat_heartbeat_age_seconds", "Seconds since beat's loop last ran (+Inf: never seen)."
        )
        beat.add_metric([], max(0.0, now - figures["beat"]) if figures["beat"] is not None else inf)
        yield beat
        workers = GaugeMetricFamily(
            "dailypatience_worker_heartbeat_age_seconds",
            "Seconds since a worker consuming the queue was last alive (+Inf: none ever seen).",
            labels=["queue"],
        )
        stamps = figures["queues"]
        for queue in sorted(queues):  # the configured ones: a queue renamed since leaves no false alarm
            workers.add_metric([queue], max(0.0, now - stamps[queue]) if queue in stamps else inf)
        yield workers
        tasks = CounterMetricFamily(
            "dailypatience_celery_tasks",
            "Celery tasks run, by name and outcome (succeeded, failed, retried, ...).",
            labels=["task", "state"],
        )
        for (name, state), n in sorted(figures["tasks"].items()):
            tasks.add_metric([name, state], n)
        yield tasks
        durations = HistogramMetricFamily(
            "dailypatience_celery_task_duration_seconds", "Time a Celery task ran, by name.", labels=["task"]
        )
        for name, (buckets, total) in sorted(figures["durations"].items()):
            running, cumulative = 0, []
            for bound in (*monitoring.DURATION_BUCKETS, "+Inf"):
                running += buckets.get(str(bound), 0)
                cumulative.append((str(bound), running))
            durations.add_metric([name], buckets=cumulative, sum_value=total)
        yield durations

    def _submissions(self) -> Iterator[Metric]:
        from games.models import Submission

        now = timezone.now()
        pending = Submission.objects.filter(status=Submission.Status.PENDING).aggregate(
            n=Count("id"), oldest=Min("created_at")
        )
        g = GaugeMetricFamily("dailypatience_submissions_pending", "Submissions waiting for their validation.")
        g.add_metric([], pending["n"])
        yield g
        g = GaugeMetricFamily(
            "dailypatience_submission_oldest_pending_seconds", "Age of the oldest pending submission (0 if none)."
        )
        g.add_metric([], (now - pending["oldest"]).total_seconds() if pending["oldest"] else 0.0)
        yield g

        window = float(getattr(settings, "METRICS_WINDOW_SECONDS", 300))
        rows = (
            Submission.objects.filter(
                status__in=[Submission.Status.VALID, Submission.Status.INVALID],
                created_at__gte=now - dt.timedelta(seconds=window),
                validated_at__isnull=False,
            )
            .order_by()
            .values_list("created_at", "validated_at")[:20_000]
        )
        latencies = sorted(max(0.0, (done - made).total_seconds()) for made, done in rows if done is not None)
        count = GaugeMetricFamily(
            "dailypatience_validations_recent",
            f"Submissions made in the last {window:g} s and validated.",
        )
        count.add_metric([], len(latencies))
        yield count
        if latencies:
            g = GaugeMetricFamily(
                "dailypatience_validation_latency_seconds",
                f"Submit to validated, over the submissions made in the last {window:g} s.",
                labels=["quantile"],
            )
            for q in (0.5, 0.9, 0.99):
                g.add_metric([str(q)], _quantile(latencies, q))
            g.add_metric(["max"], latencies[-1])
            yield g

    def _held(self) -> Iterator[Metric]:
        """Results held off the boards, and those of them no open fair-play case holds (nobody will ever decide)."""
        from games.models import FairPlayCase, Result

        holding = FairPlayCase.objects.filter(result=OuterRef("pk"), status=FairPlayCase.Status.OPEN, holds=True)
        figures = Result.objects.filter(held=True).aggregate(
            held=Count("id"), orphaned=Count("id", filter=~Exists(holding))
        )
        open_holds = FairPlayCase.objects.filter(status=FairPlayCase.Status.OPEN, holds=True)
        oldest = open_holds.aggregate(at=Min("created_at"))["at"]
        figures["oldest"] = (timezone.now() - oldest).total_seconds() if oldest else 0.0
        for name, text, value in (
            ("dailypatience_results_held", "Ranked results held off the boards for a fair-play check.", "held"),
            ("dailypatience_results_held_orphaned", "Held results that no open fair-play case holds.", "orphaned"),
            (
                "dailypatience_fair_play_hold_oldest_seconds",
                "Age of the oldest open fair-play case holding a result.",
                "oldest",
            ),
        ):
            g = GaugeMetricFamily(name, text)
            g.add_metric([], figures[value])
            yield g

    def _challenges(self) -> Iterator[Metric]:
        from engine import GAME_IDS
        from games import days
        from games.models import Challenge

        today = days.today()
        horizon = int(getattr(settings, "METRICS_DAYS_AHEAD", 8))
        rows = Challenge.objects.filter(
            date__gte=today, date__lt=today + dt.timedelta(days=horizon), status=Challenge.Status.READY
        ).values_list("game", "date", "solver_seconds", "seeds_tried")
        ready: dict[str, set[int]] = {game: set() for game in GAME_IDS}
        solver = GaugeMetricFamily(
            "dailypatience_challenge_solver_seconds",
            "The solver's time to prove a prepared challenge winnable (all its seeds).",
            labels=["game", "days_ahead"],
        )
        seeds = GaugeMetricFamily(
            "dailypatience_challenge_seeds_tried", "Seeds tried to prepare a challenge.", labels=["game", "days_ahead"]
        )
        for game, date, seconds, tried in rows:
            ahead = (date - today).days
            ready.setdefault(game, set()).add(ahead)
            solver.add_metric([game, str(ahead)], seconds)
            seeds.add_metric([game, str(ahead)], tried)
        prepared = GaugeMetricFamily(
            "dailypatience_days_prepared_ahead",
            "Consecutive days from today whose challenge is ready (1: today only, 0: not today).",
            labels=["game"],
        )
        for game, offsets in sorted(ready.items()):
            n = 0
            while n in offsets:
                n += 1
            prepared.add_metric([game], n)
        yield prepared
        yield solver
        yield seeds
        yield from self._integrity()

    def _integrity(self) -> Iterator[Metric]:
        """The last integrity check's figures (solver_worker.services.challenges_check, beat hourly)."""
        from django.core.cache import cache

        from solver_worker.services import INTEGRITY_CACHE_KEY

        last = cache.get(INTEGRITY_CACHE_KEY)
        if not isinstance(last, dict):
            return  # not checked yet (or the cache lost it): no figure rather than a wrong one
        for name, text, value in (
            ("dailypatience_challenges_broken", "Upcoming ready challenges whose solution does not win.", "broken"),
            ("dailypatience_challenges_checked", "Upcoming ready challenges the last check replayed.", "checked"),
            ("dailypatience_challenges_check_timestamp_seconds", "When the last check ran (Unix time).", "at"),
        ):
            g = GaugeMetricFamily(name, text)
            g.add_metric([], float(last[value]))
            yield g


_collector = ServiceCollector()
_registered = False


def registry() -> CollectorRegistry:
    """The registry a scrape reads: every process's files in multiprocess mode, else this process's."""
    global _registered
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg)  # type: ignore[no-untyped-call]  # unannotated in prometheus_client
        reg.register(_collector)
        return reg
    if not _registered:
        REGISTRY.register(_collector)
        _registered = True
    return REGISTRY


def operator_allowed(request: HttpRequest) -> bool | None:
    """True: serve (also /readyz's details). False: a wrong or missing token (401). None: not exposed here (404)."""
    token = getattr(settings, "METRICS_TOKEN", "")
    if not token:
        return True if settings.DEBUG else None
    given = request.headers.get("Authorization", "")
    return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    allowed = operator_allowed(request)
    if allowed is None:
        return HttpResponse("Not found: set METRICS_TOKEN to expose /metrics.\n", status=404, content_type="text/plain")
    if not allowed:
        response = HttpResponse(
            "Unauthorized: Authorization: Bearer <METRICS_TOKEN>\n", status=401, content_type="text/plain"
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)
