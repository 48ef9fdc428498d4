"""`orgctl export`: write manifests that describe a live portal (adoption).

Reads the whole portal through the live reader, then writes one file per kind; `orgctl
plan` on the result shows no changes. Credentials come from the environment only, and the
Portal document names the variables that were used, never their values.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import click

from reconciler.cli import help, options
from reconciler.errors import UserError
from reconciler.export import check_output_folder, write_manifests
from reconciler.live import PortalClient, Scope, read_live
from reconciler.live.credentials import PLAIN
from reconciler.live.origins import UrlSources
from reconciler.runtime import run
from reconciler.settings import PASSWORD, TOKEN, USERNAME, Settings
from reconciler.state import Auth, LiveState
from reconciler.workflow import say_on_stderr


def auth_from_environment(given: Settings) -> Auth:
    """The token when set, else username and password; neither is a clear error."""
    token, pair = PLAIN
    if given.token:
        return token
    if given.username and given.password:
        return pair
    raise UserError(
        f"export needs credentials in the environment: set {TOKEN.name}, or both"
        f" {USERNAME.name} and {PASSWORD.name}"
    )


async def read_portal(
    portal_url: str, admin_url: str | None, auth: Auth, environ: Mapping[str, str]
) -> tuple[LiveState, datetime]:
    """Everything the portal shows, and when: its own clock (the answers' Date header),
    else this machine's."""
    client = PortalClient(
        portal_url,
        auth=auth,
        admin_root=admin_url,
        env=environ,
        retry_notice=say_on_stderr,
        sources=UrlSources("--portal-url", "--admin-url"),
    )
    async with client:
        live = await read_live(client, None, Scope.EVERYTHING)
        clock = client.server_clock
    return live, datetime.fromtimestamp(clock, UTC) if clock is not None else datetime.now(UTC)


@click.command(
    "export",
    epilog=help.epilog(
        [
            "orgctl export --portal-url https://gis.example.com/portal/sharing/rest"
            " -o portals/prod",
        ],
        help.PLAIN_CREDENTIALS + help.CONNECTION,
    ),
)
@click.option("--portal-url", required=True, help="The portal's sharing REST root.")
@click.option("--admin-url", default=None, help="The admin root (to export webhook settings).")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder to write the manifests into; it must be empty unless --force.",
)
@click.option(
    "--name", default=None, help="metadata.name of the Portal (default: the portal's name)."
)
@click.option("--force", is_flag=True, help="Overwrite the files of an earlier export.")
@options.portal_limits
def command(
    portal_url: str, admin_url: str | None, output: Path, name: str | None, force: bool
) -> None:
    """Read a live portal and write manifests that describe it (adoption)."""
    given = options.settings()
    auth = auth_from_environment(given)
    check_output_folder(output, force)  # before the long read, not after it
    if sys.stderr.isatty():
        click.echo(f"Reading {portal_url} ...", err=True)
    live, clock = run(read_portal(portal_url, admin_url, auth, given.environ))
    summary = write_manifests(
        live,
        output,
        portal_url=portal_url,
        admin_url=admin_url,
        auth=auth,
        name=name,
        exported_at=clock,
        force=force,
    )
    for note in summary.notes:
        click.echo(f"Note: {note}", err=True)
    click.echo(summary.sentence())
