"""The bench's forwarding server on its own: each verdict of `decide`, between a real client
and a real upstream (both loopback servers of the same kind; no `orgctl serve` needed)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator

import httpx
import pytest

from orgctl_service.testing.forwarding import (
    DROP,
    FORWARD,
    HOLD,
    Action,
    ForwardingServer,
    Reply,
    Request,
    whole,
)


class Upstream(ForwardingServer):
    """Answers every request itself: what it received, gzipped, with a hop-by-hop header."""

    def __init__(self) -> None:
        super().__init__(None)
        self.received: list[Request] = []

    def decide(self, request: Request) -> Action:
        with self._lock:
            self.received.append(request)
        seen = {"target": request.target, "headers": request.headers, "body": request.body.decode()}
        headers = {"Content-Encoding": "gzip", "Keep-Alive": "timeout=5", "X-Portal": "1"}
        return whole(201, headers, gzip.compress(json.dumps(seen).encode()))


class Front(ForwardingServer):
    """One verdict per path, as a fake of the bench would decide."""

    def decide(self, request: Request) -> Action:
        if request.path == "/own":
            return whole(418, {"Content-Type": "text/plain"}, b"teapot")
        if request.path == "/streamed":
            return Reply(200, {}, iter([b"ab", b"cd"]))
        if request.path == "/dropped":
            return DROP
        if request.path == "/held":
            return HOLD
        if request.path == "/acted-then-dropped":
            self.forward(request)
            return DROP
        return FORWARD


@pytest.fixture
def bench() -> Iterator[tuple[Upstream, Front]]:
    with Upstream() as upstream, Front(upstream.url) as front:
        yield upstream, front


def test_forward_copies_the_request_and_relays_the_answer_without_hop_by_hop_headers(
    bench: tuple[Upstream, Front],
) -> None:
    upstream, front = bench
    reply = httpx.post(
        front.url + "/sharing/rest/roles?f=json", content=b"a=1", headers={"X-Client": "c"}
    )
    assert reply.status_code == 201
    seen = reply.json()  # decoded by the bench: its Content-Encoding is not relayed
    assert seen["target"] == "/sharing/rest/roles?f=json"
    assert seen["body"] == "a=1"
    assert seen["headers"]["X-Client"] == "c"
    assert reply.headers["X-Portal"] == "1"
    assert "content-encoding" not in reply.headers and "keep-alive" not in reply.headers
    assert int(reply.headers["Content-Length"]) == len(reply.content)
    # the headers about the client's own connection are not passed on: the bench's are
    forwarded = {name.lower(): value for name, value in upstream.received[0].headers.items()}
    assert forwarded["x-client"] == "c"
    assert forwarded["host"] == upstream.url.removeprefix("http://")


def test_an_own_reply_never_reaches_the_upstream(bench: tuple[Upstream, Front]) -> None:
    upstream, front = bench
    reply = httpx.get(front.url + "/own")
    assert (reply.status_code, reply.text) == (418, "teapot")
    assert upstream.received == []


def test_a_reply_without_length_is_sent_chunked(bench: tuple[Upstream, Front]) -> None:
    reply = httpx.get(bench[1].url + "/streamed")
    assert reply.headers["Transfer-Encoding"] == "chunked"
    assert reply.content == b"abcd"


@pytest.mark.parametrize(("path", "reached"), [("/dropped", 0), ("/acted-then-dropped", 1)])
def test_drop_closes_the_connection_without_a_reply(
    bench: tuple[Upstream, Front], path: str, reached: int
) -> None:
    upstream, front = bench
    with pytest.raises(httpx.RemoteProtocolError):
        httpx.post(front.url + path, content=b"x")
    assert len(upstream.received) == reached


def test_hold_keeps_the_request_unanswered_until_the_server_closes(
    bench: tuple[Upstream, Front],
) -> None:
    upstream, front = bench
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(front.url + "/held", content=b"x", timeout=0.5)
    assert upstream.received == []
