"""What an apply did, call by call, in plan order whatever the timing was."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"


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

    def counts(self) -> dict[str, int]:
        counts = {status.value: 0 for status in Status}
        for outcome in self.outcomes:
            counts[outcome.status.value] += 1
        return counts

    def with_status(self, status: Status) -> tuple[CallOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status is status)

    def outcome(self, seq: int) -> CallOutcome:
        return next(o for o in self.outcomes if o.seq == seq)
