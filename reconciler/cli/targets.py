"""`orgctl targets ROOT... [--json]`: the portal folders of a fleet, to feed a CI matrix."""

from __future__ import annotations

import json
from pathlib import Path

import click

from reconciler.cli import help
from reconciler.fleet import find_targets, refuse_same_names


@click.command(
    epilog=help.epilog(
        [
            "orgctl targets portals/",
            "orgctl targets portals/ --json --secrets   # a CI matrix",
        ],
        help.URLS,
    ),
)
@click.argument(
    "roots", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="ROOT..."
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list for a CI matrix.")
@click.option(
    "--secrets",
    "with_secrets",
    is_flag=True,
    help="Also print the names of each portal's credential variables.",
)
def command(roots: tuple[Path, ...], as_json: bool, with_secrets: bool) -> None:
    """List the portal folders below each ROOT, one Portal document each."""
    targets = [target for root in roots for target in find_targets(root)]
    refuse_same_names(targets)
    if as_json:
        # Compact, one line: a GitHub Actions step output must fit on one line.
        click.echo(json.dumps([t.to_json() for t in targets], separators=(",", ":")))
        return
    for target in targets:
        line = target.path.as_posix()
        if with_secrets:
            names = target.secrets()
            line += f"  {names['token']}, or {names['username']} + {names['password']}"
        click.echo(line)
