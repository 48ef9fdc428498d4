"""Credentials by portal name, and the plain token when the Portal names a username and
password: what the CI examples set."""

from __future__ import annotations

import pytest

from tests.cli import env_with

from .harness import ADMIN, EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e


def urls(world: World, portal: str) -> dict[str, str]:
    return {
        "ORGCTL_PORTAL_URL": f"{world.service.url}/{portal}/sharing/rest",
        "ORGCTL_ADMIN_URL": f"{world.service.url}/{portal}/admin",
    }


def test_a_plain_token_serves_a_portal_that_names_username_and_password(demo: World) -> None:
    token = demo.api("hq").token
    env = env_with(**urls(demo, "hq"), ORGCTL_TOKEN=token)
    result = demo.orgctl("plan", EXAMPLES / "hq", "--detailed-exitcode", portal="hq", env=env)
    assert result.returncode == 2, output_of(result)
    assert token not in result.stdout + result.stderr


def test_the_portals_own_variables_are_read(demo: World) -> None:
    env = env_with(
        **urls(demo, "field"),
        ORGCTL_FIELD_USERNAME=ADMIN[0],
        ORGCTL_FIELD_PASSWORD=ADMIN[1],
        ORGCTL_USERNAME="nobody",
        ORGCTL_PASSWORD="wrong",
    )
    result = demo.orgctl("plan", EXAMPLES / "field", portal="field", env=env)
    assert result.returncode == 0, output_of(result)


def test_no_credentials_names_every_variable_looked_for(demo: World) -> None:
    env = env_with(**urls(demo, "hq"))
    result = demo.orgctl("plan", EXAMPLES / "hq", portal="hq", env=env)
    assert result.returncode == 1, output_of(result)
    assert "ORGCTL_USERNAME is not set" in result.stderr
    assert "ORGCTL_HQ_TOKEN, or ORGCTL_HQ_USERNAME and ORGCTL_HQ_PASSWORD" in result.stderr


def test_a_locked_account_is_said_so_and_unlocks_after_15_minutes(demo: World) -> None:
    """Five wrong passwords lock the name, as on a portal; orgctl says why it cannot sign
    in even with the right one, and signs in once the lock has passed."""
    for _ in range(5):
        wrong = demo.orgctl("plan", EXAMPLES / "hq", portal="hq", password="not-the-password")
        assert wrong.returncode == 1 and "Invalid username or password" in wrong.stderr
    locked = demo.orgctl("plan", EXAMPLES / "hq", portal="hq")
    assert locked.returncode == 1, output_of(locked)
    assert "Too many invalid sign-in attempts" in locked.stderr, output_of(locked)
    assert ADMIN[1] not in locked.stdout + locked.stderr
    demo.advance_clock(0.25)
    result = demo.orgctl("plan", EXAMPLES / "hq", "--detailed-exitcode", portal="hq")
    assert result.returncode == 2, output_of(result)
