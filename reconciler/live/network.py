"""What a failed request means, told from the exception httpx raises and the OS or ssl
error under it: a host name that does not exist, one that could not be resolved for now,
a refused connection, a connection or reply that timed out, no route, a failed TLS
handshake. Each is said with its likely cause, and whether another try may help.
"""

from __future__ import annotations

import errno
import socket
import ssl
from dataclasses import dataclass
from typing import TypeVar

import httpx

from reconciler.live.errors import (
    ConnectionFailure,
    HostNotFoundError,
    PortalError,
    TLSError,
    TransientError,
)
from reconciler.live.urls import shown

E = TypeVar("E", bound=BaseException)

# getaddrinfo's answers that the name does not exist, as opposed to "try again later".
_NO_SUCH_NAME = {socket.EAI_NONAME} | (
    {socket.EAI_NODATA} if hasattr(socket, "EAI_NODATA") else set()
)
# The ssl module's reasons when the other end does not speak TLS at all.
_NOT_TLS = {"WRONG_VERSION_NUMBER", "HTTP_REQUEST", "RECORD_LAYER_FAILURE"}


@dataclass(frozen=True, slots=True)
class Failure:
    error: PortalError
    retry: bool  # another try may succeed
    maybe_processed: bool  # the request may have reached the portal and been acted on


def origin(url: str) -> str:
    """`https://host:port` of a URL, the port always said (a refused port is the point)."""
    parsed = httpx.URL(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return f"{parsed.scheme}://{parsed.host}:{port}"


def _cause(exc: BaseException, kind: type[E]) -> E | None:
    """The first exception of `kind` in the chain httpx (through httpcore, anyio) wraps."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, kind):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _seconds(timeout: float | None) -> str:
    return f" within {timeout:g}s" if timeout else ""


def connect_failure(url: str, exc: httpx.TransportError, timeout: float | None) -> Failure:
    """A failure before the request was sent: nothing reached the portal."""
    tls = _cause(exc, ssl.SSLError)
    if tls is not None:
        return Failure(_tls_error(url, tls), retry=False, maybe_processed=False)
    where = origin(url)
    host = httpx.URL(url).host
    dns = _cause(exc, socket.gaierror)
    if dns is not None and dns.errno in _NO_SUCH_NAME:
        error = HostNotFoundError(
            f"portal at {where} is unreachable: its host name {host} does not exist (DNS:"
            f" {dns.strerror}); check the host in the portal's URL (or ORGCTL_PORTAL_URL)"
        )
        return Failure(error, retry=False, maybe_processed=False)
    what, cause = _connect_fact(exc, dns, host, where, timeout)
    return Failure(ConnectionFailure(where, what, cause), retry=True, maybe_processed=False)


def _connect_fact(
    exc: httpx.TransportError,
    dns: socket.gaierror | None,
    host: str,
    where: str,
    timeout: float | None,
) -> tuple[str, str]:
    """(what happened, its likely cause) for a connection that could not be made."""
    if dns is not None:
        return (
            f"its host name {host} could not be resolved (DNS: {dns.strerror})",
            "this machine's DNS server or network may be down",
        )
    if _cause(exc, ConnectionRefusedError) is not None:
        port = where.rsplit(":", 1)[1]
        return (
            "connection refused",
            f"nothing accepts connections on {host} port {port}: is the portal (or its web"
            " adaptor) running, and is the port in the URL right?",
        )
    if isinstance(exc, httpx.ConnectTimeout) or _cause(exc, TimeoutError) is not None:
        return (
            f"no answer to connecting{_seconds(timeout)} (timeout)",
            "a firewall may drop the connection, or the host is down or not at this address",
        )
    if isinstance(exc, httpx.PoolTimeout):
        return (f"no free connection{_seconds(timeout)} (timeout)", "too many calls in flight")
    unreachable = _cause(exc, OSError)
    code = unreachable.errno if unreachable is not None else None
    if code == errno.ENETUNREACH:
        return ("network unreachable", "this machine has no route there: a VPN or proxy needed?")
    if code == errno.EHOSTUNREACH:
        return ("no route to host", "the host is down, or a firewall rejects the connection")
    return (f"cannot connect ({type(exc).__name__}: {exc})", "a network problem on the way")


def _tls_error(url: str, tls: ssl.SSLError) -> TLSError:
    """A failed handshake fails the same way on every try."""
    if isinstance(tls, ssl.SSLCertVerificationError):
        why = getattr(tls, "verify_message", None) or str(tls)
        return TLSError(
            f"TLS certificate of {shown(url)} is not trusted ({why}); a private CA is"
            " trusted with ORGCTL_CA_BUNDLE"
        )
    reason = getattr(tls, "reason", None)  # set by the ssl module; absent when made by hand
    if reason in _NOT_TLS:
        return TLSError(f"TLS handshake with {shown(url)} failed (is the portal served over http?)")
    if isinstance(tls, ssl.SSLEOFError):
        return TLSError(
            f"TLS handshake with {shown(url)} failed: the other end closed the connection"
            " (a proxy or firewall in the way, or no TLS on this port)"
        )
    return TLSError(f"TLS handshake with {shown(url)} failed ({reason or tls})")


def reply_failure(url: str, exc: httpx.TransportError, timeout: float | None) -> Failure:
    """A failure after the request was sent: the portal may have acted on it."""
    if isinstance(exc, httpx.TimeoutException):
        what = f"gave no reply{_seconds(timeout)} (timeout)"
        cause = "the portal, or a proxy in front of it, may be overloaded or stuck"
    elif isinstance(exc, httpx.RemoteProtocolError):
        what = "closed the connection without a complete reply"
        cause = "the portal or a proxy in front of it may have restarted or cut it off"
    else:
        what = f"gave no reply ({type(exc).__name__})"
        cause = "the connection broke on the way"
    error = TransientError(f"portal at {shown(url)} {what}: {cause}")
    return Failure(error, retry=True, maybe_processed=True)
