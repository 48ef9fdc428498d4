"""`orgctl export`: write manifests that describe a live portal (adoption).

Reads the whole portal through the live reader, then writes one file per kind; `orgctl
plan` on the result shows no changes. Credentials come from the environment only, and the
Portal document names the variables that were used, never their values.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import click

from reconciler.cli import help, options
from reconciler.errors import UserError
from reconciler.export import check_output_folder, write_manifests
from reconciler.live import PortalClient, Scope, read_live
from reconciler.live.origins import UrlSources
from reconciler.runtime import run
from reconciler.state import Auth, LiveState
from reconciler.workflow import say_on_stderr

TOKEN_ENV = "ORGCTL_TOKEN"
USERNAME_ENV = "ORGCTL_USERNAME"
PASSWORD_ENV = "ORGCTL_PASSWORD"


def auth_from_environment(environ: Mapping[str, str]) -> Auth:
    """The token when set, else username and password; neither is a clear error."""
    if environ.get(TOKEN_ENV):
        return Auth(tokenEnv=TOKEN_ENV)
    if environ.get(USERNAME_ENV) and environ.get(PASSWORD_ENV):
        return Auth(usernameEnv=USERNAME_ENV, passwordEnv=PASSWORD_ENV)
    raise UserError(
        f"export needs credentials in the environment: set {TOKEN_ENV}, or both"
        f" {USERNAME_ENV} and {PASSWORD_ENV}"
    )


async def read_portal(
    portal_url: str, admin_url: str | None, auth: Auth
) -> tuple[LiveState, datetime]:
    """Everything the portal shows, and when: its own clock (the answers' Date header),
    else this machine's."""
    client = PortalClient(
        portal_url,
        auth=auth,
        admin_root=admin_url,
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
        (
            ("ORGCTL_TOKEN, or ORGCTL_USERNAME and ORGCTL_PASSWORD", "the credentials"),
            *help.CONNECTION,
        ),
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
    auth = auth_from_environment(os.environ)
    check_output_folder(output, force)  # before the long read, not after it
    if sys.stderr.isatty():
        click.echo(f"Reading {portal_url} ...", err=True)
    live, clock = run(read_portal(portal_url, admin_url, auth))
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
