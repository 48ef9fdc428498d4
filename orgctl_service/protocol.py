"""The HTTP protocol `orgctl serve` speaks: uvicorn's h11 protocol, with an answer for a
request head too large to parse, and the connection guard (`guard`): a time limit on
request heads and a cap on connections held.

h11 gives up on a head larger than its buffer (`app.REQUEST_HEAD_BYTES`, raised from
its 16 KiB) and uvicorn then answers a bare 400 and closes at once; a client still
sending its request sees the connection reset, never the answer. Here the answer is 414
(the request line is too long) or 431 (the header fields are), with the service's error
envelope, and what the client still sends is read and dropped until it pauses (closing
a socket with unread data resets the connection, and the client would lose the answer).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from orgctl_service.app import REQUEST_HEAD_BYTES, envelope
from orgctl_service.errors import ApiError
from orgctl_service.guard import ConnectionGuard

# After the answer, the connection closes once the client has sent nothing for
# LINGER_SECONDS, and at the latest MAX_LINGER_SECONDS after the answer.
LINGER_SECONDS = 1.0
MAX_LINGER_SECONDS = 10.0
_REASONS = {
    408: "Request Timeout",
    414: "URI Too Long",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}


class ServiceProtocol(H11Protocol):
    guard: ClassVar[ConnectionGuard | None] = None  # set by `guarded_protocol`
    closing_at = 0.0  # while draining: when the connection closes at the latest
    closer: asyncio.TimerHandle | None = None
    head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.guard is None:
            return
        if not self.guard.admit(self, self._close_waiting):
            busy = ApiError(503, "GWM_0503", "The service is busy: try again shortly")
            self.transport.write(refusal_answer(503, busy))
            self.transport.close()
            return
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._stop_head_timer()
        if self.guard is not None:
            self.guard.gone(self)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:  # a whole request head arrived
            self._stop_head_timer()
            if self.guard is not None:
                self.guard.head_arrived(self)

    def on_response_complete(self) -> None:
        super().on_response_complete()  # serves a pipelined request, if one is buffered
        idle = self.cycle is None or self.cycle.response_complete
        if idle and not self.transport.is_closing():
            self._await_head()  # kept alive: the next head has the same time limit

    def send_400_response(self, msg: str) -> None:
        buffered, _closed = self.conn.trailing_data
        if len(buffered) <= REQUEST_HEAD_BYTES:
            super().send_400_response(msg)  # malformed, not too large
            return
        line_end = buffered.find(b"\r\n")
        status = 414 if line_end < 0 or line_end > REQUEST_HEAD_BYTES else 431
        what = "Request line" if status == 414 else "Request header fields"
        error = ApiError(status, "GWM_0008", f"{what} exceeds {REQUEST_HEAD_BYTES} bytes")
        self.transport.write(refusal_answer(status, error))
        self.closing_at = self.loop.time() + MAX_LINGER_SECONDS
        self._close_later()

    def data_received(self, data: bytes) -> None:
        if self.closer is None:
            super().data_received(data)
        else:
            self._close_later()  # dropped: the answer is sent; the client is still sending

    def _close_later(self) -> None:
        self._stop_head_timer()
        if self.closer is not None:
            self.closer.cancel()
        when = min(self.loop.time() + LINGER_SECONDS, self.closing_at)
        self.closer = self.loop.call_at(when, self.transport.close)

    def _await_head(self) -> None:
        assert self.guard is not None
        self._stop_head_timer()
        self.head_timer = self.loop.call_later(self.guard.header_timeout, self._head_timed_out)
        self.guard.awaits_head(self, self._close_waiting)

    def _stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self) -> None:
        self.head_timer = None
        if self.transport.is_closing() or self.closer is not None:
            return
        assert self.guard is not None
        late = ApiError(
            408, "GWM_0408", f"No whole request head within {self.guard.header_timeout:g} s"
        )
        self.transport.write(refusal_answer(408, late))
        self.transport.close()

    def _close_waiting(self) -> None:
        """Closed to make room for a new connection (the guard's cap)."""
        self._stop_head_timer()
        if not self.transport.is_closing():
            self.transport.close()


def guarded_protocol(guard: ConnectionGuard) -> type[ServiceProtocol]:
    """The protocol class for one server, its connections counted by `guard`."""
    return type("GuardedServiceProtocol", (ServiceProtocol,), {"guard": guard})


class GuardedServer(uvicorn.Server):
    """uvicorn's server, whose event loop reports a failed accept through the guard."""

    def __init__(self, config: uvicorn.Config, guard: ConnectionGuard) -> None:
        super().__init__(config)
        self.guard = guard

    async def serve(self, sockets: Any = None) -> None:
        asyncio.get_running_loop().set_exception_handler(self.guard.loop_exception)
        await super().serve(sockets)


def refusal_answer(status: int, error: ApiError) -> bytes:
    """A whole HTTP answer with the error envelope, written outside h11 (the request was
    never parsed, or only in part); the connection closes after it."""
    body = json.dumps(envelope(error), separators=(",", ":")).encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body
