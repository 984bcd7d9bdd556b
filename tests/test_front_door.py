"""The front door under attack: the production-like stack through its proxy (bench/stack.py: Debian's
nginx on config/nginx/nginx.conf.template, the file docker-compose.yml's ``proxy`` runs, in front of
gunicorn, the Celery workers and beat, DEBUG off).

Each attack comes from an address of its own (Linux answers all of 127.0.0.0/8 on the loopback
interface, so a socket can connect to 127.0.0.1 *from* 127.0.0.13) while a watcher asks
``/api/v1/health`` every 0.1 s from another address, on a new connection each time: every answer
must be a 200 within 1 s. The attacks are issue 50's, which stalled the site when gunicorn faced
clients itself: a ``Content-Length`` with leading zeros and a shorter body, duplicate
``Content-Length`` headers, slow readers of a large static file and of a large dynamic answer,
30 trickling slowloris sockets, 2,000 sockets that send one byte, a flood of requests from one
address, and ``X-Forwarded-For`` made up by a client. Every loop is bounded in count and time; only
127.0.0.1 is targeted. About a minute.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import pytest

from bench.stack import ROOT, Stack, admin_sql, free_port, request

pytestmark = [
    pytest.mark.slow,
    pytest.mark.redis(reason="the stack's broker"),
    pytest.mark.postgres(reason="the stack's database"),
    pytest.mark.nginx(reason="the stack's proxy"),
]

WATCHER = "127.0.0.2"  # the honest client's address
HEALTH_WITHIN = 1.0  # seconds: every health check during an attack answers within this
SIGNUP_LIMIT = 3  # sign-ups per address and hour in this stack (core.limits), to see whose address counts


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        redis_url=os.environ["REDIS_URL"],
        workdir=tmp_path_factory.mktemp("front"),
        solver_seconds=1,
        solver_max_seeds=2,
        extra_env={"SIGNUP_LIMIT_PER_HOUR": str(SIGNUP_LIMIT)},
    )
    try:
        s.create_database()
        s.start()
        yield s
    finally:
        s.stop()


class HealthWatch:
    """``GET /api/v1/health`` every 0.1 s from ``WATCHER`` on a new connection, for as long as the
    ``with`` block lasts: each answer's status and time (status 0: no answer within 5 s)."""

    def __init__(self, stack: Stack) -> None:
        self.port = stack.port
        self.answers: list[tuple[int, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            began = time.monotonic()
            status = 0
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5, source_address=(WATCHER, 0))
            with contextlib.suppress(OSError, http.client.HTTPException):
                conn.request("GET", "/api/v1/health")
                response = conn.getresponse()
                status = response.status if response.read() == b'{"status":"ok"}' else -response.status
            conn.close()
            self.answers.append((status, time.monotonic() - began))
            self._stop.wait(0.1)

    def __enter__(self) -> HealthWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def check(self, what: str, *, at_least: int = 3) -> None:
        slowest = max((t for _, t in self.answers), default=0.0)
        print(f"{what}: {len(self.answers)} health checks, slowest {slowest * 1000:.0f} ms")
        assert len(self.answers) >= at_least, (what, self.answers)
        assert all(status == 200 for status, _ in self.answers), (what, self.answers)
        assert slowest < HEALTH_WITHIN, (what, self.answers)


def connect(stack: Stack, source: str, *, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if rcvbuf:  # set before connecting, so that the window offered is small from the start
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", stack.port))
    return sock


def reached_gunicorn(stack: Stack, marker: str, *, wait: float = 0.0) -> bool:
    """Whether gunicorn's access log shows a request whose path carries ``marker`` (within ``wait``
    seconds: gunicorn writes the line once the answer is out, which may be after a client has it)."""
    deadline = time.monotonic() + wait
    while marker not in stack.log("web").read_text(errors="replace"):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def read_answer(sock: socket.socket) -> bytes:
    reply = b""
    with contextlib.suppress(OSError):
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


def test_a_content_length_with_leading_zeros_never_reaches_gunicorn(stack: Stack) -> None:
    """Issue 50: 24 form POSTs declaring ``Content-Length: 0000000000100`` with 5 body bytes held every
    thread of the home-made worker. nginx reads the length as 100 and waits for the body itself."""
    marker = f"zeros{uuid.uuid4().hex[:8]}"
    head = (
        f"POST /api/v1/auth/token?{marker} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0000000000100\r\n\r\n"
    ).encode()
    sockets = []
    try:
        with HealthWatch(stack) as watch:
            for _ in range(24):
                sock = connect(stack, "127.0.0.11")
                sock.sendall(head + b"a=b&c")
                sockets.append(sock)
            time.sleep(3)
        watch.check("24 bodies shorter than their zero-padded Content-Length")
        assert not reached_gunicorn(stack, marker)
    finally:
        for sock in sockets:
            sock.close()
    # The same framing with the body whole is an ordinary request, answered by the service (JSON).
    with connect(stack, "127.0.0.11") as sock:
        sock.sendall(
            f"POST /api/v1/auth/token?{marker} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Connection: close\r\nContent-Length: 0000000000002\r\n\r\n{}".encode()
        )
        reply = read_answer(sock)
    assert reply.startswith(b"HTTP/1.1 400 "), reply
    assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "invalid"
    assert reached_gunicorn(stack, marker, wait=10)


def test_ambiguous_lengths_are_refused_by_the_proxy(stack: Stack) -> None:
    """Two Content-Length headers (equal or not), or a length beside chunked encoding: 400 from nginx,
    as the API's JSON error, and gunicorn never sees the request (no framing for it to disagree on)."""
    marker = f"dup{uuid.uuid4().hex[:8]}"
    heads = [
        "Content-Length: 5\r\nContent-Length: 5\r\n",
        "Content-Length: 5\r\nContent-Length: 50\r\n",
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
    ]
    sockets = []
    try:
        with HealthWatch(stack) as watch:
            for i in range(24):
                sock = connect(stack, "127.0.0.12")
                sock.sendall(
                    f"POST /api/v1/auth/token?{marker} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"Content-Type: application/json\r\n{heads[i % 3]}\r\n{{}}   ".encode()
                )
                sockets.append(sock)
            replies = [read_answer(sock) for sock in sockets]
            time.sleep(2)
        watch.check("24 requests with two lengths")
    finally:
        for sock in sockets:
            sock.close()
    for reply in replies:
        assert reply.startswith(b"HTTP/1.1 400 "), reply
        assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "bad_request"
    assert not reached_gunicorn(stack, marker)
    # A body over the proxy's 1 MiB is refused before any of it is read; a chunked body is read
    # whole by the proxy and passed on with a length.
    with connect(stack, "127.0.0.12") as sock:
        sock.sendall(b"POST /api/v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n\r\n{")
        reply = sock.recv(4096)
    assert reply.startswith(b"HTTP/1.1 413 "), reply
    assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "too_large"
    with connect(stack, "127.0.0.12") as sock:
        sock.sendall(
            b"POST /api/v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
        )
        reply = read_answer(sock)
    assert reply.startswith(b"HTTP/1.1 400 ") and b'"code":"invalid"' in reply, reply  # the service's own answer


def test_slow_readers_of_large_answers_hold_no_gunicorn_worker(stack: Stack) -> None:
    """Issue 50: 24 clients asking for a 1.5 MB static file and never reading it held every thread
    of the home-made worker. Static files are nginx's alone now; and a large answer of the service
    goes into nginx's buffers at once, so gunicorn is done with it while its reader has read
    nothing: 24 slow readers of the file and 8 of the OpenAPI schema (about 200 KB, built anew
    each time) leave the site answering."""
    large = stack.static_root / "attack" / "large.bin"
    large.parent.mkdir(parents=True, exist_ok=True)
    large.write_bytes(os.urandom(1_500_000))

    def slow_reader(path: str, source: str) -> socket.socket:
        sock = connect(stack, source, rcvbuf=4096)
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        first = sock.recv(1024)  # the start of the answer, then nothing more is read
        assert first.startswith(b"HTTP/1.1 200 "), first
        return sock

    sockets = []
    try:
        with HealthWatch(stack) as watch:
            sockets += [slow_reader("/static/attack/large.bin", "127.0.0.13") for _ in range(24)]
            time.sleep(3)
        watch.check("24 slow readers of a 1.5 MB static file")
        # The schema costs a few hundred ms of CPU to build: built first, then the readers hold it.
        sockets += [slow_reader("/api/schema/?format=json", "127.0.0.14") for _ in range(8)]
        # gunicorn logs an answer once it has written it all (to nginx): all 8 while their readers
        # have read 1 KiB each (nginx starts passing an answer on before it has the whole of it).
        deadline = time.monotonic() + 10
        while stack.log("web").read_text(errors="replace").count("/api/schema/") < 8:
            assert time.monotonic() < deadline, stack.tail("web")
            time.sleep(0.1)
        with HealthWatch(stack) as watch:
            time.sleep(3)
        watch.check("and 8 slow readers of the OpenAPI schema")
    finally:
        for sock in sockets:
            sock.close()
    assert "/static/attack/large.bin" not in stack.log("web").read_text(errors="replace")  # nginx's alone


def test_slowloris_sockets_hold_no_gunicorn_worker(stack: Stack) -> None:
    """30 connections trickle a byte each per 0.25 s: 10 their headers, 10 a declared body, 10 a second
    request behind a whole first one (pipelined). The health check keeps answering; none of the
    trickled requests reaches gunicorn; nginx cuts the header tricklers once their headers have not
    arrived whole within client_header_timeout (10 s, one timer for all of them)."""
    marker = f"loris{uuid.uuid4().hex[:8]}"
    trickled_head = f"GET /healthz?{marker} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".encode() + b"x" * 200
    groups = {
        "headers": (b"", trickled_head),
        "body": (
            f"POST /api/v1/auth/token?{marker} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: 200\r\n\r\n".encode(),
            b"{" + b" " * 199,
        ),
        "pipelined": (b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", trickled_head),
    }
    slow: list[tuple[str, socket.socket, bytes]] = []
    began = time.monotonic()
    try:
        with HealthWatch(stack) as watch:
            for group, (at_once, trickle) in groups.items():
                for _ in range(10):
                    sock = connect(stack, "127.0.0.15")
                    sock.sendall(at_once)
                    slow.append((group, sock, trickle))
            for sent in range(16):  # 4 s
                for _, sock, trickle in slow:
                    with contextlib.suppress(OSError):
                        sock.sendall(trickle[sent : sent + 1])
                time.sleep(0.25)
        watch.check("30 slowloris sockets")
        assert not reached_gunicorn(stack, marker)
        # Past client_header_timeout the header tricklers are closed by nginx (reset: unsent data dropped).
        for group, sock, _ in slow:
            if group != "headers":
                continue
            sock.settimeout(max(1.0, 15 - (time.monotonic() - began)))
            with contextlib.suppress(ConnectionResetError):
                while sock.recv(4096):
                    pass
        assert time.monotonic() - began < 15
    finally:
        for _, sock, _ in slow:
            sock.close()


def test_two_thousand_one_byte_sockets_do_not_shut_the_door(stack: Stack) -> None:
    """Issue 50: 2,100 sockets each sending one byte stopped new connections being accepted. nginx
    holds each for a few hundred bytes of memory (8,192 connections per worker process) and cuts
    it at client_header_timeout."""
    count = 2000
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = count + 500
    if soft != resource.RLIM_INFINITY and soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"needs {needed} open files, the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    sockets = []
    try:
        with HealthWatch(stack) as watch:
            opened = time.monotonic()
            for i in range(count):
                sock = connect(stack, f"127.0.1.{1 + i % 200}")  # spread over 200 addresses
                sock.send(b"G")
                sockets.append(sock)
            opening = time.monotonic() - opened
            time.sleep(3)
        watch.check(f"{count} one-byte sockets (opened in {opening:.1f} s)")
    finally:
        for sock in sockets:
            sock.close()
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert "worker_connections are not enough" not in stack.log("proxy").read_text(errors="replace")


def test_one_address_is_limited_and_cannot_pose_as_another(stack: Stack) -> None:
    """Per client address: 200 requests at once from one address are answered 429 by the proxy past
    its limits (its JSON error) while other addresses are served; and the address the service counts is the
    socket's, whatever ``X-Forwarded-For`` the client sends (the proxy overwrites it;
    DJANGO_NUM_PROXIES=1), so the sign-up limit holds across made-up headers."""
    # 200 requests sent at once from one address, on 200 connections, then their answers read: past
    # the burst (100, then 50 a second) and past 32 in progress at once, the proxy answers 429 itself.
    sockets = []
    try:
        with HealthWatch(stack) as watch:
            for _ in range(200):
                sock = connect(stack, "127.0.0.16")
                sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                sockets.append(sock)
            replies = [read_answer(sock) for sock in sockets]
            time.sleep(2)
        watch.check("200 requests at once from one address")
    finally:
        for sock in sockets:
            sock.close()
    throttled = [r for r in replies if r.startswith(b"HTTP/1.1 429 ")]
    served = [r for r in replies if r.startswith(b"HTTP/1.1 200 ")]
    print(f"200 requests at once from one address: {len(served)} served, {len(throttled)} refused (429)")
    assert len(throttled) + len(served) == 200 and len(throttled) >= 50 and len(served) >= 20
    for reply in throttled:
        assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "throttled", reply
        assert b"\r\nRetry-After: 1\r\n" in reply, reply

    def sign_up(source: str, forwarded: str) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30, source_address=(source, 0))
        body = json.dumps({"username": f"xff{uuid.uuid4().hex[:10]}", "password": "a long passphrase 42"})
        conn.request(
            "POST",
            "/api/v1/auth/register",
            body=body,
            headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded},
        )
        status = conn.getresponse().status
        conn.close()
        return status

    made_up = [f"203.0.113.{i}" for i in range(SIGNUP_LIMIT + 1)]
    assert [sign_up("127.0.0.17", xff) for xff in made_up] == [201] * SIGNUP_LIMIT + [429]
    # Another address that names the first in its header is counted as itself.
    assert sign_up("127.0.0.18", "127.0.0.17") == 201


def test_the_up_command_stops_everything_on_sigterm(tmp_path: Path) -> None:
    """``bench/stack.py up`` brings the stack up, serves through its proxy, and on SIGTERM stops every
    process it started (none is left) and drops its database."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "bench/stack.py",
            "up",
            "--port",
            str(port),
            "--redis-url",
            os.environ["REDIS_URL"],
            "--web-workers",
            "1",
            "--solver-seconds",
            "0.5",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 180
        while not any("SIGTERM stops everything" in line for line in lines):
            line = proc.stdout.readline()
            assert line and time.monotonic() < deadline, "".join(lines)
            lines.append(line)
        text = "".join(lines)
        assert f"http://127.0.0.1:{port}/" in text
        match = re.search(r"run (\w+): pids ([\d ]+)", text)
        assert match, text
        run, pids = match.group(1), [int(p) for p in match.group(2).split()]
        assert len(pids) == 7  # proxy, web, four workers (validation, prepare, solver, winnable), beat
        answer = request(f"http://127.0.0.1:{port}/api/v1/health")
        assert answer.status == 200 and answer.headers.get("Server") == "nginx"
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:  # the test failed before its SIGTERM: still, leave nothing running
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, text + out
    assert "dropped" in out, out
    # Nothing it started is left: no process in any of its process groups (each started in its own).
    left = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[2]) in pids:
                left.append(stat.parent.name)
    assert not left, left
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0
    import psycopg

    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres") as conn:
        assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (run,)).fetchone() == (0,)
    with contextlib.suppress(Exception):
        admin_sql(f"DROP DATABASE IF EXISTS {run} WITH (FORCE)")
