"""`orgctl schema`: print the manifest JSON Schema (the committed copy is in schemas/)."""

from __future__ import annotations

import click

from reconciler.cli import help
from reconciler.manifest import schema_text


@click.command(
    "schema",
    epilog=help.epilog(
        ["orgctl schema > orgctl.schema.json"],
        help.NONE,
    ),
)
def command() -> None:
    """Print the JSON Schema of the manifest format."""
    click.echo(schema_text(), nl=False)
