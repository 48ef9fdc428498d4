"""Send a plan's calls: each once all its dependencies succeeded, independent ones
concurrently (bounded), and a failure skips exactly its transitive dependents."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from reconciler.apply.adopt import Lookup, created_lookup
from reconciler.apply.events import CallEvent, EventKind
from reconciler.apply.journal import Journal
from reconciler.apply.placeholders import Produced, UnresolvedPlaceholder
from reconciler.apply.result import ApplyResult, CallOutcome, Status
from reconciler.errors import UserError
from reconciler.live.breaker import PortalStopped
from reconciler.live.client import ALREADY_GONE, PortalClient
from reconciler.live.errors import AmbiguousRequestError, PortalError, ServiceError
from reconciler.plan.model import Call, Plan

EventHook = Callable[[CallEvent], None]
# None while calls may be sent; otherwise why not (the apply lock was lost).
Guard = Callable[[], str | None]


# How many times a create whose reply was lost and whose entry is absent is sent again in
# one run, when the operations table allows it: a flaky gateway then costs a retry, not a
# second apply.
RESENDS_WHEN_ABSENT = 2


async def execute(
    plan: Plan,
    client: PortalClient,
    *,
    parallelism: int = 8,
    journal: Journal | None = None,
    on_event: EventHook | None = None,
    look_up_created: Lookup | None = None,
    guard: Guard | None = None,
    abandon: asyncio.Event | None = None,
) -> ApplyResult:
    """Send `plan.calls`; the result lists every call's outcome in seq order. A call whose
    turn comes when `guard` gives a reason is not sent (status "not sent", with that
    reason). Once `abandon` is set, the calls in flight are cancelled and their outcome is
    unknown (they may have taken effect); they are no longer waited for."""
    if plan.errors:
        raise UserError("the plan has errors and cannot be applied")
    if parallelism < 1:
        raise UserError(f"parallelism must be at least 1, got {parallelism}")
    check_dependencies(plan.calls)
    lookup = look_up_created or created_lookup(client)
    run = _Run(client, parallelism, journal, on_event, lookup, guard)
    watcher = asyncio.ensure_future(_abandon_when_set(abandon, run)) if abandon else None
    try:
        outcomes = await asyncio.gather(*(run.call(c) for c in plan.calls))
    finally:
        if watcher is not None:
            watcher.cancel()
    return ApplyResult(tuple(sorted(outcomes, key=lambda o: o.seq)))


async def _abandon_when_set(abandon: asyncio.Event, run: _Run) -> None:
    await abandon.wait()
    run.abandon()


def check_dependencies(calls: tuple[Call, ...]) -> None:
    """Every dependency names an earlier call (so no cycle can exist)."""
    seqs = {c.seq for c in calls}
    if len(seqs) != len(calls):
        raise UserError("the plan repeats a call seq")
    for call in calls:
        for dep in call.dependsOn:
            if dep not in seqs or dep >= call.seq:
                raise UserError(
                    f"plan call #{call.seq} ({call.address}) depends on #{dep}, "
                    "which is not an earlier call of the plan"
                )


class _Run:
    def __init__(
        self,
        client: PortalClient,
        parallelism: int,
        journal: Journal | None,
        on_event: EventHook | None,
        lookup: Lookup,
        guard: Guard | None,
    ) -> None:
        self.client = client
        self.guard = guard
        self.gate = asyncio.Semaphore(parallelism)
        self.journal = journal
        self.on_event = on_event
        self.lookup = lookup
        self.produced = Produced()
        self.finished: dict[int, asyncio.Future[CallOutcome]] = {}
        self.in_flight: set[asyncio.Future[CallOutcome]] = set()
        self.abandoned = False

    def abandon(self) -> None:
        """Cancel every call in flight; none starts from now on (the guard says why)."""
        self.abandoned = True
        for sending in self.in_flight:
            sending.cancel()

    def _future(self, seq: int) -> asyncio.Future[CallOutcome]:
        if seq not in self.finished:
            self.finished[seq] = asyncio.get_running_loop().create_future()
        return self.finished[seq]

    async def call(self, call: Call) -> CallOutcome:
        finished = self._future(call.seq)
        try:
            outcome = await self._settle(call)
        except BaseException as exc:
            finished.set_exception(exc)  # dependents must not wait forever on a bug
            raise
        finished.set_result(outcome)
        return outcome

    async def _settle(self, call: Call) -> CallOutcome:
        deps = [await self._future(d) for d in call.dependsOn]
        unsent = [d for d in deps if d.status is Status.NOT_SENT]
        if unsent:
            return self._not_sent(call, unsent[0].error or "not sent")
        blocked = [d for d in deps if d.status is not Status.DONE]
        if blocked:
            return self._skipped(call, blocked)
        async with self.gate:
            return await self._send(call)

    def _skipped(self, call: Call, blocked: list[CallOutcome]) -> CallOutcome:
        # the root failure, chosen deterministically: the lowest failed seq upstream
        cause = min(b.cause if b.status is Status.SKIPPED and b.cause else b.seq for b in blocked)
        reason = f"skipped: depends on #{cause}, which failed"
        self._emit(CallEvent(call, EventKind.SKIPPED, error={"message": reason}))
        return CallOutcome(
            call.seq, call.address, call.operation, Status.SKIPPED, reason, cause=cause
        )

    async def _send(self, call: Call) -> CallOutcome:
        try:
            url, params = self.produced.resolve_call(call)
        except UnresolvedPlaceholder as exc:
            return self._failed(call, {"message": str(exc)})
        stop = self.guard() if self.guard is not None else None
        if stop is not None:
            return self._not_sent(call, f"not sent: {stop}")
        self._emit(CallEvent(call, EventKind.START, params=params))
        sending = asyncio.ensure_future(self._deliver(call, url, params))
        self.in_flight.add(sending)
        try:
            return await sending
        except asyncio.CancelledError:
            # Our own abandon() cancelled the call, not the run's caller: say so and go on.
            current = asyncio.current_task()
            if not self.abandoned or (current is not None and current.cancelling()):
                raise
            return self._unknown(call)
        finally:
            self.in_flight.discard(sending)

    async def _deliver(self, call: Call, url: str, params: dict[str, str]) -> CallOutcome:
        try:
            result = await self._post(call, url, params)
        except PortalStopped as exc:  # the run stops: no try of this call is made any more
            if exc.maybe_processed:
                return self._unknown(call, f"{exc}; an earlier try got no reply")
            return self._not_sent(call, f"not sent: {exc}")
        except AmbiguousRequestError as exc:
            if call.spec.adoption is None:
                return self._failed(call, _error(exc))
            return await self._adopt(call, url, params, exc, resends=RESENDS_WHEN_ABSENT)
        except UserError as exc:  # the portal's answer, or a URL the client refuses
            return self._failed(call, _error(exc))
        note = "no reply, and then already gone: done" if result.get(ALREADY_GONE) else None
        return self._done(call, result, note)

    async def _post(self, call: Call, url: str, params: dict[str, str]) -> dict[str, Any]:
        # A write that is not idempotent is never retried blindly (a second createRole
        # makes a duplicate role); the table says how to settle a lost reply instead.
        return await self.client.post(
            url,
            params,
            idempotent=call.spec.idempotent,
            deletes=call.spec.gone_when_missing,
            on_retry=lambda tries, error, delay: self._retrying(call, tries, error, delay),
        )

    async def _adopt(
        self,
        call: Call,
        url: str,
        params: dict[str, str],
        cause: AmbiguousRequestError,
        resends: int,
    ) -> CallOutcome:
        """Look up what the call would have created and adopt it if the request landed
        (createRole: the role of that name); if it did not, send it again where the
        table says a late first request cannot make a duplicate."""
        found = await self._look_up(call, params, cause)
        if isinstance(found, CallOutcome):
            return found
        if found is not None:
            note = f"{call.operation} got no reply; adopted the existing {call.address} ({found})"
            return self._done(call, {"success": True, call.produces or "id": found}, note)
        adoption = call.spec.adoption
        if resends == 0 or adoption is None or not adoption.resend_when_absent:
            message = f"{cause}; {call.address} does not exist, so it was not created: apply again"
            return self._failed(call, {"message": message})
        note = f"{cause}; {call.address} does not exist: sending it again"
        self._emit(CallEvent(call, EventKind.RETRY, error=_error(cause), note=note))
        try:
            result = await self._post(call, url, params)
        except AmbiguousRequestError as exc:
            return await self._adopt(call, url, params, exc, resends - 1)
        except UserError as exc:
            return await self._refused_resend(call, params, exc)
        return self._done(call, result, f"{call.operation} sent again after a lost reply")

    async def _refused_resend(
        self, call: Call, params: dict[str, str], refusal: UserError
    ) -> CallOutcome:
        """A resend refused: if the first request landed late, its entry now exists (the
        portal refused the name as taken) and is adopted; otherwise the refusal stands."""
        found = await self._look_up(call, params, refusal)
        if isinstance(found, CallOutcome):
            return found
        if found is None:
            return self._failed(call, _error(refusal))
        note = f"{call.operation} got no reply, then landed late; adopted {call.address} ({found})"
        return self._done(call, {"success": True, call.produces or "id": found}, note)

    async def _look_up(
        self, call: Call, params: dict[str, str], cause: UserError
    ) -> str | CallOutcome | None:
        try:
            return await self.lookup(call, params)
        except UserError as exc:
            return self._failed(call, {"message": f"{cause}; looking it up failed: {exc}"})

    def _retrying(self, call: Call, tries: int, error: PortalError, delay: float) -> None:
        note = f"try {tries} failed; trying again in {delay:.1f}s"
        self._emit(CallEvent(call, EventKind.RETRY, error=_error(error), note=note, attempt=tries))

    def _done(self, call: Call, result: dict[str, Any], note: str | None = None) -> CallOutcome:
        if call.produces is not None:
            value = result.get(call.produces)
            if value is None:
                message = f"{call.operation} answered without {call.produces!r}"
                return self._failed(call, {"message": message})
            self.produced.add(call.address, call.produces, value)
        self._emit(CallEvent(call, EventKind.DONE, result=result, note=note))
        return CallOutcome(
            call.seq, call.address, call.operation, Status.DONE, result=result, note=note
        )

    def _failed(self, call: Call, error: dict[str, Any]) -> CallOutcome:
        self._emit(CallEvent(call, EventKind.FAILED, error=error))
        return CallOutcome(call.seq, call.address, call.operation, Status.FAILED, error["message"])

    def _not_sent(self, call: Call, reason: str) -> CallOutcome:
        self._emit(CallEvent(call, EventKind.NOT_SENT, error={"message": reason}))
        return CallOutcome(call.seq, call.address, call.operation, Status.NOT_SENT, reason)

    def _unknown(
        self, call: Call, why: str = "sent, then abandoned before its answer"
    ) -> CallOutcome:
        reason = f"{why}: it may or may not have taken effect"
        self._emit(CallEvent(call, EventKind.UNKNOWN, error={"message": reason}))
        return CallOutcome(call.seq, call.address, call.operation, Status.UNKNOWN, reason)

    def _emit(self, event: CallEvent) -> None:
        if self.journal is not None:
            self.journal.record(event)
        if self.on_event is not None:
            self.on_event(event)


def _error(exc: UserError) -> dict[str, Any]:
    details = exc.to_json() if isinstance(exc, ServiceError) else {}
    return {**details, "message": str(exc)}
