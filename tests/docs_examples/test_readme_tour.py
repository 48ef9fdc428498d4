"""README's five-minute tour, followed in order as a newcomer would, against `orgctl serve`
on a free port (the README's 8080 replaced in copies of the examples), with every claim
it makes checked: each command's comment, the plan's sample output, the exit codes.

The commands are read from the README itself, so a tour that changes without this test
fails here; a change by hand that the tour asks for is made through the API, as the README
says one may."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cli import env_with, orgctl_subprocess
from tests.e2e.harness import ROOT, World, output_of, run_orgctl_on_a_terminal

pytestmark = pytest.mark.e2e

README = ROOT / "README.md"
README_PORT = "8080"
CONFIRM = re.compile(r"type (\S+) to confirm")


@dataclass(frozen=True)
class Ran:
    code: int
    output: str  # stdout, or everything a terminal showed


@dataclass(frozen=True)
class Step:
    line: str  # the README's command line, its comment included
    check: Callable[[Ran], None]
    before: Callable[[World], None] | None = None  # a change by hand the prose asks for


def tour() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## A five-minute tour")
    return text[start : text.index("\n## ", start + 1)]


def blocks() -> list[list[str]]:
    """The tour's fenced blocks, each as its lines."""
    return [b.splitlines() for b in re.findall(r"^```\n(.*?)^```$", tour(), re.S | re.M)]


def command_lines() -> list[str]:
    """Every `orgctl` command of the tour but the service's start, with its comment."""
    lines = [line for block in blocks() for line in block if line.startswith("orgctl ")]
    return [" ".join(line.split()) for line in lines if not line.startswith("orgctl serve")]


def setup_variables() -> dict[str, str]:
    """What the tour's `export` line sets (the credentials of every later command)."""
    [export] = [line for block in blocks() for line in block if line.startswith("export ")]
    return dict(word.split("=", 1) for word in shlex.split(export)[1:])


def sample_output() -> list[str]:
    [sample] = [block for block in blocks() if block and block[0].startswith("Plan: ")]
    return sample


def shown_as(sample: list[str], output: str) -> str | None:
    """Why `output` is not what `sample` shows, or None: each run of sample lines between
    `...` lines matches consecutive output lines, runs in order; `...` within a line
    stands for any text."""
    lines = output.splitlines()
    at = 0
    for run in "\n".join(sample).split("\n...\n"):
        patterns = [re.compile(".*".join(map(re.escape, s.split("...")))) for s in run.split("\n")]
        found = next(
            (
                i
                for i in range(at, len(lines) - len(patterns) + 1)
                if all(p.fullmatch(lines[i + k]) for k, p in enumerate(patterns))
            ),
            None,
        )
        if found is None:
            return f"no output lines, from line {at + 1} on, read as:\n{run}"
        at = found + len(patterns)
    return None


# --- the claims ------------------------------------------------------------------------------


def exits(code: int, *shown: str) -> Callable[[Ran], None]:
    def check(ran: Ran) -> None:
        assert ran.code == code, ran.output
        for text in shown:
            assert text in ran.output, f"{text!r} not in:\n{ran.output}"

    return check


def the_sample_plan(ran: Ran) -> None:
    assert ran.code == 0, ran.output
    why = shown_as(sample_output(), ran.output)
    assert why is None, f"{why}\n--- the plan printed:\n{ran.output}"


def converged(ran: Ran) -> None:
    exits(0, "Apply: ", "Converged: the portal matches the manifests.")(ran)


def drift_names_the_field(ran: Ran) -> None:
    exits(2, "Role/Analyst", "portal:user:shareToPublic")(ran)


def findings_first(ran: Ran) -> None:
    assert ran.code == 0, ran.output
    heads = [line.split(" ")[0].rstrip(":") for line in ran.output.splitlines()]
    order = [heads.index(h) for h in ("Findings", "Roles", "Members", "Privileges")]
    assert order == sorted(order), ran.output


def only_admin_holds_one(ran: Ran) -> None:
    assert ran.code == 0, ran.output
    document = json.loads(ran.output)
    assert [m["username"] for m in document["members"]] == ["admin"], ran.output


def the_base_as_patched(ran: Ran) -> None:
    exits(0, "# examples/fleet/base/", "# examples/fleet/hq/", "includes examples/fleet/base")(ran)


def sections_then_summary(ran: Ran) -> None:
    assert ran.code == 0, ran.output
    sections = re.findall(r"^=== (\S+) ", ran.output, re.M)
    assert sorted(sections) == ["fleet-cloud", "fleet-field", "fleet-hq"], ran.output
    assert ran.output.rstrip().splitlines()[-1].startswith("3 portals: "), ran.output


def change_analyst(world: World) -> None:
    api = world.api("hq")
    held = api.roles()["Analyst"]["privileges"]
    api.set_privileges("Analyst", [*held, "portal:user:shareToPublic"])


def change_fleet_viewer_on_field(world: World) -> None:
    api = world.api("field")
    held = api.roles()["Fleet Viewer"]["privileges"]
    api.set_privileges("Fleet Viewer", [*held, "portal:user:shareToPublic"])


STEPS = [
    Step("orgctl validate examples/hq", exits(0, "valid: no problems found")),
    Step("orgctl plan examples/hq", the_sample_plan),
    Step("orgctl apply examples/hq # type hq to confirm", converged),
    Step(
        "orgctl plan examples/hq --detailed-exitcode # exit 0: no changes",
        exits(0, "No changes."),
    ),
    Step(
        "orgctl drift examples/hq # exit 2, and a report of every drifted field",
        drift_names_the_field,
        before=change_analyst,
    ),
    Step(
        "orgctl access examples/hq # findings first, then roles, members and privileges",
        findings_first,
    ),
    Step(
        "orgctl access examples/hq --privilege 'portal:admin:*' --format json # only admin"
        " holds one",
        only_admin_holds_one,
    ),
    Step("orgctl validate examples/fleet # 3 portals: 3 valid", exits(0, "\n3 portals: 3 valid")),
    Step(
        "orgctl render examples/fleet/hq --show-origin # the base, as hq's overlay patched it",
        the_base_as_patched,
    ),
    Step(
        "orgctl plan examples/fleet # one section per portal, then a summary",
        sections_then_summary,
    ),
    Step("orgctl apply examples/fleet/hq", converged),
    Step("orgctl apply examples/fleet/field # type fleet-field to confirm", converged),
    Step("orgctl apply examples/fleet/cloud", converged),
    Step("orgctl drift examples/fleet # 3 portals: 3 in sync", exits(0, "\n3 portals: 3 in sync")),
    Step(
        "orgctl drift examples/fleet # 3 portals: 1 drifted, 2 in sync (exit 2)",
        exits(2, "\n3 portals: 1 drifted, 2 in sync"),
        before=change_fleet_viewer_on_field,
    ),
]


def test_every_command_of_the_tour_has_its_claims_checked() -> None:
    assert command_lines() == [step.line for step in STEPS]


def test_the_pattern_of_the_sample_output() -> None:
    output = "Plan: 2.\n\n  ~ A\n      x: 1\n  ~ B\n  1. POST http://h/a/b c=d\n"
    assert shown_as(["Plan: 2.", "...", "  ~ B", "  1. POST .../b c=..."], output) is None
    assert shown_as(["Plan: 2.", "  ~ B"], output) is not None  # no "..." between: adjacent
    assert shown_as(["  ~ B", "...", "  ~ A"], output) is not None  # order holds


def test_the_tour_followed_in_order_holds_every_claim(demo: World) -> None:
    serve = next(line for b in blocks() for line in b if line.startswith("orgctl serve"))
    assert "--state examples/demo/state.yaml" in serve and f"--port {README_PORT}" in serve
    port = demo.service.url.rsplit(":", 1)[1]
    _copy_examples(demo.workdir, port)
    for step in STEPS:
        if step.before is not None:
            step.before(demo)
        step.check(_run(step.line, demo.workdir))


def _copy_examples(workdir: Path, port: str) -> None:
    """The examples the tour names, with the README's port replaced by the service's."""
    for name in ("hq", "fleet"):
        shutil.copytree(ROOT / "examples" / name, workdir / "examples" / name)
    for manifest in (workdir / "examples").rglob("*.yaml"):
        text = manifest.read_text(encoding="utf-8")
        manifest.write_text(text.replace(f"127.0.0.1:{README_PORT}", f"127.0.0.1:{port}"))


def _run(line: str, workdir: Path) -> Ran:
    command, _, claim = line.partition(" # ")
    args = shlex.split(command)[1:]
    # "Check them offline, with no credentials and no network": validate gets neither.
    env = env_with() if args[0] in ("validate", "render") else env_with(**setup_variables())
    if args[0] == "apply":  # asks on the terminal, as the tour says
        typed = CONFIRM.search(claim)
        code, output = run_orgctl_on_a_terminal(args, env, typed[1] if typed else "y", workdir)
        return Ran(code, output.replace("\r\n", "\n"))
    done = orgctl_subprocess(*args, env=env, cwd=workdir)
    assert "Traceback" not in done.stderr, output_of(done)
    return Ran(done.returncode, done.stdout)
