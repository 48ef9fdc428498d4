"""What an apply did, call by call, in plan order whatever the timing was."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    NOT_SENT = "not sent"  # its turn came after the run stopped (signal, dead portal, lost lock)
    UNKNOWN = "unknown"  # sent, and abandoned before its answer: it may have taken effect


@dataclass(frozen=True, slots=True)
class CallOutcome:
    seq: int
    address: str
    operation: str
    status: Status
    error: str | None = None  # failed: the message; skipped: why
    result: dict[str, Any] | None = None
    note: str | None = None  # e.g. a role adopted after an unanswered createRole
    cause: int | None = None  # skipped: the seq whose failure made this call impossible


@dataclass(frozen=True, slots=True)
class ApplyResult:
    outcomes: tuple[CallOutcome, ...]  # sorted by seq

    @property
    def ok(self) -> bool:
        return all(o.status is Status.DONE for o in self.outcomes)

    @property
    def stopped(self) -> bool:
        """The run stopped: some calls were never sent, or abandoned in flight."""
        return any(o.status in (Status.NOT_SENT, Status.UNKNOWN) for o in self.outcomes)

    def counts(self) -> dict[str, int]:
        """Calls done, failed and skipped; and, only when there are any, not sent and
        unknown (a run that stopped)."""
        counts = {status.value: 0 for status in (Status.DONE, Status.FAILED, Status.SKIPPED)}
        for outcome in self.outcomes:
            counts[outcome.status.value] = counts.get(outcome.status.value, 0) + 1
        return counts

    def with_status(self, status: Status) -> tuple[CallOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status is status)

    def outcome(self, seq: int) -> CallOutcome:
        return next(o for o in self.outcomes if o.seq == seq)
