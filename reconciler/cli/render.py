"""`orgctl render DIR [--show-origin]`: a portal's manifest set as plan will use it."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from reconciler.cli import help, options
from reconciler.manifest.resolved import render
from reconciler.manifest.validation import check
from reconciler.shown import safe


@click.command(
    "render",
    epilog=help.epilog(
        [
            "orgctl render portals/prod",
            "orgctl render portals/prod --show-origin   # the file and line of each value",
        ],
        help.URLS,
    ),
)
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--show-origin", is_flag=True, help="End each line with the file and line that wrote it."
)
def command(path: Path, show_origin: bool) -> None:
    """Print the manifests of the portal in PATH after includes, overlays and limits."""
    checked = check(path, options.settings().environ)
    if checked.problems:
        for problem in checked.problems:
            click.echo(safe(str(problem)), err=True)
        count = len(checked.problems)
        click.echo(f"{count} problem{'s' if count != 1 else ''} found: nothing rendered", err=True)
        sys.exit(1)
    loaded = checked.loaded
    header = [f"orgctl render {path.as_posix()}: the manifest set plan uses"]
    header += [f"includes {i.folder.as_posix()} (at {i.site})" for i in loaded.includes]
    click.echo(render(loaded.resolved, header, show_origin), nl=False)
