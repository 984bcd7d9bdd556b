"""Real `celery worker` processes for the tests that need one (shared by the apps' test folders)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def celery_worker(log: Path, *, queues: str | None = None, env: dict[str, str] | None = None) -> Iterator[None]:
    """`celery -A config worker --pool solo` (reading ``queues``, default its settings' queues),
    its output in ``log``; stopped (SIGTERM, then SIGKILL after 20 s) on leaving."""
    args = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool",
        "solo",
        "--without-mingle",
        "--without-gossip",
        "--without-heartbeat",
        "--loglevel",
        "INFO",
    ]
    if queues:
        args += ["-Q", queues]
    with log.open("w") as out:
        proc = subprocess.Popen(args, cwd=ROOT, env={**os.environ, **(env or {})}, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
