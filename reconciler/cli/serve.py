"""`orgctl serve`: run the reference Organization Administration Service."""

from __future__ import annotations

import ipaddress
import secrets
import signal
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import click

from reconciler.cli import help
from reconciler.cli.options import settings
from reconciler.errors import UserError
from reconciler.settings import SERVE_CONTROL_SECRET

if TYPE_CHECKING:
    import uvicorn

    from orgctl_service import TlsFiles
    from orgctl_service.app import ServiceApp
    from orgctl_service.guard import ConnectionGuard
    from orgctl_service.world import World

# The reference service's web stack is the optional extra `serve`: the rest of orgctl
# (validate, plan, apply, drift) never needs it, so CI jobs that install orgctl skip it.
WEB_STACK = frozenset({"starlette", "uvicorn", "trustme"})
CONTROL_SECRET_ENV = SERVE_CONTROL_SECRET.name
# A request head must arrive within this (at most the maximum) or the connection closes.
HEADER_TIMEOUT_SECONDS = 10.0
MAX_HEADER_TIMEOUT_SECONDS = 30.0
DEMO_PASSWORDS_WARNING = (
    "orgctl serve: warning: {host} is reachable from other machines, and the demo's"
    " states (examples/, tests/) give every member a published password (<username>-pass,"
    " such as admin-pass for admin): serve such a state only where that is meant"
)
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
        help.SERVE,
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
    help=(
        "Enable /_control/... (move the clock, record webhook failures); loopback --host"
        f" only, each call sending Authorization: Bearer ${CONTROL_SECRET_ENV} (made and"
        " printed when unset)."
    ),
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
@click.option(
    "--forwarded-allow-ips",
    "proxies",
    default="",
    metavar="ADDRESSES",
    help=(
        "Comma-separated addresses of the proxies in front of the service: only their"
        " X-Forwarded-For and X-Forwarded-Proto are believed (none by default)."
    ),
)
@click.option(
    "--header-timeout",
    default=HEADER_TIMEOUT_SECONDS,
    show_default=True,
    type=click.FloatRange(0.1, MAX_HEADER_TIMEOUT_SECONDS),
    help="Seconds a connection has to send a whole request head; then 408 and closed.",
)
@click.option(
    "--origin",
    "origins",
    multiple=True,
    metavar="URL",
    help=(
        "An origin (scheme://host[:port]) clients reach the service at, whose addresses"
        " count as the portals' own for OAuth redirects; default: the address it listens on."
    ),
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
    proxies: str,
    header_timeout: float,
    origins: tuple[str, ...],
) -> None:
    """Serve every portal of the state under /<urlKey>/sharing/rest and /<urlKey>/admin."""
    require_web_stack()
    from orgctl_service.guard import ConnectionGuard, connection_cap, descriptor_limit

    given = settings().serve_control_secret if control else None
    control_secret = _control_secret(host, given) if control else ""
    # A secret made here is told here, to the one who started the service.
    made = "" if given else control_secret
    _check_exposure(host, tls or cert_file is not None)
    _check_origins(origins)
    # The TLS files before the port: a bad --cert is named as such even on a busy port,
    # and a busy port leaves no made private key behind.
    files = _tls_files(tls, cert_file, key_file)
    try:
        listener = _listen(host, port)
        guard = ConnectionGuard(connection_cap(descriptor_limit()), header_timeout)
        served = _Served(listener, files, _origins(origins, host, listener, files))
        _serve(state_file, db_file, served, guard, control_secret, proxies, made)
    finally:
        if files is not None:
            files.remove_temporary()  # a private key must not outlive the service


@dataclass(frozen=True, slots=True)
class _Served:
    """Where the service answers: its socket, TLS files and origins."""

    listener: socket.socket
    files: TlsFiles | None
    origins: tuple[str, ...]


def _serve(
    state_file: Path | None,
    db_file: Path | None,
    served: _Served,
    guard: ConnectionGuard,
    control_secret: str,
    proxies: str,
    made_secret: str,
) -> None:
    from orgctl_service import create_app, open_world
    from orgctl_service.protocol import GuardedServer

    with _Signals() as signals:
        store, world = open_world(state_file, db_file)
        ticking = world_ticks(state_file, world)
        app = create_app(
            store,
            world,
            control_secret=control_secret,
            ticking=ticking,
            origins=served.origins,
        )
        try:
            signals.server = GuardedServer(_config(app, served.files, guard, proxies), guard)
            _announce(served, world, made_secret)
            signals.server.run(sockets=[served.listener])
        finally:
            store.close()
    if signals.received:
        sys.exit(128 + signals.received)


def is_loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere


def _control_secret(host: str, given: str | None) -> str:
    """The secret a control call must carry; `--control` moves the clock and forges
    webhook failures, so it is for tests on this machine only."""
    if not is_loopback(host):
        raise UserError(
            f"--control needs a loopback --host (127.0.0.1, ::1 or localhost), not {host}:"
            " it lets a caller move the service's clock"
        )
    return given or secrets.token_urlsafe(32)


def _check_exposure(host: str, tls: bool) -> None:
    """A host other machines can reach gets https only, and a word about the demo's
    passwords, which anyone who read the examples knows."""
    if is_loopback(host):
        return
    if not tls:
        raise UserError(
            f"--host {host} is reachable from other machines: serve it with --tls (or"
            " --cert and --key), so passwords and tokens do not cross the network in clear"
        )
    click.echo(DEMO_PASSWORDS_WARNING.format(host=host), err=True)


def _check_origins(origins: tuple[str, ...]) -> None:
    for origin in origins:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path.strip("/"):
            raise UserError(
                f"--origin {origin}: give scheme://host[:port], such as https://gis.example.com"
            )


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


def _origins(
    given: tuple[str, ...], host: str, listener: socket.socket, files: TlsFiles | None
) -> tuple[str, ...]:
    """The service's own origins: those given, else the address it listens on (and
    `localhost` beside a loopback address, which the made certificate names too)."""
    if given:
        return tuple(origin.rstrip("/") for origin in given)
    scheme = "https" if files else "http"
    port = listener.getsockname()[1]
    names = [f"[{host}]" if ":" in host else host]
    if is_loopback(host) and host != "localhost":
        names.append("localhost")
    return tuple(f"{scheme}://{name}:{port}" for name in names)


def _config(
    app: ServiceApp, files: TlsFiles | None, guard: ConnectionGuard, proxies: str
) -> uvicorn.Config:
    import uvicorn

    from orgctl_service.app import REQUEST_HEAD_BYTES
    from orgctl_service.guard import ACCEPT_BURST
    from orgctl_service.protocol import guarded_protocol

    trusted = [address.strip() for address in proxies.split(",") if address.strip()]
    return uvicorn.Config(
        app,
        http=guarded_protocol(guard),
        # uvicorn believes X-Forwarded-For from loopback by default: any local client
        # could then claim any address, past IP-bound tokens and the sign-in lock.
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
        backlog=ACCEPT_BURST,
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


def _announce(served: _Served, world: World, made_secret: str) -> None:
    keys = ", ".join(p["urlKey"] for p in world.portals.values()) or "none"
    host, port = served.listener.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    scheme = "https" if served.files else "http"
    click.echo(f"orgctl serve: listening on {scheme}://{shown}:{port} (portals: {keys})")
    if served.files and served.files.ca:
        click.echo(f"orgctl serve: CA certificate to trust: {served.files.ca}")
    if made_secret:
        click.echo(f"orgctl serve: control secret (Authorization: Bearer): {made_secret}")


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
