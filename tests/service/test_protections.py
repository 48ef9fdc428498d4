"""The service as a careful server: what a client cut off mid-request, a reader of the
database file and a password guesser can get from it."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.harness import Api, Service, write_state


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Service]:
    """A service of the test's own, for tests that read its log or its files."""
    service = Service(tmp_path / "state.sqlite", write_state("world", tmp_path)).start()
    yield service
    service.stop()


def raw_request(service: Service, data: bytes, half_close: bool) -> bytes:
    host, port = service.url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(data)
        if not half_close:
            return b""
        conn.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
        return reply


@pytest.mark.parametrize("half_close", [True, False], ids=["half-closed", "closed"])
def test_a_body_shorter_than_its_content_length_logs_no_traceback(
    started: Service, half_close: bool
) -> None:
    head = (
        b"POST /hq/sharing/rest/generateToken HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"
    )
    reply = raw_request(started, head + b"username=admin&pass", half_close)
    # Either a refusal or a closed connection: never a success, never a 500.
    assert reply == b"" or b'"code":400' in reply or b" 400 " in reply.split(b"\r\n")[0], reply
    time.sleep(0.3)  # the service logs, if at all, after the socket closes
    api = Api(started.url)
    try:
        assert "token" in api.generate_token("hq", "admin", "admin-pass")  # still serving
    finally:
        api.close()
    assert "Traceback" not in started.output, started.output
