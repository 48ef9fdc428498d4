"""The loopback server every fake of the bench is made of: it forwards requests to the
service and relays its answers, unless the fake's `decide` says otherwise for a request.

`decide` sees each request (method, target, headers, body) and returns what becomes of
it: `FORWARD` (the service answers), a `Reply` of the fake's own (the service never sees
the request, unless `decide` forwarded it itself to rewrite the answer), `HOLD` (no answer
until the server closes, a call left in flight) or `DROP` (the connection closed without
a reply). A fake that must act after the service did calls `forward` itself, then drops
or answers. Use as `with Fake(...) as fake`, or `start()` and `close()`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

import httpx

# Hop-by-hop headers, and those httpx recomputes, are not copied across.
SKIPPED = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "host"})
# httpx hands over the body decoded: the service's encoding no longer describes it.
_NOT_RELAYED = SKIPPED | {"content-encoding"}
# How long a held request waits for the server to close, at most.
HOLD_SECONDS = 120


@dataclass(frozen=True)
class Request:
    """A request as the fake received it."""

    method: str
    target: str  # path and query
    headers: dict[str, str]  # every header as sent
    body: bytes

    @property
    def path(self) -> str:
        """The target without its query."""
        return self.target.split("?", 1)[0]


@dataclass(frozen=True)
class Reply:
    """What the fake sends back: status, headers, and the body as chunks."""

    status: int
    headers: dict[str, str]
    chunks: Iterator[bytes]
    length: int | None = None  # declared as Content-Length; None: sent chunked
    pause: float = 0.0  # seconds before each chunk


def whole(status: int, headers: dict[str, str], content: bytes) -> Reply:
    """A reply of one body sent at once."""
    return Reply(status, headers, iter([content]), len(content))


def relayed(response: httpx.Response) -> Reply:
    """The service's answer as it came, but for the headers that no longer hold."""
    kept = {k: v for k, v in response.headers.items() if k.lower() not in _NOT_RELAYED}
    return whole(response.status_code, kept, response.content)


class Verdict(Enum):
    FORWARD = "forward"
    HOLD = "hold"
    DROP = "drop"


FORWARD, HOLD, DROP = Verdict.FORWARD, Verdict.HOLD, Verdict.DROP
Action = Reply | Verdict


class ForwardingServer:
    """A threaded HTTP server on a free loopback port (`url`) in front of `upstream`.
    Subclasses override `decide`; `_lock` guards what they record from handler threads."""

    def __init__(self, upstream: str | None, timeout: float = 30) -> None:
        self.upstream = upstream
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._http = httpx.Client(timeout=timeout)
        self._server = _Server(self)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def decide(self, request: Request) -> Action:
        return FORWARD

    def forward(self, request: Request) -> httpx.Response:
        """The service's answer to `request` (the service acts on it)."""
        assert self.upstream is not None, "a fake without upstream must answer every request"
        headers = {k: v for k, v in request.headers.items() if k.lower() not in SKIPPED}
        return self._http.request(
            request.method, self.upstream + request.target, content=request.body, headers=headers
        )

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._closing.set()  # releases held requests and ends streamed replies
        self._server.shutdown()
        self._server.server_close()
        self._http.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    def __init__(self, bench: ForwardingServer) -> None:
        self.bench = bench
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: each fake records what matters

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        bench = self.server.bench
        request = Request(self.command, self.path, dict(self.headers.items()), body)
        action = bench.decide(request)
        if action is FORWARD:
            action = relayed(bench.forward(request))
        elif action is HOLD:
            bench._closing.wait(HOLD_SECONDS)
        if isinstance(action, Reply):
            self._send(action, bench._closing)
        else:
            self.close_connection = True

    do_GET = _serve
    do_POST = _serve

    def _send(self, reply: Reply, closing: threading.Event) -> None:
        # send_response_only: no Date of our own; the service's Date states its clock.
        self.send_response_only(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.length is None:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(reply.length))
        self.end_headers()
        try:
            for chunk in reply.chunks:
                if closing.is_set():
                    break
                if reply.pause:
                    time.sleep(reply.pause)
                self._write(chunk, chunked=reply.length is None)
            if reply.length is None:
                self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up: as it should

    def _write(self, chunk: bytes, *, chunked: bool) -> None:
        if chunked:
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        else:
            self.wfile.write(chunk)
        self.wfile.flush()
