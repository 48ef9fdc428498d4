"""The steps `plan`, `apply` and `drift` share: connect, read the portal, plan.

Each command runs in one event loop with one client (the client holds asyncio
primitives), so the whole of an apply — plan, confirm, send, verify — is one coroutine.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from reconciler.clock import evaluation_time
from reconciler.environment import url_sources
from reconciler.live.client import PortalClient, client_for
from reconciler.live.origins import UrlSources, ci_warning
from reconciler.live.reader import read_live
from reconciler.manifest.grants import resolved
from reconciler.plan.grants import EXPIRING_WITHIN, with_grants
from reconciler.plan.model import Plan
from reconciler.plan.planner import build_plan
from reconciler.runtime import run as run  # re-exported: the commands' one event loop
from reconciler.state import DesiredState, LiveState

# Told a line as it happens (a retry, a wait): stderr for the CLI, anything for a program.
Notice = Callable[[str], None]


def say_on_stderr(line: str) -> None:
    """A retry told as it happens (a wait on an unreachable portal is seen, not silent),
    on stderr, where it never mixes with a report on stdout."""
    print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True)
class PlanOptions:
    allow_deletes: bool = False
    targets: tuple[str, ...] = ()
    check_caller: bool = True  # report calls the applying member may not make
    signed_in_applies: bool = False  # the signed-in member sends the calls now (apply)
    # Mark administrative privileges the portal grants that the manifests do not (drift).
    live_admin: bool = False
    # Judge the policies against the plan (drift judges them on the live state alone).
    judge_policies: bool = True
    # The evaluation time of a preview (--at); None: now (reconciler.clock).
    at: datetime | None = None
    # Grants ending within this long of the evaluation time are named (--expiring-within).
    expiring_within: timedelta = EXPIRING_WITHIN


@dataclass(frozen=True, slots=True)
class Planned:
    """A plan and the live state it was computed on."""

    live: LiveState
    plan: Plan
    # The evaluation time the plan was judged at (None: a plan made some other way).
    now: datetime | None = None


def connect(
    desired: DesiredState,
    environ: Mapping[str, str],
    *,
    parallelism: int = 8,
    in_fleet: bool = False,
    notice: Notice | None = say_on_stderr,
) -> PortalClient:
    """The client of the desired state's portal, with the ORGCTL_* values `environ` holds
    (credentials, trusted origins, limits): the command line's `Settings.environ`, or a
    Python API `Connection`'s values. `notice` hears each retry as it happens; None keeps
    quiet."""
    return client_for(
        desired.portal,
        env=environ,
        concurrency=max(8, parallelism),
        retry_notice=fleet_notice(desired.portal.name, notice) if in_fleet else notice,
        sources=url_origins(desired, environ),
    )


def fleet_notice(name: str, notice: Notice | None) -> Notice | None:
    """Portals of a fleet are read at once: each retry line must say whose it is."""
    if notice is None:
        return None
    told = notice
    return lambda line: told(f"{name}: {line}")


def url_origins(desired: DesiredState, environ: Mapping[str, str]) -> UrlSources:
    """Where the portal's two URLs come from: the Portal document (file:line), or the
    variable set over it; named when ORGCTL_TRUSTED_ORIGINS refuses one."""
    name = desired.portal.name
    source = desired.sources.get("Portal")
    document = f"Portal {name!r}" + (f" ({source})" if source else "")
    url_from, admin_from = url_sources(environ, name)

    def said(field: str, variable: str | None) -> str:
        declared = f"{field} of {document}"
        return f"{variable}, set over the {declared}" if variable else f"the {declared}"

    return UrlSources(said("spec.url", url_from), said("spec.adminUrl", admin_from))


def warn_in_ci(environ: Mapping[str, str]) -> None:
    """Once per plan, apply or drift run in CI without ORGCTL_TRUSTED_ORIGINS."""
    warning = ci_warning(environ)
    if warning is not None:
        say_on_stderr(f"Warning: {warning}")


async def plan_live(
    client: PortalClient, desired: DesiredState, options: PlanOptions = PlanOptions()
) -> Planned:
    """Read what the manifests need and plan against it, at the evaluation time: the
    later of this machine's clock and the portal's, or `options.at`."""
    at = await read_at(client, desired, options.at)
    plan = build_plan(
        at.desired,
        at.live,
        allow_deletes=options.allow_deletes,
        targets=options.targets,
        # The portal's clock dates its own runs and schedules; a preview, the time given.
        now=at.now.timestamp() if options.at is not None else client.server_clock,
        check_caller=options.check_caller,
        signed_in_applies=options.signed_in_applies,
        live_admin=options.live_admin,
        judge_policies=options.judge_policies,
        judged_at=at.now.timestamp(),
    )
    preview, within = options.at is not None, options.expiring_within
    plan = with_grants(plan, desired, at.live, at.now, preview=preview, within=within)
    return Planned(at.live, plan, at.now)


@dataclass(frozen=True, slots=True)
class ReadAt:
    """The live state, the evaluation time, and the desired state at that time."""

    live: LiveState
    now: datetime
    desired: DesiredState


async def read_at(
    client: PortalClient, desired: DesiredState, at: datetime | None = None
) -> ReadAt:
    """Read the portal, then resolve the grants at the evaluation time, which takes the
    portal's clock from its answers. What is read depends on the desired state (the
    members whose level changes), so it is read at this machine's time first, and read
    again in the rare case where a grant ends between the two clocks."""
    guess = evaluation_time(None, at)
    live = await read_live(client, resolved(desired, guess))
    now = evaluation_time(client.server_clock, at)
    if any(guess < g.until <= now for grants in desired.grants.values() for g in grants):
        live = await read_live(client, resolved(desired, now))
    return ReadAt(live, now, resolved(desired, now))


def target_list(targets: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(targets))
