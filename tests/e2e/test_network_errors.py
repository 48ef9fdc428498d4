"""The CLI tells network failures apart, each in one line with its likely cause: a host
name that does not exist (no retry: the answer is definite), a TLS handshake with a
plain-http portal (no retry), a refused port (retried, each retry a line; see
test_user_errors.py)."""

from __future__ import annotations

import pytest

from .harness import EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_a_host_name_that_does_not_exist_is_named_in_one_line(demo: World) -> None:
    env = demo.env("hq")
    env["ORGCTL_PORTAL_URL"] = "https://portal.example.invalid/hq/sharing/rest"
    env["ORGCTL_ADMIN_URL"] = "https://portal.example.invalid/hq/admin"
    result = demo.orgctl("plan", HQ, portal="hq", env=env)
    assert result.returncode == 1, output_of(result)
    error = lines(result.stderr)[-1]
    assert error.startswith("Error: portal at https://portal.example.invalid:443 is unreachable"), (
        output_of(result)
    )
    assert "host name portal.example.invalid" in error and "(DNS: " in error, output_of(result)


def test_https_to_the_plain_http_reference_service_is_a_failed_handshake(demo: World) -> None:
    https = demo.service.url.replace("http://", "https://", 1)
    env = demo.env("hq")
    env["ORGCTL_PORTAL_URL"] = f"{https}/hq/sharing/rest"
    env["ORGCTL_ADMIN_URL"] = f"{https}/hq/admin"
    result = demo.orgctl("plan", HQ, portal="hq", env=env)
    assert result.returncode == 1, output_of(result)
    assert lines(result.stderr) == [
        f"Error: TLS handshake with {https}/hq/sharing/rest/generateToken failed (is the"
        " portal served over http?)"
    ], output_of(result)
