"""`orgctl agent`: pull the manifests (Git or a folder) and keep reconciling each portal."""

from __future__ import annotations

import asyncio
import gc
import signal
import tempfile
from pathlib import Path

import click

from reconciler.cli import help, options
from reconciler.errors import UserError
from reconciler.settings import Settings

PYTHON_GC_THRESHOLDS = (700, 10, 10)


def _fraction(text: str) -> float:
    """`10%` or `0.1` -> 0.1; between 0 and 50 %."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a share like 10% or 0.1") from None
    if not 0 <= value <= 0.5:
        raise click.BadParameter(f"{text!r}: give a share between 0% and 50%")
    return value


def _own_shard(shards: int, shard: int | None, from_hostname: bool) -> int:
    from reconciler.agent.shards import checked_shard, shard_from_hostname

    if from_hostname and shard is not None:
        raise UserError("give --shard K or --shard-from-hostname, not both")
    if from_hostname:
        return shard_from_hostname(shards)
    if shard is None:
        if shards > 1:
            raise UserError(
                f"--shards {shards}: say which one this is (--shard K, or --shard-from-hostname)"
            )
        return 0
    return checked_shard(shard, shards)


def _address(text: str) -> tuple[str, int]:
    host, colon, port = text.rpartition(":")
    if not colon or not port.isdigit() or int(port) > 65535:
        raise click.BadParameter(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:9464)")
    return host.strip("[]") or "127.0.0.1", int(port)


@click.group(
    invoke_without_command=True,
    epilog=help.epilog(
        [
            "orgctl agent --source https://git.example/acme/portals.git --path portals",
            "orgctl agent --source ./portals --once   # exit 0 in sync, 2 drift, 1 failed",
            "orgctl agent --source repo --allow-apply   # self-heal where spec.agent says so",
            "orgctl agent --source repo --shards 3 --shard-from-hostname   # a StatefulSet",
            "orgctl agent shards --shards 3 portals --format json   # who owns which portal",
        ],
        help.AGENT + help.LIVE + help.NOTIFY + help.LOCK,
    ),
)
@click.option("--source", help="A Git URL, a Git repository's folder, or a folder (required).")
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
@click.option(
    "--shards", type=click.IntRange(1, 1024), default=1, show_default=True,
    help="Replicas sharing the fleet; each reconciles only its own shard's portals.",
)  # fmt: skip
@click.option("--shard", type=int, default=None, help="This replica's shard, 0 … N-1.")
@click.option(
    "--shard-from-hostname", is_flag=True,
    help="Take the shard from the host name's ordinal suffix (a StatefulSet pod's).",
)  # fmt: skip
@options.notify
@options.portal_limits
@click.pass_context
def command(
    ctx: click.Context,
    source: str | None,
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
    shards: int,
    shard: int | None,
    shard_from_hostname: bool,
    notify_url: str | None,
) -> None:
    """Keep portals reconciled from a Git repository (report only unless allowed)."""
    if ctx.invoked_subcommand is not None:
        return
    # Imported here: `orgctl --help` loads neither prometheus-client nor the planner.
    from reconciler.agent.portal_ops import check_trusted_origins
    from reconciler.agent.scheduler import Settings

    given = options.settings()
    check_trusted_origins(given)
    if source is None:
        raise UserError("orgctl agent needs --source (a Git URL, a repository or a folder)")
    if interval <= 0:
        raise UserError("--interval: must be more than 0")
    settings = Settings(
        interval=interval,
        jitter=_fraction(jitter),
        deadline=deadline if deadline else max(interval, 60.0),
        concurrency=concurrency,
        allow_apply=allow_apply,
        notify_url=notify_url or given.notify_url,
        shards=shards,
        shard=_own_shard(shards, shard, shard_from_hostname),
        environ=given.environ,
    )
    address = None if once else _address(listen)
    with tempfile.TemporaryDirectory(prefix="orgctl-agent-") as scratch:
        cache = cache_dir or Path(scratch)
        code = asyncio.run(_main(source, ref, subdir, cache, settings, address, given))
    raise SystemExit(code)


async def _main(
    location: str,
    ref: str,
    subdir: str,
    cache: Path,
    settings: object,
    address: tuple[str, int] | None,
    given: Settings,
) -> int:
    from reconciler.agent.http import listen
    from reconciler.agent.metrics import Metrics
    from reconciler.agent.routes import Routes
    from reconciler.agent.scheduler import Agent, Settings
    from reconciler.agent.source import source_for

    assert isinstance(settings, Settings)
    # Python's own thresholds again: the one-shot commands collect cycles rarely
    # (runtime.py), and in a process that never ends each reconcile's HTTP client left
    # about 1 MB of cycles behind until a full collection (RSS grew by 100 MB a minute at
    # 20 portals on a 2 s interval; benchmarks/agent.py).
    gc.set_threshold(*PYTHON_GC_THRESHOLDS)
    cache.mkdir(parents=True, exist_ok=True)
    metrics = Metrics()
    agent = Agent(source_for(location, ref, subdir, cache), settings, metrics)
    if address is None:
        return await agent.once()
    server = await listen(*address, Routes(agent, metrics, given))
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


@command.command("shards")
@click.option("--shards", type=click.IntRange(1, 1024), required=True, help="How many shards.")
@click.option(
    "--format", "form", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
def shards_command(shards: int, form: str, path: Path) -> None:
    """Which shard owns which portal below PATH, as `--shards N` replicas split them."""
    import json

    from reconciler.agent.portal_ops import find_portals
    from reconciler.agent.shards import assign, by_shard

    grouped = by_shard(assign([p.name for p in find_portals(path)], shards), shards)
    if form == "json":
        click.echo(json.dumps({"shards": grouped}, indent=2))
        return
    for shard, names in grouped.items():
        click.echo(f"shard {shard}: {len(names)} portal(s): {', '.join(names) or '-'}")
