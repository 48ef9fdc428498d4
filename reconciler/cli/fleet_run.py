"""`plan` and `drift` of a fleet: each portal read and planned on its own (its own Portal,
release, credentials and client) through the Python API's `plan` and `drift`, the calls
the command makes for a portal alone, up to `--jobs` at once.

A portal that cannot be planned (invalid manifests, unreachable, refused credentials) is
that portal's failure, reported in its section; the others go on. Reads are I/O, so one
process overlaps the portals' round trips without a thread or process per portal.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from reconciler.access.document import AccessQuery
from reconciler.access.findings import POLICY
from reconciler.api.drifting import drift, finding_rows
from reconciler.api.planning import plan
from reconciler.api.session import Connection, Manifests
from reconciler.cli import fleet_report, session
from reconciler.cli.failure import failure_markdown
from reconciler.cli.fleet_report import Outcome
from reconciler.cli.live_policies import finding_line
from reconciler.cli.output import check_writable, is_terminal, render, save_instead_of_printing
from reconciler.errors import UserError
from reconciler.fleet import Target
from reconciler.notify import Notifier, drift_text, plan_text
from reconciler.plan import Mode
from reconciler.plan.model import Plan
from reconciler.plan.render.json import plan_document
from reconciler.processes import in_processes, process_count
from reconciler.runtime import run
from reconciler.settings import Settings
from reconciler.shown import safe
from reconciler.windows import window_state

if TYPE_CHECKING:
    from reconciler.html import PortalReport


@dataclass(frozen=True, slots=True)
class FleetRequest:
    """What each portal of the fleet is asked, through the Python API's `plan` or
    `drift`, as the command asks a portal alone."""

    mode: Mode
    fmt: str
    jobs: int
    detailed_exitcode: bool  # plan: exit 2 on changes (drift always does)
    verbose: bool
    notify_url: str | None
    settings: Settings = field(repr=False)  # the variables the command read
    query: AccessQuery = field(default_factory=AccessQuery)  # --at, --expiring-within
    targets: tuple[str, ...] = ()  # plan: --target
    allow_deletes: bool = False  # plan: --allow-deletes
    # drift: the finding kinds that fail a portal (a fleet gates on `policy` alone).
    fail_on: frozenset[str] = frozenset()


# The summary's words for each outcome, in the order the summary counts them.
STATUSES: dict[Mode, tuple[str, ...]] = {
    "plan": ("failed", "with changes", "without changes"),
    "drift": ("failed", "drifted", "with findings", "in sync"),
}
WITH_FINDINGS = "with findings"  # in sync, with a policy finding --fail-on names


def fleet_command(targets: Sequence[Target], request: FleetRequest, out: Path | None = None) -> int:
    """Run `request` on every portal, print the report (and write it to `out`), notify;
    the worst exit code."""
    fleet_report.refuse_shared_urls(request.settings.environ)
    if out is not None:
        check_writable(out, "report")
    outcomes = run_fleet(targets, request)
    line = fleet_report.summary(outcomes, STATUSES[request.mode])
    if out is not None:
        fleet_report.echo_failures(outcomes)
        save_instead_of_printing(out, "report", _report(outcomes, request, line), line + ".")
    elif request.fmt == "html":
        click.echo(_report(outcomes, request, line), nl=False)
        click.echo(line, err=True)  # stdout stays one page
    else:
        fleet_report.echo(outcomes, request.fmt, line)
    if request.mode == "drift":
        _echo_findings(outcomes, request)
    notify(outcomes, request)
    return fleet_report.worst([o.code for o in outcomes])


def _report(outcomes: list[Outcome], request: FleetRequest, line: str) -> str:
    if request.fmt == "html":
        # The page's renderers load only for a page: every command's CLI imports this.
        from reconciler.html import render_fleet_html

        return render_fleet_html([_portal_report(o) for o in outcomes], request.mode, line)
    return fleet_report.rendered(outcomes, request.fmt, line)


def _portal_report(outcome: Outcome) -> PortalReport:
    from reconciler.html import PortalReport

    plan = outcome.plan if isinstance(outcome.plan, Plan) else None
    error = "" if plan is not None else str(outcome.document.get("error", ""))
    name, path = outcome.target.name, outcome.target.path.as_posix()
    return PortalReport(name, path, outcome.status, plan, error)


def run_fleet(targets: Sequence[Target], request: FleetRequest) -> list[Outcome]:
    """Every portal's outcome, in the order of `targets`: with `--jobs` above 1, the
    portals are shared among processes (up to one a core), each running its share
    `--jobs` / processes at once."""
    processes = process_count(request.jobs, len(targets))
    share = replace(request, jobs=-(-request.jobs // processes))  # rounded up
    return in_processes(targets, processes, partial(_run_share, request=share))


def _run_share(targets: list[Target], request: FleetRequest) -> list[Outcome]:
    return run(_all(targets, request))


async def _all(targets: Sequence[Target], request: FleetRequest) -> list[Outcome]:
    return await each_portal(
        targets,
        request.jobs,
        lambda target: _planned(target, request),
        lambda target, lines: _failed(target, request, lines),
    )


async def each_portal(
    targets: Sequence[Target],
    jobs: int,
    work: Callable[[Target], Awaitable[Outcome]],
    failed: Callable[[Target, list[str]], Outcome],
) -> list[Outcome]:
    """`work` on every portal, up to `jobs` at once, in the order of `targets`; a portal
    whose work raises a `UserError` gets `failed` with its lines, and the others go on."""
    bound = asyncio.Semaphore(jobs)

    async def one(target: Target) -> Outcome:
        async with bound:
            try:
                return await work(target)
            except UserError as exc:
                return failed(target, exc.lines)

    return list(await asyncio.gather(*(one(t) for t in targets)))


def _echo_findings(outcomes: Sequence[Outcome], request: FleetRequest) -> None:
    """Each portal's policy findings on stderr, beside a report of any format, as the
    drift of one portal says them."""
    gating = POLICY in request.fail_on
    for outcome in outcomes:
        if isinstance(outcome.plan, Plan):
            for finding in finding_rows(outcome.plan.policies or ()):
                line = finding_line(finding, gating, outcome.target.name)
                click.echo(safe(line), err=True)


async def _planned(target: Target, request: FleetRequest) -> Outcome:
    manifests = session.manifests(target.path, request.verbose, request.settings)
    desired = manifests.desired
    connection = session.connection(request.settings, desired.portal.name)
    plan = (await _asked(manifests, connection, request)).with_manifests(target.path.as_posix())
    # The HTML report is made of every portal's plan at the end, not of sections.
    html = request.fmt == "html"
    text = "" if html else render(plan, request.fmt, request.mode, color=is_terminal(sys.stdout))
    if request.mode == "plan" and desired.portal.applyWindows and request.fmt == "text":
        state = window_state(desired.portal.applyWindows, datetime.now(UTC))
        text += state.sentence() + "\n"
    status, code = _judged(plan, request)
    return Outcome(target, status, code, text, plan_document(plan, request.mode), plan)


async def _asked(manifests: Manifests, connection: Connection, request: FleetRequest) -> Plan:
    """The portal's plan, or its drift with the policies judged on the live state alone."""
    query = request.query
    if request.mode == "drift":
        return (await drift(manifests, connection, query=query)).plan
    return await plan(
        manifests,
        connection,
        targets=request.targets,
        allow_deletes=request.allow_deletes,
        at=query.at,
        expiring_within=query.expiring_within,
    )


def _judged(plan: Plan, request: FleetRequest) -> tuple[str, int]:
    statuses = STATUSES[request.mode]
    failed, changed, same = statuses[0], statuses[1], statuses[-1]
    if plan.errors:
        return failed, 1
    changes = bool(plan.changes) if request.mode == "drift" else not plan.empty
    if changes:
        return changed, 2 if request.mode == "drift" or request.detailed_exitcode else 0
    if POLICY in request.fail_on and plan.policies:
        return WITH_FINDINGS, 2
    return same, 0


def _failed(target: Target, request: FleetRequest, lines: list[str]) -> Outcome:
    if request.fmt == "markdown":
        text = failure_markdown(request.mode, target.path.as_posix(), lines)
    else:
        text = "".join(f"Error: {safe(line)}\n" for line in lines)
    return Outcome(target, STATUSES[request.mode][0], 1, text, {"error": "\n".join(lines)})


def notify(outcomes: Sequence[Outcome], request: FleetRequest) -> None:
    """One message per portal, as a run of each portal alone would post."""
    for outcome in outcomes:
        where = outcome.target.path.as_posix()
        notifier = Notifier.create(request.notify_url, request.mode, where, request.settings)
        plan = outcome.plan
        if not isinstance(plan, Plan):
            notifier.send(f"failed: {outcome.document.get('error', '')}")
        else:
            notifier.send(plan_text(plan) if request.mode == "plan" else drift_text(plan))
