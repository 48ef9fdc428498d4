"""`orgctl serve`: run the reference Organization Administration Service."""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from reconciler.cli import help
from reconciler.errors import UserError

if TYPE_CHECKING:
    import uvicorn

    from orgctl_service import TlsFiles
    from orgctl_service.app import ServiceApp
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

    listener = _listen(host, port)  # first: a busy port leaves nothing made behind
    files = _tls_files(tls, cert_file, key_file)
    try:
        with _Signals() as signals:
            store, world = open_world(state_file, db_file)
            ticking = world_ticks(state_file, world)
            app = create_app(store, world, control_enabled=control, ticking=ticking)
            try:
                signals.server = uvicorn.Server(_config(app, files))
                _announce(host, listener, world, files)
                signals.server.run(sockets=[listener])
            finally:
                store.close()
    finally:
        if files is not None:
            files.remove_temporary()  # a private key must not outlive the service
    if signals.received:
        sys.exit(128 + signals.received)


def _listen(host: str, port: int) -> socket.socket:
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
    return listener


def _config(app: ServiceApp, files: TlsFiles | None) -> uvicorn.Config:
    import uvicorn

    from orgctl_service.app import REQUEST_HEAD_BYTES
    from orgctl_service.protocol import ServiceProtocol

    return uvicorn.Config(
        app,
        http=ServiceProtocol,
        log_level="warning",
        access_log=False,
        lifespan="off",
        date_header=False,
        # Clients keep connections open between calls; a stop should not wait on them.
        timeout_graceful_shutdown=1,
        # Room for a request line the service answers 414 with its envelope; beyond it
        # the protocol answers 414 or 431 itself.
        h11_max_incomplete_event_size=REQUEST_HEAD_BYTES,
        ssl_certfile=str(files.cert) if files else None,
        ssl_keyfile=str(files.key) if files else None,
    )


def _announce(host: str, listener: socket.socket, world: World, files: TlsFiles | None) -> None:
    keys = ", ".join(p["urlKey"] for p in world.portals.values()) or "none"
    shown = f"[{host}]" if ":" in host else host
    scheme = "https" if files else "http"
    port = listener.getsockname()[1]
    click.echo(f"orgctl serve: listening on {scheme}://{shown}:{port} (portals: {keys})")
    if files and files.ca:
        click.echo(f"orgctl serve: CA certificate to trust: {files.ca}")


class _Signals:
    """SIGINT and SIGTERM end `serve` through its `finally`s (SIGTERM's default would kill
    the process on the spot, leaving the made private key behind), then exit 128 + the
    signal, with no traceback. Once there is a server, a signal asks it to stop as
    uvicorn's own handler does (it takes the signals while it serves, and raises them
    again after its graceful shutdown, which lands here too); an exception raised into
    the event loop as it starts would leave it half-built."""

    def __init__(self) -> None:
        self.server: uvicorn.Server | None = None
        self.received = 0
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> _Signals:
        for sig in (signal.SIGINT, signal.SIGTERM):
            self.previous[sig] = signal.signal(sig, self.stop)
        return self

    def __exit__(self, *_exc: object) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def stop(self, signum: int, _frame: object) -> None:
        self.received = signum
        if self.server is None:
            raise SystemExit(128 + signum)  # still loading the state: nothing to shut down
        self.server.should_exit = True
