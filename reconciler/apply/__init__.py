"""The applier: sends a plan's calls in dependency order, concurrently where allowed, and
records each step in a journal (README: journals and partial failures)."""

from reconciler.apply.engine import execute
from reconciler.apply.events import CallEvent, EventKind
from reconciler.apply.journal import Journal
from reconciler.apply.result import ApplyResult, CallOutcome, Status

__all__ = [
    "ApplyResult",
    "CallEvent",
    "CallOutcome",
    "EventKind",
    "Journal",
    "Status",
    "execute",
]
