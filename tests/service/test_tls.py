"""`orgctl serve --tls` serves https with a certificate it makes and says which CA file
to trust; `--cert/--key` take the user's pair; a TLS file that cannot be read is one line."""

from __future__ import annotations

import re
import ssl
import time
from pathlib import Path

import httpx

from tests.cli import env_with, orgctl
from tests.service.harness import Service

DEMO_STATE = Path(__file__).resolve().parents[2] / "examples" / "demo" / "state.yaml"


def test_tls_serves_https_under_the_ca_it_prints(tmp_path: Path) -> None:
    service = Service(tmp_path / "db.sqlite", DEMO_STATE, options=("--tls",)).start()
    try:
        assert service.url.startswith("https://127.0.0.1:")
        deadline = time.monotonic() + 10
        while "CA certificate" not in service.output and time.monotonic() < deadline:
            time.sleep(0.05)
        found = re.search(r"CA certificate to trust: (\S+)", service.output)
        assert found, service.output
        trusted = ssl.create_default_context(cafile=found.group(1))
        reply = httpx.get(f"{service.url}/hq/sharing/rest", params={"f": "json"}, verify=trusted)
        assert reply.json()["fullVersion"] == "10.6.1"
        # the default trust store does not know the made CA
        try:
            httpx.get(f"{service.url}/hq/sharing/rest", params={"f": "json"})
        except httpx.ConnectError as exc:
            assert "CERTIFICATE_VERIFY_FAILED" in str(exc)
        else:
            raise AssertionError("a made certificate was trusted without its CA")
    finally:
        service.stop()


def test_an_unreadable_tls_file_is_one_line_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    # --port 0: a test never binds a fixed port (the README's tour holds 8080).
    result = orgctl("serve", "--port", "0", "--cert", missing, "--key", missing, env=env_with())
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(missing) in lines[0], result.stderr
    assert "cannot read the TLS certificate" in lines[0]


def test_cert_without_key_is_refused(tmp_path: Path) -> None:
    result = orgctl("serve", "--port", "0", "--cert", tmp_path / "c.pem", env=env_with())
    assert result.returncode == 1
    assert "--cert and --key go together" in result.stderr
