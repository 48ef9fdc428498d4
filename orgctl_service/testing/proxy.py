"""A loopback HTTP proxy in front of the service that can lose replies or refuse requests.

It forwards every request, except: the first POST whose path ends with one of `swallow`
is forwarded (so the service acts on it) and its connection closed without a reply, the
"sent, no answer" case; the first POST whose path ends with one of `unavailable` is
answered 503 without reaching the service, a transient failure worth a retry; the first
POST whose path ends with one of `pretend` is answered `{"success": true}` without
reaching the service, a success that changed nothing; the first POST whose path ends
with one of `stall` is held (never forwarded) until the proxy closes, so a test can
interrupt the client while that call is in flight; the first POST whose path ends with one
of `forbid` is refused with a 403 error envelope, as when the caller's rights were taken
away after the plan was made; every POST whose path ends with one of `slow` waits
`delay` seconds before it is forwarded, so an apply lasts long enough for a test to act
in its middle.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

import httpx

# Hop-by-hop headers, and those httpx recomputes, are not copied across.
_SKIPPED = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class FaultyProxy:
    def __init__(
        self,
        upstream: str,
        swallow: tuple[str, ...] = (),
        unavailable: tuple[str, ...] = (),
        pretend: tuple[str, ...] = (),
        stall: tuple[str, ...] = (),
        forbid: tuple[str, ...] = (),
        slow: tuple[str, ...] = (),
        delay: float = 0.0,
    ) -> None:
        self.upstream = upstream
        self.slow = slow
        self.delay = delay
        self._pending = {
            "swallow": list(swallow),
            "unavailable": list(unavailable),
            "pretend": list(pretend),
            "stall": list(stall),
            "forbid": list(forbid),
        }
        self.swallowed: list[str] = []
        self.refused: list[str] = []
        self.pretended: list[str] = []
        self.held: list[str] = []
        self.forbidden: list[str] = []
        self.stalled = threading.Event()  # set once a stalled request is being held
        self._closing = threading.Event()
        self._lock = threading.Lock()
        self._http = httpx.Client(timeout=30)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FaultyProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._http.close()

    def _take(self, fault: str, path: str, record: list[str]) -> bool:
        """True (once per suffix) when `path` is due for `fault`."""
        bare = path.split("?", 1)[0]
        with self._lock:
            for suffix in self._pending[fault]:
                if bare.endswith(suffix):
                    self._pending[fault].remove(suffix)
                    record.append(bare)
                    return True
        return False

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet: the test reports what matters

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                post = self.command == "POST"
                if post and self.path.split("?", 1)[0].endswith(proxy.slow):
                    time.sleep(proxy.delay)
                if post and proxy._take("unavailable", self.path, proxy.refused):
                    self._reply(503, {"Retry-After": "0"}, b"Service Unavailable")
                    return
                if post and proxy._take("stall", self.path, proxy.held):
                    proxy.stalled.set()
                    proxy._closing.wait(120)
                    self.close_connection = True
                    return
                if post and proxy._take("forbid", self.path, proxy.forbidden):
                    error = {"code": 403, "messageCode": "GWM_0005", "details": []}
                    error["message"] = "You do not have permissions to perform this operation."
                    content = json.dumps({"error": error}).encode()
                    self._reply(200, {"Content-Type": "application/json"}, content)
                    return
                if post and proxy._take("pretend", self.path, proxy.pretended):
                    content = json.dumps({"success": True}).encode()
                    self._reply(200, {"Content-Type": "application/json"}, content)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _SKIPPED}
                reply = proxy._http.request(
                    self.command, proxy.upstream + self.path, content=body, headers=headers
                )
                if post and proxy._take("swallow", self.path, proxy.swallowed):
                    self.close_connection = True
                    return
                kept = {
                    name: value
                    for name, value in reply.headers.items()
                    if name.lower() not in _SKIPPED | {"content-encoding"}
                }
                self._reply(reply.status_code, kept, reply.content)

            def _reply(self, status: int, headers: dict[str, str], content: bytes) -> None:
                # send_response_only: no Date of our own; the service's Date states its clock.
                self.send_response_only(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = _forward
            do_POST = _forward

        return Handler
