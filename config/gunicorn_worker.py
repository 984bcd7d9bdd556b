"""gunicorn's threaded worker, made deaf to slow clients: a request reaches a thread only once it is all here.

gunicorn's ``gthread`` worker hands a connection to a thread as soon as its first byte arrives; the
thread then blocks reading the rest, so a few clients that trickle their headers (or their body)
hold every thread and the site stops answering. Here the worker's own event loop reads each request,
without blocking, until its headers and its body (``Content-Length``) are in memory; only then does
a thread parse and serve it from that buffer. A request that is not all here
``REQUEST_READ_SECONDS`` after its connection was accepted (or became readable again on keep-alive,
or after the answer to a request pipelined before it) is answered ``408`` and closed. Refused from
the event loop, no thread involved: headers over ``HEADER_BYTES`` (``431``), a declared body over
``REQUEST_BUFFER_BYTES`` (``413``: the API's largest, a 5,000-move batch, is about 40 KiB) and a
chunked body (``411``: every client of this API, browsers included, sends a length). A slow socket
costs a little memory and no thread.

Each refusal is the API's JSON error (``{"error": {"message", "code"}}``) and closes the connection.
Configured in config/gunicorn.py (``worker_class``); the time limit comes from the environment.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import selectors
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from gunicorn.workers.gthread import TConn, ThreadWorker

REQUEST_READ_SECONDS = float(os.environ.get("GUNICORN_REQUEST_READ_SECONDS", "10"))
REQUEST_BUFFER_BYTES = 1024 * 1024  # a full 5,000-move batch is well under this
HEADER_BYTES = 64 * 1024
RECV_BYTES = 64 * 1024

_CONTENT_LENGTH = re.compile(rb"^content-length[ \t]*:[ \t]*(\d{1,12})[ \t]*\r?$", re.I | re.M)
_CHUNKED = re.compile(rb"^transfer-encoding[ \t]*:", re.I | re.M)
_EXPECT_CONTINUE = re.compile(rb"^expect[ \t]*:[ \t]*100-continue[ \t]*\r?$", re.I | re.M)


@dataclass
class Pending:
    """A request being read by the event loop."""

    deadline: float
    data: bytearray = field(default_factory=bytearray)
    continued: bool = False  # "100 Continue" sent


REFUSALS = {  # state: (status line, code, message)
    "headers-too-large": (
        "431 Request Header Fields Too Large",
        "headers_too_large",
        f"the request's headers are larger than {HEADER_BYTES // 1024} KiB",
    ),
    "body-too-large": (
        "413 Content Too Large",
        "too_large",
        f"the request's body is larger than {REQUEST_BUFFER_BYTES // 1024} KiB",
    ),
    "chunked": ("411 Length Required", "length_required", "send the body with a Content-Length, not chunked"),
}
TIMEOUT = (
    "408 Request Timeout",
    "request_timeout",
    f"the request did not arrive whole within {REQUEST_READ_SECONDS:g} s",
)


def error_answer(status: str, code: str, message: str) -> bytes:
    body = json.dumps({"error": {"message": message, "code": code}}).encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nConnection: close\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def request_state(data: bytes | bytearray) -> tuple[str, bool]:
    """("more" | "ready" | one of REFUSALS, whether the client waits for a 100 Continue) for the bytes so far."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return ("headers-too-large" if len(data) > HEADER_BYTES else "more"), False
    if end > HEADER_BYTES:
        return "headers-too-large", False
    head = bytes(data[:end])
    if _CHUNKED.search(head):
        return "chunked", False
    match = _CONTENT_LENGTH.search(head)
    length = int(match.group(1)) if match else 0
    if length > REQUEST_BUFFER_BYTES:
        return "body-too-large", False
    if len(data) >= end + 4 + length:
        return "ready", False
    return "more", bool(_EXPECT_CONTINUE.search(head))


class BufferingThreadWorker(ThreadWorker):
    """``gthread`` whose event loop reads whole requests before a thread serves them."""

    def init_process(self) -> None:
        self.reading: dict[TConn, Pending] = {}
        super().init_process()

    # --- connections into the reading stage -------------------------------------------------------

    def accept(self, listener: Any) -> None:
        try:
            client_sock, client_addr = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        self.read_start(TConn(self.cfg, client_sock, client_addr, listener.getsockname()))

    def on_client_socket_readable(self, conn: TConn, client: Any) -> None:
        """A kept-alive connection's next request is read like a new one's."""
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self.read_start(conn)

    def finish_request(self, conn: TConn, fs: Any) -> None:
        """A kept-alive connection whose client sent more behind the request just served (pipelining):
        those bytes are read on like a new request's, not handed to a thread that would wait for the rest."""
        if (
            self.alive
            and not fs.cancelled()
            and fs.exception() is None
            and fs.result() is True
            and conn.parser is not None
            and conn.parser.unreader.buf.getvalue()
        ):
            self.read_start(conn, conn.parser.unreader.take_buffered())
            return
        super().finish_request(conn, fs)

    def read_start(self, conn: TConn, data: bytes = b"") -> None:
        conn.sock.setblocking(False)
        self.reading[conn] = Pending(deadline=time.monotonic() + REQUEST_READ_SECONDS)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_request_bytes, conn))
        if data:
            self.on_bytes(conn, data)

    def on_request_bytes(self, conn: TConn, client: Any) -> None:
        try:
            data = conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.read_drop(conn)
            return
        if not data:
            self.read_drop(conn)
            return
        self.on_bytes(conn, data)

    def on_bytes(self, conn: TConn, data: bytes) -> None:
        pending = self.reading[conn]
        pending.data += data
        state, expects = request_state(pending.data)
        if state in REFUSALS:
            self.read_drop(conn, answer=error_answer(*REFUSALS[state]))
        elif state == "ready":
            del self.reading[conn]
            self.poller.unregister(conn.sock)
            conn.prebuffered = bytes(pending.data)
            conn.data_ready = True
            self.enqueue_req(conn)
        elif expects and not pending.continued:
            pending.continued = True
            self.send_quietly(conn, b"HTTP/1.1 100 Continue\r\n\r\n")

    def read_drop(self, conn: TConn, *, answer: bytes | None = None) -> None:
        self.reading.pop(conn, None)
        with contextlib.suppress(OSError, KeyError, ValueError):
            self.poller.unregister(conn.sock)
        if answer:
            self.send_quietly(conn, answer)
        self.nr_conns -= 1
        conn.close()

    @staticmethod
    def send_quietly(conn: TConn, data: bytes) -> None:
        """Best effort, never blocking: a client that reads nothing gets nothing."""
        with contextlib.suppress(OSError):
            conn.sock.send(data)

    def murder_pending(self) -> None:
        """Also: requests not all here in time get a 408 (a connection that sent nothing is just closed)."""
        super().murder_pending()
        now = time.monotonic()
        for conn, pending in list(self.reading.items()):
            if pending.deadline <= now:
                if pending.data:
                    self.log.warning("Request from %s not received within %gs: 408", conn.client, REQUEST_READ_SECONDS)
                self.read_drop(conn, answer=error_answer(*TIMEOUT) if pending.data else None)

    # --- a thread serves the buffered request ------------------------------------------------------

    def handle(self, conn: TConn) -> Any:
        data = getattr(conn, "prebuffered", b"")
        if data:
            conn.prebuffered = b""
            conn.sock.setblocking(True)
            conn.init()
            conn.parser.unreader.unread(data)
        return super().handle(conn)
