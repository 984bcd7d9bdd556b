"""TLS at the proxy: config/nginx/nginx.conf.template as docker-compose.yml's ``proxy`` runs it (HTTPS on
the main server, plain HTTP redirected), with a throwaway self-signed certificate made for the run
(bench.stack.throwaway_tls) and a stand-in for gunicorn that reports what it was sent."""

from __future__ import annotations

import getpass
import http.client
import http.server
import json
import os
import re
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from bench.stack import ROOT, free_port, nginx_binary, render_nginx_conf, throwaway_tls

pytestmark = pytest.mark.nginx(reason="the proxy")


class _Upstream(http.server.BaseHTTPRequestHandler):
    """gunicorn's stand-in: answers JSON naming the scheme the proxy said, with an HSTS header of its own."""

    def do_GET(self) -> None:
        body = json.dumps({"path": self.path, "proto": self.headers.get("X-Forwarded-Proto")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Strict-Transport-Security", "max-age=1")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("tls-proxy")
    (folder / "static").mkdir()
    (folder / "static" / "app.css").write_text("body {}\n")
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    https_port, http_port = free_port(), free_port()
    tls = throwaway_tls(folder)
    conf = folder / "nginx.conf"
    conf.write_text(
        render_nginx_conf(
            {
                "DP_LISTEN": f"127.0.0.1:{https_port} ssl",  # as compose's "8443 ssl"
                **tls,
                "DP_REDIRECT_LISTEN": f"127.0.0.1:{http_port}",
                "DP_HTTPS_PORT": str(https_port),
                "DP_HSTS_SECONDS": "31536000",
                "DP_UPSTREAM": f"127.0.0.1:{upstream.server_address[1]}",
                "DP_STATIC_ROOT": str(folder / "static"),
                "DP_RUN_DIR": str(folder),
                "DP_LOG_DIR": str(folder),
            }
        )
    )
    nginx = nginx_binary()
    assert nginx is not None
    settings = "daemon off;" + (f" user {getpass.getuser()};" if os.geteuid() == 0 else "")
    process = subprocess.Popen(
        [nginx, "-p", str(folder), "-c", str(conf), "-g", settings], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", https_port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                time.sleep(0.05)
        context = ssl.create_default_context(cafile=tls["DP_TLS_CERT"])
        yield {"https": https_port, "http": http_port, "context": context}
    finally:
        process.terminate()
        process.wait(timeout=10)
        upstream.shutdown()


def _https(proxy: dict[str, Any], path: str) -> tuple[http.client.HTTPResponse, bytes, str]:
    connection = http.client.HTTPSConnection("localhost", proxy["https"], context=proxy["context"], timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    version = connection.sock.version() if connection.sock else ""
    connection.close()
    return response, body, str(version)


def _http(proxy: dict[str, Any], method: str, path: str) -> tuple[http.client.HTTPResponse, bytes]:
    connection = http.client.HTTPConnection("localhost", proxy["http"], timeout=10)
    connection.request(method, path, body=b"{}" if method == "POST" else None)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response, body


def test_https_answers_with_one_hsts_header_and_tells_the_service_its_scheme(proxy: dict[str, Any]) -> None:
    response, body, version = _https(proxy, "/api/v1/daily")
    assert response.status == 200 and json.loads(body) == {"path": "/api/v1/daily", "proto": "https"}
    assert response.headers.get_all("Strict-Transport-Security") == ["max-age=31536000; includeSubDomains"]
    assert version in ("TLSv1.2", "TLSv1.3")


def test_static_files_over_https_carry_hsts_too(proxy: dict[str, Any]) -> None:
    response, body, _version = _https(proxy, "/static/app.css")
    assert response.status == 200 and body == b"body {}\n"
    assert response.headers.get_all("Strict-Transport-Security") == ["max-age=31536000; includeSubDomains"]


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_plain_http_is_redirected_to_https_with_its_path_and_method_kept(proxy: dict[str, Any], method: str) -> None:
    response, _body = _http(proxy, method, "/api/v1/daily?x=1")
    assert response.status == 308
    assert response.headers["Location"] == f"https://localhost:{proxy['https']}/api/v1/daily?x=1"
    assert response.headers.get("Strict-Transport-Security") is None  # (ignored over plain HTTP anyway)


@pytest.mark.parametrize("probe", ["/healthz", "/readyz"])
def test_the_probes_answer_over_plain_http(proxy: dict[str, Any], probe: str) -> None:
    response, body = _http(proxy, "GET", probe)
    assert response.status == 200 and json.loads(body) == {"path": probe, "proto": "http"}


def test_compose_runs_the_proxy_with_tls_and_no_key_is_in_the_repository() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    proxy = compose["services"]["proxy"]
    env = proxy["environment"]
    assert env["DP_LISTEN"].endswith(" ssl") and env["DP_REDIRECT_LISTEN"] == "8080"
    assert env["DP_TLS_CERT"].startswith("/etc/nginx/tls/") and env["DP_TLS_KEY"].startswith("/etc/nginx/tls/")
    assert any(str(v).endswith(":/etc/nginx/tls:ro") for v in proxy["volumes"])
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    private_key = re.compile(rb"-----BEGIN (EC |RSA |ENCRYPTED )?PRIVATE KEY-----")
    for name in tracked.splitlines():
        path = ROOT / name
        assert path.suffix not in (".pem", ".key", ".crt"), f"a key or certificate is in the repository: {name}"
        if path.is_file() and path.stat().st_size < 1_000_000:
            assert not private_key.search(path.read_bytes()), f"a private key is in the repository: {name}"
