"""Celery tasks of the web app: the password-reset mail, sent off the request (see web.forms)."""

from __future__ import annotations

from celery import shared_task

from web.forms import reset_mail_send


@shared_task(name="web.send_password_reset", soft_time_limit=60, time_limit=90, ignore_result=True)
def send_password_reset(email: str, domain: str, use_https: bool) -> None:
    reset_mail_send(email=email, domain=domain, use_https=use_https)
