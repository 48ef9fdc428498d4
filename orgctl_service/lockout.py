"""Counts of consecutive failed sign-ins per member name and per client address, and the
locks they lead to (the policy is described in `signin`).

They run on real time, not on the service clock: a state with a fixed `clock` stands
still, and a lock measured by it would never end (16 minutes later the member was still
locked out). Moving the service clock forward through `/_control/clock` (tests only)
moves them as far, so a test ends a lock without waiting 15 minutes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from orgctl_service.passwords import Remembered

MINUTE_MS = 60_000


@dataclass(frozen=True, slots=True)
class LockoutPolicy:
    member_failures: int = 5
    address_failures: int = 20
    window_ms: int = 15 * MINUTE_MS  # failures further apart than this are not consecutive
    lock_ms: int = 15 * MINUTE_MS
    max_tracked: int = 10_000  # names and addresses remembered at once, oldest dropped first


Key = tuple[str, ...]  # ("member", portal id, name) or ("address", client address)


@dataclass(slots=True)
class _Run:
    """Consecutive failures of one name or address, and the lock they led to."""

    count: int = 0
    first: int = 0
    locked_until: int = 0


@dataclass
class SignInGuard:
    policy: LockoutPolicy = field(default_factory=LockoutPolicy)
    runs: dict[Key, _Run] = field(default_factory=dict)
    remembered: Remembered = field(default_factory=Remembered)
    skipped_ms: int = 0  # how far /_control/clock moved the service clock forward

    def now(self) -> int:
        """Milliseconds of real (monotonic) time, plus what control skipped."""
        return time.monotonic_ns() // 1_000_000 + self.skipped_ms

    def skip(self, ms: int) -> None:
        """The service clock moved `ms` forward (a move back does not unlock anything)."""
        self.skipped_ms += max(ms, 0)

    def locked_for(self, keys: list[Key]) -> int:
        """Milliseconds until the latest lock among `keys` ends; 0 when none holds now."""
        now = self.now()
        ends = [run.locked_until for key in keys if (run := self.runs.get(key))]
        return max([end - now for end in ends if end > now], default=0)

    def failed(self, keys: list[Key]) -> None:
        now = self.now()
        for key in keys:
            run = self.runs.get(key)
            if run is None or now - run.first > self.policy.window_ms or run.locked_until:
                run = self.runs[key] = _Run(first=now)
            run.count += 1
            member = key[0] == "member"
            limit = self.policy.member_failures if member else self.policy.address_failures
            if run.count >= limit:
                run.locked_until = now + self.policy.lock_ms
        self._forget_oldest()

    def succeeded(self, keys: list[Key]) -> None:
        for key in keys:
            self.runs.pop(key, None)

    def _forget_oldest(self) -> None:
        while len(self.runs) > self.policy.max_tracked:
            del self.runs[next(iter(self.runs))]
