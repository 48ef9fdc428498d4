"""A portal URL short of its sharing REST root is named as the likely cause, not reported
as a refused sign-in that sends the user to check the password."""

from __future__ import annotations

import pytest

from .harness import EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("/hq/sharing", "does not end in /sharing/rest"),
        ("/hq/portal/sharing/rest", "the portal's sharing REST root"),
    ],
)
def test_a_404_on_generate_token_names_the_url(demo: World, path: str, named: str) -> None:
    env = demo.env("hq")
    env["ORGCTL_PORTAL_URL"] = demo.service.url + path
    result = demo.orgctl("plan", HQ, portal="hq", env=env)
    assert result.returncode == 1, output_of(result)
    error = result.stderr.strip()
    assert error.startswith(f"Error: {demo.service.url}{path}/generateToken: not found (404)")
    assert "the portal URL is likely wrong" in error and named in error, error
    assert "refused" not in error and "Traceback" not in error, error
