"""User errors end in one clear message and exit 1, never a traceback."""

from __future__ import annotations

import os
import re

import pytest

from tests.cli import orgctl_subprocess as orgctl

from .harness import EXAMPLES, MANIFESTS, World, closed_port, output_of

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
COMMANDS = [["plan"], ["drift"], ["apply", "--auto-approve"]]


def message_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_unreachable_portal_is_retried_visibly_then_one_clear_line(
    demo: World, command: list[str]
) -> None:
    port = closed_port()
    env = demo.env("hq")
    env["ORGCTL_PORTAL_URL"] = f"http://127.0.0.1:{port}/hq/sharing/rest"
    env["ORGCTL_ADMIN_URL"] = f"http://127.0.0.1:{port}/hq/admin"
    result = demo.orgctl(command[0], HQ, *command[1:], portal="hq", env=env)
    assert result.returncode == 1, output_of(result)
    assert "Traceback" not in result.stdout + result.stderr
    *retries, error = message_lines(result.stderr)
    # One line per retry as it happens (four tries in all), then the one error.
    assert [re.sub(r"in \d+\.\ds", "in Ns", line) for line in retries] == [
        f"portal at http://127.0.0.1:{port}: connection refused; trying again in Ns ({n}/4)"
        for n in (2, 3, 4)
    ], output_of(result)
    assert error.startswith(f"Error: portal at http://127.0.0.1:{port} is unreachable after 4")
    assert f"nothing accepts connections on 127.0.0.1 port {port}" in error, output_of(result)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_wrong_password_is_a_clear_error(demo: World, command: list[str]) -> None:
    api = demo.api("hq")
    before = api.snapshot()
    result = demo.orgctl(command[0], HQ, *command[1:], portal="hq", password="not-the-password")
    assert result.returncode == 1, output_of(result)
    shown = result.stdout + result.stderr
    assert "Traceback" not in shown
    assert "not-the-password" not in shown
    assert re.search(r"(?i)password|credential|sign.?in|generateToken", result.stderr), output_of(
        result
    )
    assert api.snapshot() == before


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_plain_http_to_a_remote_host_is_refused(demo: World, command: list[str]) -> None:
    env = demo.env("hq")
    env["ORGCTL_PORTAL_URL"] = "http://portal.example.com/hq/sharing/rest"
    result = demo.orgctl(command[0], HQ, *command[1:], portal="hq", env=env)
    assert result.returncode == 1, output_of(result)
    assert "Traceback" not in result.stdout + result.stderr
    assert "https" in result.stderr, output_of(result)


@pytest.mark.parametrize(
    ("manifest", "address"),
    [
        ("unknown-collaboration", "Collaboration/nope"),
        ("unknown-workspace", "Workspace/c1/wsX"),
        ("unknown-member", "Member/zed"),
    ],
)
def test_resource_missing_live_names_the_address(demo: World, manifest: str, address: str) -> None:
    for command in (["plan"], ["drift"]):
        result = demo.orgctl(command[0], MANIFESTS / manifest, portal="hq")
        assert result.returncode == 1, output_of(result)
        shown = result.stdout + result.stderr
        assert address in shown, output_of(result)
        assert "Traceback" not in shown


def test_drift_with_errors_exits_1_not_as_ordinary_drift(demo: World) -> None:
    """A scheduled check must fail when its report is incomplete, even with drift in it."""
    result = demo.orgctl("drift", MANIFESTS / "drift-with-errors", portal="hq")
    assert result.returncode == 1, output_of(result)
    assert "Role/Analyst" in result.stdout and "Workspace/c1/wsX" in output_of(result)
    assert "1 error(s)" in result.stdout, output_of(result)


@pytest.mark.parametrize(
    "args",
    [["drift", str(HQ), "--bogus"], ["drift", str(HQ), "--format", "xml"], ["drift"]],
    ids=["unknown-flag", "bad-format", "no-manifests"],
)
def test_bad_usage_exits_1_never_the_drift_code(args: list[str]) -> None:
    """CI reads exit 2 of drift as "drift found": a usage error must be 1."""
    result = orgctl(*args, env={**os.environ, "NO_COLOR": "1"})
    assert result.returncode == 1, output_of(result)
    assert "Traceback" not in result.stderr
    assert result.stderr.strip(), output_of(result)


@pytest.mark.parametrize("command", ["plan", "drift"])
def test_plan_with_errors_does_not_claim_the_portal_matches(demo: World, command: str) -> None:
    result = demo.orgctl(command, MANIFESTS / "unknown-workspace", portal="hq")
    assert result.returncode == 1, output_of(result)
    assert "matches the manifests" not in result.stdout, output_of(result)
    assert "1 error(s)" in result.stdout, output_of(result)
