"""Running things at the same moment, for the race tests: each action in its own thread (so with its
own database connection), all released together by a barrier."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def at_once(*actions: Callable[[], Any]) -> list[Any]:
    """The actions' answers, in order; an exception in any of them is raised here, in the test."""
    barrier = threading.Barrier(len(actions))
    answers: list[Any] = [None] * len(actions)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            answers[i] = actions[i]()
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(actions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return answers
