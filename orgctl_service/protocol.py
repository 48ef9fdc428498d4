"""The HTTP protocol `orgctl serve` speaks: uvicorn's h11 protocol, with an answer for a
request head too large to parse.

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

from uvicorn.protocols.http.h11_impl import H11Protocol

from orgctl_service.app import REQUEST_HEAD_BYTES, envelope
from orgctl_service.errors import ApiError

# After the answer, the connection closes once the client has sent nothing for
# LINGER_SECONDS, and at the latest MAX_LINGER_SECONDS after the answer.
LINGER_SECONDS = 1.0
MAX_LINGER_SECONDS = 10.0
_REASONS = {414: "URI Too Long", 431: "Request Header Fields Too Large"}


class ServiceProtocol(H11Protocol):
    closing_at = 0.0  # while draining: when the connection closes at the latest
    closer: asyncio.TimerHandle | None = None

    def send_400_response(self, msg: str) -> None:
        buffered, _closed = self.conn.trailing_data
        if len(buffered) <= REQUEST_HEAD_BYTES:
            super().send_400_response(msg)  # malformed, not too large
            return
        line_end = buffered.find(b"\r\n")
        status = 414 if line_end < 0 or line_end > REQUEST_HEAD_BYTES else 431
        self.transport.write(too_large_answer(status))
        self.closing_at = self.loop.time() + MAX_LINGER_SECONDS
        self._close_later()

    def data_received(self, data: bytes) -> None:
        if self.closer is None:
            super().data_received(data)
        else:
            self._close_later()  # dropped: the answer is sent; the client is still sending

    def _close_later(self) -> None:
        if self.closer is not None:
            self.closer.cancel()
        when = min(self.loop.time() + LINGER_SECONDS, self.closing_at)
        self.closer = self.loop.call_at(when, self.transport.close)


def too_large_answer(status: int) -> bytes:
    """The whole HTTP answer to a request head over `REQUEST_HEAD_BYTES`."""
    what = "Request line" if status == 414 else "Request header fields"
    error = ApiError(status, "GWM_0008", f"{what} exceeds {REQUEST_HEAD_BYTES} bytes")
    body = json.dumps(envelope(error), separators=(",", ":")).encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body
