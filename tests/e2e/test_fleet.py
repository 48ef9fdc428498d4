"""A fleet as one input: `plan` and `drift` of several portals in one process, each
with its own Portal, release, credentials and URL, grouped by portal with a summary."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.cli import env_with, orgctl

from .conftest import Serve
from .harness import (
    DEMO_HQ_ADMIN,
    DEMO_HQ_ROLES,
    EXAMPLES,
    World,
    closed_port,
    demo_state_with,
    output_of,
)

BASE = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Fleet Reader}
spec:
  description: Reads organization content
  privileges: [portal:user:joinGroup, portal:user:viewOrgItems]
"""
PORTAL = """\
apiVersion: orgctl/v1
kind: Portal
metadata: {{name: {name}}}
spec:
  url: https://{name}.example.com/portal/sharing/rest
  adminUrl: https://{name}.example.com/portal/admin
  deployment: self-hosted
  version: "{version}"
  auth: {{usernameEnv: ORGCTL_USERNAME, passwordEnv: ORGCTL_PASSWORD}}
  include: [../base]
"""
OVERLAY = """\
apiVersion: orgctl/v1
kind: Role
metadata: {name: Fleet Reader}
spec:
  privileges: {add: [portal:user:viewOrgUsers]}
"""
# Portal name -> the demo portal (urlKey) it is served as.
PORTALS = {"main": "hq", "branch": "field"}


@pytest.fixture
def fleet(demo: World) -> Path:
    root = demo.workdir / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "base").mkdir()
    (root / "base" / "roles.yaml").write_text(BASE)
    for name, version in (("main", "10.6.1"), ("branch", "11.3")):
        (root / name).mkdir()
        (root / name / "portal.yaml").write_text(PORTAL.format(name=name, version=version))
    (root / "branch" / "roles.yaml").write_text(OVERLAY)
    return root


def _apply_each(demo: World, fleet: Path) -> None:
    env = demo.fleet_env(PORTALS)
    for name in PORTALS:
        done = demo.orgctl("apply", fleet / name, "--auto-approve", portal="", env=env)
        assert done.returncode == 0, output_of(done)


def test_plan_of_a_fleet_plans_each_portal_with_its_own_overlay(demo: World, fleet: Path) -> None:
    env = demo.fleet_env(PORTALS)
    done = demo.orgctl("plan", fleet, "--detailed-exitcode", portal="", env=env)
    assert done.returncode == 2, output_of(done)
    sections = done.stdout.split("=== ")[1:]
    assert [s.split("\n", 1)[0] for s in sections] == [
        f"branch ({fleet}/branch)",
        f"main ({fleet}/main)",
    ]
    assert "portal:user:viewOrgUsers" in sections[0]
    assert "portal:user:viewOrgUsers" not in sections[1]
    assert done.stdout.endswith("\n2 portals: 2 with changes\n")


def test_plan_json_of_a_fleet_is_one_plan_per_portal_name(demo: World, fleet: Path) -> None:
    env = demo.fleet_env(PORTALS)
    done = demo.orgctl(
        "plan", fleet / "main", fleet / "branch", "--format", "json", portal="", env=env
    )
    assert done.returncode == 0, output_of(done)
    body = json.loads(done.stdout)
    assert list(body) == ["main", "branch"]  # in the order given
    assert body["main"]["portal"]["version"] == "10.6.1"
    assert body["branch"]["portal"]["version"] == "11.3"
    assert body["main"]["manifests"] == f"{fleet}/main"
    assert [c["address"] for c in body["main"]["changes"]] == ["Role/Fleet Reader"]
    assert "2 portals: 2 with changes" in done.stderr


def test_drift_of_a_fleet_groups_by_portal_with_a_summary(demo: World, fleet: Path) -> None:
    _apply_each(demo, fleet)
    env = demo.fleet_env(PORTALS)
    done = demo.orgctl("drift", fleet, "--jobs", "2", portal="", env=env)
    assert done.returncode == 0, output_of(done)
    assert done.stdout.endswith("\n2 portals: 2 in sync\n")
    demo.api("field").set_privileges("Fleet Reader", ["portal:user:joinGroup"])
    done = demo.orgctl("drift", fleet, portal="", env=env)
    assert done.returncode == 2, output_of(done)
    branch, main = done.stdout.split("=== ")[1:]
    assert "Role/Fleet Reader" in branch and "Role/Fleet Reader" not in main
    assert done.stdout.endswith("\n2 portals: 1 drifted, 1 in sync\n")


def test_a_portal_that_cannot_be_read_fails_alone(demo: World, fleet: Path) -> None:
    env = demo.fleet_env(PORTALS, ORGCTL_BRANCH_USERNAME="admin", ORGCTL_BRANCH_PASSWORD="nope")
    done = demo.orgctl("drift", fleet, portal="", env=env)
    assert done.returncode == 1, output_of(done)
    branch, main = done.stdout.split("=== ")[1:]
    assert "Error:" in branch and "nope" not in done.stdout
    assert "Role/Fleet Reader" in main  # still checked: it was never applied
    assert done.stdout.endswith("\n2 portals: 1 failed, 1 drifted\n")


def test_the_plain_url_override_is_refused_for_a_fleet(demo: World, fleet: Path) -> None:
    env = demo.fleet_env(PORTALS, ORGCTL_PORTAL_URL=f"{demo.service.url}/hq/sharing/rest")
    done = demo.orgctl("drift", fleet, portal="", env=env)
    assert done.returncode == 1
    assert "ORGCTL_PORTAL_URL is set" in done.stderr
    assert "ORGCTL_<NAME>_PORTAL_URL" in done.stderr


def test_a_portals_own_url_wins_over_the_plain_one(demo: World, fleet: Path) -> None:
    env = demo.fleet_env(PORTALS, ORGCTL_PORTAL_URL="http://127.0.0.1:9/nowhere/sharing/rest")
    done = demo.orgctl("plan", fleet / "main", "--format", "json", portal="", env=env)
    assert done.returncode == 0, output_of(done)
    assert json.loads(done.stdout)["portal"]["url"] == f"{demo.service.url}/hq/sharing/rest"


def test_plan_of_a_fleet_refuses_to_save_one_plan(demo: World, fleet: Path) -> None:
    done = demo.orgctl("plan", fleet, "-o", "plan.json", portal="", env=demo.fleet_env(PORTALS))
    assert done.returncode == 1
    assert "plan each portal folder on its own" in done.stderr


# --- examples/fleet: a base of three roles and a webhook policy, three portals -----------

EXAMPLE = EXAMPLES / "fleet"
EXAMPLE_PORTALS = {"fleet-hq": "hq", "fleet-field": "field", "fleet-cloud": "cloud"}


def test_the_example_fleet_plans_applies_and_stays_in_sync(demo: World) -> None:
    env = demo.fleet_env(EXAMPLE_PORTALS)
    done = demo.orgctl("validate", EXAMPLE, portal="", env=env)
    assert done.returncode == 0 and done.stdout.endswith("3 portals: 3 valid\n"), output_of(done)
    done = demo.orgctl("plan", EXAMPLE, "--detailed-exitcode", portal="", env=env)
    assert done.returncode == 2, output_of(done)
    assert done.stdout.endswith("\n3 portals: 3 with changes\n")
    for folder in ("hq", "field", "cloud"):
        applied = demo.orgctl("apply", EXAMPLE / folder, "--auto-approve", portal="", env=env)
        assert applied.returncode == 0, output_of(applied)
    done = demo.orgctl("drift", EXAMPLE, "--jobs", "3", portal="", env=env)
    assert done.returncode == 0, output_of(done)
    assert done.stdout.endswith("\n3 portals: 3 in sync\n")
    # Each portal got the base, patched by its own overlay.
    hq, field, cloud = (demo.api(key).roles() for key in ("hq", "field", "cloud"))
    assert set(hq["Fleet Steward"]["privileges"]) == {"portal:user:viewOrgItems"}
    assert "portal:user:reassignItems" in field["Fleet Steward"]["privileges"]
    assert "portal:user:shareToPublic" in field["Fleet Editor"]["privileges"]
    assert "portal:user:shareToPublic" not in hq["Fleet Editor"]["privileges"]
    assert "premium:user:places" in cloud["Fleet Editor"]["privileges"]
    # The webhook policy reached the 11.3 portal and left the 10.6.1 one alone.
    hooks = demo.api("field").get(f"portals/{demo.api('field').portal_id}/webhooks")["webhooks"]
    assert "scratch-hook" not in {h["name"] for h in hooks}


def test_the_example_base_holds_an_11_0_privilege_only_hq_removes(tmp_path: Path) -> None:
    """Without its overlay, the 10.6.1 portal alone is refused, at the base's line."""
    copy = tmp_path / "fleet"
    shutil.copytree(EXAMPLE, copy)
    (tmp_path / ".git").mkdir()
    (copy / "hq" / "roles.yaml").unlink()
    done = orgctl("validate", copy, env=env_with(), cwd=tmp_path)
    assert done.returncode == 1, output_of(done)
    assert done.stdout.endswith("3 portals: 1 invalid, 2 valid\n")
    base = f"{copy}/base/roles.yaml"
    assert f'{base}:36: Role "Fleet Steward": spec.privileges[1]' in done.stdout
    assert f"(included by {copy}/hq/portal.yaml:17)" in done.stdout


def test_verbose_names_the_files_skipped_for_one_portal_and_a_fleet(
    demo: World, fleet: Path
) -> None:
    (fleet / "main" / "mkdocs.yml").write_text("site_name: Docs\n")
    env = demo.fleet_env(PORTALS)
    for target in (fleet / "main", fleet):
        done = demo.orgctl("plan", target, "-v", portal="", env=env)
        assert done.returncode == 0, output_of(done)
        assert f"note: {fleet}/main/mkdocs.yml: no orgctl document" in done.stderr


def test_a_retry_in_a_fleet_names_its_portal(demo: World, fleet: Path) -> None:
    port = closed_port()
    env = demo.fleet_env(
        PORTALS,
        ORGCTL_BRANCH_PORTAL_URL=f"http://127.0.0.1:{port}/branch/sharing/rest",
        ORGCTL_BRANCH_ADMIN_URL=f"http://127.0.0.1:{port}/branch/admin",
    )
    done = demo.orgctl("drift", fleet, portal="", env=env)
    assert done.returncode == 1, output_of(done)
    retries = [line for line in done.stderr.splitlines() if "trying again" in line]
    # Portals are read at once: a bare retry line would not say whose portal waits.
    assert retries and all(line.startswith("branch: ") for line in retries), done.stderr


# A policy in the fleet's base, broken by the base's own role once it is on a portal.
NO_FLEET_READER = """\
---
apiVersion: orgctl/v1
kind: Policy
metadata: {name: no-fleet-reader}
spec:
  enforcement: mandatory
  subject: role
  rule: 'role.name != "Fleet Reader"'
  message: Fleet Reader must not exist
"""


def _drift_with_policy(demo: World, fleet: Path) -> tuple[Any, dict[str, Any]]:
    """The fleet's JSON drift once its base holds NO_FLEET_READER."""
    (fleet / "base" / "policies.yaml").write_text(NO_FLEET_READER)
    done = demo.orgctl("drift", fleet, "--format", "json", portal="", env=demo.fleet_env(PORTALS))
    return done, json.loads(done.stdout)


def test_drift_of_a_fleet_judges_policies_on_the_live_state_alone(demo: World, fleet: Path) -> None:
    # Against the plan, creating Fleet Reader would introduce the violation (a plan
    # error); on the live portals there is no Fleet Reader: drift, and no violation.
    done, body = _drift_with_policy(demo, fleet)
    assert done.returncode == 2, output_of(done)
    for name in PORTALS:
        assert body[name]["errors"] == [], body[name]["errors"]
        assert body[name]["policies"] == []
    assert "2 portals: 2 drifted" in done.stderr
    assert "Finding (policy" not in done.stderr


def test_drift_of_a_fleet_reports_live_violations_and_fails_only_when_asked(
    demo: World, fleet: Path
) -> None:
    _apply_each(demo, fleet)
    done, body = _drift_with_policy(demo, fleet)
    assert done.returncode == 0, output_of(done)
    for name in PORTALS:
        assert body[name]["policies"] == [
            {
                "policy": "no-fleet-reader",
                "enforcement": "mandatory",
                "subject": "Role/Fleet Reader",
                "message": "Fleet Reader must not exist",
                "cause": None,
                "status": "existing",
            }
        ]
    for name in PORTALS:
        assert f"Finding (policy) in {name}: Role/Fleet Reader: policy no-fleet-reader" in (
            done.stderr
        ), done.stderr
    env = demo.fleet_env(PORTALS)
    gated = demo.orgctl("drift", fleet, "--fail-on", "policy", portal="", env=env)
    assert gated.returncode == 2, output_of(gated)
    assert "Finding (policy, --fail-on) in main: Role/Fleet Reader" in gated.stderr
    assert gated.stdout.endswith("\n2 portals: 2 with findings\n"), gated.stdout
    # The access review's other kinds need its own read: orgctl access, beside the fleet.
    other = demo.orgctl("drift", fleet, "--fail-on", "role-unheld", portal="", env=env)
    assert other.returncode == 1 and "orgctl access" in other.stderr, output_of(other)


VIEWER_ROLE = (
    "      - {id: r0000000000009, name: Reviewer, description: Reads for drift,\n"
    "         privileges: [portal:admin:viewUsers, portal:admin:viewItems,"
    " portal:admin:viewGroups, portal:admin:manageCollaborations]}\n"
)
VIEWER = "      - {username: rita, password: rita-pass, role: Reviewer, level: 2}\n"


def test_drift_of_a_fleet_reads_with_a_view_only_account_as_drift_of_one_portal_does(
    serve: Serve, fleet: Path, tmp_path: Path
) -> None:
    """Drift may run read-only: a fleet's drift reports each portal's differences as the
    drift of that portal alone does, not the calls the account could not send."""
    state = demo_state_with(tmp_path, {DEMO_HQ_ROLES: VIEWER_ROLE, DEMO_HQ_ADMIN: VIEWER})
    world = serve(state)
    both_hq = {"main": "hq", "branch": "hq"}
    applied = world.orgctl(
        "apply", fleet / "main", "--auto-approve", portal="", env=world.fleet_env(both_hq)
    )
    assert applied.returncode == 0, output_of(applied)
    viewer = {**world.fleet_env(both_hq), "ORGCTL_USERNAME": "rita", "ORGCTL_PASSWORD": "rita-pass"}
    alone = world.orgctl("drift", fleet / "branch", portal="", env=viewer)
    assert alone.returncode == 2, output_of(alone)
    done = world.orgctl("drift", fleet, portal="", env=viewer)
    assert done.returncode == 2, output_of(done)
    branch = done.stdout.split("=== ")[1]
    assert "Error" not in done.stdout and "may not" not in done.stdout, output_of(done)
    assert "portal:user:viewOrgUsers" in branch
    assert branch.split("\n", 1)[1].strip() == alone.stdout.strip()
    assert done.stdout.endswith("\n2 portals: 1 drifted, 1 in sync\n")
