"""`orgctl force-unlock LOCK_ID DIR`: break an apply lock whose holder died, as
Terraform's `force-unlock` does; only the lease with that ID is removed."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

import click

from reconciler.apply.lock import Lease, LeaseStore, force_unlock
from reconciler.cli import help, options
from reconciler.cli.output import is_terminal
from reconciler.errors import UserError
from reconciler.manifest import load_desired
from reconciler.shown import safe
from reconciler.state import DesiredState
from reconciler.workflow import connect, run


@click.command(
    epilog=help.epilog(
        ["orgctl force-unlock 7f3c9a1e portals/prod   # the lock ID apply named"],
        help.LIVE,
    ),
)
@click.argument("lock_id")
@options.manifests
@options.portal_limits
@click.option("--force", is_flag=True, help="Do not ask for confirmation.")
def command(lock_id: str, manifests: Path, force: bool) -> None:
    """Remove the apply lock LOCK_ID from the portal of MANIFESTS. Only for a lock whose
    apply is dead: a running apply that loses its lock stops sending calls."""
    environ = options.settings().environ
    desired = load_desired(manifests, environ)
    if not force:
        _confirm(lock_id, desired.portal.url)
    broken = run(_unlock(desired, environ, lock_id))
    click.echo(f"Removed the apply lock of {desired.portal.url}: {safe(broken.describe())}")


async def _unlock(desired: DesiredState, environ: Mapping[str, str], lock_id: str) -> Lease:
    async with connect(desired, environ) as client:
        return await force_unlock(LeaseStore(client), lock_id)


def _confirm(lock_id: str, url: str) -> None:
    if not is_terminal(sys.stdin):
        raise UserError(
            "refusing to break a lock without confirmation: no terminal to ask on; pass --force"
        )
    if not click.confirm(f"Remove the apply lock {lock_id} of {url}?", default=False):
        raise UserError("force-unlock cancelled; the lock is kept")
