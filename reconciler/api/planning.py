"""Plan and apply, as `orgctl plan` and `orgctl apply --plan --auto-approve`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike

from reconciler.api.applying import Applying
from reconciler.api.session import Connection, Manifests, client_for
from reconciler.apply import ApplyResult
from reconciler.errors import UserError
from reconciler.plan.model import Plan
from reconciler.runtime import run
from reconciler.state import DesiredState
from reconciler.workflow import Planned, PlanOptions, plan_live

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
    planned = await planned_with(manifests.desired, connection, options)
    return planned.plan.with_manifests(manifests.path.as_posix())


def plan_sync(
    manifests: Manifests,
    connection: Connection,
    *,
    targets: Sequence[str] = (),
    allow_deletes: bool = False,
) -> Plan:
    return run(plan(manifests, connection, targets=targets, allow_deletes=allow_deletes))


async def planned_with(
    desired: DesiredState, connection: Connection, options: PlanOptions
) -> Planned:
    """The plan and the live state it was made on, with the CLI's every option."""
    async with client_for(desired, connection) as client:
        return await plan_live(client, desired, options)


@dataclass(frozen=True, slots=True)
class Applied:
    """What an apply sent, and what the portal still differs in afterwards."""

    plan: Plan  # the plan sent: the one given, made again on the live state
    result: ApplyResult | None  # None: nothing to send
    after: Plan | None  # the plan made after sending; None: stopped before every call

    @property
    def converged(self) -> bool:
        """The portal matches the manifests: every call succeeded and nothing is left."""
        ok = self.result is None or self.result.ok
        return ok and self.after is not None and self.after.empty and not self.after.errors


async def apply(
    manifests: Manifests,
    plan: Plan,
    connection: Connection,
    *,
    parallelism: int = 8,
    lock: bool = True,
    lock_timeout: float = 0.0,
    journal: str | PathLike[str] | None = None,
) -> Applied:
    """Send `plan` (from `plan()`, or `plan_from_json` of a saved file) and read the
    portal again (`orgctl apply --plan --auto-approve`). Under the portal's apply lock
    (waiting up to `lock_timeout` seconds for another apply's), the plan is made again
    and sent only when it is still the plan given: `StalePlan` when the portal or the
    manifests changed since; `UserError` when it has errors, goes to another portal, or
    the lock is held. A call that fails is an outcome in `result`, not an exception."""
    async with Applying(manifests, connection, parallelism=parallelism) as applying:
        if lock:
            await applying.lock(lock_timeout)
        fresh = await applying.replan(plan)
        if fresh.errors:
            problems = "; ".join(str(problem) for problem in fresh.errors)
            raise UserError(f"refusing to apply a plan with errors; nothing was sent: {problems}")
        if fresh.empty:
            return Applied(fresh, None, fresh)
        result = await applying.send(fresh, journal=journal)
        if result.stopped:
            return Applied(fresh, result, None)
        return Applied(fresh, result, await applying.plan(targets=fresh.targets))


def apply_sync(
    manifests: Manifests,
    plan: Plan,
    connection: Connection,
    *,
    parallelism: int = 8,
    lock: bool = True,
    lock_timeout: float = 0.0,
    journal: str | PathLike[str] | None = None,
) -> Applied:
    return run(
        apply(
            manifests,
            plan,
            connection,
            parallelism=parallelism,
            lock=lock,
            lock_timeout=lock_timeout,
            journal=journal,
        )
    )
