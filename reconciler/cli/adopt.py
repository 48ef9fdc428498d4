"""`orgctl adopt ADDRESS... DIR`: write the live values of resources into their manifests."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import click

from reconciler.adopt import Address, Adopted, adopt_into, parse_address
from reconciler.cli import help, options
from reconciler.cli.output import reading
from reconciler.clock import evaluation_time
from reconciler.errors import UserError
from reconciler.live import Scope, read_live
from reconciler.manifest import load_desired
from reconciler.manifest.grants import resolved
from reconciler.plan import build_plan
from reconciler.shown import safe
from reconciler.state import DesiredState, LiveState
from reconciler.workflow import connect, run


@click.command(
    epilog=help.epilog(
        [
            'orgctl adopt "Role/Field Analyst" Member/bob portals/prod   # these resources',
            "orgctl adopt --drifted portals/prod   # everything drift reports",
        ],
        help.LIVE,
    ),
)
@click.argument("arguments", nargs=-1, required=True, metavar="ADDRESS... DIR")
@click.option(
    "--drifted",
    is_flag=True,
    help="Adopt every resource drift reports that a manifest can declare.",
)
@options.portal_limits
def command(arguments: tuple[str, ...], drifted: bool) -> None:
    """Write the live values of the resources at ADDRESS into the manifests in DIR that
    declare them (in place, comments kept), or add them where their kind lives."""
    *given, folder = arguments
    manifests = Path(folder)
    if not given and not drifted:
        raise UserError("adopt needs at least one ADDRESS (or --drifted) before the folder")
    addresses = [parse_address(text) for text in given]
    environ = options.settings().environ
    desired = load_desired(manifests, environ)
    _refuse_time_bound(addresses, desired)
    live, clock = run(_read(desired, environ))
    if drifted:
        addresses += _drifted(desired, live, clock, addresses)
    adopted = adopt_into(manifests, addresses, live, environ)
    _report(adopted)


async def _read(
    desired: DesiredState, environ: Mapping[str, str]
) -> tuple[LiveState, float | None]:
    """The whole portal (a resource the manifests do not declare yet can be adopted too)
    and its clock."""
    async with connect(desired, environ) as client:
        with reading(desired.portal.url):
            return await read_live(client, desired, Scope.EVERYTHING), client.server_clock


def _drifted(
    desired: DesiredState, live: LiveState, clock: float | None, given: list[Address]
) -> list[Address]:
    """The drifted resources a manifest can declare (deletions policies state are not),
    judged with the grants in force now; those with time-bound grants are left out."""
    at_now = resolved(desired, evaluation_time(clock))
    plan = build_plan(at_now, live, allow_deletes=True, now=clock)
    found = []
    for change in plan.changes:
        if change.address in desired.grants:
            click.echo(safe(f"{change.address}: left alone: {TIME_BOUND}"), err=True)
            continue
        try:
            address = parse_address(change.address)
        except UserError:
            continue
        if address not in given and address not in found:
            found.append(address)
    return found


TIME_BOUND = (
    "it declares time-bound grants, so its manifest values are what it falls back to, not"
    " what the portal gives now; edit them by hand (README: Temporary access)"
)


def _refuse_time_bound(addresses: list[Address], desired: DesiredState) -> None:
    """Adopting a resource with grants would write what a grant gives as its fallback."""
    for address in addresses:
        if str(address) in desired.grants:
            raise UserError(safe(f"{address}: cannot be adopted: {TIME_BOUND}"))


def _report(adopted: Adopted) -> None:
    for line in adopted.lines:
        click.echo(line)
    if not adopted.written:
        click.echo("No file changed: the manifests already hold the live values.")
