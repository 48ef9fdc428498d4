"""What plan, apply and drift say when they cannot go on, and what apply shows right
before it asks: one line per problem, a fleet root named as such, a Markdown failure
escaped as every other output is, and a per-kind summary above the prompt."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from .harness import EXAMPLES, World, output_of, run_orgctl_on_a_terminal

pytestmark = pytest.mark.e2e

ROLE = """\
---
apiVersion: orgctl/v1
kind: Role
metadata: {{name: "{name}"}}
spec:
  description: one of many
  privileges: [{privilege}]
"""


def broken_role(n: int, name: str = "") -> str:
    """A role whose privilege does not exist: one validation problem."""
    return ROLE.format(name=name or f"Broken {n}", privilege=f"portal:user:noSuchThing{n}")


def hq_with(workdir: Path, extra: str) -> Path:
    folder = workdir / "hq"
    shutil.copytree(EXAMPLES / "hq", folder)
    with (folder / "roles.yaml").open("a") as roles:
        roles.write(extra)
    return folder


@pytest.mark.parametrize(
    ("command", "options"), [("plan", ()), ("apply", ("--auto-approve",)), ("drift", ())]
)
def test_several_problems_are_one_line_each_as_validate_prints_them(
    demo: World, command: str, options: tuple[str, ...]
) -> None:
    """Once joined into one line with a literal `\\n` (1,500 problems: one 186 KB line)."""
    folder = hq_with(demo.workdir, "".join(broken_role(n) for n in range(3)))
    result = demo.orgctl(command, folder, *options, portal="hq")
    assert result.returncode == 1, output_of(result)
    lines = result.stderr.splitlines()
    assert len(lines) == 3, output_of(result)
    for n, line in enumerate(lines):
        assert line.startswith(f"Error: {folder}/roles.yaml:"), line
        assert f"portal:user:noSuchThing{n}" in line and "\\n" not in line, line


def test_a_markdown_failure_escapes_a_line_break_from_a_role_name(demo: World) -> None:
    name = "Evil\\n```\\n# injected heading"  # YAML's escapes: a real newline in the name
    folder = hq_with(demo.workdir, broken_role(0, name))
    result = demo.orgctl("plan", folder, "--format", "markdown", portal="hq")
    assert result.returncode == 1, output_of(result)
    lines = result.stdout.splitlines()
    assert "# injected heading" not in lines, result.stdout
    # Only the report's own fence opens and closes the block (longer than the name's).
    assert [line for line in lines if line.startswith("```")] == ["````text", "````"], lines
    assert 'Role "Evil\\n```\\n# injected heading"' in result.stdout, result.stdout


@pytest.mark.parametrize("command", ["apply", "render"])
def test_a_fleet_root_given_to_one_portals_command_is_named_as_such(
    demo: World, command: str
) -> None:
    fleet = EXAMPLES / "fleet"
    result = demo.orgctl(command, fleet, portal="hq")
    assert result.returncode == 1, output_of(result)
    assert result.stderr == (
        f"Error: {fleet} is a fleet of 3 portal folders ({fleet}/cloud, {fleet}/field,"
        f" {fleet}/hq): name one portal folder, such as {fleet}/cloud\n"
    ), output_of(result)


def test_a_long_plan_ends_with_counts_per_kind_right_above_the_prompt(demo: World) -> None:
    """Once 11,256 lines of a 3,600-call plan came before the prompt, with no per-kind
    summary near it."""
    folder = hq_with(
        demo.workdir,
        "".join(
            ROLE.format(name=f"Added {n:02d}", privilege="portal:user:joinGroup") for n in range(30)
        ),
    )
    code, output = run_orgctl_on_a_terminal(
        ["apply", str(folder)], demo.env("hq"), "no", demo.workdir
    )
    assert code == 1, output
    shown = re.sub(r"\x1b\[[0-9;]*m", "", output).replace("\r\n", "\n")
    lines = re.split(r"Delete and apply\?|Apply these calls\?", shown)[0].rstrip().splitlines()
    start = lines.index("By kind:")
    assert len(lines) - start <= 12, lines[start:]  # the last thing read before the prompt
    assert lines[start + 1].split() == ["kind", "create", "update", "delete", "calls"]
    rows = {}
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        kind, *counts = line.split()
        rows[kind] = [int(n) for n in counts]
    assert rows["Role"][:3] == [31, 1, 1], rows  # 30 added + Field Analyst; Legacy Viewer
    assert rows["all"][3] == sum(r[3] for k, r in rows.items() if k != "all") > 60, rows
    assert f"Apply to {demo.service.url}/hq/sharing/rest: 31 to create" in lines[-2], lines[-3:]
