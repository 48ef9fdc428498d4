"""The writes the manifests may need, not only the ones today's plan needs: a portal in
sync plans no call, yet the next change to a Role document sends setPrivileges. Each
declared document gives the operations that apply sends for it (docs/rules.md §4 and
§5), for its own resource; the planner's predictions (`plan.capabilities`) say whether
the member that applies may make them."""

from __future__ import annotations

from collections.abc import Iterator

from reconciler.doctor.findings import Check, Finding, Severity
from reconciler.kind import Write, registered
from reconciler.plan.capabilities import may_call, requirement
from reconciler.plan.draft import PendingCall
from reconciler.state import Caller, DesiredState, LiveState


def declared_writes(desired: DesiredState, live: LiveState) -> Iterator[PendingCall]:
    """One call per operation and declared resource kind, with the arguments that decide
    who may make it (a collaboration's side, a task's owner): each kind's `writes`, in the
    kinds' order. A kind with none leaves its writes to today's plan (the delivery
    settings', whose capability is the webhook removal's)."""
    for kind in registered():
        if kind.writes is not None:
            for write in kind.writes(desired, live):
                yield _call(write)


def _call(write: Write) -> PendingCall:
    operation, address = write.operation, write.address
    key = f"{operation} {address}"
    return PendingCall(key, address, operation, "", dict(write.arguments), {}, side=write.side)


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
