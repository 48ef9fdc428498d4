"""A plain-HTTP server on a free loopback port, for the tests of TLS, of trust and of requests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class PlainHttp(BaseHTTPRequestHandler):
    """Answers every GET with a JSON object; a TLS ClientHello gets the 400 that any plain
    HTTP server gives to bytes it cannot parse."""

    def do_GET(self) -> None:
        body = json.dumps({"id": "p1"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return  # keep the test output clean


@pytest.fixture
def plain_http_root() -> Iterator[str]:
    """The sharing root of a real plain-HTTP server on a free loopback port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), PlainHttp)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hq/sharing/rest"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
