"""`orgctl export`: write manifests that describe a live portal (adoption).

Reads the whole portal through the live reader, then writes one file per kind; `orgctl
plan` on the result shows no changes. Credentials come from the environment only, and the
Portal document names the variables that were used, never their values.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from reconciler import api
from reconciler.cli import help, options, session
from reconciler.export import check_output_folder
from reconciler.live.credentials import plain_auth
from reconciler.runtime import run


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
    connection = session.connection(options.settings())
    plain_auth(connection.variables)  # credentials are named before the folder is
    check_output_folder(output, force)  # before the long read, not after it
    if sys.stderr.isatty():
        click.echo(f"Reading {portal_url} ...", err=True)
    exported = run(api.export(portal_url, connection, admin_url=admin_url, name=name, out=output))
    summary = exported.write(output, force)
    for note in summary.notes:
        click.echo(f"Note: {note}", err=True)
    click.echo(summary.sentence())
