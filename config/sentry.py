"""Optional error tracking with Sentry's SDK: off unless SENTRY_DSN is set.

No DSN, no client: the SDK is not even initialised, so nothing ever contacts the network (the
tests run without one). With a DSN: Django and Celery integrations, no personal data sent
(``send_default_pii=False``), performance tracing only if SENTRY_TRACES_SAMPLE_RATE > 0.
"""

from __future__ import annotations


def init_sentry(*, dsn: str, environment: str, traces_sample_rate: float) -> bool:
    """Initialise the SDK when ``dsn`` is set; True if it was."""
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        traces_sample_rate=traces_sample_rate,
        send_default_pii=False,
    )
    return True
