"""A loopback proxy in front of `orgctl serve` that answers one path as a broken or hostile
portal would, and forwards everything else untouched.

The misbehaviour (`Answer`) is chosen per test: rewrite the service's JSON (an id `..`, a
role listed under another's id, a list where a string belongs, a `nextStart` that loops, a
`total` of 10**9), trickle the service's answer one byte at a time, or answer a body of
the proxy's own (endless, huge, 2,000,000 privileges, 100,000 levels deep, a redirect).
Every request is logged (`seen`), so a test can tell that no write reached a wrong URL.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from .forwarding import FORWARD, Action, ForwardingServer, Reply, Request, whole

Json = dict[str, Any]

# (the service's reply, asked for when needed; the request's query and form fields) -> what
# the proxy answers. An answer of the proxy's own never reaches the service, so its pace
# is the proxy's alone.
Upstream = Callable[[], httpx.Response]
Answer = Callable[[Upstream, dict[str, str]], Reply]


def rewritten(change: Callable[[Json, dict[str, str]], Json]) -> Answer:
    """The service's JSON with `change` applied (given the request's fields)."""

    def answer(upstream: Upstream, fields: dict[str, str]) -> Reply:
        body = json.dumps(change(upstream().json(), fields)).encode()
        return whole(200, {"Content-Type": "application/json"}, body)

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
    return whole(200, {"Content-Type": "application/json"}, json.dumps(page).encode())


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


class HostileProxy(ForwardingServer):
    """The bench's server and forwarding, answering `suffix` as `answer` says."""

    def __init__(self, upstream: str, suffix: str, answer: Answer, method: str = "GET") -> None:
        super().__init__(upstream)
        self.suffix = suffix  # the path (without its query) whose answers misbehave
        self.answer = answer
        self.method = method
        self.seen: list[Seen] = []
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

    def decide(self, request: Request) -> Action:
        hostile = request.method == self.method and request.path.endswith(self.suffix)
        with self._lock:
            self.seen.append(Seen(request.method, request.path, hostile))
        if not hostile:
            return FORWARD
        fields = dict(httpx.URL(request.target).params)
        fields.update(httpx.QueryParams(request.body.decode()))
        return self.answer(functools.partial(self.forward, request), fields)
