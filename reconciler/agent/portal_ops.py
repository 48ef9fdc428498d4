"""The agent's one door into orgctl: find portals, load manifests, plan against a live
portal, apply, notify. Everything the agent does to a portal goes through here, so the
agent depends on a handful of typed calls rather than on orgctl's internals: loading and
planning are the Python API's (reconciler.api), the calls `orgctl plan` makes.

Applying runs `orgctl apply --auto-approve` as a child process: it is the same code path
with every guard (the apply lock, apply windows, `maxDeletes`, the built-in safety checks,
trusted origins) and the same handling of SIGTERM (stop starting calls, let the ones in
flight finish, release the lock), and a child can be stopped at a portal's deadline
without leaving the agent's event loop holding another apply's signal handlers.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from reconciler.api import Connection, Manifests
from reconciler.api import load as load_manifests
from reconciler.api import plan as plan_live
from reconciler.clock import moment
from reconciler.errors import UserError
from reconciler.fleet import find_targets
from reconciler.live.limits import LIMITS, Limits
from reconciler.notify import NOTIFY_ENV, Notifier
from reconciler.plan.model import Plan
from reconciler.plan.render.lines import riskiest_first
from reconciler.settings import TRUSTED_ORIGINS, Settings
from reconciler.shown import safe
from reconciler.workflow import fleet_notice, say_on_stderr

__all__ = [
    "ApplyOutcome",
    "Drift",
    "Manifests",
    "Portal",
    "apply",
    "find_portals",
    "load",
    "notify",
    "observe",
    "self_heal",
]


@dataclass(frozen=True, slots=True)
class Portal:
    """One portal folder of the source: its Portal's name and where its manifests are."""

    name: str
    path: Path


@dataclass(frozen=True, slots=True)
class Drift:
    """What a plan against the live portal found: drifted resources by kind, the
    riskiest change's address first, and the plan's errors."""

    by_kind: Mapping[str, int]
    riskiest: tuple[str, ...]
    errors: tuple[str, ...]
    # Expired grants the portal still gives (README: Temporary access), as plans name them.
    overdue: tuple[str, ...] = ()
    # Seconds from the evaluation time to the end of the next grant in force: when the
    # desired state next changes by itself (None: no grant in force).
    next_expiry: float | None = None

    @property
    def count(self) -> int:
        return sum(self.by_kind.values())

    @property
    def in_sync(self) -> bool:
        return self.count == 0 and not self.errors


@dataclass(frozen=True, slots=True)
class ApplyOutcome:
    """How a child `orgctl apply` ended: its exit code and its last words on stderr."""

    code: int
    said: str

    @property
    def ok(self) -> bool:
        return self.code == 0


def find_portals(root: Path) -> list[Portal]:
    """The portals below `root` (one for a portal folder); UserError names a bad file."""
    return [Portal(target.name, target.path) for target in find_targets(root)]


def load(path: Path, environ: Mapping[str, str]) -> Manifests:
    """The portal's manifests; ManifestError lists every problem with file:line."""
    return load_manifests(path, Connection(environ))


def self_heal(manifests: Manifests) -> bool:
    """Whether the Portal's own manifests opt in to applying (`spec.agent.selfHeal`)."""
    return manifests.desired.portal.selfHeal


def kind_of(address: str) -> str:
    """`Role/Analyst` -> `Role`: the kind a plan address names."""
    return address.split("/", 1)[0].split(".", 1)[0] or "unknown"


async def observe(manifests: Manifests, environ: Mapping[str, str]) -> Drift:
    """Read the portal and plan against it, as `orgctl drift` does (report only)."""
    # Portals are reconciled side by side: each retry line names its portal.
    notice = fleet_notice(manifests.desired.portal.name, say_on_stderr)
    plan = await plan_live(manifests, Connection(environ, notice), allow_deletes=True)
    kinds = Counter(kind_of(change.address) for change in plan.changes)
    riskiest = tuple(change.address for change in riskiest_first(plan.changes))
    errors = tuple(str(problem) for problem in plan.errors)
    overdue = tuple(str(c.overdue) for c in plan.changes if c.overdue is not None)
    return Drift(dict(kinds), riskiest, errors, overdue, _next_expiry(plan))


def _next_expiry(plan: Plan) -> float | None:
    """Seconds from the plan's evaluation time to the first of its grants' deadlines."""
    judged = moment(plan.evaluationTime)
    ends = [moment(grant.until) for grant in plan.grantDeadlines]
    soonest = min((end for end in ends if end is not None), default=None)
    if judged is None or soonest is None:
        return None
    return (soonest - judged).total_seconds()


async def apply(path: Path, stopping: asyncio.Event, environ: Mapping[str, str]) -> ApplyOutcome:
    """`orgctl apply PATH --auto-approve` as a child; when `stopping` is set (SIGTERM, or
    the portal's deadline), the child gets SIGTERM and stops as apply does on a signal."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "reconciler",
        "apply",
        str(path),
        "--auto-approve",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=_child_environment(environ),
    )
    waiter = asyncio.ensure_future(child.communicate())
    stopper = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if not waiter.done():
            child.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.shield(waiter)
    except asyncio.CancelledError:
        # The deadline: the child releases its lock on SIGTERM; wait for it to do so.
        if child.returncode is None:
            child.send_signal(signal.SIGTERM)
        await waiter
        raise
    finally:
        stopper.cancel()
    lines = [line for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    return ApplyOutcome(child.returncode or 0, safe(lines[-1]) if lines else "")


def _child_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The agent's environment for a child apply: the limits the agent was given as flags
    carried as their variables, and no notify URL (the agent notifies on transitions)."""
    env = {name: value for name, value in environ.items() if name != NOTIFY_ENV}
    chosen = Limits.from_env(environ)
    for limit in LIMITS:
        env[limit.variable] = str(getattr(chosen, limit.field))
    return env


def notify(url: str | None, portal: str, summary: str, environ: Mapping[str, str]) -> None:
    """One message to the URL `--notify`/ORGCTL_NOTIFY_URL name; `environ` links the CI run."""
    Notifier(url, "agent", portal, environ).send(summary)


def check_trusted_origins(given: Settings) -> None:
    """The agent sends credentials unattended: it runs only with ORGCTL_TRUSTED_ORIGINS."""
    if not given.trusted_origins:
        raise UserError(
            f"orgctl agent needs {TRUSTED_ORIGINS.name}: it sends credentials on its own, so"
            " set it to your portals' origins (scheme://host[:port], comma-separated)"
        )
