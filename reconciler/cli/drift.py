"""`orgctl drift DIR`: the scheduled check that the portal still matches the manifests."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import click

from reconciler import api
from reconciler.access import AccessQuery
from reconciler.access.findings import POLICY
from reconciler.cli import help, options, session
from reconciler.cli.failure import markdown_failure
from reconciler.cli.fleet_run import FleetRequest, fleet_command
from reconciler.cli.live_policies import finding_line
from reconciler.cli.output import (
    check_writable,
    echo_report,
    reading,
    render,
    save_instead_of_printing,
)
from reconciler.errors import UserError
from reconciler.fleet import select
from reconciler.notify import Notifier, drift_text
from reconciler.plan.render.lines import summary_line
from reconciler.shown import safe
from reconciler.workflow import run, warn_in_ci


@click.command(
    epilog=help.epilog(
        [
            "orgctl drift portals/prod   # exit 2 when the portal differs",
            "orgctl drift portals/ --jobs 8 --format json -o drift.json   # a fleet",
            "orgctl drift portals/ --format html -o drift.html   # a page to open in a browser",
            "orgctl drift portals/prod --fail-on admin-custom-role   # and on a finding",
        ],
        help.LIVE + help.NOTIFY,
    ),
)
@options.manifest_paths
@options.report_format("text", "json", "markdown", "html")
@options.output_file("Write the report to FILE; stdout then keeps its one-line summary.")
@options.fail_on
@options.evaluation_time
@options.notify
@options.jobs
@options.verbose
@options.portal_limits
@click.pass_context
def command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    fmt: str,
    out: Path | None,
    fail_on: tuple[str, ...],
    at: datetime | None,
    expiring_within: timedelta,
    notify_url: str | None,
    jobs: int,
    verbose: bool,
) -> None:
    """Report every difference between the portal and PATH (exit 2 on drift, or on an
    access finding of a kind --fail-on names; 1 on errors).

    Several paths, or a fleet root holding several portal folders, check each portal on
    its own, up to --jobs at once, and end with a summary ("3 portals: 1 drifted, 2 in
    sync"); the exit code is the worst of them."""
    given = options.settings()
    warn_in_ci(given.environ)
    fleet = select(paths)
    if fleet is not None:
        if set(fail_on) - {POLICY}:
            raise UserError(
                "--fail-on gates a fleet's drift on policy findings alone; for the access"
                " review's other findings, run orgctl access PATH... --fail-on FINDING"
                " beside it"
            )
        request = FleetRequest(
            "drift",
            fmt,
            jobs,
            False,
            verbose,
            notify_url,
            given,
            query=AccessQuery(at=at, expiring_within=expiring_within),
            fail_on=frozenset(fail_on),
        )
        ctx.exit(fleet_command(fleet, request, out))
    folder = paths[0].as_posix()
    notifier = Notifier.create(notify_url, "drift", folder, given)
    with notifier.failures(), markdown_failure(fmt, "drift", folder):
        manifests = session.manifests(paths[0], verbose, given)
        if out is not None:
            check_writable(out, "report")
        query = AccessQuery(at=at, expiring_within=expiring_within)
        with reading(manifests.desired.portal.url):
            checked = run(
                api.drift(manifests, session.connection(given), fail_on=fail_on, query=query)
            )
    plan = checked.plan
    if out is None:
        echo_report(plan, fmt, "drift")
    else:
        report = render(plan, fmt, "drift")
        save_instead_of_printing(out, "report", report, summary_line(plan, "drift"))
    _echo_findings(checked.findings, checked.policies)
    notifier.send(drift_text(plan))
    # Errors first, as plan does: a report with errors compared less than it should, and a
    # scheduled check must fail rather than pass as ordinary drift.
    if plan.errors:
        ctx.exit(1)
    if plan.changes or checked.findings:
        ctx.exit(2)


def _echo_findings(findings: list[dict[str, Any]], policies: list[dict[str, Any]]) -> None:
    """Each finding that fails the check, then each policy's violation that does not,
    on stderr, beside a report of any format."""
    for finding in findings:
        click.echo(safe(finding_line(finding, gating=True)), err=True)
    for finding in policies:
        if finding not in findings:
            click.echo(safe(finding_line(finding, gating=False)), err=True)
