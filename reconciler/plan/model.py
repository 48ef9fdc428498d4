"""The plan as a plain value (design §3). Renderers and the applier read it; none of
them walks the diff again."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

FORMAT_VERSION = 1

# A value known only after an earlier call, e.g. "${Role/Field Analyst.id}".
PLACEHOLDER = re.compile(r"\$\{(?P<address>[^}]+)\.(?P<attribute>[A-Za-z]+)\}")


class Action(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"


@dataclass(frozen=True, slots=True)
class Change:
    """One resource that differs; `before`/`after` hold only managed fields."""

    address: str
    action: Action
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "action": str(self.action),
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True, slots=True)
class Call:
    """One POST, in send order; `dependsOn` lists the seqs that must succeed first.

    `operation` names the catalog operation (reconciler.catalog.OPERATIONS); `produces`
    names the attribute this call yields for later placeholders (createRole: "id").
    """

    seq: int
    address: str
    operation: str
    url: str
    params: dict[str, str]
    dependsOn: tuple[int, ...] = ()
    produces: str | None = None
    method: str = "POST"

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "address": self.address,
            "method": self.method,
            "url": self.url,
            "params": self.params,
            "dependsOn": list(self.dependsOn),
        }


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a plan cannot be applied (error) or what the user should know (warning)."""

    address: str
    message: str

    def __str__(self) -> str:
        return f"{self.address}: {self.message}"

    def to_json(self) -> dict[str, str]:
        return {"address": self.address, "message": self.message}


@dataclass(frozen=True, slots=True)
class PortalRef:
    url: str
    portalId: str
    deployment: str
    version: str

    def to_json(self) -> dict[str, str]:
        return {
            "url": self.url,
            "portalId": self.portalId,
            "deployment": self.deployment,
            "version": self.version,
        }


@dataclass(frozen=True, slots=True)
class Plan:
    portal: PortalRef
    changes: tuple[Change, ...] = ()
    calls: tuple[Call, ...] = ()
    errors: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()
    liveFingerprint: str = ""
    # Per-resource digests of the live state planned on, to name what a stale plan missed.
    liveDigests: Mapping[str, str] = field(default_factory=dict)
    # The manifests the plan was made from, as given on the command line: `apply --plan`
    # reads them again for the credentials' variable names and what to re-read.
    manifests: str | None = None
    # The --target addresses the plan was limited to; `apply --plan` verifies within them.
    targets: tuple[str, ...] = ()

    def with_manifests(self, manifests: str) -> Plan:
        return replace(self, manifests=manifests)

    @property
    def empty(self) -> bool:
        return not self.changes and not self.calls

    def summary(self) -> dict[str, int]:
        counts = {action.value: 0 for action in Action}
        for change in self.changes:
            counts[change.action.value] += 1
        return {**counts, "calls": len(self.calls)}
