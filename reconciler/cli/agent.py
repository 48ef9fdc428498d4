"""`orgctl agent`: pull the manifests (Git or a folder) and keep reconciling each portal."""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
from pathlib import Path

import click

from reconciler.cli import help, options
from reconciler.errors import UserError

AGENT_VARIABLES = (
    ("ORGCTL_AGENT_REFRESH_SECRET", "turns on POST /api/v1/refresh (Bearer token)"),
    ("ORGCTL_AGENT_WEBHOOK_SECRET", "turns on POST /hooks/git (X-Hub-Signature-256)"),
)


def _fraction(text: str) -> float:
    """`10%` or `0.1` -> 0.1; between 0 and 50 %."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a share like 10% or 0.1") from None
    if not 0 <= value <= 0.5:
        raise click.BadParameter(f"{text!r}: give a share between 0% and 50%")
    return value


def _address(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not port.isdigit() or int(port) > 65535:
        raise click.BadParameter(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:9464)")
    return host.strip("[]") or "127.0.0.1", int(port)


@click.command(
    epilog=help.epilog(
        [
            "orgctl agent --source https://git.example/acme/portals.git --path portals",
            "orgctl agent --source ./portals --once   # exit 0 in sync, 2 drift, 1 failed",
            "orgctl agent --source repo --allow-apply   # self-heal where spec.agent says so",
        ],
        AGENT_VARIABLES + help.LIVE + help.NOTIFY + help.LOCK,
    ),
)
@click.option("--source", required=True, help="A Git URL, a Git repository's folder, or a folder.")
@click.option("--ref", default="main", show_default=True, help="The branch or tag to follow.")
@click.option("--path", "subdir", default="", help="The portal folder or fleet root inside it.")
@click.option(
    "--interval", type=options.Seconds(), default="5m", show_default=True,
    help="Time between two reconciles of a portal.",
)  # fmt: skip
@click.option("--jitter", default="10%", show_default=True, help="± share of each interval.")
@click.option(
    "--deadline", type=options.Seconds(), default=None,
    help="Longest one portal's reconcile may take, apply included [default: the interval,"
    " at least 1m].",
)  # fmt: skip
@click.option(
    "--concurrency", type=click.IntRange(1, 256), default=8, show_default=True,
    help="Portals reconciled at once.",
)  # fmt: skip
@click.option("--listen", default="127.0.0.1:9464", show_default=True, help="HOST:PORT to serve.")
@click.option("--once", is_flag=True, help="One pass: exit 0 synced, 2 drift, 1 failed.")
@click.option(
    "--allow-apply", is_flag=True,
    help="Apply where the Portal's manifests say spec.agent.selfHeal: true.",
)  # fmt: skip
@click.option(
    "--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Where Git revisions are kept [default: a temporary folder].",
)  # fmt: skip
@options.notify
@options.portal_limits
def command(
    source: str,
    ref: str,
    subdir: str,
    interval: float,
    jitter: str,
    deadline: float | None,
    concurrency: int,
    listen: str,
    once: bool,
    allow_apply: bool,
    cache_dir: Path | None,
    notify_url: str | None,
) -> None:
    """Keep portals reconciled from a Git repository (report only unless allowed)."""
    # Imported here: `orgctl --help` loads neither prometheus-client nor the planner.
    from reconciler.agent.portal_ops import check_trusted_origins
    from reconciler.agent.scheduler import Settings

    check_trusted_origins(os.environ)
    if interval <= 0:
        raise UserError("--interval: must be more than 0")
    settings = Settings(
        interval=interval,
        jitter=_fraction(jitter),
        deadline=deadline if deadline else max(interval, 60.0),
        concurrency=concurrency,
        allow_apply=allow_apply,
        notify_url=notify_url or os.environ.get("ORGCTL_NOTIFY_URL") or None,
    )
    address = None if once else _address(listen)
    with tempfile.TemporaryDirectory(prefix="orgctl-agent-") as scratch:
        cache = cache_dir or Path(scratch)
        code = asyncio.run(_main(source, ref, subdir, cache, settings, address))
    raise SystemExit(code)


async def _main(
    location: str,
    ref: str,
    subdir: str,
    cache: Path,
    settings: object,
    address: tuple[str, int] | None,
) -> int:
    from reconciler.agent.http import listen
    from reconciler.agent.metrics import Metrics
    from reconciler.agent.routes import Routes
    from reconciler.agent.scheduler import Agent, Settings
    from reconciler.agent.source import source_for

    assert isinstance(settings, Settings)
    cache.mkdir(parents=True, exist_ok=True)
    metrics = Metrics()
    agent = Agent(source_for(location, ref, subdir, cache), settings, metrics)
    if address is None:
        return await agent.once()
    server = await listen(*address, Routes(agent, metrics, os.environ))
    host, port = server.sockets[0].getsockname()[:2]
    click.echo(f"orgctl agent listening on http://{host}:{port}", nl=True)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, agent.stop)
    try:
        await agent.run()
    finally:
        server.close()
        await server.wait_closed()
    click.echo("orgctl agent stopped")
    return 0
