"""A loopback proxy in front of `orgctl serve` that answers one path as a broken or hostile
portal would, and forwards everything else untouched.

The misbehaviour (`Answer`) is chosen per test: rewrite the service's JSON (an id `..`, a
role listed under another's id, a list where a string belongs, a `nextStart` that loops, a
`total` of 10**9), trickle the service's answer one byte at a time, or answer a body of
the proxy's own (endless, huge, 2,000,000 privileges, 100,000 levels deep, a redirect).
Every request is logged (`seen`), so a test can tell that no write reached a wrong URL.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx

from .proxy import _SKIPPED, FaultyProxy

Json = dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """What the proxy sends back: status, headers, and the body as chunks."""

    status: int
    headers: dict[str, str]
    chunks: Iterator[bytes]
    length: int | None = None  # declared as Content-Length; None: sent chunked
    pause: float = 0.0  # seconds between chunks


# (the service's reply, asked for when needed; the request's query and form fields) -> what
# the proxy answers. An answer of the proxy's own never reaches the service, so its pace
# is the proxy's alone.
Upstream = Callable[[], httpx.Response]
Answer = Callable[[Upstream, dict[str, str]], Reply]


def rewritten(change: Callable[[Json, dict[str, str]], Json]) -> Answer:
    """The service's JSON with `change` applied (given the request's fields)."""

    def answer(upstream: Upstream, fields: dict[str, str]) -> Reply:
        body = json.dumps(change(upstream().json(), fields)).encode()
        return Reply(200, {"Content-Type": "application/json"}, iter([body]), len(body))

    return answer


def trickled(seconds: float) -> Answer:
    """The service's own answer, one byte every `seconds`."""

    def answer(upstream: Upstream, fields: dict[str, str]) -> Reply:
        body = upstream().content
        chunks = (body[i : i + 1] for i in range(len(body)))
        headers = {"Content-Type": "application/json"}
        return Reply(200, headers, chunks, len(body), pause=seconds)

    return answer


def own(
    chunks: Callable[[], Iterator[bytes]],
    *,
    length: int | None = None,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> Answer:
    """A body of the proxy's own making, whatever the service said."""

    def answer(upstream: Upstream, fields: dict[str, str]) -> Reply:
        sent = headers if headers is not None else {"Content-Type": "application/json"}
        return Reply(status, sent, chunks(), length)

    return answer


def endless() -> Iterator[bytes]:
    yield b'{"roles": ["'
    while True:
        yield b"x" * 65536


def padded(size: int) -> Iterator[bytes]:
    """`{"roles": [], "padding": "xxx..."}` of `size` bytes in all."""
    head, tail = b'{"roles": [], "padding": "', b'"}'
    left = size - len(head) - len(tail)
    yield head
    while left > 0:
        piece = min(left, 1 << 20)
        yield b"x" * piece
        left -= piece
    yield tail


def privileged(count: int) -> Iterator[bytes]:
    """A roles page whose one role holds `count` privileges, made as it is sent."""
    yield b'{"total": 1, "start": 1, "num": 100, "nextStart": -1, "roles": [{"id": "r1",'
    yield b' "name": "Analyst", "description": "", "privileges": ['
    batch = 10_000
    for first in range(0, count, batch):
        names = (f'"portal:user:p{n:07d}"' for n in range(first, min(count, first + batch)))
        yield (("," if first else "") + ",".join(names)).encode()
    yield b"]}]}"


def deep(levels: int) -> Iterator[bytes]:
    yield b'{"roles": ' + b"[" * levels + b"]" * levels + b"}"


# --- the cases: what the tests and benchmarks/hostile_portal.py put in front of a portal --


def role_entries(change: Callable[[dict[str, Json]], None]) -> Answer:
    """The roles listing with `change` applied to its entries (by name)."""

    def apply(body: Json, fields: dict[str, str]) -> Json:
        change({role["name"]: role for role in body.get("roles", [])})
        return body

    return rewritten(apply)


def _dot_dot(roles: dict[str, Json]) -> None:
    roles["Analyst"]["id"] = ".."


def _shared_id(roles: dict[str, Json]) -> None:
    roles["Analyst"]["id"] = roles["Legacy Viewer"]["id"]


def portal_id(value: Any) -> Answer:
    return rewritten(lambda body, fields: {**body, "id": value})


def _listed_id(body: Json, fields: dict[str, str]) -> Json:
    return {**body, "id": [body["id"]]}


def _backwards(body: Json, fields: dict[str, str]) -> Json:
    body.pop("total", None)
    return {**body, "nextStart": 1}


def _onwards(upstream: Upstream, fields: dict[str, str]) -> Reply:
    """A fresh page of 100 roles at every start, each pointing at the next (no total)."""
    start = int(fields.get("start", 1))
    roles = [{"id": f"r{start + n}", "name": f"Role {start + n}"} for n in range(100)]
    page = {"roles": roles, "start": start, "num": 100, "nextStart": start + 100}
    body = json.dumps(page).encode()
    return Reply(200, {"Content-Type": "application/json"}, iter([body]), len(body))


def _billion(body: Json, fields: dict[str, str]) -> Json:
    return {**body, "total": 10**9}


@dataclass(frozen=True)
class Case:
    suffix: str
    answer: Answer
    command: str = "plan"  # or "apply"
    method: str = "GET"


HUGE = 100 << 20
CASES = {
    "role id ..": Case("/roles", role_entries(_dot_dot), "apply"),
    "role under another's id": Case("/roles", role_entries(_shared_id), "apply"),
    "portals/self id ..": Case("/portals/self", portal_id("..")),
    "portals/self id a list": Case("/portals/self", portal_id(["0123"])),
    "createRole id a list": Case("/createRole", rewritten(_listed_id), "apply", "POST"),
    "a byte every 2 s": Case("/roles", trickled(2.0)),
    "nextStart back to 1": Case("/roles", rewritten(_backwards)),
    "a listing that never ends": Case("/roles", _onwards),
    "total 10**9": Case("/roles", rewritten(_billion)),
    "an endless body": Case("/roles", own(endless)),
    "a 100 MB body": Case("/roles", own(lambda: padded(HUGE), length=HUGE)),
    "2,000,000 privileges": Case("/roles", own(lambda: privileged(2_000_000))),
    "JSON 100,000 deep": Case("/roles", own(lambda: deep(100_000))),
    "a 302": Case(
        "/portals/self",
        own(
            lambda: iter([b""]),
            status=302,
            headers={"Location": "https://idp.example.com/adfs/ls?x=1"},
            length=0,
        ),
    ),
}


@dataclass
class Seen:
    method: str
    path: str
    hostile: bool  # answered by the misbehaviour, not the service


class HostileProxy(FaultyProxy):
    """The fault proxy's server and forwarding, answering `suffix` as `answer` says."""

    def __init__(self, upstream: str, suffix: str, answer: Answer, method: str = "GET") -> None:
        self.suffix = suffix  # the path (without its query) whose answers misbehave
        self.answer = answer
        self.method = method
        self.seen: list[Seen] = []
        super().__init__(upstream)
        # orgctl ending a run drops the connections of its cancelled reads: not news.
        self._server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]

    @classmethod
    def of(cls, upstream: str, case: Case) -> HostileProxy:
        return cls(upstream, case.suffix, case.answer, case.method)

    @property
    def hostile_answers(self) -> int:
        return sum(1 for s in self.seen if s.hostile)

    def writes(self) -> list[str]:
        """The paths of every POST, as the service received them (in order)."""
        return [s.path for s in self.seen if s.method == "POST"]

    def _record(self, method: str, path: str, hostile: bool) -> None:
        with self._lock:
            self.seen.append(Seen(method, path, hostile))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet: the test reports what matters

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                bare = self.path.split("?", 1)[0]
                hostile = self.command == proxy.method and bare.endswith(proxy.suffix)
                proxy._record(self.command, bare, hostile)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _SKIPPED}

                def upstream() -> httpx.Response:
                    return proxy._http.request(
                        self.command, proxy.upstream + self.path, content=body, headers=headers
                    )

                if hostile:
                    fields = dict(httpx.URL(self.path).params)
                    fields.update(httpx.QueryParams(body.decode()))
                    self._send(proxy.answer(upstream, fields))
                    return
                reply = upstream()
                kept = {
                    k: v
                    for k, v in reply.headers.items()
                    if k.lower() not in _SKIPPED | {"content-encoding"}
                }
                self._send(
                    Reply(reply.status_code, kept, iter([reply.content]), len(reply.content))
                )

            def _send(self, reply: Reply) -> None:
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
                        if proxy._closing.is_set():
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

            do_GET = _forward
            do_POST = _forward

        return Handler
