"""orgctl trusts the CA file the user names (`ORGCTL_CA_BUNDLE`, `SSL_CERT_FILE`), never
less than verification, and sends the Referer a referer-bound token needs."""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from orgctl_service.tls import make_local_certificate
from reconciler.errors import UserError
from reconciler.live.client import PortalClient
from reconciler.live.errors import TLSError
from reconciler.live.retry import RetryPolicy
from reconciler.live.trust import trust_store
from reconciler.state import Auth
from tests.live.conftest import PlainHttp
from tests.live.fakes import ENV, TOKEN, NoSleep


@pytest.fixture
def private_ca_portal(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An https portal whose certificate a private CA signed, and that CA's file."""
    files = make_local_certificate(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(files.cert), str(files.key))
    server = ThreadingHTTPServer(("127.0.0.1", 0), PlainHttp)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert files.ca is not None
        yield f"https://127.0.0.1:{server.server_address[1]}/hq/sharing/rest", files.ca
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def fetch(root: str, env: dict[str, str]) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        retry = RetryPolicy(attempts=2, sleep=NoSleep())
        async with PortalClient(root, env=env, retry=retry) as client:
            return await client.get_json("portals/self")

    return asyncio.run(main())


def test_a_private_ca_is_untrusted_until_named(private_ca_portal: tuple[str, Path]) -> None:
    root, _ = private_ca_portal
    with pytest.raises(TLSError, match="is not trusted"):
        fetch(root, {})


@pytest.mark.parametrize("variable", ["ORGCTL_CA_BUNDLE", "SSL_CERT_FILE"])
def test_the_named_ca_file_is_trusted(private_ca_portal: tuple[str, Path], variable: str) -> None:
    root, ca = private_ca_portal
    assert fetch(root, {variable: str(ca)})["id"] == "p1"


def test_orgctl_ca_bundle_comes_before_ssl_cert_file(
    private_ca_portal: tuple[str, Path], tmp_path: Path
) -> None:
    root, ca = private_ca_portal
    (tmp_path / "other").mkdir()
    other = make_local_certificate(tmp_path / "other")
    assert other.ca is not None
    env = {"ORGCTL_CA_BUNDLE": str(ca), "SSL_CERT_FILE": str(other.ca)}
    assert fetch(root, env)["id"] == "p1"


def test_an_unreadable_ca_file_is_one_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    with pytest.raises(UserError) as caught:
        PortalClient(
            "https://portal.example.com/sharing/rest", env={"ORGCTL_CA_BUNDLE": str(missing)}
        )
    assert str(caught.value).startswith(
        f"{missing}: cannot read the CA file named by ORGCTL_CA_BUNDLE"
    )
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate")
    with pytest.raises(
        UserError, match=r"garbage\.pem: cannot read the CA file named by SSL_CERT_FILE"
    ):
        PortalClient("https://portal.example.com/sharing/rest", env={"SSL_CERT_FILE": str(garbage)})


def test_a_loopback_http_portal_reads_no_ca_file(plain_http_root: str, tmp_path: Path) -> None:
    # Reading a bundle cost 27 to 42 ms of every command against the reference service,
    # which never makes a TLS connection: the file is read at the first one.
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate")
    assert fetch(plain_http_root, {"ORGCTL_CA_BUNDLE": str(garbage)})["id"] == "p1"


def test_a_store_read_on_first_use_verifies_that_connection(
    plain_http_root: str, private_ca_portal: tuple[str, Path], tmp_path: Path
) -> None:
    https_root, ca = private_ca_portal
    asked = f"{https_root}/portals/self"  # an absolute URL, from a client of an http root

    def fetch_from_http_client(env: dict[str, str]) -> dict[str, Any]:
        async def main() -> dict[str, Any]:
            retry = RetryPolicy(attempts=2, sleep=NoSleep())
            async with PortalClient(plain_http_root, env=env, retry=retry) as client:
                return await client.get_json(asked)

        return asyncio.run(main())

    named = tmp_path / "bundle.pem"
    named.write_bytes(ca.read_bytes())
    assert fetch_from_http_client({"ORGCTL_CA_BUNDLE": str(named)})["id"] == "p1"
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate")
    with pytest.raises(UserError, match=r"garbage\.pem: cannot read the CA file named by"):
        fetch_from_http_client({"ORGCTL_CA_BUNDLE": str(garbage)})
    other = tmp_path / "other"
    other.mkdir()
    stranger = make_local_certificate(other).ca
    assert stranger is not None
    with pytest.raises(TLSError, match="is not trusted"):
        fetch_from_http_client({"ORGCTL_CA_BUNDLE": str(stranger)})


def test_the_default_store_is_read_once_for_every_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A fleet makes a client per portal: reading the default certificates each time
    # cost 29 ms a portal.
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    first = trust_store({})
    assert isinstance(first, ssl.SSLContext)
    assert first.verify_mode == ssl.CERT_REQUIRED and first.check_hostname
    assert trust_store({}) is first
    assert trust_store({"ORGCTL_REFERER": "https://apps.example.com"}) is first


def test_a_named_ca_file_is_read_once_until_it_changes(
    private_ca_portal: tuple[str, Path], tmp_path: Path
) -> None:
    root, ca = private_ca_portal
    named = tmp_path / "bundle.pem"
    named.write_bytes(ca.read_bytes())
    env = {"ORGCTL_CA_BUNDLE": str(named)}
    first = trust_store(env)
    assert trust_store(env) is first
    (tmp_path / "other").mkdir()
    other = make_local_certificate(tmp_path / "other")
    assert other.ca is not None
    replaced = tmp_path / "replaced.pem"
    replaced.write_bytes(other.ca.read_bytes())
    replaced.replace(named)  # as a rotation puts a new file in place
    assert trust_store(env) is not first
    with pytest.raises(TLSError, match="is not trusted"):
        fetch(root, env)


def test_a_changed_ssl_cert_file_is_read_again(
    private_ca_portal: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, ca = private_ca_portal
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    with pytest.raises(TLSError, match="is not trusted"):
        fetch(root, {})
    # The process's own variable, as httpx reads it, not one of the command's settings.
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    assert fetch(root, {})["id"] == "p1"


def test_orgctl_referer_is_the_referer_sent_with_a_pre_issued_token() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": "p1"})

    env = {**ENV, "ORGCTL_REFERER": "https://apps.example.com/admin-tool"}

    async def main() -> None:
        client = PortalClient(
            "https://portal.example.com/sharing/rest",
            auth=Auth(tokenEnv="ORG_TOKEN"),
            env=env,
            transport=httpx.MockTransport(answer),
        )
        async with client:
            await client.get_json("portals/self")

    asyncio.run(main())
    assert seen[0].headers["referer"] == "https://apps.example.com/admin-tool"
    assert seen[0].headers["x-esri-authorization"] == f"Bearer {TOKEN}"
