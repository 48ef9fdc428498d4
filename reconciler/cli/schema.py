"""`orgctl schema`: print the manifest JSON Schema (the committed copy is in schemas/)."""

from __future__ import annotations

from pathlib import Path

import click

from reconciler.cli import help
from reconciler.manifest import schema_text


@click.command(
    "schema",
    epilog=help.epilog(
        [
            "orgctl schema > schemas/orgctl-v1.schema.json",
            "orgctl schema --documents-to /tmp/docs portals/prod/*.yaml   # for check-jsonschema",
        ],
        help.NONE,
    ),
)
@click.option(
    "--documents-to",
    "documents_to",
    type=click.Path(file_okay=False, path_type=Path),
    help="Instead, write each document of FILES as its own JSON file in this folder, for"
    " JSON Schema tools that read one document a file.",
)
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
def command(documents_to: Path | None, files: tuple[Path, ...]) -> None:
    """Print the JSON Schema of the manifest format."""
    if documents_to is None:
        if files:
            raise click.UsageError("FILES are read only with --documents-to")
        click.echo(schema_text(), nl=False)
        return
    from reconciler.manifest.documents_json import write_document_files

    written = write_document_files(files, documents_to)
    click.echo(f"{len(written)} document(s) written to {documents_to}", err=True)
