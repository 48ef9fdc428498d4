"""`orgctl doctor PATH | --portal-url URL`: check the live portal against orgctl's model
of it (release, sign-in, capabilities, the keys and types of every read, privileges, the
apply lock), reading only. Exit 0 orgctl can manage the portal as is, 2 it can with the
differences named, 1 it cannot."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from reconciler import api
from reconciler.cli import fleet_report, help, options, session
from reconciler.cli.fleet_report import Outcome
from reconciler.cli.fleet_run import each_portal
from reconciler.doctor import Examined
from reconciler.doctor.render import FORMATS, rendered, report_document
from reconciler.errors import UserError
from reconciler.fleet import Target, select
from reconciler.settings import Settings
from reconciler.shown import safe
from reconciler.workflow import run, warn_in_ci

# The fleet summary's words, in the order it counts them (exit 1, 2, 0).
STATUSES = ("not manageable", "with differences", "ready")
STATUS_OF = {1: STATUSES[0], 2: STATUSES[1], 0: STATUSES[2]}


@click.command(
    epilog=help.epilog(
        [
            "orgctl doctor portals/prod   # exit 0 ready, 2 differences, 1 not manageable",
            "orgctl doctor portals/ --jobs 4 --format json   # a fleet",
            "orgctl doctor --portal-url https://gis.example.com/portal/sharing/rest",
        ],
        help.LIVE,
    ),
)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATH]...")
@click.option(
    "--portal-url",
    default=None,
    help="Check the portal at this sharing REST root, without manifests (credentials:"
    " ORGCTL_TOKEN, or ORGCTL_USERNAME and ORGCTL_PASSWORD).",
)
@click.option("--admin-url", default=None, help="With --portal-url: the admin root.")
@options.report_format(*FORMATS)
@options.jobs
@options.verbose
@options.portal_limits
@click.pass_context
def command(
    ctx: click.Context,
    paths: tuple[Path, ...],
    portal_url: str | None,
    admin_url: str | None,
    fmt: str,
    jobs: int,
    verbose: bool,
) -> None:
    """Check the live portal of PATH against orgctl's model of it, reading only: it
    answers, credentials sign in, it runs the declared release, each read has the keys and
    JSON types orgctl uses, its privileges are in orgctl's catalog, and the member that
    applies may make the plan's calls and take the apply lock.

    Exit 0 when orgctl can manage the portal as it is, 2 when it can with the
    differences named, 1 when it cannot (each reason with its fix). Several paths, or a
    fleet root, check each portal; the exit code is the worst of them."""
    if bool(paths) == bool(portal_url):
        raise UserError("give manifest PATHs or --portal-url URL (one of the two)")
    given = options.settings()
    warn_in_ci(given.environ)
    if portal_url is not None:
        connection = session.connection(given)
        examined = run(api.doctor_url(portal_url, connection, admin_url=admin_url))
        ctx.exit(_echoed(examined, fmt))
    fleet = select(paths)
    if fleet is not None:
        ctx.exit(_fleet(fleet, fmt, jobs, verbose, given))
    manifests = session.manifests(paths[0], verbose, given)
    ctx.exit(_echoed(run(api.doctor(manifests, session.connection(given))), fmt))


def _echoed(examined: Examined, fmt: str) -> int:
    click.echo(rendered(examined.report, fmt, examined.observations), nl=False)
    return examined.report.exit_code


def _fleet(targets: list[Target], fmt: str, jobs: int, verbose: bool, given: Settings) -> int:
    fleet_report.refuse_shared_urls(given.environ)
    outcomes = asyncio.run(
        each_portal(targets, jobs, lambda t: _examined(t, fmt, verbose, given), _failed)
    )
    line = fleet_report.summary(outcomes, STATUSES)
    fleet_report.echo(outcomes, fmt, line)
    return fleet_report.worst([o.code for o in outcomes])


async def _examined(target: Target, fmt: str, verbose: bool, given: Settings) -> Outcome:
    manifests = session.manifests(target.path, verbose, given)
    connection = session.connection(given, manifests.desired.portal.name)
    examined = await api.doctor(manifests, connection)
    report, seen = examined.report, examined.observations
    code = report.exit_code
    text = rendered(report, fmt, seen) if fmt != "json" else ""
    return Outcome(target, STATUS_OF[code], code, text, report_document(report, seen))


def _failed(target: Target, lines: list[str]) -> Outcome:
    text = "".join(f"Error: {safe(line)}\n" for line in lines)
    return Outcome(target, STATUSES[0], 1, text, {"error": "\n".join(lines)})
