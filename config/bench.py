"""The calibration endpoint of ``bench/endpoints.py``: the floor a moves batch is measured against.

``POST /bench/floor/<attempt id>`` with a moves body (``{"from": n, "moves": [...]}``) is a bare Django
view that does a batch's one statement, the conditional append of ``games.services.moves``, and
nothing else: no DRF, no authentication, no engine, no cache. What a batch costs above it is what
the API adds around its work. It is routed only when ``BENCH_FLOOR`` is true (never in production: it
writes to any attempt it is given), and bench/endpoints.py points it at an attempt of its own.
"""

from __future__ import annotations

import json

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

_FLOOR = """
    UPDATE games_attempt SET moves = moves || %s::jsonb, batches = batches || %s::jsonb, assisted = assisted OR %s
    WHERE id = %s AND finished_at IS NULL AND jsonb_array_length(moves) = %s
    RETURNING assisted
"""


@csrf_exempt
@require_POST
def floor(request: HttpRequest, attempt_id: int) -> JsonResponse:
    body = json.loads(request.body)
    start, moves = int(body["from"]), list(body["moves"])
    with connection.cursor() as cursor:
        cursor.execute(_FLOOR, [json.dumps(moves), json.dumps([[0, len(moves)]]), False, attempt_id, start])
        row = cursor.fetchone()
    return JsonResponse({"log_length": start + len(moves), "stored": row is not None})
