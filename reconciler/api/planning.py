"""Plan and apply, as `orgctl plan` and `orgctl apply --plan --auto-approve`."""

from __future__ import annotations

from collections.abc import Sequence

from reconciler.api.session import Connection, Manifests, client_for
from reconciler.plan.model import Plan
from reconciler.runtime import run
from reconciler.workflow import PlanOptions, plan_live

# --- plan and apply ------------------------------------------------------------------------


async def plan(
    manifests: Manifests,
    connection: Connection,
    *,
    targets: Sequence[str] = (),
    allow_deletes: bool = False,
) -> Plan:
    """The ordered calls that would converge the portal on the manifests, on the live
    state read now (`orgctl plan`). Problems the portal shows (a call the account may not
    make, too many deletions) are the plan's `errors`, not raised."""
    options = PlanOptions(allow_deletes, tuple(dict.fromkeys(targets)))
    desired = manifests.desired
    async with client_for(desired, connection) as client:
        planned = await plan_live(client, desired, options)
    return planned.plan.with_manifests(manifests.path.as_posix())


def plan_sync(
    manifests: Manifests,
    connection: Connection,
    *,
    targets: Sequence[str] = (),
    allow_deletes: bool = False,
) -> Plan:
    return run(plan(manifests, connection, targets=targets, allow_deletes=allow_deletes))
