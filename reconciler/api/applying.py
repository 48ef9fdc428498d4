"""Apply: `apply()` sends a plan and verifies it, as `orgctl apply --plan --auto-approve`;
`Applying` is an apply held open step by step, for a program that shows the plan and
asks before sending, as `orgctl apply` does."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from types import TracebackType

from reconciler.api.session import Connection, Manifests, client_for
from reconciler.apply import ApplyResult, Journal, execute
from reconciler.apply.engine import EventHook, Guard
from reconciler.apply.lock import ApplyLock, Lease, LeaseStore, lease_seconds, new_run_id
from reconciler.apply.saved import SavedPlan, check_same_portal, replan
from reconciler.errors import UserError
from reconciler.plan.model import Plan
from reconciler.plan.render.json import plan_document
from reconciler.runtime import run
from reconciler.workflow import PlanOptions, plan_live


class Applying:
    """One client to the manifests' portal and, once `lock` took it, the portal's apply
    lock, kept until the block ends:

        async with Applying(manifests, connection) as applying:
            await applying.lock(timeout=60)
            plan = await applying.plan()
            ...  # show it, ask
            result = await applying.send(plan)
            after = await applying.plan()  # empty: converged
    """

    def __init__(
        self,
        manifests: Manifests,
        connection: Connection,
        *,
        parallelism: int = 8,
        run_id: str | None = None,
    ) -> None:
        self.manifests = manifests
        self.connection = connection
        self.parallelism = parallelism
        # Names this apply in its journal lines and its lease on the portal.
        self.run_id = run_id or new_run_id()
        self.client = client_for(manifests.desired, connection, parallelism)
        self._held: ApplyLock | None = None

    async def __aenter__(self) -> Applying:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            await self.release()
        finally:
            await self.client.aclose()

    @property
    def lease(self) -> Lease | None:
        """The lease this apply holds on the portal, while it holds one."""
        return self._held.lease if self._held is not None else None

    async def lock(self, timeout: float = 0.0) -> Lease:
        """Take the portal's apply lock, waiting up to `timeout` seconds for another
        apply's (`LockError` past it); it is renewed while calls are sent."""
        held = ApplyLock(
            LeaseStore(self.client),
            lease_seconds=lease_seconds(self.connection.variables),
            notice=self.connection.notice,
        )
        lease = await held.acquire(timeout, self.run_id)
        self._held = held
        return lease

    async def release(self) -> None:
        """Give the lock back (nothing when none is held); once only, even when it fails."""
        held, self._held = self._held, None
        if held is not None:
            await held.release()

    async def plan(self, *, targets: Sequence[str] = (), allow_deletes: bool = False) -> Plan:
        """The plan on the live state now, checked as the signed-in account that will
        send it: the plan to send, or, after sending, what is left (empty: converged)."""
        options = PlanOptions(allow_deletes, tuple(targets), signed_in_applies=True)
        desired = self.manifests.desired
        return (await plan_live(self.client, desired, options)).plan.with_manifests(
            self.manifests.path.as_posix()
        )

    async def replan(self, saved: Plan | SavedPlan) -> Plan:
        """A plan made earlier (or a saved plan file), made again now: refused as
        `StalePlan` when the portal or the manifests changed since, or the file was
        edited; as `UserError` when it goes to another portal than the manifests'."""
        if isinstance(saved, Plan):
            saved = SavedPlan(self.manifests.path, saved, plan_document(saved))
        check_same_portal(self.manifests.desired, saved)
        return await replan(self.client, self.manifests.desired, saved)

    async def send(
        self,
        plan: Plan,
        *,
        journal: str | PathLike[str] | None = None,
        on_event: EventHook | None = None,
        guard: Guard | None = None,
        abandon: asyncio.Event | None = None,
    ) -> ApplyResult:
        """Send the plan's calls in dependency order, up to `parallelism` at once; each
        call's outcome is in the result (a failed call is no exception). `journal`: a
        file to append each call's start and outcome to, as JSON lines. `on_event` hears
        each call start and end; `guard` gives a reason to send no further call (a
        signal); a dead portal or a lost lock stops the sending too. Once `abandon` is set,
        the calls in flight are given up (their outcome unknown)."""
        if self._held is not None:
            await self._held.describe_plan(plan)
        held = self._held

        def stopped() -> str | None:
            lost = held.still_held() if held is not None else None
            return (guard() if guard else None) or self.client.breaker.stopped() or lost

        opened = Journal(Path(journal), run_id=self.run_id) if journal else nullcontext(None)
        with opened as record:
            return await execute(
                plan,
                self.client,
                parallelism=self.parallelism,
                journal=record,
                on_event=on_event,
                guard=stopped,
                abandon=abandon,
            )


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
