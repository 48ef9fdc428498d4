"""`orgctl serve`: run the reference Organization Administration Service."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING

import click

from reconciler.cli import help
from reconciler.errors import UserError

if TYPE_CHECKING:
    from orgctl_service import TlsFiles
    from orgctl_service.world import World

# The reference service's web stack is the optional extra `serve`: the rest of orgctl
# (validate, plan, apply, drift) never needs it, so CI jobs that install orgctl skip it.
WEB_STACK = frozenset({"starlette", "uvicorn", "trustme"})
MISSING_EXTRA = (
    "orgctl serve needs the reference service's web stack ({missing} is not installed):"
    " install the extra with pip install 'orgctl[serve]'"
)


def require_web_stack() -> None:
    """Import the service's web stack now, so a missing extra is one line, not a traceback."""
    try:
        import uvicorn  # noqa: F401

        import orgctl_service  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in WEB_STACK:
            raise UserError(MISSING_EXTRA.format(missing=exc.name.split(".")[0])) from None
        raise


def _tls_files(tls: bool, cert: Path | None, key: Path | None) -> TlsFiles | None:
    from orgctl_service import make_local_certificate, user_certificate

    if (cert is None) != (key is None):
        raise UserError("--cert and --key go together: give both, or --tls alone")
    if cert is not None and key is not None:
        return user_certificate(cert, key)
    return make_local_certificate() if tls else None


def world_ticks(state_file: Path | None, world: World) -> bool:
    """A state without `clock` runs on wall time; one with `clock` stands still. A world
    just seeded knows (the state file of 100,000 members is not parsed a second time)."""
    from orgctl_service import declares_clock

    if world.clock_fixed is not None:
        return not world.clock_fixed
    return state_file is None or not declares_clock(state_file)


@click.command(
    epilog=help.epilog(
        [
            "orgctl serve --state examples/demo/state.yaml --port 8080",
            "orgctl serve --db portal.sqlite --port 0   # a free port, named on the first line",
        ],
        help.NONE,
    ),
)
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
@click.option(
    "--tls",
    is_flag=True,
    help="Serve https with a certificate made for localhost; prints the CA file to trust.",
)
@click.option(
    "--cert",
    "cert_file",
    type=click.Path(path_type=Path),
    help="Serve https with this certificate (PEM; with --key).",
)
@click.option(
    "--key", "key_file", type=click.Path(path_type=Path), help="Private key (PEM) of --cert."
)
def command(
    state_file: Path | None,
    db_file: Path | None,
    host: str,
    port: int,
    control: bool,
    tls: bool,
    cert_file: Path | None,
    key_file: Path | None,
) -> None:
    """Serve every portal of the state under /<urlKey>/sharing/rest and /<urlKey>/admin."""
    require_web_stack()
    import uvicorn

    from orgctl_service import create_app, open_world

    files = _tls_files(tls, cert_file, key_file)
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
    app = create_app(store, world, control_enabled=control, ticking=world_ticks(state_file, world))
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        date_header=False,
        # Clients keep connections open between calls; a stop should not wait on them.
        timeout_graceful_shutdown=1,
        ssl_certfile=str(files.cert) if files else None,
        ssl_keyfile=str(files.key) if files else None,
    )
    keys = ", ".join(p["urlKey"] for p in world.portals.values()) or "none"
    shown = f"[{host}]" if ":" in host else host
    scheme = "https" if files else "http"
    click.echo(f"orgctl serve: listening on {scheme}://{shown}:{real_port} (portals: {keys})")
    if files and files.ca:
        click.echo(f"orgctl serve: CA certificate to trust: {files.ca}")
    try:
        uvicorn.Server(config).run(sockets=[listener])
    finally:
        store.close()
