"""How `orgctl serve` holds up against clients that open connections and never finish a
request (slowloris), within the process's file-descriptor limit.

- A connection must send a whole request head within `header_timeout` seconds of
  opening, and of its previous answer when kept alive; otherwise it is answered 408 and
  closed (uvicorn times out only idle kept-alive connections, h11 nothing).
- At most `cap` connections are held, a number derived from the descriptor limit
  (`connection_cap`). At the cap, a new connection closes the one that has waited
  longest for its request head, so a client that sends whole requests gets through
  however many half-sent ones are held; when every held connection is busy with a
  request, the new one is answered 503 and closed.
- Each kind of refusal is logged once, in one line, until the connections fall well
  below the cap; running out of descriptors all the same (other processes, a lower
  hard limit) is one line too, never asyncio's traceback for every failed accept.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Connections asyncio accepts in one go, before any of them reaches the cap (it is
# uvicorn's `backlog`): two such bursts may be in flight while the cap catches up.
ACCEPT_BURST = 64
# Descriptors the process needs besides connections: the listener, the database and its
# journal files, standard streams, the event loop's selector, TLS and module files.
RESERVED_DESCRIPTORS = 32
MIN_CONNECTIONS = 8
OUT_OF_DESCRIPTORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
log = logging.getLogger("orgctl.serve")

Close = Callable[[], None]


def descriptor_limit() -> int:
    """The process's soft limit on open files (`ulimit -n`, `prlimit --nofile`)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)


def connection_cap(limit: int) -> int:
    """Connections held at most under a descriptor `limit`: what the process needs itself
    and two accept bursts are kept free, so accepting never runs out."""
    return max(limit - RESERVED_DESCRIPTORS - 2 * ACCEPT_BURST, MIN_CONNECTIONS)


@dataclass
class ConnectionGuard:
    cap: int
    header_timeout: float  # seconds (`orgctl serve --header-timeout`)
    held: set[object] = field(default_factory=set)
    # Connections waiting for a request head, longest-waiting first, and how to close each.
    waiting: dict[object, Close] = field(default_factory=dict)
    said: set[str] = field(default_factory=set)  # refusal kinds logged in this episode

    def admit(self, connection: object, close: Close) -> bool:
        """Hold a new connection (closing the longest-waiting one at the cap); False when
        it must be refused because every held connection is busy with a request."""
        if len(self.held) >= self.cap:
            if not self.waiting:
                self.say("busy", f"all {self.cap} connections are busy: answering 503")
                return False
            oldest, close_oldest = next(iter(self.waiting.items()))
            self.gone(oldest)
            close_oldest()
            self.say(
                "cap",
                f"{self.cap} connections open (the cap for {descriptor_limit()} file"
                " descriptors): closing the one waiting longest for its request for each"
                " new one",
            )
        self.held.add(connection)
        self.awaits_head(connection, close)
        return True

    def awaits_head(self, connection: object, close: Close) -> None:
        """`connection` waits for a request head from now (it goes to the back)."""
        self.waiting.pop(connection, None)
        self.waiting[connection] = close

    def head_arrived(self, connection: object) -> None:
        self.waiting.pop(connection, None)

    def gone(self, connection: object) -> None:
        self.held.discard(connection)
        self.waiting.pop(connection, None)
        if len(self.held) < self.cap // 2:
            self.said.clear()  # the episode is over: a next one is said again

    def say(self, kind: str, message: str) -> None:
        if kind not in self.said:
            self.said.add(kind)
            log.warning("orgctl serve: %s", message)

    def loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler: a failed accept for want of descriptors is
        one line; anything else goes to asyncio's own handler."""
        failure = context.get("exception")
        if isinstance(failure, OSError) and failure.errno in OUT_OF_DESCRIPTORS:
            self.say(
                "descriptors",
                f"out of file descriptors (limit {descriptor_limit()}): new connections"
                " wait until some close",
            )
            return
        loop.default_exception_handler(context)
