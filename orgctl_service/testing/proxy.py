"""A loopback HTTP proxy in front of the service that can lose replies or refuse requests.

It forwards every request, except: the first POST whose path ends with one of `swallow`
is forwarded (so the service acts on it) and its connection closed without a reply, the
"sent, no answer" case; the first POST whose path ends with one of `unavailable` is
answered 503 without reaching the service, a transient failure worth a retry; the first
POST whose path ends with one of `pretend` is answered `{"success": true}` without
reaching the service, a success that changed nothing; the first POST whose path ends
with one of `stall` is held (never forwarded) until the proxy closes, so a test can
interrupt the client while that call is in flight; the first POST whose path ends with one
of `forbid` is refused with a 403 error envelope, as when the caller's rights were taken
away after the plan was made; every POST whose path ends with one of `slow` waits
`delay` seconds before it is forwarded, so an apply lasts long enough for a test to act
in its middle.
"""

from __future__ import annotations

import json
import threading
import time

from orgctl_service.errors import NO_PERMISSION

from .forwarding import (
    DROP,
    FORWARD,
    HOLD,
    Action,
    ForwardingServer,
    Reply,
    Request,
    relayed,
    whole,
)


class FaultyProxy(ForwardingServer):
    def __init__(
        self,
        upstream: str,
        swallow: tuple[str, ...] = (),
        unavailable: tuple[str, ...] = (),
        pretend: tuple[str, ...] = (),
        stall: tuple[str, ...] = (),
        forbid: tuple[str, ...] = (),
        slow: tuple[str, ...] = (),
        delay: float = 0.0,
    ) -> None:
        super().__init__(upstream)
        self.slow = slow
        self.delay = delay
        self._pending = {
            "swallow": list(swallow),
            "unavailable": list(unavailable),
            "pretend": list(pretend),
            "stall": list(stall),
            "forbid": list(forbid),
        }
        self.swallowed: list[str] = []
        self.refused: list[str] = []
        self.pretended: list[str] = []
        self.held: list[str] = []
        self.forbidden: list[str] = []
        self.stalled = threading.Event()  # set once a stalled request is being held

    def _take(self, fault: str, path: str, record: list[str]) -> bool:
        """True (once per suffix) when `path` (without its query) is due for `fault`."""
        with self._lock:
            for suffix in self._pending[fault]:
                if path.endswith(suffix):
                    self._pending[fault].remove(suffix)
                    record.append(path)
                    return True
        return False

    def decide(self, request: Request) -> Action:
        if request.method != "POST":
            return FORWARD
        if request.path.endswith(self.slow):
            time.sleep(self.delay)
        if self._take("unavailable", request.path, self.refused):
            return whole(503, {"Retry-After": "0"}, b"Service Unavailable")
        if self._take("stall", request.path, self.held):
            self.stalled.set()
            return HOLD
        if self._take("forbid", request.path, self.forbidden):
            error = {"code": 403, "messageCode": "GWM_0003", "details": []}
            error["message"] = NO_PERMISSION
            return _json({"error": error})
        if self._take("pretend", request.path, self.pretended):
            return _json({"success": True})
        reply = self.forward(request)
        if self._take("swallow", request.path, self.swallowed):
            return DROP
        return relayed(reply)


def _json(value: object) -> Reply:
    return whole(200, {"Content-Type": "application/json"}, json.dumps(value).encode())
