"""The connection guard's bookkeeping: the cap from the descriptor limit, who makes room
at the cap, and one log line per kind of refusal."""

from __future__ import annotations

import asyncio
import errno
import logging

import pytest

from orgctl_service.guard import ACCEPT_BURST, ConnectionGuard, connection_cap


class Connection:
    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = False

    def close(self) -> None:
        self.closed = True


def held(guard: ConnectionGuard, *names: str) -> list[Connection]:
    connections = [Connection(name) for name in names]
    for connection in connections:
        assert guard.admit(connection, connection.close)
    return connections


def test_the_cap_leaves_room_for_the_process_and_two_accept_bursts() -> None:
    assert connection_cap(512) == 512 - 32 - 2 * ACCEPT_BURST
    assert connection_cap(20) == 8  # never below a handful


def test_at_the_cap_the_connection_waiting_longest_for_its_head_is_closed() -> None:
    guard = ConnectionGuard(cap=3, header_timeout=1.0)
    first, second, third = held(guard, "first", "second", "third")
    guard.head_arrived(first)  # busy with a request: never closed to make room
    guard.awaits_head(second, second.close)  # answered, kept alive: waits again from now
    (fourth,) = held(guard, "fourth")
    assert (first.closed, second.closed, third.closed) == (False, False, True)
    assert guard.held == {first, second, fourth}
    held(guard, "fifth")
    assert second.closed and not fourth.closed


def test_when_every_held_connection_is_busy_a_new_one_is_refused() -> None:
    guard = ConnectionGuard(cap=2, header_timeout=1.0)
    for connection in held(guard, "a", "b"):
        guard.head_arrived(connection)
    refused = Connection("c")
    assert not guard.admit(refused, refused.close)
    assert len(guard.held) == 2


def test_each_kind_of_refusal_is_said_once_until_the_connections_fall_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    guard = ConnectionGuard(cap=2, header_timeout=1.0)
    connections = held(guard, *"abcdef")  # four of them made room for the next
    assert len(caplog.records) == 1 and "closing the one waiting longest" in caplog.text
    for connection in connections:
        guard.gone(connection)
    held(guard, "g", "h", "i")
    assert len(caplog.records) == 2  # a new episode is said again


def test_running_out_of_descriptors_on_accept_is_one_line_not_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    guard = ConnectionGuard(cap=100, header_timeout=1.0)
    loop = asyncio.new_event_loop()
    try:
        for _ in range(50):
            failure = OSError(errno.EMFILE, "Too many open files")
            guard.loop_exception(loop, {"message": "socket.accept()", "exception": failure})
    finally:
        loop.close()
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(records) == 1 and "out of file descriptors" in records[0].getMessage()
    assert records[0].exc_info is None
