"""A Markdown report that cannot be made says why, on stdout, where a CI step takes the
text it posts: never an empty comment."""

from __future__ import annotations

import re
import socket

import pytest

from tests.cli import env_with, orgctl

from .harness import EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e


def dead_url() -> str:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hq/sharing/rest"


@pytest.mark.parametrize("command", ["plan", "drift"])
def test_unreachable_portal_gives_a_markdown_failure(command: str) -> None:
    env = env_with(ORGCTL_PORTAL_URL=dead_url(), ORGCTL_TOKEN="t0ken-value")
    result = orgctl(command, EXAMPLES / "hq", "--format", "markdown", env=env)
    assert result.returncode == 1, output_of(result)
    assert result.stdout.startswith(f"## orgctl {command}: "), output_of(result)
    assert "**Failed: the portal could not be" in result.stdout
    assert "is unreachable" in result.stdout, output_of(result)
    assert "t0ken-value" not in result.stdout + result.stderr


def test_invalid_manifests_give_a_markdown_failure_naming_the_file() -> None:
    folder = EXAMPLES.parent / "tests" / "fixtures" / "invalid" / "unknown-privilege"
    result = orgctl("plan", folder, "--format", "markdown", env=env_with())
    assert result.returncode == 1, output_of(result)
    assert "roles.yaml:" in result.stdout and "**Failed" in result.stdout, output_of(result)


def test_text_format_stays_quiet_on_stdout() -> None:
    env = env_with(ORGCTL_PORTAL_URL=dead_url(), ORGCTL_TOKEN="x")
    result = orgctl("plan", EXAMPLES / "hq", env=env)
    assert result.returncode == 1 and result.stdout == "", output_of(result)


def test_plan_split_prints_marked_parts_and_refuses_other_formats(demo: World) -> None:
    done = demo.orgctl(
        "plan", EXAMPLES / "hq", "--format", "markdown", "--split", "2000", portal="hq"
    )
    assert done.returncode == 0, output_of(done)
    marks = re.findall(r"^<!-- orgctl part (\d+)/(\d+) -->$", done.stdout, flags=re.MULTILINE)
    assert len(marks) > 1 and [int(i) for i, _ in marks] == list(range(1, len(marks) + 1))
    refused = demo.orgctl("plan", EXAMPLES / "hq", "--split", "2000", portal="hq")
    assert refused.returncode != 0 and "--split cuts a Markdown report" in refused.stderr
    assert "Traceback" not in refused.stderr
