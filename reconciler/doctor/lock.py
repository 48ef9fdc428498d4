"""What the apply lock needs of the portal (`reconciler.apply.lock`): its file resources
readable, a lease orgctl can read (or none), and a member that applies who may write and
remove one. Read only: the lease is looked at, never written."""

from __future__ import annotations

from collections.abc import Iterator

from reconciler.apply.lock import KEY, UNREADABLE, LeaseStore
from reconciler.doctor.findings import Check, Finding, Severity
from reconciler.live.client import PortalClient
from reconciler.live.errors import ServiceError
from reconciler.operations import OPERATIONS, READS, OperationName, ReadName
from reconciler.plan.capabilities import MAY
from reconciler.plan.draft import PendingCall
from reconciler.state import Caller, LiveState

LOCK_WRITES = (OperationName.ADD_RESOURCE, OperationName.REMOVE_RESOURCE)


async def lock_findings(
    client: PortalClient, live: LiveState, applier: tuple[Caller, str] | None
) -> list[Finding]:
    found = [*_may_write(live, applier)]
    path = READS[ReadName.RESOURCES].build(portalId=live.portal.id)
    try:
        await client.get_json(path, {"num": 1})
        lease = await LeaseStore(client, live.portal.id).read()
    except ServiceError as refused:
        found.append(
            Finding(
                Check.LOCK,
                Severity.BLOCKER,
                f"the portal's resources, where apply keeps its lock ({KEY}), cannot be"
                f" read: {refused}",
                "apply as an organization administrator, on a portal that serves"
                " portals/<id>/resources (or check what stands before the portal)",
            )
        )
        return found
    if lease is None:
        found.append(Finding(Check.LOCK, Severity.OK, f"the lock resource {KEY} is free"))
    elif lease.id == UNREADABLE:
        found.append(
            Finding(
                Check.LOCK,
                Severity.DIFFERENCE,
                f"the lock resource {KEY} holds text orgctl did not write: every apply waits on it",
                "if no apply runs, break it: orgctl force-unlock unreadable MANIFESTS",
            )
        )
    else:
        found.append(
            Finding(Check.LOCK, Severity.NOTE, f"the portal is locked: {lease.describe()}")
        )
    return found


def _may_write(live: LiveState, applier: tuple[Caller, str] | None) -> Iterator[Finding]:
    if applier is None:
        return
    caller, label = applier
    refused = [name for name in LOCK_WRITES if not _may(caller, name, live)]
    if refused:
        needed = sorted({OPERATIONS[name].capability.value for name in refused})
        yield Finding(
            Check.LOCK,
            Severity.BLOCKER,
            f"apply takes and gives back its lock with {' and '.join(refused)}, which need"
            f" {' and '.join(needed)}; {label} {caller.username} is not",
            "apply as an organization administrator (name it in the Portal's spec.applier)",
        )


def _may(caller: Caller, name: OperationName, live: LiveState) -> bool:
    call = PendingCall(str(name), "Portal", name, "", {"portalId": live.portal.id}, {})
    return MAY[OPERATIONS[name].capability](caller, call, live)
