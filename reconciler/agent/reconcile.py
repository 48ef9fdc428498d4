"""One portal's reconcile: load its manifests at the current revision (keeping the last
good ones when they fail), read the portal and plan, and, where both the manifests and the
operator allow it, apply; the outcome is a new state for `PortalStatus`."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from reconciler.agent import portal_ops as ops
from reconciler.agent.status import State
from reconciler.errors import UserError
from reconciler.shown import safe


@dataclass(frozen=True, slots=True)
class Loaded:
    """A revision whose manifests loaded for this portal: what the agent plans with."""

    revision: str
    path: Path
    manifests: ops.Manifests
    environ: Mapping[str, str] = field(repr=False)  # where its credentials come from


@dataclass(frozen=True, slots=True)
class Outcome:
    state: State
    result: str  # in_sync | drifted | applied | failed (orgctl_reconcile_total's label)
    drifted: dict[str, int]
    riskiest: tuple[str, ...] = ()
    error: str | None = None
    applied: str | None = None  # converged | not_converged | stopped, when an apply ran
    overdue: tuple[str, ...] = ()  # expired grants the portal still gave (portal_ops.Drift)
    next_expiry: float | None = None  # seconds to the next grant's end (portal_ops.Drift)


def failed(error: str) -> Outcome:
    return Outcome(State.FAILED, "failed", {}, error=safe(error))


def load(
    loaded: Loaded | None, revision: str, path: Path, environ: Mapping[str, str]
) -> tuple[Loaded | None, str | None]:
    """The portal's manifests at `revision`, or the last good ones and why not."""
    if loaded is not None and loaded.revision == revision:
        return loaded, None
    try:
        return Loaded(revision, path, ops.load(path, environ), environ), None
    except UserError as exc:
        return loaded, f"revision {revision[:12]} does not load: {exc}"


async def observe(loaded: Loaded) -> Outcome:
    """Read and plan: Synced or OutOfSync; a plan error (a guard such as maxDeletes)
    leaves the drift in place and is told as the last error."""
    drift = await ops.observe(loaded.manifests, loaded.environ)
    if drift.in_sync:
        return Outcome(State.SYNCED, "in_sync", {}, next_expiry=drift.next_expiry)
    error = "; ".join(drift.errors) or None
    drifted, riskiest = dict(drift.by_kind), drift.riskiest
    return Outcome(
        State.OUT_OF_SYNC,
        "drifted",
        drifted,
        riskiest,
        error,
        None,
        drift.overdue,
        drift.next_expiry,
    )


async def heal(loaded: Loaded, before: Outcome, stopping: asyncio.Event) -> Outcome:
    """Apply through `orgctl apply`, then read again: the state is what the portal shows.
    A converged apply keeps the drift it reverted (`riskiest`), for its notification."""
    applied = await ops.apply(loaded.path, stopping, loaded.environ)
    if stopping.is_set():
        # Stopping: no further read; the next start of the agent sees what is left.
        said = applied.said or "stopped"
        error = f"the agent stopped during the apply: {said}"
        drifted, riskiest = before.drifted, before.riskiest
        return Outcome(State.OUT_OF_SYNC, "drifted", drifted, riskiest, error, "stopped")
    outcome = "converged" if applied.ok else "not_converged"
    after = await observe(loaded)
    # The grants this apply revoked: overdue before, no longer after.
    revoked = tuple(grant for grant in before.overdue if grant not in after.overdue)
    if after.state is State.SYNCED:
        return replace(
            after, result="applied", riskiest=before.riskiest, applied=outcome, overdue=revoked
        )
    said = applied.said or f"orgctl apply exited {applied.code}"
    error = after.error or f"apply did not converge: {said}"
    return replace(after, error=error, applied=outcome, overdue=revoked)
