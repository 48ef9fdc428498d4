"""`orgctl access PATH`: who holds which privileges, read live (nothing is changed).

Reads only `portals/self`, the roles listing and the member listing; the report is one
document (`reconciler.access`) that every format renders. A fleet root or several paths
report each portal on its own, up to --jobs at once, as plan and drift do.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import click

from reconciler import api
from reconciler.access import FORMATS, AccessQuery, render_access
from reconciler.access.document import FleetEntry, fleet_document
from reconciler.access.html import render_access_fleet_html
from reconciler.access.render import write_access
from reconciler.access.spreadsheet import render_csv
from reconciler.access.text import summary_line
from reconciler.api import Manifests
from reconciler.api.live_report import failing
from reconciler.cli import fleet_report, help, options, session
from reconciler.cli.failure import failure_markdown, markdown_failure
from reconciler.cli.fleet_report import Outcome
from reconciler.cli.fleet_run import each_portal
from reconciler.cli.output import (
    check_writable,
    reading,
    save_instead_of_printing,
    stream_instead_of_printing,
)
from reconciler.fleet import Target, select
from reconciler.settings import Settings
from reconciler.shown import safe
from reconciler.workflow import run, say_on_stderr, warn_in_ci

Json = dict[str, Any]
# The fleet summary's words, in the order it counts them.
STATUSES = ("failed", "with findings", "without findings")


@dataclass(frozen=True, slots=True)
class AccessRequest:
    query: AccessQuery
    fmt: str
    fail_on: frozenset[str]
    jobs: int
    verbose: bool
    settings: Settings = field(repr=False)  # the variables the command read


@click.command(
    epilog=help.epilog(
        [
            "orgctl access portals/prod   # every member, role and privilege; findings first",
            "orgctl access portals/prod --privilege 'portal:admin:*' --format json",
            "orgctl access portals/prod --privilege portal:admin:deleteUsers   # who can",
            "orgctl access portals/ --fail-on admin-stale --fail-on admin-disabled   # CI gate",
            "orgctl access portals/prod --format csv -o access.csv",
            "orgctl access portals/prod --format html -o access.html   # for a browser",
        ],
        help.LIVE,
    ),
)
@options.manifest_paths
@click.option(
    "--privilege",
    "patterns",
    multiple=True,
    metavar="PATTERN",
    help="Only privileges matching this shell-style pattern (portal:admin:*), and the"
    " members holding one; repeatable.",
)
@click.option(
    "--stale-days",
    type=click.IntRange(0, 36_500),
    default=90,
    show_default=True,
    help="A last sign-in older than this many days is stale (never signed in: stale).",
)
@options.fail_on
@options.evaluation_time
@options.report_format(*FORMATS)
@options.output_file("Write the report to FILE; stdout then keeps its one-line summary.")
@options.jobs
@options.verbose
@options.portal_limits
@click.pass_context
def command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    patterns: tuple[str, ...],
    stale_days: int,
    fail_on: tuple[str, ...],
    at: datetime | None,
    expiring_within: timedelta,
    fmt: str,
    out: Path | None,
    jobs: int,
    verbose: bool,
) -> None:
    """Report who holds which privileges on the portal of PATH, through which role, and
    what an access review should look at first (exit 0; 2 with a --fail-on finding; 1 on
    errors). Reads the portal's roles and members; changes nothing.

    Several paths, or a fleet root holding several portal folders, report each portal on
    its own, up to --jobs at once; the exit code is the worst of them."""
    given = options.settings()
    warn_in_ci(given.environ)
    query = AccessQuery(stale_days, tuple(dict.fromkeys(patterns)), at, expiring_within)
    request = AccessRequest(query, fmt, frozenset(fail_on), jobs, verbose, given)
    fleet = select(paths)
    if fleet is not None:
        ctx.exit(access_fleet(fleet, request, out))
    with markdown_failure(fmt, "access", paths[0].as_posix()):
        manifests = session.manifests(paths[0], verbose, given)
        if out is not None:
            check_writable(out, "report")
        with reading(manifests.desired.portal.url):
            document = run(read_access(manifests, query, given))
    if out is None:
        write_access(document, fmt, sys.stdout)
        sys.stdout.flush()
    else:
        report = partial(write_access, document, fmt)
        stream_instead_of_printing(out, "report", report, summary_line(document))
    ctx.exit(gate(document, request.fail_on))


async def read_access(
    manifests: Manifests, query: AccessQuery, given: Settings, *, in_fleet: bool = False
) -> Json:
    """The report of one portal, each part left out of it named on stderr."""
    portal = manifests.desired.portal.name if in_fleet else None
    report = await api.access(manifests, session.connection(given, portal), query=query)
    prefix = f"{portal}: " if portal else ""
    for why in report.left_out:  # each reason names its resource
        say_on_stderr(safe(f"{prefix}Warning: left out of the report: {why}"))
    return report.document


def gate(document: Json, fail_on: Collection[str]) -> int:
    """2 when the report has a finding of a kind --fail-on names, else 0."""
    return 2 if failing(document, fail_on) else 0


# --- a fleet --------------------------------------------------------------------------------


def access_fleet(targets: Sequence[Target], request: AccessRequest, out: Path | None) -> int:
    """Report every portal, print (and write to `out`) the fleet's report; the worst code."""
    fleet_report.refuse_shared_urls(request.settings.environ)
    if out is not None:
        check_writable(out, "report")
    outcomes = run(
        each_portal(
            targets,
            request.jobs,
            lambda target: _reported(target, request),
            lambda target, lines: _failed(target, request.fmt, lines),
        )
    )
    line = fleet_report.summary(outcomes, STATUSES)
    text = _fleet_text(outcomes, request.fmt, line)
    if out is not None:
        fleet_report.echo_failures(outcomes)
        save_instead_of_printing(out, "report", text, line + ".")
    elif request.fmt in ("json", "csv", "html"):
        # stdout stays one document; the summary and any failure go to stderr.
        click.echo(text, nl=False)
        fleet_report.echo_failures(outcomes)
        click.echo(line, err=True)
    else:
        click.echo(text, nl=False)
    return fleet_report.worst([o.code for o in outcomes])


async def _reported(target: Target, request: AccessRequest) -> Outcome:
    manifests = session.manifests(target.path, request.verbose, request.settings)
    document = await read_access(manifests, request.query, request.settings, in_fleet=True)
    status = STATUSES[1] if document["findings"] else STATUSES[2]
    text = render_access(document, request.fmt) if request.fmt in ("text", "markdown") else ""
    return Outcome(target, status, gate(document, request.fail_on), text, document)


def _failed(target: Target, fmt: str, lines: list[str]) -> Outcome:
    if fmt == "markdown":
        text = failure_markdown("access", target.path.as_posix(), lines)
    else:
        text = "".join(f"Error: {safe(line)}\n" for line in lines)
    return Outcome(target, STATUSES[0], 1, text, {"error": "\n".join(lines)})


def _fleet_text(outcomes: Sequence[Outcome], fmt: str, line: str) -> str:
    reported = [o for o in outcomes if o.status != STATUSES[0]]
    if fmt in ("json", "html"):
        entries = [
            FleetEntry(
                o.target.name,
                o.target.path.as_posix(),
                None if o.status == STATUSES[0] else o.document,
                o.document["error"] if o.status == STATUSES[0] else None,
            )
            for o in outcomes
        ]
        document = fleet_document(entries)
        if fmt == "html":
            return render_access_fleet_html(document)
        return render_access(document, "json")
    if fmt == "csv":
        return render_csv([o.document for o in reported])
    return fleet_report.rendered(outcomes, fmt, line)
