"""The apply lock: a lease kept as one of the portal's own file resources, so it works on
any portal orgctl can write to, with nothing beside it (README: the apply lock).

The lease names who holds it, from where, since and until when, and for which plan. It is
written with `addResource`, renewed while the apply runs, removed with `removeResource`
at the end, and expires by itself when its holder dies. Times are the portal's (its Date
header), so two machines with different clocks judge a lease alike.

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
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from typing import Any

from reconciler.errors import UserError
from reconciler.live.client import PortalClient
from reconciler.live.errors import NotFoundError
from reconciler.operations import OPERATIONS, READS, OperationName, ReadName
from reconciler.plan.model import Plan

KEY = "orgctl-apply-lock.json"
LEASE_SECONDS = 300.0  # a dead holder blocks others at most this long
POLL_SECONDS = 5.0  # how often a waiting apply looks again
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
        )
    except (KeyError, TypeError, ValueError, OverflowError):
        return Lease(UNREADABLE, "someone unknown", 0, 0.0, float("inf"))
    return lease


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
    """One apply's hold on the lock: take it, keep it while sending, give it back."""

    store: LeaseStore
    lease_seconds: float = LEASE_SECONDS
    poll_seconds: float = POLL_SECONDS
    sleep: Sleep = asyncio.sleep
    lease: Lease | None = None
    lost: str | None = None  # why the lock is no longer ours, once it is not
    _renewal: asyncio.Task[None] | None = None

    async def acquire(self, timeout: float, run_id: str) -> Lease:
        """Hold the lock, waiting up to `timeout` seconds for another holder to finish."""
        deadline = time.monotonic() + timeout
        while True:
            current = await self.store.read()
            now = self.store.now()
            if current is None or not current.held_at(now) or _dead_here(current):
                mine = await self._claim(run_id, now)
                if mine is not None:
                    self._renewal = asyncio.create_task(self._keep())
                    return mine
                current = await self.store.read()
            left = deadline - time.monotonic()
            if left <= 0 and current is not None:
                raise LockError(_held_message(current, timeout))
            await self.sleep(max(0.0, min(self.poll_seconds, left)))

    async def _claim(self, run_id: str, now: float) -> Lease | None:
        lease = Lease(run_id, _holder(), os.getpid(), now, now + self.lease_seconds)
        started = time.monotonic()
        await self.store.write(lease)
        settle = min(max(2 * (time.monotonic() - started), SETTLE_BOUNDS[0]), SETTLE_BOUNDS[1])
        await self.sleep(settle)
        back = await self.store.read()
        if back is None or back.id != run_id:
            return None  # a rival wrote after us: theirs stands
        self.lease = lease
        return lease

    async def describe_plan(self, plan: Plan) -> None:
        """Say in the lease which plan is being applied, once it is known."""
        if self.lease is not None:
            self.lease = replace(self.lease, plan=plan_label(plan))
            await self._renew()

    def still_held(self) -> str | None:
        """None while the lock is ours; otherwise why calls must not be sent."""
        return self.lost

    async def _keep(self) -> None:
        while self.lost is None:
            await self.sleep(self.lease_seconds / 3)
            try:
                await self._renew()
            except UserError as exc:  # not proven lost: the lease is still good until it ends
                if self.lease is not None and not self.lease.held_at(self.store.now()):
                    self.lost = f"the apply lock could not be renewed before it expired ({exc})"

    async def _renew(self) -> None:
        assert self.lease is not None
        current = await self.store.read()
        if current is None or current.id != self.lease.id:
            taker = current.describe() if current else "nobody (it was removed)"
            self.lost = f"the apply lock was taken from this run; it is now {taker}"
            return
        now = self.store.now()
        self.lease = replace(self.lease, until=now + self.lease_seconds)
        await self.store.write(self.lease)

    async def release(self) -> None:
        """Stop renewing and remove the lease if it is still ours."""
        if self._renewal is not None:
            self._renewal.cancel()
            await asyncio.gather(self._renewal, return_exceptions=True)
        if self.lease is None or self.lost is not None:
            return
        current = await self.store.read()
        if current is not None and current.id == self.lease.id:
            await self.store.remove()
        self.lease = None


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
