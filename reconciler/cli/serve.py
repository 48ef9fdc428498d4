"""`orgctl serve`: run the reference Organization Administration Service."""

from __future__ import annotations

import socket
from pathlib import Path

import click

from reconciler.errors import UserError


@click.command()
@click.option(
    "--state",
    "state_file",
    type=click.Path(path_type=Path),
    help="State file (YAML) that seeds an empty database.",
)
@click.option(
    "--db",
    "db_file",
    type=click.Path(path_type=Path),
    help="SQLite database file; in memory when omitted.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--port",
    default=8080,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to bind; 0 picks a free one.",
)
@click.option(
    "--control",
    is_flag=True,
    help="Enable /_control/... (move the clock, record webhook failures).",
)
def command(
    state_file: Path | None, db_file: Path | None, host: str, port: int, control: bool
) -> None:
    """Serve every portal of the state under /<urlKey>/sharing/rest and /<urlKey>/admin."""
    import uvicorn

    from reconciler.service import create_app, open_world

    store, world = open_world(state_file, db_file)
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # proto IPPROTO_TCP so asyncio sets TCP_NODELAY on accepted connections; without
        # it every kept-alive answer waits for the client's delayed ACK.
        listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind((host, port))
        listener.listen(128)
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    real_port = listener.getsockname()[1]
    app = create_app(store, world, control_enabled=control)
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", date_header=False
    )
    keys = ", ".join(p["urlKey"] for p in world.portals.values()) or "none"
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"orgctl serve: listening on http://{shown}:{real_port} (portals: {keys})")
    try:
        uvicorn.Server(config).run(sockets=[listener])
    finally:
        store.close()
