"""An address too long is answered, not reset: `414` with the service's error envelope,
whatever size the network cuts the request into."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.service.harness import Service, write_state


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    folder = tmp_path_factory.mktemp("limits")
    service = Service(folder / "state.sqlite", write_state("world", folder)).start()
    yield service
    service.stop()


def raw_get(service: Service, target: str, header: str = "") -> bytes:
    """A GET sent whole, the answer read to its end (or to a reset, raised)."""
    host, port = service.url.split("//")[1].split(":")
    head = f"GET {target} HTTP/1.1\r\nHost: localhost\r\n{header}Connection: close\r\n\r\n"
    with socket.create_connection((host, int(port)), timeout=20) as conn:
        conn.sendall(head.encode())
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    return reply


@pytest.mark.parametrize(
    ("size", "limit"),
    [
        (100_000, "65536"),  # refused by the service, which read it
        (900_000, "65536"),
        (2_000_000, "1000000"),  # refused by the protocol, before the service sees it
        (8_000_000, "1000000"),
    ],
)
def test_a_query_string_too_long_is_answered_414_with_the_envelope(
    started: Service, size: int, limit: str
) -> None:
    reply = raw_get(started, "/hq/sharing/rest/portals/self?f=json&q=" + "a" * size)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 414 "), head[:200]
    error = json.loads(body)["error"]
    assert error["code"] == 414 and f"exceeds {limit} bytes" in error["message"], error
    assert "Traceback" not in started.output


def test_header_fields_too_large_are_answered_431_with_the_envelope(started: Service) -> None:
    reply = raw_get(
        started, "/hq/sharing/rest/portals/self?f=json", "X-Big: " + "b" * 2_000_000 + "\r\n"
    )
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 "), head[:200]
    assert json.loads(body)["error"]["code"] == 431


def test_a_long_query_string_within_the_limit_is_served(started: Service) -> None:
    reply = raw_get(started, "/hq/sharing/rest/portals/self?f=json&q=" + "a" * 60_000)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), head[:200]
    assert json.loads(body)["error"]["code"] == 499  # a token is required: it was read
