"""Every shell step of the CI examples, run as the CI would run it, against `orgctl serve`
and a fake of the hosting's API: what gets installed, commented, saved, applied and
reported, including when the portal is down or the reviewed plan went stale."""

from __future__ import annotations

import io
import shutil
import socket
import zipfile
from pathlib import Path

import pytest

from tests.cli import env_with, orgctl
from tests.e2e.harness import ADMIN, EXAMPLES, World, output_of
from tests.gitops.ci_runner import (
    CI,
    GitHubRun,
    GitLabPipeline,
    Pipeline,
    Sandbox,
    github_run_steps,
)
from tests.gitops.fake_hosting import Hosting

pytestmark = pytest.mark.e2e

REQUIREMENT = "orgctl @ git+https://github.com/acme/orgctl@v0.2.0"
PR, HEAD, HEAD2, MERGE = 7, "a1" * 20, "b2" * 20, "c3" * 20
WORKFLOWS = CI / "github"


def sandbox(tmp_path: Path, url: str, *names: str) -> Sandbox:
    return Sandbox.create(tmp_path / "ci", {n: EXAMPLES / n for n in names}, url)


def secrets(world: World) -> dict[str, str]:
    """Each portal's own names; field with a token, the others with a password; the same
    again as the read-only ones (`_READ`) pull requests are planned with."""
    own = {
        "ORGCTL_HQ_USERNAME": ADMIN[0],
        "ORGCTL_HQ_PASSWORD": ADMIN[1],
        "ORGCTL_FIELD_TOKEN": world.api("field").token,
        "ORGCTL_CLOUD_USERNAME": ADMIN[0],
        "ORGCTL_CLOUD_PASSWORD": ADMIN[1],
    }
    return {**own, **{f"{name}_READ": value for name, value in own.items()}}


def variables(box: Sandbox) -> dict[str, str]:
    """The repository's variables: the requirement, and every portal's origin bound to
    its name (all three are served by one service)."""
    origins = ",".join(f"{name}={box.service_url}" for name in ("hq", "field", "cloud"))
    return {"ORGCTL_REQUIREMENT": REQUIREMENT, "ORGCTL_TRUSTED_ORIGINS": origins}


def github(
    box: Sandbox, hosting: Hosting, world: World, workflow: str, sha: str, run_id: int = 1
) -> Pipeline:
    event = (
        {"pull_request": {"number": PR, "head": {"sha": sha}, "base": {"sha": box.base}}}
        if workflow == "orgctl-pull-request.yml"
        else {"after": sha}
    )
    return GitHubRun(
        WORKFLOWS / workflow,
        box,
        hosting,
        event,
        sha,
        secrets(world),
        variables(box),
        run_id,
    ).run()


def executed(pipeline: Pipeline) -> set[str]:
    return {f"{s.job.split('{')[0]}/{s.name}" for s in pipeline.steps}


def dead_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def test_github_plan_comment_then_apply_the_reviewed_plan_then_drift(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, world.service.url, "hq", "field", "cloud")
    pull = github(box, hosting, world, "orgctl-pull-request.yml", HEAD)
    assert pull.failed_jobs == [], pull.log()
    bodies = hosting.bodies(PR)
    assert sorted(b.splitlines()[0] for b in bodies) == [
        f"<!-- orgctl-plan:{name}:1/1 -->" for name in ("cloud", "field", "hq")
    ]
    hq = next(b for b in bodies if "orgctl-plan:hq:" in b)
    assert "## orgctl plan: " in hq and "Role/Field Analyst" in hq, hq
    assert {f"orgctl-plan-{n}-{HEAD}" for n in ("hq", "field", "cloud")} <= set(hosting.artifacts)
    # Installed from the one pinned requirement, in every job: targets, a plan per portal,
    # test.
    assert box.pip_log.read_text().splitlines() == [f"install {REQUIREMENT}"] * 5

    pushed = github(box, hosting, world, "orgctl-pull-request.yml", HEAD2, run_id=2)
    assert pushed.failed_jobs == [], pushed.log()
    assert len(hosting.bodies(PR)) == 3, "a second push updates the comments in place"
    assert [c.method for c in hosting.calls if "/comments/" in c.path] == ["PATCH"] * 3

    hosting.reviews[MERGE] = (PR, HEAD2)
    applied = github(box, hosting, world, "orgctl-apply.yml", MERGE, run_id=3)
    assert applied.failed_jobs == [], applied.log()
    assert sorted((s["context"], s["state"]) for s in hosting.statuses) == [
        (f"orgctl apply / {n}", "success") for n in ("cloud", "field", "hq")
    ]
    assert all(s["sha"] == MERGE and s["target_url"] for s in hosting.statuses)
    applies = [b for b in hosting.bodies(PR) if "orgctl-apply:" in b]
    assert len(applies) == 3 and all(" applied" in b for b in applies), applies
    assert hosting.blob_saw_token and not any(hosting.blob_saw_token), "token sent to storage"
    assert "Field Analyst" in world.api("hq").roles()

    drift = github(box, hosting, world, "orgctl-drift.yml", MERGE, run_id=4)
    assert drift.failed_jobs == [], drift.log()
    assert hosting.issues == []
    assert all(c.authorized for c in hosting.calls if not c.path.startswith("/blob/"))

    ran = executed(pull) | executed(applied) | executed(drift)
    every = {s for w in WORKFLOWS.glob("*.yml") for s in github_run_steps(w)}
    assert every <= ran, every - ran


def test_github_stale_plan_is_not_applied_and_a_fresh_one_is_posted(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, world.service.url, "hq")
    pull = github(box, hosting, world, "orgctl-pull-request.yml", HEAD)
    assert pull.failed_jobs == [], pull.log()
    api = world.api("hq")
    api.set_privileges("Analyst", ["portal:user:joinGroup"])  # changed after the review
    hosting.reviews[MERGE] = (PR, HEAD)

    stale = github(box, hosting, world, "orgctl-apply.yml", MERGE, run_id=2)
    assert len(stale.failed_jobs) == 1 and stale.failed_jobs[0].startswith("apply"), stale.log()
    assert "Field Analyst" not in api.roles(), "nothing may be applied from a stale plan"
    [status] = hosting.statuses
    assert status["state"] == "failure" and "stale" in status["description"]
    [comment] = hosting.bodies(PR)
    assert "nothing applied" in comment and "stale plan" in comment, comment
    assert "Role/Analyst" in comment and "## orgctl plan: " in comment, comment
    assert f"orgctl-plan-hq-{MERGE}" in hosting.artifacts

    again = github(box, hosting, world, "orgctl-apply.yml", MERGE, run_id=3)
    assert again.failed_jobs == [], again.log()
    assert hosting.statuses[-1]["state"] == "success"
    assert "Field Analyst" in api.roles()


def test_github_portal_down_is_said_in_the_comment_and_the_issue(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, dead_url(), "hq")
    pull = github(box, hosting, world, "orgctl-pull-request.yml", HEAD)
    assert len(pull.failed_jobs) == 1 and pull.failed_jobs[0].startswith("plan"), pull.log()
    [comment] = hosting.bodies(PR)
    assert comment.startswith("<!-- orgctl-plan:hq:1/1 -->\n## orgctl plan: ")
    assert "**Failed" in comment and "is unreachable" in comment, comment
    assert hosting.artifacts == {}
    assert ADMIN[1] not in comment

    drift = github(box, hosting, world, "orgctl-drift.yml", MERGE, run_id=2)
    assert len(drift.failed_jobs) == 1, drift.log()
    [issue] = hosting.issues
    assert issue["title"] == "orgctl drift: hq" and "is unreachable" in issue["body"]


def test_github_drift_issue_is_opened_updated_and_closed(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, world.service.url, "hq")
    folder = box.repo / "portals" / "hq"
    env = env_with(ORGCTL_USERNAME=ADMIN[0], ORGCTL_PASSWORD=ADMIN[1])
    applied = orgctl("apply", folder, "--auto-approve", env=env)
    assert applied.returncode == 0, output_of(applied)
    api = world.api("hq")
    api.set_privileges("Analyst", ["portal:user:joinGroup"])

    first = github(box, hosting, world, "orgctl-drift.yml", MERGE)
    assert first.failed_jobs == [], first.log()
    [issue] = hosting.issues
    assert issue["labels"] == ["orgctl-drift"] and "Role/Analyst" in issue["body"]
    assert "https://github.example/acme/manifests/actions/runs/1" in issue["body"]
    # The drift and access pages are the run's artifact, not lines of its log.
    with zipfile.ZipFile(io.BytesIO(hosting.artifacts["orgctl-reports-hq"][-1])) as pages:
        assert sorted(pages.namelist()) == ["access.html", "drift.html"]
        drift_page = pages.read("drift.html").decode()
        access_page = pages.read("access.html").decode()
    assert drift_page.startswith("<!DOCTYPE html>") and "Role/Analyst" in drift_page
    assert access_page.startswith("<!DOCTYPE html>") and "Analyst" in access_page
    assert "<!DOCTYPE html>" not in first.log()

    api.set_privileges("Analyst", ["portal:user:viewOrgItems"])
    second = github(box, hosting, world, "orgctl-drift.yml", MERGE, run_id=2)
    assert second.failed_jobs == [], second.log()
    [updated] = hosting.issues  # the same issue, its body the second run's report
    assert "portal:user:joinGroup" in updated["body"] and "actions/runs/2" in updated["body"]

    applied = orgctl("apply", folder, "--auto-approve", env=env)
    assert applied.returncode == 0, output_of(applied)
    third = github(box, hosting, world, "orgctl-drift.yml", MERGE, run_id=3)
    assert third.failed_jobs == [], third.log()
    assert hosting.issues[0]["state"] == "closed"
    assert "matches the manifests again" in hosting.bodies(issue["number"])[-1]


def gitlab(
    box: Sandbox, hosting: Hosting, world: World, source: str, sha: str, run_id: int = 1
) -> Pipeline:
    return GitLabPipeline(
        box,
        hosting,
        ["hq", "cloud"],
        source,
        sha,
        {**variables(box), **secrets(world)},
        branch=None if source == "merge_request_event" else "main",
        merge_request=PR if source == "merge_request_event" else None,
        run_id=run_id,
    ).run()


def test_gitlab_plan_note_then_apply_the_reviewed_plan_then_drift(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    # Portals that share no collaboration: applying one does not make the other's plan stale.
    box = sandbox(tmp_path, world.service.url, "hq", "cloud")
    merge_request = gitlab(box, hosting, world, "merge_request_event", HEAD)
    assert merge_request.failed_jobs == [], merge_request.log()
    assert {s.job for s in merge_request.steps} == {
        "validate: [hq]",
        "validate: [cloud]",
        "test",
        "plan: [hq]",
        "plan: [cloud]",
    }
    assert sorted(b.splitlines()[0] for b in hosting.bodies(PR)) == [
        "<!-- orgctl-plan:cloud:1/1 -->",
        "<!-- orgctl-plan:hq:1/1 -->",
    ]
    assert f"orgctl-plan/{HEAD}/orgctl-plan-hq.json" in hosting.packages

    hosting.reviews[MERGE] = (PR, HEAD)
    pushed = gitlab(box, hosting, world, "push", MERGE, run_id=2)
    assert pushed.failed_jobs == [], pushed.log()
    assert {s.job for s in pushed.steps} == {"apply: [hq]", "apply: [cloud]"}
    assert sorted((s["name"], s["state"]) for s in hosting.statuses) == [
        ("orgctl apply / cloud", "success"),
        ("orgctl apply / hq", "success"),
    ]
    assert "Field Analyst" in world.api("hq").roles()

    scheduled = gitlab(box, hosting, world, "schedule", MERGE, run_id=3)
    assert scheduled.failed_jobs == [], scheduled.log()
    assert {s.job for s in scheduled.steps} == {"drift: [hq]", "drift: [cloud]"}
    assert hosting.issues == []
    # Every job installs: validate, plan, apply and drift for each portal, test once.
    assert box.pip_log.read_text().splitlines() == [f"install {REQUIREMENT}"] * 9


def test_gitlab_portal_down_is_said_in_the_note(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, dead_url(), "hq", "cloud")
    merge_request = gitlab(box, hosting, world, "merge_request_event", HEAD)
    assert sorted(merge_request.failed_jobs) == ["plan: [cloud]", "plan: [hq]"]
    assert len(hosting.bodies(PR)) == 2, merge_request.log()
    for body in hosting.bodies(PR):
        assert "**Failed" in body and "is unreachable" in body, body
    assert hosting.packages == {}


def test_a_missing_requirement_stops_the_install_with_a_clear_message(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, world.service.url, "hq")
    run = GitHubRun(
        WORKFLOWS / "orgctl-drift.yml", box, hosting, {}, MERGE, secrets(world), {}
    ).run()
    assert run.failed_jobs[0] == "targets{}", run.log()
    assert "set the repository variable ORGCTL_REQUIREMENT" in run.log()
    assert not box.pip_log.exists() and len(run.steps) == 3, "nothing after the install runs"


def test_github_drift_proposes_the_live_values_in_one_pull_request(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, world.service.url, "hq")
    folder = box.repo / "portals" / "hq"
    env = env_with(ORGCTL_USERNAME=ADMIN[0], ORGCTL_PASSWORD=ADMIN[1])
    applied = orgctl("apply", folder, "--auto-approve", env=env)
    assert applied.returncode == 0, output_of(applied)
    api = world.api("hq")
    api.set_privileges("Analyst", ["portal:user:joinGroup"])

    first = github(box, hosting, world, "orgctl-drift.yml", MERGE)
    assert first.failed_jobs == [], first.log()
    [pull] = hosting.proposals
    assert pull["head"] == "orgctl/drift/hq" and pull["base"] == "main", pull
    base, files = hosting.branches["orgctl/drift/hq"]
    assert base == MERGE
    [(path, text)] = files.items()
    assert path.endswith("roles.yaml"), path
    # The branch holds the adopted file: the live privileges, the rest as it was.
    original = (folder / Path(path).name).read_text()
    assert "portal:user:joinGroup" in text and text != original
    assert text.splitlines()[0] == original.splitlines()[0], "the file's comment is kept"
    assert f"pull/{pull['number']}" in hosting.issues[0]["body"]

    # Drift again: the same branch is reset and the same pull request updated.
    api.set_privileges("Analyst", ["portal:user:viewOrgItems"])
    second = github(box, hosting, world, "orgctl-drift.yml", MERGE, run_id=2)
    assert second.failed_jobs == [], second.log()
    assert len(hosting.proposals) == 1
    assert "portal:user:viewOrgItems" in hosting.branches["orgctl/drift/hq"][1][path]


def test_gitlab_drift_proposes_the_live_values_in_one_merge_request(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, world.service.url, "hq", "cloud")
    env = env_with(ORGCTL_USERNAME=ADMIN[0], ORGCTL_PASSWORD=ADMIN[1])
    for name in ("hq", "cloud"):
        applied = orgctl("apply", box.repo / "portals" / name, "--auto-approve", env=env)
        assert applied.returncode == 0, output_of(applied)
    world.api("hq").set_privileges("Analyst", ["portal:user:joinGroup"])

    scheduled = gitlab(box, hosting, world, "schedule", MERGE)
    assert scheduled.failed_jobs == [], scheduled.log()
    [request] = hosting.proposals
    assert request["source_branch"] == "orgctl/drift/hq" and request["target_branch"] == "main"
    base, files = hosting.branches["orgctl/drift/hq"]
    assert base == MERGE and any("portal:user:joinGroup" in t for t in files.values()), files
    assert f"merge_requests/{request['iid']}" in hosting.issues[0]["body"]


def test_github_plan_too_long_for_one_comment_is_posted_in_parts_holding_everything(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    source = tmp_path / "big-hq"
    shutil.copytree(EXAMPLES / "hq", source)
    roles = [
        "apiVersion: orgctl/v1\nkind: Role\n"
        f"metadata: {{name: Bulk {n:03d}}}\n"
        f"spec:\n  description: bulk role number {n}\n"
        "  privileges: [portal:user:joinGroup, portal:user:viewOrgItems]\n"
        for n in range(300)
    ]
    (source / "bulk.yaml").write_text("---\n".join(roles))
    box = Sandbox.create(tmp_path / "ci", {"hq": source}, world.service.url)
    pull = github(box, hosting, world, "orgctl-pull-request.yml", HEAD)
    assert pull.failed_jobs == [], pull.log()
    bodies = [b for b in hosting.bodies(PR) if "orgctl-plan:hq:" in b]
    count = len(bodies)
    assert count > 1, "the plan needs several comments"
    assert sorted(b.splitlines()[0] for b in bodies) == sorted(
        f"<!-- orgctl-plan:hq:{i}/{count} -->" for i in range(1, count + 1)
    )
    assert all(len(b) <= 65_536 for b in bodies)
    joined = "\n".join(bodies)
    # Together they hold every change with its values: nothing left out for the reviewer.
    assert all(f"+ Role/Bulk {n:03d}" in joined for n in range(300))
    assert all(f'description: "bulk role number {n}"' in joined for n in range(300))
    assert "left out" not in joined


SCENARIO = """\
apiVersion: orgctl/v1
kind: Test
metadata:
  name: hq-plans-cleanly
spec:
  state: state.yaml
  manifests: ../portals/hq
  portal: hq
  expect:
    errors: []
"""


def test_github_pull_request_runs_the_scenarios_and_fails_on_new_access_against_the_base(
    world: World, hosting: Hosting, tmp_path: Path
) -> None:
    box = sandbox(tmp_path, world.service.url, "hq")
    # The pull request, on top of the base commit: a scenario folder beside portals/, and
    # an administrative privilege for the Analyst role (dave, erin).
    (box.repo / "tests").mkdir()
    shutil.copy(EXAMPLES / "demo" / "state.yaml", box.repo / "tests" / "state.yaml")
    (box.repo / "tests" / "hq.yaml").write_text(SCENARIO)
    roles = box.repo / "portals" / "hq" / "roles.yaml"
    granted = "    - portal:user:shareToGroup\n    - portal:admin:deleteUsers\n"
    roles.write_text(roles.read_text().replace("    - portal:user:shareToGroup\n", granted, 1))
    pull = github(box, hosting, world, "orgctl-pull-request.yml", HEAD)
    # The plan is commented and saved; then the what-if step fails the job: new access.
    assert [j.split("{")[0] for j in pull.failed_jobs] == ["plan"], pull.log()
    what_if = next(s for s in pull.steps if s.name.startswith("Who gains or loses access"))
    assert what_if.code == 2, pull.log()
    assert "## What if: hq, against " in what_if.output, what_if.output
    assert "gains `portal:admin:deleteUsers`" in what_if.output, what_if.output
    assert f"orgctl-plan-hq-{HEAD}" in hosting.artifacts
    scenarios = next(s for s in pull.steps if s.name.startswith("Run the policy scenarios"))
    assert scenarios.code == 0, pull.log()
    assert "hq-plans-cleanly PASSED" in scenarios.output and "1 passed in " in scenarios.output
    with zipfile.ZipFile(io.BytesIO(hosting.artifacts["orgctl-tests"][-1])) as kept:
        report = kept.read("orgctl-tests.xml").decode()
    assert '<testsuite name="orgctl test" tests="1" failures="0"' in report, report
