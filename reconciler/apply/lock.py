"""The apply lock: a lease kept as one of the portal's own file resources, so it works on
any portal orgctl can write to, with nothing beside it (README: the apply lock).

The lease names who holds it, from where, since and until when, and for which plan. It is
written with `addResource`, renewed while the apply makes progress, removed with
`removeResource` at the end.

No clock but each machine's own decides when a lease is dead. A portal's clock can jump
(nodes behind a load balancer whose clocks differ), and a rival that judged the lease by
it took a live lease. So, as Kubernetes leader election does, a rival breaks a lease only
after it has seen the lease unchanged (same ID and renewal count) for a whole lease period
by its own monotonic clock; the holder, which renews every third of that period, counts
its lease safe for one period from the moment it sent its last renewal, by its own
monotonic clock, and stops sending before that runs out. The `since` and `until` the
lease shows are the portal's, for people to read.

The portal has no compare-and-set: two applies that both find the lock free both write,
and the later write wins. Each writer therefore reads the lease back after a settle
time (twice the round trip of its own write: a rival that read "free" before our write
landed writes within about one round trip) and goes on only if it still holds it; the
renewal reads it back again and stops the apply if another holder has taken it.
"""

from __future__ import annotations

import asyncio
import getpass
import hashlib
import json
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from typing import Any

from reconciler.errors import UserError
from reconciler.live.breaker import PortalStopped
from reconciler.live.client import PortalClient
from reconciler.live.errors import NotFoundError
from reconciler.operations import OPERATIONS, READS, OperationName, ReadName
from reconciler.plan.model import Plan
from reconciler.settings import LEASE_BOUNDS, LOCK_LEASE, setting

KEY = "orgctl-apply-lock.json"
LEASE_SECONDS = 300.0  # a dead holder blocks others this long after a rival first sees it
# ORGCTL_LOCK_LEASE sets another period (settings.py), e.g. 90s; the lease states its own.
POLL_SECONDS = 5.0  # how often a waiting apply looks again
TELL_SECONDS = 10.0  # how often a waiting apply says it still waits
# The holder stops starting calls this share of a period before its lease could be broken:
# room for the calls in flight to finish.
MARGIN = 1 / 6
SETTLE_BOUNDS = (0.05, 5.0)
UNREADABLE = "unreadable"  # the ID of a lease whose text is not one orgctl wrote

Sleep = Callable[[float], Awaitable[None]]


class LockError(UserError):
    """The lock could not be taken, kept or broken."""


@dataclass(frozen=True, slots=True)
class Lease:
    id: str
    holder: str  # user@host
    pid: int
    since: float  # Unix seconds on the portal's clock
    until: float
    operation: str = "apply"
    plan: str = ""  # what the apply sends: "<n> calls, digest <hex>"
    seconds: float = LEASE_SECONDS  # the period: unchanged this long, the lease is dead
    beat: int = 0  # renewals so far: a renewal changes the lease whatever the clocks say

    def held_at(self, now: float) -> bool:
        return now < self.until

    def describe(self) -> str:
        plan = f", for the plan of {self.plan}" if self.plan else ""
        return (
            f"lock ID {self.id}, held by {self.holder} (orgctl {self.operation}, pid {self.pid})"
            f" since {_shown(self.since)} until {_shown(self.until)}{plan}"
        )

    def to_text(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def lease_from(raw: dict[str, Any]) -> Lease:
    """The lease in a resource's text; anything else is an unreadable lease that holds
    the lock until someone breaks it (`force-unlock unreadable`)."""
    try:
        lease = Lease(
            id=str(raw["id"]),
            holder=str(raw["holder"]),
            pid=int(raw["pid"]),
            since=float(raw["since"]),
            until=float(raw["until"]),
            operation=str(raw.get("operation", "apply")),
            plan=str(raw.get("plan", "")),
            seconds=_bounded(float(raw.get("seconds", LEASE_SECONDS))),
            beat=int(raw.get("beat", 0)),
        )
    except (KeyError, TypeError, ValueError, OverflowError):
        return Lease(UNREADABLE, "someone unknown", 0, 0.0, float("inf"), seconds=float("inf"))
    return lease


def lease_seconds(environ: Mapping[str, str]) -> float:
    """The lease period this apply takes: ORGCTL_LOCK_LEASE (`90s`, `10m`) of `environ`
    (the command line's `Settings.environ`, or an API connection's values), read by the
    settings table's row, or 5 minutes."""
    period: float | None = setting(LOCK_LEASE, environ)
    return LEASE_SECONDS if period is None else period


def _bounded(seconds: float) -> float:
    """A period a rival will wait: an absurd one (untrusted text) within the bounds."""
    if seconds != seconds:  # NaN
        return LEASE_SECONDS
    return min(max(seconds, LEASE_BOUNDS[0]), LEASE_BOUNDS[1])


def plan_label(plan: Plan) -> str:
    calls = json.dumps([call.to_json() for call in plan.calls], sort_keys=True)
    digest = hashlib.sha256(calls.encode("utf-8")).hexdigest()[:12]
    return f"{len(plan.calls)} calls, digest {digest}"


class LeaseStore:
    """The lease resource of one portal, through the client (retries, tokens, redaction)."""

    def __init__(self, client: PortalClient, portal_id: str = "self") -> None:
        self.client = client
        self.portal_id = portal_id

    def now(self) -> float:
        return self.client.server_clock if self.client.server_clock is not None else time.time()

    def activity(self) -> int:
        """A count that grows while the apply makes progress: its requests so far."""
        return self.client.requests

    async def read(self) -> Lease | None:
        path = READS[ReadName.RESOURCE].build(portalId=self.portal_id, key=KEY)
        try:
            raw = await self.client.get_json(path)
        except NotFoundError:
            return None
        return lease_from(raw)

    async def write(self, lease: Lease) -> None:
        url = OPERATIONS[OperationName.ADD_RESOURCE].url(
            self.client.root, {"portalId": self.portal_id}
        )
        fields = {"key": KEY, "text": lease.to_text(), "access": "orgprivate"}
        await self.client.post(url, fields)

    async def remove(self) -> None:
        url = OPERATIONS[OperationName.REMOVE_RESOURCE].url(
            self.client.root, {"portalId": self.portal_id}
        )
        await self.client.post(url, {"key": KEY}, deletes=True)


@dataclass
class ApplyLock:
    """One apply's hold on the lock: take it, keep it while the apply makes progress,
    give it back."""

    store: LeaseStore
    lease_seconds: float = LEASE_SECONDS
    poll_seconds: float = POLL_SECONDS
    sleep: Sleep = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    notice: Callable[[str], None] | None = None  # told, every few seconds, who is waited for
    lease: Lease | None = None
    lost: str | None = None  # why the lock is no longer ours, once it is not
    _safe_until: float = 0.0  # by `clock`: no rival can have broken our lease before this
    _activity: int = -1  # the client's request count at the last renewal
    _renewal: asyncio.Task[None] | None = None

    async def acquire(self, timeout: float, run_id: str) -> Lease:
        """Hold the lock, waiting up to `timeout` seconds for another holder to finish;
        a lease that has not changed for a whole period (its holder is dead) is taken."""
        waiting = LeaseWatch(self.clock, timeout)
        while True:
            current = await self.store.read()
            if current is None or _dead_here(current) or waiting.unchanged(current):
                mine = await self._claim(run_id)
                if mine is not None:
                    self._renewal = asyncio.create_task(self._keep())
                    return mine
                current = await self.store.read()
                if current is None:
                    continue
            left = waiting.left(current, self.store.now())
            if left <= 0:
                raise LockError(_held_message(current, timeout))
            self._tell(waiting.line(current, self.store.now()))
            await self.sleep(min(self.poll_seconds, current.seconds / 3, left))

    def _tell(self, line: str | None) -> None:
        if line is not None and self.notice is not None:
            self.notice(line)

    async def _claim(self, run_id: str) -> Lease | None:
        now = self.store.now()
        period = self.lease_seconds
        lease = Lease(run_id, _holder(), os.getpid(), now, now + period, seconds=period)
        started = self.clock()
        try:
            await self.store.write(lease)
            settle = min(max(2 * (self.clock() - started), SETTLE_BOUNDS[0]), SETTLE_BOUNDS[1])
            await self.sleep(settle)
            back = await self.store.read()
        except asyncio.CancelledError:  # interrupted (Ctrl-C) while taking it: give it back
            await self._remove_if(run_id)
            raise
        if back is None or back.id != run_id:
            return None  # a rival wrote after us: theirs stands
        self.lease = lease
        self._held_from(started)
        return lease

    def _held_from(self, sent: float) -> None:
        """A rival that first saw the lease we sent at `sent` breaks it a period later."""
        self._safe_until = sent + self.lease_seconds
        self._activity = self.store.activity()

    async def describe_plan(self, plan: Plan) -> None:
        """Say in the lease which plan is being applied, once it is known (a renewal too:
        the confirmation prompt may have taken a while)."""
        if self.lease is not None:
            self.lease = replace(self.lease, plan=plan_label(plan))
            await self._renew()

    def still_held(self) -> str | None:
        """None while the lock is ours; otherwise why calls must not be sent."""
        if self.lost is None and self.lease is not None:
            margin = self.lease_seconds * MARGIN
            if self.clock() > self._safe_until - margin:
                self.lost = (
                    f"the apply lock (lock ID {self.lease.id}) was not renewed in time: its"
                    " lease may run out, and another apply may take it"
                )
        return self.lost

    async def _keep(self) -> None:
        while self.lost is None:
            await self.sleep(self.lease_seconds / 3)
            if self.store.activity() == self._activity:
                continue  # no request since the last renewal: a stuck apply lets it run out
            try:
                await self._renew()
            except UserError:  # not proven lost: still_held() judges by the time left
                continue

    async def _renew(self) -> None:
        """Read the lease back; if it is still ours, renew it, else stop sending."""
        assert self.lease is not None
        current = await self.store.read()
        if current is None or current.id != self.lease.id:
            taker = current.describe() if current else "nobody (it was removed)"
            self.lost = f"the apply lock was taken from this run; it is now {taker}"
            return
        now = self.store.now()
        self.lease = replace(self.lease, until=now + self.lease_seconds, beat=self.lease.beat + 1)
        sent = self.clock()
        await self.store.write(self.lease)
        self._held_from(sent)

    async def release(self) -> None:
        """Stop renewing and remove the lease if it is still ours."""
        if self._renewal is not None:
            self._renewal.cancel()
            await asyncio.gather(self._renewal, return_exceptions=True)
        if self.lease is None:
            return
        await self._remove_if(self.lease.id)  # only our own lease, lost or not
        self.lease = None

    async def _remove_if(self, lock_id: str) -> None:
        current = await self.store.read()
        if current is not None and current.id == lock_id:
            await self.store.remove()


class LeaseWatch:
    """What a waiting apply has seen of another's lease, by its own clock."""

    def __init__(self, clock: Callable[[], float], timeout: float) -> None:
        self.clock = clock
        self.started = clock()
        self.timeout = timeout
        self.deadline = self.started + timeout
        self.seen: tuple[str, int, float] | None = None  # the lease as last seen ...
        self.seen_at = 0.0  # ... first seen thus at this moment
        self.changes = 0  # how often it changed while watched: its holder renews it
        self.told: float | None = None

    def unchanged(self, lease: Lease) -> bool:
        """True once `lease` has been seen unchanged for its whole period."""
        now = self.clock()
        key = (lease.id, lease.beat, lease.until)
        if key != self.seen:
            self.changes += self.seen is not None
            self.seen, self.seen_at = key, now
            return False
        return now - self.seen_at >= lease.seconds

    def left(self, lease: Lease, portal_now: float) -> float:
        """Seconds still to wait. A lease whose end has passed on the portal's clock is
        watched for its period even beyond --lock-timeout: if it does not change, its
        holder is dead and the lock is taken; if it does, the holder lives."""
        limit = self.deadline
        if not lease.held_at(portal_now) and self.changes == 0:
            limit = max(limit, self.seen_at + lease.seconds + 1.0)
        return limit - self.clock()

    def line(self, lease: Lease, portal_now: float) -> str | None:
        """A line to print now, or None: one at the start, then one every few seconds."""
        now = self.clock()
        if self.told is not None and now - self.told < TELL_SECONDS:
            return None
        first = self.told is None
        self.told = now
        waited = f"{now - self.started:.0f}s"
        if not lease.held_at(portal_now) and self.changes == 0:
            return (
                f"The apply lock's lease ended by the portal's clock: {lease.describe()}."
                f" Watching it for {lease.seconds:g}s before taking it over (an apply that"
                f" lives renews it); waited {waited}."
            )
        if first:
            return (
                f"The portal is locked: {lease.describe()}. Waiting for it (up to"
                f" {self.timeout:g}s); to break the lock of a dead apply:"
                f" orgctl force-unlock {lease.id} MANIFESTS"
            )
        return f"Still waiting for the apply lock (lock ID {lease.id}, {lease.holder}): {waited}"


async def force_unlock(store: LeaseStore, lock_id: str) -> Lease:
    """Break the lease with `lock_id` (and only that one: a lease taken since is kept)."""
    current = await store.read()
    if current is None:
        raise LockError("the portal is not locked; nothing to unlock")
    if current.id != lock_id:
        raise LockError(
            f"the lock is held under another ID: {current.describe()}; refusing to break it"
        )
    await store.remove()
    return current


def not_released(lease: Lease, why: Exception, manifests: str) -> str:
    """What holds the lock after an apply that could not give it back."""
    told = why.headline if isinstance(why, PortalStopped) else why  # told above in full
    return (
        f"The apply lock is still held: lock ID {lease.id} (it could not be released: {told})."
        f" Another apply takes it over once it has seen it unchanged for {lease.seconds:g}s;"
        f" to break it now: orgctl force-unlock {lease.id} {manifests}"
    )


def new_run_id() -> str:
    return uuid.uuid4().hex[:16]


def _held_message(current: Lease, timeout: float) -> str:
    waited = f" after waiting {timeout:g}s" if timeout > 0 else ""
    return (
        f"the portal is locked by another apply{waited}: {current.describe()}."
        " Wait for it (--lock-timeout 5m), or, if that apply is dead, break the lock with"
        f" `orgctl force-unlock {current.id} MANIFESTS`"
    )


def _dead_here(lease: Lease) -> bool:
    """A lease of this machine whose process is gone (an apply killed here, rerun here)
    is not waited on: nobody will renew or release it."""
    if lease.holder != _holder() or lease.pid <= 0 or lease.pid == os.getpid():
        return False
    try:
        os.kill(lease.pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists, under another user
        return False
    return False


def _holder() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


def _shown(moment: float) -> str:
    try:
        when = datetime.fromtimestamp(moment, UTC)
    except (OverflowError, OSError, ValueError):  # a lease's times are untrusted text
        return "never" if moment == float("inf") else repr(moment)
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")
