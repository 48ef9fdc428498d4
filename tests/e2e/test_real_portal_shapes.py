"""orgctl against the shapes a real portal gives: https under a private CA
(`ORGCTL_CA_BUNDLE`), a token issued by the OAuth2 sign-in, a REST `currentVersion`, and
the pre-built Viewer and Data Editor roles (never deleted, never exported as managed,
assignable by name)."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from orgctl_service.tls import make_local_certificate
from tests.cli import env_with, orgctl
from tests.e2e.captured import CapturedPortal
from tests.e2e.harness import MANIFESTS, ROOT, output_of, plan_json
from tests.service.harness import Service

pytestmark = pytest.mark.e2e

STATE = ROOT / "tests" / "compat" / "state.yaml"
SET = MANIFESTS / "real-shapes"
PREBUILT = {"Viewer", "Data Editor"}


def oauth_token(portal: str, trusted: ssl.SSLContext) -> str:
    """Sign in as a browser would for the `pythonapi` app; the token is in the redirect."""
    with httpx.Client(verify=trusted) as web:
        page = web.get(
            f"{portal}/sharing/rest/oauth2/authorize",
            params={
                "client_id": "pythonapi",
                "response_type": "token",
                "redirect_uri": "urn:ietf:wg:oauth:2.0:oob",
                "state": "e2e",
            },
        ).text
        oauth_state = page.split('"oauth_state":"', 1)[1].split('"', 1)[0]
        signed = web.post(
            f"{portal}/sharing/oauth2/signin",
            data={"oauth_state": oauth_state, "username": "admin", "password": "admin-pass"},
        )
    assert signed.status_code == 302, signed.text
    fragment = parse_qs(urlsplit(signed.headers["location"]).fragment)
    assert fragment["state"] == ["e2e"]
    return fragment["access_token"][0]


@pytest.fixture
def https_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    files = make_local_certificate(tmp_path)
    assert files.ca is not None
    options = ("--cert", str(files.cert), "--key", str(files.key))
    service = Service(tmp_path / "db.sqlite", STATE, options=options).start()
    try:
        portal = f"{service.url}/hq"
        token = oauth_token(portal, ssl.create_default_context(cafile=str(files.ca)))
        yield env_with(
            ORGCTL_PORTAL_URL=f"{portal}/sharing/rest",
            ORGCTL_TOKEN=token,
            ORGCTL_CA_BUNDLE=str(files.ca),
        )
    finally:
        service.stop()


def test_plan_apply_drift_export_over_https_with_an_oauth_token(
    https_env: dict[str, str], tmp_path: Path
) -> None:
    planned = orgctl("plan", SET, "--format", "json", env=https_env)
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert plan["portal"]["version"] == "10.6.1"  # read from the portal, REST 6.2 beside it
    assert not [c for c in plan["changes"] if c["action"] == "delete"]
    alice = next(c for c in plan["calls"] if c["address"] == "Member/alice")
    assert alice["params"]["role"] == "iAAAAAAAAAAAAAAA"

    applied = orgctl("apply", SET, "--auto-approve", env=https_env)
    assert applied.returncode == 0, output_of(applied)
    assert orgctl("drift", SET, env=https_env).returncode == 0

    exported = orgctl(
        "export",
        "--portal-url",
        https_env["ORGCTL_PORTAL_URL"],
        "-o",
        tmp_path / "out",
        env=https_env,
    )
    assert exported.returncode == 0, output_of(exported)
    text = "\n".join(p.read_text() for p in sorted((tmp_path / "out").rglob("*.yaml")))
    assert "kind: Role\nmetadata:\n  name: Field Analyst" in text
    for name in PREBUILT:  # no Role document for a pre-built role
        assert f"  name: {name}\n" not in text, text
    assert "role: Viewer" in text  # a member on a pre-built role names it


def test_a_plan_against_https_without_the_ca_is_refused(https_env: dict[str, str]) -> None:
    untrusting = {k: v for k, v in https_env.items() if k != "ORGCTL_CA_BUNDLE"}
    refused = orgctl("plan", SET, env=untrusting)
    assert refused.returncode == 1
    assert "is not trusted" in refused.stderr
    assert https_env["ORGCTL_TOKEN"] not in refused.stderr + refused.stdout
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize(
    ("members", "member"),
    [
        ("rest-js", "mjordan_dcdev: {role: org_publisher}"),
        ("hub-js", "t.hervey: {role: org_admin}"),
    ],
)
def test_export_of_a_captured_organization_plans_no_change(
    tmp_path: Path, members: str, member: str
) -> None:
    """orgctl reads what real hosted-cloud organizations answered (REST JS's captured
    `portals/self`, REST JS's and Hub.js's user searches): its export describes them and
    a plan on the export is empty."""
    with CapturedPortal(members) as portal:
        env = env_with(ORGCTL_TOKEN="captured-organization-token")
        out = tmp_path / "export"
        exported = orgctl("export", "--portal-url", portal.url, "-o", out, env=env)
        assert exported.returncode == 0, output_of(exported)
        text = "\n".join(p.read_text() for p in sorted(out.rglob("*.yaml")))
        assert member in text, text
        planned = orgctl("plan", out, "--detailed-exitcode", env=env)
        assert planned.returncode == 0, output_of(planned)
        assert "portals/self" in portal.asked
