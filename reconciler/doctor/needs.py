"""The writes the manifests may need, not only the ones today's plan needs: a portal in
sync plans no call, yet the next change to a Role document sends setPrivileges. Each
declared document gives the operations that apply sends for it (docs/rules.md §4 and
§5), for its own resource; the planner's predictions (`plan.capabilities`) say whether
the member that applies may make them."""

from __future__ import annotations

from collections.abc import Iterator

from reconciler.address_forms import COLLABORATION
from reconciler.doctor.findings import Check, Finding, Severity
from reconciler.operations import OperationName
from reconciler.plan.capabilities import may_call, requirement
from reconciler.plan.draft import PendingCall
from reconciler.state import Caller, DesiredState, LiveState

Op = OperationName
ROLE_WRITES = (Op.CREATE_ROLE, Op.UPDATE_ROLE, Op.SET_PRIVILEGES, Op.DELETE_ROLE)
HOST_WRITES = (Op.UPDATE_INFO, Op.INVALIDATE_INVITATION, Op.DELETE_COLLABORATION)
GUEST_WRITES = (Op.UPDATE_GROUP_LINK, Op.UPDATE_SCHEDULE, Op.REMOVE_PARTICIPATION)


def declared_writes(desired: DesiredState, live: LiveState) -> Iterator[PendingCall]:
    """One call per operation and declared resource kind, with the arguments that decide
    who may make it (a collaboration's side, a task's owner). The delivery settings'
    write is left to today's plan: naming that kind here would spread it beyond its
    module (tests/test_kinds.py), and its capability is the webhook removal's."""
    if desired.roles:
        yield from (_call(op, "Role") for op in ROLE_WRITES)
    if desired.members:
        yield _call(Op.UPDATE_USER_ROLE, "Members")
        if any(m.level is not None for m in desired.members.values()):
            yield _call(Op.UPDATE_USER_LEVEL, "Members")
    for cid in sorted(desired.collaborations):
        known = live.collaborations.get(cid)
        if known is None:
            continue  # not on the portal: the plan says so itself
        host = known.hostPortalId == live.portal.id
        for op in HOST_WRITES if host else GUEST_WRITES:
            yield _call(op, COLLABORATION.of(cid), collaborationId=cid)
    if desired.webhookRemoval is not None:
        yield _call(Op.DELETE_WEBHOOK, "OrganizationWebhooks")
    for policy in desired.retention:
        yield _call(Op.DELETE_TASK_RUN, f"TaskRunRetention/{policy.name}", username=policy.user)


def _call(operation: OperationName, address: str, **arguments: str) -> PendingCall:
    return PendingCall(f"{operation} {address}", address, operation, "", dict(arguments), {})


def refused_writes(
    desired: DesiredState, live: LiveState, applier: tuple[Caller, str], planned: set[str]
) -> Iterator[Finding]:
    """A blocker for each operation the manifests may need that the member that applies
    may not make (those today's plan already refuses are its own errors)."""
    caller, label = applier
    for call in declared_writes(desired, live):
        if str(call.operation) in planned or may_call(caller, call, live):
            continue
        needed = requirement(call, live).text
        yield Finding(
            Check.CAPABILITIES,
            Severity.BLOCKER,
            f"{call.address} may need {call.operation}, which needs {needed};"
            f" {label} {caller.username} is not: the portal would refuse it (403)",
            "apply as a member who may (name it in the Portal's spec.applier)",
        )
