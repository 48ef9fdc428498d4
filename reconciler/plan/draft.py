"""The planner's working state: changes, calls not yet numbered, problems.

Each resource module (roles, members, collaborations, webhooks, retention) adds to one
`Draft`; `order` then numbers the calls. A pending call names its dependencies by key
(operation and address), since sequence numbers exist only once the order is known.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import IntEnum

from reconciler.operations import OPERATIONS, OperationName, Root
from reconciler.plan.model import Change, PlanProblem, Value
from reconciler.state import DesiredState, LiveState


class Group(IntEnum):
    """Send order: roles, privileges, member roles, levels, collaborations, webhook
    settings; deletions come last, roles last of all (after no member holds them)."""

    ROLES = 1
    ROLE_PRIVILEGES = 2
    MEMBER_ROLES = 3
    MEMBER_LEVELS = 4
    COLLABORATIONS = 5
    WEBHOOK_SETTINGS = 6
    DELETE_TASK_RUNS = 7
    DELETE_WEBHOOKS = 8
    DELETE_COLLABORATIONS = 9
    DELETE_ROLES = 10


@dataclass(frozen=True, slots=True)
class PendingCall:
    key: str
    group: Group
    address: str
    operation: OperationName
    root: str
    arguments: dict[str, Value]
    params: dict[str, Value]
    after: tuple[str, ...] = ()  # keys of calls that must succeed first


def call_key(operation: str, address: str) -> str:
    return f"{operation} {address}"


@dataclass(slots=True)
class Draft:
    desired: DesiredState
    live: LiveState
    now_ms: int
    changes: list[Change] = field(default_factory=list)
    calls: dict[str, PendingCall] = field(default_factory=dict)
    errors: list[PlanProblem] = field(default_factory=list)
    warnings: list[PlanProblem] = field(default_factory=list)

    def error(self, address: str, message: str) -> None:
        self.errors.append(PlanProblem(address, message))

    def warn(self, address: str, message: str) -> None:
        self.warnings.append(PlanProblem(address, message))

    def root(self, operation: OperationName) -> str:
        portal = self.desired.portal
        sharing = OPERATIONS[operation].path.root is Root.SHARING
        return portal.url if sharing else (portal.adminUrl or "")

    def call(
        self,
        group: Group,
        address: str,
        operation: OperationName,
        params: Mapping[str, Value],
        *,
        ids: Mapping[str, Value] | None = None,
        after: tuple[str, ...] = (),
    ) -> str:
        """Add a call; returns its key for the calls that depend on it."""
        key = call_key(operation, address)
        arguments: dict[str, Value] = {"portalId": self.live.portal.id, **(ids or {})}
        root = self.root(operation)
        self.calls[key] = PendingCall(
            key, group, address, operation, root, arguments, dict(params), after
        )
        return key

    def wait_for(self, key: str, first: str) -> None:
        """Make the call `key` depend on `first` as well, once both are known."""
        call = self.calls[key]
        self.calls[key] = replace(call, after=(*call.after, first))
