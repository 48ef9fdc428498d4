"""Each portal's reconcile state as the endpoints, metrics and notifications tell it."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import UTC, datetime


class State(enum.StrEnum):
    UNKNOWN = "Unknown"  # not reconciled yet
    SYNCED = "Synced"
    OUT_OF_SYNC = "OutOfSync"
    APPLYING = "Applying"
    FAILED = "Failed"  # unreachable, refused credentials, manifests that fail to load


@dataclass(slots=True)
class PortalStatus:
    name: str
    shard: int = 0
    state: State = State.UNKNOWN
    revision: str | None = None  # the last good revision (its manifests loaded)
    last_reconcile: datetime | None = None
    next_reconcile: datetime | None = None  # None while a reconcile runs
    last_error: str | None = None
    drifted: dict[str, int] = field(default_factory=dict)  # kind -> drifted resources

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "state": str(self.state),
            "revision": self.revision,
            "lastReconcile": rfc3339(self.last_reconcile),
            "nextReconcile": rfc3339(self.next_reconcile),
            "lastError": self.last_error,
            "drifted": sum(self.drifted.values()),
            "shard": self.shard,
        }


def rfc3339(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def now() -> datetime:
    return datetime.now(UTC)
