"""The agent's loops: the source read each interval, and each portal reconciled on its own
clock (interval ± jitter), so a dead or slow portal delays no other beyond its own
deadline; a semaphore bounds how many portals are reconciled at once."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from reconciler.agent import portal_ops as ops
from reconciler.agent import reconcile
from reconciler.agent.metrics import Metrics
from reconciler.agent.reconcile import Loaded, Outcome
from reconciler.agent.shards import assign
from reconciler.agent.source import FolderSource, GitSource, Snapshot
from reconciler.agent.status import PortalStatus, State, now
from reconciler.errors import UserError
from reconciler.shown import safe


@dataclass(frozen=True, slots=True)
class Settings:
    interval: float  # seconds between two reconciles of a portal
    jitter: float  # a fraction: each wait is interval × (1 ± jitter)
    deadline: float  # seconds one portal's reconcile may take, apply included
    concurrency: int  # portals reconciled at once
    allow_apply: bool  # the operator's half of self-heal (the Portal's is spec.agent)
    notify_url: str | None
    shards: int = 1  # replicas sharing the fleet
    shard: int = 0  # the one this agent is: it reconciles only the portals assigned to it
    # The variables the agent started with: credentials, URL overrides, limits.
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)


EXPIRY_MARGIN = 1.0  # seconds past a grant's end before the reconcile that revokes it


class Agent:
    def __init__(
        self,
        source: FolderSource | GitSource,
        settings: Settings,
        metrics: Metrics,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.source = source
        self.settings = settings
        self.metrics = metrics
        self.say = say or _stderr
        self.statuses: dict[str, PortalStatus] = {}
        self.stopping = asyncio.Event()
        self.source_read = False
        self._snapshot: Snapshot | None = None
        self._paths: dict[str, Path] = {}
        self._source_error: str | None = None
        self._loaded: dict[str, Loaded] = {}
        self._wake: dict[str, asyncio.Event] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._slots = asyncio.Semaphore(settings.concurrency)
        self._refresh = False
        # Per portal, the monotonic time its next grant ends: a reconcile then revokes it
        # on time, whatever the interval (README: Temporary access).
        self._expiries: dict[str, float] = {}

    # --- the source -------------------------------------------------------------------

    async def read_source(self) -> None:
        """Fetch and list the portals; on failure keep the last good revision."""
        try:
            snapshot = await self.source.read()
        except UserError as exc:
            self._source_error = f"the source could not be read: {exc}"
            self.say(safe(self._source_error))
            return
        try:
            portals = await asyncio.to_thread(ops.find_portals, snapshot.root)
        except UserError as exc:
            self._source_error = f"revision {snapshot.revision[:12]} does not load: {exc}"
            self.say(safe(self._source_error))
            return
        self._snapshot, self._source_error, self.source_read = snapshot, None, True
        placed = assign([portal.name for portal in portals], self.settings.shards)
        mine = [portal for portal in portals if placed[portal.name] == self.settings.shard]
        self._paths = {portal.name: portal.path for portal in mine}
        self.metrics.source_read(snapshot.revision)
        for name in self._paths:
            if name not in self.statuses:
                self.statuses[name] = PortalStatus(name, shard=self.settings.shard)
                self.metrics.placed(name, self.settings.shard)
        for name in [n for n in self.statuses if n not in self._paths]:
            del self.statuses[name]  # no longer in the source: no longer reconciled
            self._loaded.pop(name, None)
            if name in self._tasks:
                self._tasks.pop(name).cancel()
        in_use = {kept.revision for kept in self._loaded.values()}
        self.source.keep_only({snapshot.revision, *in_use})

    # --- one portal -------------------------------------------------------------------

    async def reconcile(self, name: str) -> Outcome:
        status = self.statuses[name]
        status.next_reconcile = None
        started = time.monotonic()
        async with self._slots:
            try:
                outcome = await asyncio.wait_for(self._reconcile(name), self.settings.deadline)
            except TimeoutError:
                outcome = reconcile.failed(
                    f"no result within the deadline ({self.settings.deadline:g} s)"
                )
            except UserError as exc:
                outcome = reconcile.failed(str(exc))
        await self._record(status, outcome, time.monotonic() - started)
        self._expect_expiry(name, outcome.next_expiry)
        return outcome

    def _expect_expiry(self, name: str, seconds: float | None) -> None:
        """Wake the portal just past its next grant's end (a second later, so that the
        portal's clock, to the second in its Date, has passed it too)."""
        if seconds is None:
            self._expiries.pop(name, None)
        else:
            self._expiries[name] = time.monotonic() + max(seconds, 0.0) + EXPIRY_MARGIN

    async def _reconcile(self, name: str) -> Outcome:
        snapshot = self._snapshot
        if snapshot is None:
            return reconcile.failed(self._source_error or "the source was not read")
        loaded, error = await asyncio.to_thread(
            reconcile.load,
            self._loaded.get(name),
            snapshot.revision,
            self._paths[name],
            self.settings.environ,
        )
        if loaded is not None:
            self._loaded[name] = loaded
            self.statuses[name].revision = loaded.revision
        error = error or self._source_error
        if error is not None or loaded is None:
            return reconcile.failed(error or "no manifests loaded")
        outcome = await reconcile.observe(loaded)
        if outcome.state is State.OUT_OF_SYNC and self._may_heal(loaded):
            self.statuses[name].state = State.APPLYING
            outcome = await reconcile.heal(loaded, outcome, self.stopping)
        return outcome

    def _may_heal(self, loaded: Loaded) -> bool:
        return self.settings.allow_apply and ops.self_heal(loaded.manifests)

    async def _record(self, status: PortalStatus, outcome: Outcome, seconds: float) -> None:
        before = status.state
        status.state = outcome.state
        status.drifted = outcome.drifted
        status.last_error = outcome.error
        status.last_reconcile = now()
        self.metrics.reconciled(status, outcome.result, seconds)
        if outcome.applied is not None:
            self.metrics.applied(status.name, outcome.applied)
        summary = self._transition(status, before, outcome)
        if summary is not None:
            self.say(safe(f"{status.name}: {before} -> {summary}"))
            # The webhook is posted off the loop: a slow chat server delays no reconcile.
            await asyncio.to_thread(
                ops.notify, self.settings.notify_url, status.name, summary, self.settings.environ
            )

    def _transition(self, status: PortalStatus, before: State, outcome: Outcome) -> str | None:
        """What to tell of a transition (the first observation only when it is bad), or
        None when the state did not change."""
        if before is State.APPLYING or outcome.applied is not None:
            # An apply ran: the portal was out of sync, whatever this reconcile began with.
            before = State.OUT_OF_SYNC
        after = outcome.state
        if after is before or (before is State.UNKNOWN and after is State.SYNCED):
            return None
        revision = (status.revision or "none")[:12]
        summary = f"{after} at revision {revision}"
        if outcome.applied is not None:
            summary += f"; applied ({outcome.applied.replace('_', ' ')})"
        if outcome.riskiest:
            shown = ", ".join(outcome.riskiest[:5])
            more = f" and {len(outcome.riskiest) - 5} more" if len(outcome.riskiest) > 5 else ""
            told = "reverted" if after is State.SYNCED else "drifted"
            summary += f"; {len(outcome.riskiest)} {told}, riskiest first: {shown}{more}"
        if outcome.overdue:
            told = "expired and revoked" if outcome.applied is not None else "expired, not revoked"
            summary += f"; grant {told}: {'; '.join(outcome.overdue)}"
        if outcome.error:
            summary += f"; {outcome.error}"
        return summary

    # --- the loops --------------------------------------------------------------------

    async def once(self) -> int:
        """One pass over every portal: 0 all Synced, 1 any Failed, 2 drift remains."""
        await self.read_source()
        if not self.source_read:
            return 1
        outcomes = await asyncio.gather(*(self.reconcile(name) for name in self.statuses))
        states = {outcome.state for outcome in outcomes}
        if State.FAILED in states:
            return 1
        return 2 if State.OUT_OF_SYNC in states else 0

    async def run(self) -> None:
        """Until `stop`: the source each interval, each portal on its own clock."""
        while not self.stopping.is_set():
            await self.read_source()
            for name in self.statuses:
                if name not in self._tasks:
                    self._wake[name] = asyncio.Event()
                    self._tasks[name] = asyncio.create_task(self._portal_loop(name))
            if self._refresh:
                self._refresh = False
                for event in self._wake.values():
                    event.set()
            await self._pause(None)
        await self._finish()

    def refresh(self) -> None:
        """Read the source and reconcile every portal now (a push, or the refresh call)."""
        self._refresh = True  # the portals are woken once the source was read again
        self._wake.setdefault("", asyncio.Event()).set()

    def stop(self) -> None:
        """No new reconcile starts; a read in flight is abandoned, an apply in flight is
        told to stop (the child apply stops as on a signal and releases its lock)."""
        self.stopping.set()
        for name, task in self._tasks.items():
            status = self.statuses.get(name)
            if status is None or status.state is not State.APPLYING:
                task.cancel()

    async def _finish(self) -> None:
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _portal_loop(self, name: str) -> None:
        while not self.stopping.is_set() and name in self.statuses:
            await self.reconcile(name)
            if self.stopping.is_set():
                return
            await self._pause(name)

    async def _pause(self, name: str | None) -> None:
        """Wait an interval with jitter, or until the portal's next grant ends, woken or
        stopping."""
        seconds = self.settings.interval * (
            1 + random.uniform(-self.settings.jitter, self.settings.jitter)
        )
        expiry = self._expiries.get(name) if name else None
        if expiry is not None:
            seconds = min(seconds, max(expiry - time.monotonic(), 0.0))
        wake = self._wake.setdefault(name or "", asyncio.Event())
        status = self.statuses.get(name) if name else None
        if status is not None:
            status.next_reconcile = now() + timedelta(seconds=seconds)
        waits = [asyncio.ensure_future(e.wait()) for e in (wake, self.stopping)]
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
        wake.clear()

    @property
    def revision(self) -> str | None:
        return self._snapshot.revision if self._snapshot is not None else None

    @property
    def ready(self) -> bool:
        """The source read once and every portal reconciled once (Failed included)."""
        return self.source_read and all(
            status.last_reconcile is not None for status in self.statuses.values()
        )


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
