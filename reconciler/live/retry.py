"""When and how long to wait before retrying a transient failure.

Exponential backoff with full jitter (a uniform wait between 0 and the exponential
ceiling) spreads concurrent retries apart; a server's `Retry-After` wins over the guess.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

Sleep = Callable[[float], Awaitable[None]]


@dataclass(slots=True)
class RetryPolicy:
    attempts: int = 4  # total tries, the first included
    base: float = 0.5  # seconds; the ceiling before try n+1 is base * 2**(n-1)
    cap: float = 30.0  # no computed wait exceeds this
    max_retry_after: float = 120.0  # a server asking for longer is waited on this long
    sleep: Sleep = asyncio.sleep
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, failed_attempts: int, retry_after: float | None) -> float:
        """Seconds to wait after `failed_attempts` (>= 1) failed tries."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        ceiling = min(self.cap, self.base * 2 ** (failed_attempts - 1))
        return self.rng.uniform(0.0, ceiling)


def parse_retry_after(value: str | None) -> float | None:
    """`Retry-After` in seconds; the HTTP-date form is rare here and falls back to backoff."""
    if value is None:
        return None
    try:
        return float(value.strip())
    except ValueError:
        return None
