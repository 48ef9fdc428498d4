"""A loopback HTTP server that records every request it receives: a host a manifest may
point orgctl at (it must receive no credential), and, with an upstream, a gateway in front
of the service that echoes chosen requests back base64- and hex-encoded in an error
envelope, as a misconfigured proxy or web adaptor may."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass

from orgctl_service.testing.forwarding import FORWARD, Action, ForwardingServer, Request, whole

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


class Catcher(ForwardingServer):
    def __init__(
        self,
        upstream: str | None = None,
        echo: Echoed | None = None,
        pad: int = 0,
        wrap: bool = False,
    ) -> None:
        super().__init__(upstream)
        self.echo = echo or (lambda method, path: upstream is None)
        self.pad = pad  # bytes before the request in the echo: the secret's alignment
        # Base64 broken into lines, as MIME writes it (76 characters) and at 16, short
        # enough that the secret crosses a break wherever it stands.
        self.wrap = wrap
        self.caught: list[Caught] = []
        self.echoes: list[str] = []  # every echo text sent back

    @property
    def origin(self) -> str:
        return self.url

    def echo_of(self, request: Caught) -> str:
        """The request base64-, base64url- and hex-encoded, `pad` bytes in."""
        data = b"#" * self.pad + request.raw().encode()
        if self.wrap:
            text = base64.b64encode(data).decode()
            short = "\r\n".join(text[i : i + 16] for i in range(0, len(text), 16))
            return f"gateway saw {base64.encodebytes(data).decode()} / {short}"
        return (
            f"gateway saw {base64.b64encode(data).decode()} /"
            f" {base64.urlsafe_b64encode(data).decode()} / {data.hex()}"
        )

    def decide(self, request: Request) -> Action:
        caught = Caught(request.method, request.target, request.headers, request.body)
        with self._lock:
            self.caught.append(caught)
        if not self.echo(request.method, request.path):
            return FORWARD
        text = self.echo_of(caught)
        with self._lock:
            self.echoes.append(text)
        error = {"code": 400, "message": text, "details": [text]}
        content = json.dumps({"error": error}).encode()
        return whole(200, {"Content-Type": "application/json"}, content)
