"""The planner's working state: changes, calls not yet numbered, problems.

Each resource module (roles, members, collaborations, webhooks, retention) adds to one
`Draft`; `order` then numbers the calls. A pending call names its dependencies by key
(operation and address), since sequence numbers exist only once the order is known.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from reconciler.operations import OPERATIONS, OperationName, Phase, Root, call_key
from reconciler.plan.model import Change, Ignored, PlanProblem, PolicyVerdict, Value
from reconciler.state import Caller, DesiredState, LiveState, Side


@dataclass(frozen=True, slots=True)
class PendingCall:
    key: str
    address: str
    operation: OperationName
    root: str
    arguments: dict[str, Value]
    params: dict[str, Value]
    after: tuple[str, ...] = ()  # keys of calls that must succeed first
    # This portal's side of the call's collaboration (None: no collaboration's call),
    # which decides who may make it; never part of the plan itself.
    side: Side | None = None

    @property
    def phase(self) -> Phase:
        return OPERATIONS[self.operation].phase


@dataclass(slots=True)
class Draft:
    desired: DesiredState
    live: LiveState
    now_ms: int
    # False: the policies are not judged against the plan (a drift report judges them on
    # the live state alone, reconciler.kinds.policy.live_verdicts).
    judge_policies: bool = True
    # The evaluation time policies are judged at (reconciler.clock), in Unix ms; None:
    # `now_ms`, the portal's clock that dates its own runs and schedules.
    judged_ms: int | None = None
    # Mark each change whose live resource holds administrative privileges the manifests
    # do not declare (a drift report's riskiest finding; the role's and the members'
    # annotate, live_admin.py in their packages).
    live_admin: bool = False
    # Planned as the documents declare it, to find what ignoreChanges hides
    # (reconciler.plan.ignored): no live resource is filed under another name.
    as_declared: bool = False
    changes: list[Change] = field(default_factory=list)
    calls: dict[str, PendingCall] = field(default_factory=dict)
    errors: list[PlanProblem] = field(default_factory=list)
    warnings: list[PlanProblem] = field(default_factory=list)
    # Each live member's role once this plan is sent (set when members are planned; role
    # deletions wait for it).
    final_roles: dict[str, str | None] = field(default_factory=dict)
    # The live custom roles no manifest declares, when they are not pruned (information).
    undeclared_roles: tuple[str, ...] = ()
    # Live resources filed under another declared address (a role renamed in place, or
    # declared absent in another case, reconciler.kinds.role.renames): live address ->
    # declared address. A plan's digests name such a resource as read.
    filed: dict[str, str] = field(default_factory=dict)
    # The member the plan predicts applies it, and how it is named ("the signed-in user
    # admin2"), once its capabilities are checked; None when they are not.
    applying: tuple[Caller, str] | None = None
    # What the kinds' own ignore rules keep, per resource (a role's ignorePrivileges).
    ignored: list[Ignored] = field(default_factory=list)
    # The policies' verdicts (reconciler.kinds.policy); None when no policy is declared.
    policies: list[PolicyVerdict] | None = None
    # What a kind judges on the calls the plan keeps, once --target has left some out
    # (the shipped policies): the kinds stand above the planner, which calls them back.
    on_kept: list[Callable[[Draft], None]] = field(default_factory=list)

    def final_privileges(self, role: str) -> frozenset[str] | None:
        """The privileges custom role `role` holds once the plan is sent (None: unknown)."""
        declared = self.desired.roles.get(role)
        if declared is not None and declared.privileges is not None:
            return declared.privileges
        live = self.live.roles.get(role)
        return live.privileges if live else None

    @property
    def judged_at(self) -> datetime:
        return datetime.fromtimestamp((self.judged_ms or self.now_ms) / 1000, UTC)

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
        address: str,
        operation: OperationName,
        params: Mapping[str, Value],
        *,
        ids: Mapping[str, Value] | None = None,
        after: tuple[str, ...] = (),
        side: Side | None = None,
    ) -> str:
        """Add a call; returns its key for the calls that depend on it."""
        key = call_key(operation, address)
        arguments: dict[str, Value] = {"portalId": self.live.portal.id, **(ids or {})}
        root = self.root(operation)
        self.calls[key] = PendingCall(
            key, address, operation, root, arguments, dict(params), after, side
        )
        return key

    def wait_for(self, key: str, first: str) -> None:
        """Make the call `key` depend on `first` as well, once both are known."""
        call = self.calls[key]
        self.calls[key] = replace(call, after=(*call.after, first))
