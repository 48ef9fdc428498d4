"""What happens to a call as it happens: one event feeds both the journal and progress."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from reconciler.plan.model import Call


class EventKind(StrEnum):
    START = "start"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"
    RETRY = "retry"  # one try failed and the call is being tried again
    NOT_SENT = "not-sent"  # its turn came after the run stopped
    UNKNOWN = "unknown"  # sent, then abandoned before its answer (a second Ctrl-C)


@dataclass(frozen=True, slots=True)
class CallEvent:
    call: Call
    kind: EventKind
    params: dict[str, str] | None = None  # start: the fields as sent (placeholders resolved)
    result: dict[str, Any] | None = None  # done
    error: dict[str, Any] | None = None  # failed, skipped: at least {"message"}
    note: str | None = None
    attempt: int | None = None  # retry: how many tries have failed so far
