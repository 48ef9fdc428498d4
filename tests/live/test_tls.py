"""A TLS failure is told as one, not as an unreachable portal, and is not retried."""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

import httpx
import pytest

from reconciler.live.client import PortalClient
from reconciler.live.errors import TLSError
from reconciler.live.retry import RetryPolicy
from tests.live.fakes import ENV, NoSleep


def fetch(client: PortalClient) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with client:
            return await client.get_json("portals/self")

    return asyncio.run(main())


def client(
    root: str, sleep: NoSleep, transport: httpx.AsyncBaseTransport | None = None
) -> PortalClient:
    return PortalClient(
        root, env=ENV, transport=transport, retry=RetryPolicy(attempts=3, sleep=sleep)
    )


def test_the_server_answers_plain_http(plain_http_root: str) -> None:
    """The control: over http the same server is a working portal."""
    assert fetch(client(plain_http_root, NoSleep())) == {"id": "p1"}


def test_https_to_a_plain_http_port_says_the_tls_handshake_failed(plain_http_root: str) -> None:
    https_root = plain_http_root.replace("http://", "https://", 1)
    sleep = NoSleep()
    portal = client(https_root, sleep)
    with pytest.raises(TLSError) as caught:
        fetch(portal)
    message = str(caught.value)
    assert message == (
        f"TLS handshake with {https_root}/portals/self failed (is the portal served over http?)"
    )
    assert "unreachable" not in message
    # The handshake fails the same way every time: one try, no backoff.
    assert portal.requests == 1 and sleep.waits == []


def test_an_untrusted_certificate_is_named_as_such() -> None:
    def untrusted(request: httpx.Request) -> httpx.Response:
        # As httpx raises it: its ConnectError caused by the ssl module's own error.
        cause = ssl.SSLCertVerificationError(1, "certificate verify failed")
        cause.verify_message = "self-signed certificate"
        raise httpx.ConnectError(str(cause), request=request) from cause

    sleep = NoSleep()
    portal = client(
        "https://portal.example.com/sharing/rest", sleep, httpx.MockTransport(untrusted)
    )
    with pytest.raises(TLSError) as caught:
        fetch(portal)
    assert str(caught.value) == (
        "TLS certificate of https://portal.example.com/sharing/rest/portals/self is not"
        " trusted (self-signed certificate); a private CA is trusted with ORGCTL_CA_BUNDLE"
    )
    assert portal.requests == 1 and sleep.waits == []
