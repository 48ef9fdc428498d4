"""`-o FILE` writes the report to the file and keeps stdout to one line: the report's
summary and where it went, as Terraform's `plan -out` says where it saved the plan. The
file is what the same command prints without -o. `plan -o` saves the plan JSON beside the
report a reviewer reads, so that report still prints, unless it is that same JSON."""

from __future__ import annotations

import pytest

from .harness import EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
FLEET = EXAMPLES / "fleet"
FLEET_PORTALS = {"fleet-hq": "hq", "fleet-field": "field", "fleet-cloud": "cloud"}

# (command and its options, the file's name, how the one line starts)
SAVED = [
    (["drift", HQ, "--format", "html"], "drift.html", "Drift: "),
    (["drift", HQ, "--format", "json"], "drift.json", "Drift: "),
    (["drift", HQ], "drift.txt", "Drift: "),
    (["access", HQ, "--format", "html"], "access.html", "Access: hq: 6 member(s)"),
    (["access", HQ, "--format", "csv"], "access.csv", "Access: hq: 6 member(s)"),
    (["plan", HQ, "--format", "json"], "plan.json", "Plan: "),
]


@pytest.mark.parametrize(
    ("command", "name", "summary"), SAVED, ids=[f"{c[0]}-{n}" for c, n, _ in SAVED]
)
def test_the_file_holds_the_report_and_stdout_one_line(
    demo: World, command: list[str], name: str, summary: str
) -> None:
    printed = demo.orgctl(*command, portal="hq")
    out = demo.workdir / name
    saved = demo.orgctl(*command, "-o", out, portal="hq")
    assert saved.returncode == printed.returncode, output_of(saved)
    assert out.read_text(encoding="utf-8") == printed.stdout
    assert saved.stdout.count("\n") == 1, output_of(saved)
    assert saved.stdout.startswith(summary), output_of(saved)
    assert saved.stdout.rstrip().endswith(f"written to {out}."), output_of(saved)


def test_a_fleet_report_written_with_o_leaves_the_summary_line(demo: World) -> None:
    env = demo.fleet_env(FLEET_PORTALS)
    out = demo.workdir / "fleet.html"
    done = demo.orgctl("drift", FLEET, "--format", "html", "-o", out, portal="", env=env)
    assert done.returncode == 2, output_of(done)
    assert done.stdout == f"3 portals: 3 drifted. Report written to {out}.\n", output_of(done)
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_plan_o_prints_the_plan_it_saves_and_says_where(demo: World) -> None:
    out = demo.workdir / "plan.json"
    printed = demo.orgctl("plan", HQ, portal="hq")
    saved = demo.orgctl("plan", HQ, "-o", out, portal="hq")
    assert saved.returncode == 0, output_of(saved)
    said = f"Saved the plan to {out}: `orgctl apply --plan {out}` applies exactly it.\n"
    assert saved.stdout == printed.stdout + said, output_of(saved)
    assert out.read_text().startswith('{\n  "formatVersion": 1')


def test_plan_o_keeps_a_markdown_report_whole_on_stdout(demo: World) -> None:
    out = demo.workdir / "plan.json"
    printed = demo.orgctl("plan", HQ, "--format", "markdown", portal="hq")
    saved = demo.orgctl("plan", HQ, "--format", "markdown", "-o", out, portal="hq")
    assert saved.stdout == printed.stdout, output_of(saved)
    assert f"Saved the plan to {out}" in saved.stderr, output_of(saved)
