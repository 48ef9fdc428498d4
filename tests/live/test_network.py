"""Network failures told apart, each with its likely cause, after a bounded retry that is
announced line by line: a host name that does not exist, a refused port, a portal that
never answers, a TLS handshake with a plain-http portal. Real sockets on loopback (and a
`.invalid` name, which RFC 2606 guarantees never resolves) unless said otherwise."""

from __future__ import annotations

import asyncio
import re
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from reconciler.live.client import PortalClient
from reconciler.live.errors import (
    ConnectionFailure,
    HostNotFoundError,
    PortalError,
    TLSError,
    TransientError,
)
from reconciler.live.retry import RetryPolicy
from tests.live.fakes import ENV, NoSleep
from tests.service.harness import Service

STATE = Path(__file__).resolve().parents[2] / "examples" / "demo" / "state.yaml"


class Run:
    """One client against `root`: what it raised, the waits and the retry lines."""

    def __init__(self, root: str, *, attempts: int = 4, timeout: float = 5.0, **options: Any):
        self.sleep = NoSleep()
        self.notices: list[str] = []
        self.client = PortalClient(
            root,
            env=ENV,
            retry=RetryPolicy(attempts=attempts, sleep=self.sleep),
            timeout=timeout,
            retry_notice=self.notices.append,
            **options,
        )

    def failure(self) -> PortalError:
        async def main() -> None:
            async with self.client:
                await self.client.get_json("portals/self")

        with pytest.raises(PortalError) as caught:
            asyncio.run(main())
        return caught.value


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_refused_port_is_retried_visibly_then_named_with_its_likely_cause() -> None:
    port = closed_port()
    run = Run(f"http://127.0.0.1:{port}/hq/sharing/rest")
    error = run.failure()
    assert isinstance(error, ConnectionFailure)
    assert str(error) == (
        f"portal at http://127.0.0.1:{port} is unreachable after 4 tries: connection refused"
        f" (nothing accepts connections on 127.0.0.1 port {port}: is the portal (or its web"
        " adaptor) running, and is the port in the URL right?)"
    )
    assert run.client.requests == 4 and len(run.sleep.waits) == 3
    pattern = rf"portal at http://127\.0\.0\.1:{port}: connection refused; trying again in"
    for number, (line, wait) in enumerate(zip(run.notices, run.sleep.waits, strict=True), 2):
        assert re.fullmatch(rf"{pattern} {wait:.1f}s \({number}/4\)", line), run.notices


def test_a_host_name_that_does_not_exist_is_said_so() -> None:
    run = Run("https://portal.example.invalid/sharing/rest")
    error = run.failure()
    message = str(error)
    assert message.startswith("portal at https://portal.example.invalid:443 is unreachable")
    assert re.search(
        r"host name portal\.example\.invalid (does not exist|could not be resolved) \(DNS: ",
        message,
    ), message
    if isinstance(error, HostNotFoundError):  # the resolver's definite "no such name"
        assert run.client.requests == 1 and run.notices == [] and "portal's URL" in message
    else:  # a resolver that could not be asked: worth another try
        assert isinstance(error, ConnectionFailure) and run.client.requests == 4


def raising(exc: Exception) -> httpx.MockTransport:
    def fail(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(str(exc), request=request) from exc

    return httpx.MockTransport(fail)


def test_no_such_name_is_final_but_a_resolver_failure_is_retried() -> None:
    """The resolver's two answers, as httpx raises them (its ConnectError over gaierror)."""
    root = "https://portal.example.com/sharing/rest"
    gone = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    final = Run(root, transport=raising(gone))
    assert isinstance(final.failure(), HostNotFoundError) and final.client.requests == 1
    later = socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    retried = Run(root, transport=raising(later))
    error = retried.failure()
    assert isinstance(error, ConnectionFailure) and retried.client.requests == 4
    assert error.what == (
        "its host name portal.example.com could not be resolved (DNS: Temporary failure in"
        " name resolution)"
    )
    assert "DNS server or network may be down" in str(error)


def test_a_connection_that_times_out_says_so() -> None:
    def never(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("timed out", request=request)

    transport = httpx.MockTransport(never)
    run = Run("https://portal.example.com/sharing/rest", timeout=2, transport=transport)
    error = run.failure()
    assert isinstance(error, ConnectionFailure)
    assert error.what == "no answer to connecting within 2s (timeout)"
    assert "firewall" in error.cause and run.notices[0].endswith("(2/4)")


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that takes connections (the kernel completes them) and never
    answers: nothing ever accepts or reads them."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


def test_a_portal_that_never_answers_times_out_and_is_retried_visibly(silent_port: int) -> None:
    run = Run(f"http://127.0.0.1:{silent_port}/hq/sharing/rest", attempts=2, timeout=0.3)
    error = run.failure()
    assert isinstance(error, TransientError) and not isinstance(error, ConnectionFailure)
    assert str(error) == (
        f"portal at http://127.0.0.1:{silent_port}/hq/sharing/rest/portals/self gave no reply"
        " within 0.3s (timeout): the portal, or a proxy in front of it, may be overloaded or"
        " stuck"
    )
    assert run.client.requests == 2 and len(run.notices) == 1
    assert run.notices[0].startswith(f"{error}; trying again in ")
    assert run.notices[0].endswith("(2/2)")


@pytest.fixture
def plain_http_service(tmp_path: Path) -> Iterator[Service]:
    service = Service(tmp_path / "db.sqlite", STATE).start()
    try:
        yield service
    finally:
        service.stop()


def test_https_to_a_plain_http_orgctl_serve_is_a_failed_handshake_tried_once(
    plain_http_service: Service,
) -> None:
    https = plain_http_service.url.replace("http://", "https://", 1)
    run = Run(f"{https}/hq/sharing/rest")
    error = run.failure()
    assert isinstance(error, TLSError)
    assert str(error) == (
        f"TLS handshake with {https}/hq/sharing/rest/portals/self failed (is the portal served"
        " over http?)"
    )
    assert run.client.requests == 1 and run.notices == [] and run.sleep.waits == []


def test_a_closed_handshake_is_told_apart_from_plain_http() -> None:
    eof = ssl.SSLEOFError(8, "EOF occurred in violation of protocol")
    run = Run("https://portal.example.com/sharing/rest", transport=raising(eof))
    error = run.failure()
    assert isinstance(error, TLSError) and "closed the connection" in str(error)
    assert run.client.requests == 1
