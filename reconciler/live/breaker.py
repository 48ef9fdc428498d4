"""The circuit breaker of one client, shared by every request of a run.

A portal that stopped answering (killed, its host down) used to be tried four times per
request, one request after another: minutes of retry lines for a large apply. A
credential the portal refuses, with no password to sign in again, was sent with every
remaining call. Once the breaker opens, no request is sent any more: each fails at once
with the reason, and the apply reports its remaining calls as not sent.

It opens on a streak of connection failures across requests (no connection, or no reply)
with no answer in between, lasting at least a few seconds: a blip of resets from a
restarting load balancer is still retried, a dead portal stops the run within seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from reconciler.live.errors import ConnectionFailure, PortalError

# Connection failures in a row, across requests, that open the breaker ...
STREAK = 8
# ... when at least this many seconds separate the first of them from the last.
SPAN_SECONDS = 1.0
# While a streak lasts, one retry line is told this often, not one per request and try.
TELL_SECONDS = 5.0


class PortalStopped(PortalError):
    """Not sent: the breaker is open (the portal stopped answering, or refused the
    credentials with no way to sign in again). `maybe_processed`: an earlier try of the
    same request got no reply, so it may have taken effect all the same."""

    def __init__(self, headline: str, detail: str, maybe_processed: bool = False) -> None:
        self.headline = headline  # the reason alone, for a line that only refers to it
        self.maybe_processed = maybe_processed
        super().__init__(f"{headline} ({detail})")


@dataclass
class Breaker:
    streak: int = STREAK
    span: float = SPAN_SECONDS
    clock: Callable[[], float] = time.monotonic
    reason: str | None = None  # why requests are no longer sent, once they are not
    detail: str = ""
    ever_answered: bool = False  # a portal that never answered is unreachable, not stopped
    _failures: int = 0
    _first: float = field(default=0.0)
    _told: float | None = None
    _teller: object = None

    def stopped(self) -> str | None:
        """Why requests are no longer sent, in full; None while they are."""
        return None if self.reason is None else f"{self.reason} ({self.detail})"

    def check(self, maybe_processed: bool = False) -> None:
        """Raise `PortalStopped` when requests must no longer be sent."""
        if self.reason is not None:
            raise PortalStopped(self.reason, self.detail, maybe_processed)

    def answered(self) -> None:
        """The portal answered (whatever it said): the streak is broken."""
        self.ever_answered = True
        self._failures = 0
        self._told = None

    def no_answer(self, error: PortalError, where: str) -> None:
        """A try got no connection or no reply."""
        now = self.clock()
        if self._failures == 0:
            self._first = now
        self._failures += 1
        lasted = now - self._first
        if self.reason is None and self._failures >= self.streak and lasted >= self.span:
            last = error.short if isinstance(error, ConnectionFailure) else str(error)
            state = "stopped answering" if self.ever_answered else "is unreachable"
            self.reason = f"the portal at {where} {state}"
            self.detail = (
                f"{self._failures} tries in a row over {lasted:.1f}s got no answer; the last:"
                f" {last}"
            )

    def quiet(self, request: object) -> bool:
        """True when the retry of `request` (any object standing for one request) after
        no answer need not be told: another request told this streak moments ago. One
        request's own tries are all told; eight calls in flight to a dead portal would
        otherwise print eight lines per try."""
        if self._failures == 0:
            return False
        now = self.clock()
        recent = self._told is not None and now - self._told < TELL_SECONDS
        if recent and self._teller is not request:
            return True
        self._told, self._teller = now, request
        return False

    def refused(self, error: PortalError) -> None:
        """The portal refused the credentials and there is no way to sign in again."""
        if self.reason is None:
            self.reason = "the portal refused the credentials, and they cannot be renewed"
            self.detail = str(error)
