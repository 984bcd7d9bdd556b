"""The web server's reading stage (config/gunicorn_worker.py): when a request is whole, in bytes alone.

The worker itself runs in tests/test_stack.py (slow sockets against the production entry point)."""

from __future__ import annotations

import pytest

from config.gunicorn_worker import HEADER_BYTES, REQUEST_BUFFER_BYTES, request_state

GET = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
POST = b"POST /api/v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n"


@pytest.mark.parametrize(
    ("data", "state"),
    [
        (b"", "more"),
        (GET[:-2], "more"),  # the blank line is not here yet
        (GET, "ready"),
        (GET + b"GET / HTTP/1.1\r\n", "ready"),  # pipelined: the first is whole
        (POST + b"\r\n", "more"),
        (POST + b"\r\n" + b"x" * 9, "more"),
        (POST + b"\r\n" + b"x" * 10, "ready"),
        (POST.replace(b"Content-Length", b"content-LENGTH") + b"\r\n" + b"x" * 9, "more"),  # names ignore case
        (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "chunked"),  # 411: it could trickle for ever
        (b"POST / HTTP/1.1\r\ntransfer-encoding: gzip, chunked\r\nContent-Length: 3\r\n\r\n", "chunked"),
        (b"POST / HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % REQUEST_BUFFER_BYTES, "more"),
        (b"POST / HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % (REQUEST_BUFFER_BYTES + 1), "body-too-large"),  # 413
        (b"GET / HTTP/1.1\r\nX: " + b"x" * HEADER_BYTES, "headers-too-large"),  # 431
        (b"GET / HTTP/1.1\r\nX: " + b"x" * HEADER_BYTES + b"\r\n\r\n", "headers-too-large"),
    ],
)
def test_a_request_goes_to_a_thread_once_whole(data: bytes, state: str) -> None:
    assert request_state(data)[0] == state


def test_a_client_that_expects_100_continue_is_told_to_send_its_body() -> None:
    head = POST + b"Expect: 100-continue\r\n\r\n"
    assert request_state(head) == ("more", True)
    assert request_state(head + b"x" * 10) == ("ready", False)
    assert request_state(POST + b"\r\n") == ("more", False)


def test_a_refusal_is_the_api_s_json_error() -> None:
    import json

    from config.gunicorn_worker import REFUSALS, error_answer

    answer = error_answer(*REFUSALS["chunked"])
    head, body = answer.split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 411 Length Required\r\n") and b"Connection: close" in head
    assert f"Content-Length: {len(body)}".encode() in head
    assert json.loads(body) == {
        "error": {"message": "send the body with a Content-Length, not chunked", "code": "length_required"}
    }
