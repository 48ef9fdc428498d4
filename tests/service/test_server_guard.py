"""`orgctl serve` as a server others can reach: request heads have a time limit,
connections a cap derived from the descriptor limit, and running short of either is a
line in the log, never a traceback or a legitimate client left waiting."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.service.harness import Service

DEMO_STATE = Path(__file__).resolve().parents[2] / "examples" / "demo" / "state.yaml"
HALF_SENT = b"GET /hq/sharing/rest/portals/self?f=json HTTP/1.1\r\nHost: localhost\r\n"
PATIENCE_SECONDS = 30  # what a client waits for any answer: long enough on a busy machine


def address(service: Service) -> tuple[str, int]:
    host, port = service.url.split("//")[1].split(":")
    return host, int(port)


@contextmanager
def half_sent_requests(service: Service, count: int) -> Iterator[list[socket.socket]]:
    """`count` connections that each send part of a request head and then nothing."""
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            connection = socket.create_connection(address(service), timeout=PATIENCE_SECONDS)
            connection.sendall(HALF_SENT)
            held.append(connection)
        yield held
    finally:
        for connection in held:
            connection.close()


def answer_to(connection: socket.socket) -> bytes:
    """Everything the service sends on `connection` until it closes it."""
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def served_a_read(service: Service) -> None:
    reply = httpx.get(f"{service.url}/hq/sharing/rest", params={"f": "json"}, timeout=30)
    assert reply.json()["fullVersion"] == "10.6.1"


def test_a_half_sent_request_head_is_answered_408_and_closed(tmp_path: Path) -> None:
    options = ("--header-timeout", "1")
    service = Service(tmp_path / "db.sqlite", DEMO_STATE, options=options).start()
    try:
        with half_sent_requests(service, 1) as (connection,):
            reply = answer_to(connection)
        assert reply.startswith(b"HTTP/1.1 408 "), reply[:200]
        assert b'"code":408' in reply
        # A kept-alive connection has as long for its next head after an answer.
        with socket.create_connection(address(service), timeout=PATIENCE_SECONDS) as kept:
            kept.sendall(b"GET /hq/sharing/rest?f=json HTTP/1.1\r\nHost: localhost\r\n\r\n")
            kept.sendall(HALF_SENT)
            reply = answer_to(kept)
        assert reply.startswith(b"HTTP/1.1 200 ") and b"HTTP/1.1 408 " in reply, reply[-300:]
    finally:
        service.stop()
    assert "Traceback" not in service.output, service.output


def test_200_half_sent_requests_under_512_descriptors_delay_no_one_and_time_out(
    tmp_path: Path,
) -> None:
    options = ("--header-timeout", "2")
    service = Service(tmp_path / "db.sqlite", DEMO_STATE, options=options, open_files=512)
    service.start()
    try:
        with half_sent_requests(service, 200) as held:
            served_a_read(service)
            answers = [answer_to(connection) for connection in held]
        assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers), {a[:40] for a in answers}
    finally:
        service.stop()
    assert "Traceback" not in service.output, service.output


def test_past_the_connection_cap_the_longest_waiting_head_makes_room(tmp_path: Path) -> None:
    # 600 connections under 512 descriptors: without a cap the service ran out of
    # descriptors, logged a traceback for every failed accept, and answered no one.
    options = ("--header-timeout", "30")
    service = Service(tmp_path / "db.sqlite", DEMO_STATE, options=options, open_files=512)
    service.start()
    try:
        with half_sent_requests(service, 600):
            served_a_read(service)
            served_a_read(service)
    finally:
        service.stop()
    log = service.output.splitlines()
    assert "Traceback" not in service.output, service.output[-3000:]
    said = [line for line in log if "connections open" in line]
    assert len(said) == 1, log[:20]  # one line for the kind of refusal, not one per refusal
    assert "the cap for 512 file descriptors" in said[0]
    assert len(log) <= 3, log[:20]
