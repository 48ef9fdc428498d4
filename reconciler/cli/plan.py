"""`orgctl plan DIR`: read the portal, diff it against the manifests, print the plan."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import click

from reconciler import api
from reconciler.access import AccessQuery
from reconciler.cli import help, options, session
from reconciler.cli.failure import markdown_failure
from reconciler.cli.fleet_run import FleetRequest, fleet_command
from reconciler.cli.output import (
    check_writable,
    echo_report,
    reading,
    save_instead_of_printing,
    write_output,
)
from reconciler.errors import UserError
from reconciler.fleet import select
from reconciler.notify import Notifier, plan_text
from reconciler.plan import Plan, render_json
from reconciler.plan.render.lines import summary_line
from reconciler.plan.render.markdown_parts import MIN_SIZE, render_markdown_parts
from reconciler.shown import safe
from reconciler.windows import window_state
from reconciler.workflow import run, target_list, warn_in_ci


@click.command(
    epilog=help.epilog(
        [
            "orgctl plan portals/prod",
            "orgctl plan portals/prod -o plan.json --detailed-exitcode   # for apply --plan",
            "orgctl plan portals/prod --format markdown --split 60000   # pull-request comments",
            'orgctl plan portals/prod --target "Role/Field Analyst"',
            "orgctl plan portals/ --jobs 8   # a fleet",
        ],
        help.LIVE + help.NOTIFY,
    ),
)
@options.manifest_paths
@options.report_format("text", "json", "markdown", "html")
@options.output_file(
    "Also save the plan as JSON, for `orgctl apply --plan` (with --format json, stdout then"
    " keeps the one-line summary)."
)
@click.option(
    "--detailed-exitcode", is_flag=True, help="Exit 2 when there are changes, 0 when none."
)
@click.option(
    "--split",
    "split_size",
    type=click.IntRange(min=MIN_SIZE),
    metavar="SIZE",
    help="With --format markdown: print every change and call as numbered parts of at most"
    " SIZE characters, each opening with '<!-- orgctl part I/N -->' (one comment each).",
)
@options.targets
@options.allow_deletes
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
    detailed_exitcode: bool,
    split_size: int | None,
    targets: tuple[str, ...],
    allow_deletes: bool,
    at: datetime | None,
    expiring_within: timedelta,
    notify_url: str | None,
    jobs: int,
    verbose: bool,
) -> None:
    """Show the ordered calls that would converge the portal on PATH.

    Several paths, or a fleet root holding several portal folders, plan each portal on
    its own, up to --jobs at once, and end with a summary."""
    if split_size is not None and fmt != "markdown":
        raise UserError("--split cuts a Markdown report: add --format markdown")
    given = options.settings()
    warn_in_ci(given.environ)
    fleet = select(paths)
    chosen = target_list(targets)
    if fleet is not None:
        if split_size is not None:
            raise UserError("--split cuts one portal's plan: plan each portal folder on its own")
        if out is not None:
            raise UserError(
                "-o saves one portal's plan for apply --plan: plan each portal folder on its own"
            )
        request = FleetRequest(
            "plan",
            fmt,
            jobs,
            detailed_exitcode,
            verbose,
            notify_url,
            given,
            query=AccessQuery(at=at, expiring_within=expiring_within),
            targets=chosen,
            allow_deletes=allow_deletes,
        )
        ctx.exit(fleet_command(fleet, request))
    folder = paths[0].as_posix()
    notifier = Notifier.create(notify_url, "plan", folder, given)
    with notifier.failures(), markdown_failure(fmt, "plan", folder):
        manifests = session.manifests(paths[0], verbose, given)
        if out is not None:
            check_writable(out, "plan file")
        desired = manifests.desired
        with reading(desired.portal.url):
            plan = run(
                api.plan(
                    manifests,
                    session.connection(given),
                    targets=chosen,
                    allow_deletes=allow_deletes,
                    at=at,
                    expiring_within=expiring_within,
                )
            )
    if out is not None and fmt == "json":
        # The saved plan is this very JSON: printed again it would only double the output.
        save_instead_of_printing(out, "plan file", render_json(plan), summary_line(plan, "plan"))
    else:
        _echo_plan(plan, fmt, split_size)
    if desired.portal.applyWindows:
        # Beside the report, on stdout unless it would spoil the JSON or the page.
        state = window_state(desired.portal.applyWindows, datetime.now(UTC))
        click.echo(state.sentence(), err=fmt in ("json", "html"))
    if out is not None and fmt != "json":
        _save(plan, out, fmt)
    notifier.send(plan_text(plan))
    if plan.errors:
        ctx.exit(1)
    if detailed_exitcode and not plan.empty:
        ctx.exit(2)


def _echo_plan(plan: Plan, fmt: str, split_size: int | None) -> None:
    if split_size is None:
        echo_report(plan, fmt, "plan")
    else:
        click.echo("".join(render_markdown_parts(plan, "plan", size=split_size)), nl=False)


def _save(plan: Plan, out: Path, fmt: str) -> None:
    """The plan JSON beside the report a reviewer reads, as Terraform's `plan -out`
    saves its plan and says where; on stderr unless the report is text, so that a
    Markdown comment or a page on stdout stays whole."""
    write_output(out, "plan file", render_json(plan))
    said = f"Saved the plan to {out}: `orgctl apply --plan {out}` applies exactly it."
    click.echo(safe(said), err=fmt != "text")
