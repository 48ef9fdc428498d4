"""The scheduled drift job reads as the portal's read-only account, never apply's: every
orgctl it runs (drift, the drift and access pages, the adoption) gets only the
`ORGCTL_<NAME>_*_READ` credentials, and works end to end with a member whose custom role
holds view privileges only. Without read-only credentials it reads nothing, and the issue
says which to set. Run as the shipped workflows run, against `orgctl serve` behind a
recording gateway on loopback (README: "CI")."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from tests.e2e.catcher import Catcher
from tests.e2e.harness import DEMO_HQ_ADMIN, DEMO_HQ_ROLES, World, demo_state_with, output_of
from tests.gitops.ci_runner import GitHubRun, GitLabPipeline, Pipeline, Sandbox
from tests.gitops.fake_hosting import Hosting
from tests.gitops.test_ci_steps import MERGE, REQUIREMENT, WORKFLOWS, sandbox
from tests.service.harness import Service

pytestmark = pytest.mark.e2e

# apply's account: a password no read-only job may send or print.
APPLY = {"username": "admin", "password": "apply-Only-Pw-60817"}
READER = {"username": "rita", "password": "rita-Read-Pw-24093"}
READER_ROLE = (
    "      - {id: r0000000000009, name: Reviewer, description: Reads for plans and drift,\n"
    "         privileges: [portal:admin:viewUsers, portal:admin:viewItems,"
    " portal:admin:viewGroups, portal:admin:manageCollaborations]}\n"
)
# Reads members, not collaborations: examples/hq declares one.
NARROW = {"username": "nia", "password": "nia-Read-Pw-31077"}
NARROW_ROLE = (
    "      - {id: r0000000000010, name: Member Reader, description: Reads members,\n"
    "         privileges: [portal:admin:viewUsers, portal:admin:viewItems]}\n"
)
READER_MEMBER = (
    f"      - {{username: rita, password: {READER['password']}, role: Reviewer, level: 2}}\n"
    f"      - {{username: nia, password: {NARROW['password']}, role: Member Reader, level: 2}}\n"
)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """The demo world with a read-only member on hq (view privileges, no write)."""
    workdir = tmp_path / "service"
    workdir.mkdir()
    state = demo_state_with(
        workdir, {DEMO_HQ_ROLES: READER_ROLE + NARROW_ROLE, DEMO_HQ_ADMIN: READER_MEMBER}
    )
    world = World(Service(workdir / "service.sqlite", state).start(), workdir)
    yield world
    world.close()


@pytest.fixture
def gateway(world: World) -> Iterator[Catcher]:
    """In front of the service: records every request the CI's orgctl makes."""
    with Catcher(world.service.url, echo=lambda method, path: False) as caught:
        yield caught


def drifted_hq(tmp_path: Path, world: World, gateway: Catcher) -> Sandbox:
    """hq applied by the administrator, then changed by hand: the portal drifted."""
    box = sandbox(tmp_path, gateway.origin, "hq")
    applied = world.orgctl("apply", box.repo / "portals" / "hq", "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    world.api("hq").set_privileges("Analyst", ["portal:user:joinGroup"])
    return box


def secrets(reader: dict[str, str] | None = READER) -> dict[str, str]:
    """apply's secrets, and the read-only account's unless None."""
    apply = {"ORGCTL_HQ_USERNAME": APPLY["username"], "ORGCTL_HQ_PASSWORD": APPLY["password"]}
    if reader is None:
        return apply
    read = {
        "ORGCTL_HQ_USERNAME_READ": reader["username"],
        "ORGCTL_HQ_PASSWORD_READ": reader["password"],
    }
    return {**apply, **read}


def github_drift(
    box: Sandbox, hosting: Hosting, gateway: Catcher, secrets: dict[str, str], run_id: int = 1
) -> Pipeline:
    return GitHubRun(
        WORKFLOWS / "orgctl-drift.yml",
        box,
        hosting,
        {"after": MERGE},
        MERGE,
        secrets,
        {"ORGCTL_REQUIREMENT": REQUIREMENT, "ORGCTL_TRUSTED_ORIGINS": f"hq={gateway.origin}"},
        run_id,
    ).run()


def sign_ins(gateway: Catcher) -> list[str]:
    """The username of every generateToken the portal received."""
    forms = [parse_qs(c.body.decode()) for c in gateway.caught if "generateToken" in c.path]
    return [form.get("username", [""])[0] for form in forms]


def shown(pipeline: Pipeline, hosting: Hosting) -> str:
    """Everything the runs left to read: the job logs, issues, comments, pull requests,
    branches and artifacts."""
    texts = [pipeline.log(), repr(hosting.issues), repr(hosting.comments)]
    texts += [repr(hosting.proposals), repr(hosting.branches)]
    for zips in hosting.artifacts.values():
        for data in zips:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                texts += [archive.read(n).decode() for n in archive.namelist()]
    return "\n".join(texts)


def assert_apply_account_unused(gateway: Catcher, pipeline: Pipeline, hosting: Hosting) -> None:
    assert sign_ins(gateway), "the drift job signed in nowhere: nothing was checked"
    assert set(sign_ins(gateway)) == {READER["username"]}, sign_ins(gateway)
    assert not any(APPLY["password"] in c.raw() for c in gateway.caught), "apply's password sent"
    assert APPLY["password"] not in shown(pipeline, hosting)
    assert READER["password"] not in shown(pipeline, hosting)


def test_github_drift_reads_as_the_read_only_member_and_never_with_applys_secrets(
    world: World, hosting: Hosting, gateway: Catcher, tmp_path: Path
) -> None:
    box = drifted_hq(tmp_path, world, gateway)
    first = github_drift(box, hosting, gateway, secrets())
    assert first.failed_jobs == [], first.log()
    [issue] = hosting.issues
    issue_body = issue["body"]
    assert "Role/Analyst" in issue["body"] and "1 changed" in issue["body"], issue["body"]
    with zipfile.ZipFile(io.BytesIO(hosting.artifacts["orgctl-reports-hq"][-1])) as pages:
        drift_page = pages.read("drift.html").decode()
        access_page = pages.read("access.html").decode()
    assert drift_page.startswith("<!DOCTYPE html>") and "Role/Analyst" in drift_page
    assert access_page.startswith("<!DOCTYPE html>") and "rita" in access_page
    [proposal] = hosting.proposals  # `adopt --drifted` read the live values as rita too
    assert any("portal:user:joinGroup" in t for t in hosting.branches[proposal["head"]][1].values())

    world.api("hq").set_privileges("Analyst", ["portal:user:viewOrgItems"])
    second = github_drift(box, hosting, gateway, secrets(), run_id=2)
    assert second.failed_jobs == [], second.log()
    [updated] = hosting.issues  # the same issue, updated with the second run's report
    assert updated["number"] == issue["number"] and updated["body"] != issue_body
    assert "portal:user:joinGroup" in updated["body"] and "actions/runs/2" in updated["body"]
    assert_apply_account_unused(gateway, second, hosting)
    assert APPLY["password"] not in first.log()


def test_gitlab_drift_reads_as_the_read_only_member_though_the_job_holds_applys(
    world: World, hosting: Hosting, gateway: Catcher, tmp_path: Path
) -> None:
    """GitLab hands the scheduled job on main every variable, apply's protected ones and
    plain ORGCTL_USERNAME / _PASSWORD included: it still reads with `_READ` alone."""
    box = drifted_hq(tmp_path, world, gateway)
    variables = {
        **secrets(),
        "ORGCTL_USERNAME": APPLY["username"],
        "ORGCTL_PASSWORD": APPLY["password"],
        "ORGCTL_REQUIREMENT": REQUIREMENT,
        "ORGCTL_TRUSTED_ORIGINS": f"hq={gateway.origin}",
    }
    scheduled = GitLabPipeline(
        box, hosting, ["hq"], "schedule", MERGE, variables, branch="main"
    ).run()
    assert scheduled.failed_jobs == [], scheduled.log()
    [issue] = hosting.issues
    assert "Role/Analyst" in issue["body"], issue["body"]
    assert hosting.proposals, "the live values are proposed"
    assert_apply_account_unused(gateway, scheduled, hosting)


def test_without_read_only_secrets_drift_reads_nothing_and_the_issue_says_what_to_set(
    world: World, hosting: Hosting, gateway: Catcher, tmp_path: Path
) -> None:
    box = drifted_hq(tmp_path, world, gateway)
    run = github_drift(box, hosting, gateway, secrets(None))
    assert [j.split("'name': '")[1].split("'")[0] for j in run.failed_jobs] == ["hq"], run.log()
    assert gateway.caught == [], "the portal was read without the read-only account"
    [issue] = hosting.issues
    assert "no read-only credentials for hq" in issue["body"], issue["body"]
    assert "ORGCTL_HQ_USERNAME_READ and ORGCTL_HQ_PASSWORD_READ" in issue["body"]
    assert "orgctl-reports-hq" not in hosting.artifacts and hosting.proposals == []
    assert APPLY["password"] not in shown(run, hosting)


def test_a_declared_part_the_read_only_member_may_not_read_fails_the_drift_job(
    world: World, hosting: Hosting, gateway: Catcher, tmp_path: Path
) -> None:
    """hq declares a Collaboration; a reader without manageCollaborations cannot compare
    it: drift exits 1, the job fails, and the issue names the privilege to grant."""
    box = drifted_hq(tmp_path, world, gateway)
    run = github_drift(box, hosting, gateway, secrets(NARROW))
    assert len(run.failed_jobs) == 1, run.log()
    [issue] = hosting.issues
    assert "Collaboration/c1" in issue["body"] and "cannot compare" in issue["body"], issue
    assert "portal:admin:manageCollaborations" in issue["body"]
    assert "orgctl-reports-hq" not in hosting.artifacts and hosting.proposals == []
    assert set(sign_ins(gateway)) == {NARROW["username"]}
    assert APPLY["password"] not in shown(run, hosting)
