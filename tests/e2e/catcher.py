"""A loopback HTTP server that records every request it receives: a host a manifest may
point orgctl at (it must receive no credential), and, with an upstream, a gateway in front
of the service that echoes chosen requests back base64- and hex-encoded in an error
envelope, as a misconfigured proxy or web adaptor may."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

import httpx

_SKIPPED = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}
# (method, path) -> whether the gateway answers with the echo instead of forwarding.
Echoed = Callable[[str, str], bool]


@dataclass(frozen=True)
class Caught:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def raw(self) -> str:
        """The request as it came, for searching: request line, headers, body."""
        head = "".join(f"{k}: {v}\n" for k, v in self.headers.items())
        return f"{self.method} {self.path}\n{head}\n{self.body.decode(errors='replace')}"


class Catcher:
    def __init__(
        self, upstream: str | None = None, echo: Echoed | None = None, pad: int = 0
    ) -> None:
        self.upstream = upstream
        self.echo = echo or (lambda method, path: upstream is None)
        self.pad = pad  # bytes before the request in the echo: the secret's alignment
        self.caught: list[Caught] = []
        self.echoes: list[str] = []  # every echo text sent back
        self._lock = threading.Lock()
        self._http = httpx.Client(timeout=30)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Catcher:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()

    def echo_of(self, request: Caught) -> str:
        """The request base64-, base64url- and hex-encoded, `pad` bytes in."""
        data = b"#" * self.pad + request.raw().encode()
        return (
            f"gateway saw {base64.b64encode(data).decode()} /"
            f" {base64.urlsafe_b64encode(data).decode()} / {data.hex()}"
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        catcher = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = Caught(self.command, self.path, dict(self.headers.items()), body)
                with catcher._lock:
                    catcher.caught.append(request)
                if catcher.echo(self.command, self.path.split("?", 1)[0]):
                    text = catcher.echo_of(request)
                    with catcher._lock:
                        catcher.echoes.append(text)
                    error = {"code": 400, "message": text, "details": [text]}
                    self._reply(
                        200,
                        {"Content-Type": "application/json"},
                        json.dumps({"error": error}).encode(),
                    )
                    return
                assert catcher.upstream is not None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _SKIPPED}
                reply = catcher._http.request(
                    self.command, catcher.upstream + self.path, content=body, headers=headers
                )
                kept = {
                    k: v
                    for k, v in reply.headers.items()
                    if k.lower() not in _SKIPPED | {"content-encoding"}
                }
                self._reply(reply.status_code, kept, reply.content)

            def _reply(self, status: int, headers: dict[str, str], content: bytes) -> None:
                self.send_response_only(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = _serve
            do_POST = _serve

        return Handler
