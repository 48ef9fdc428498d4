"""A fleet as one input: `plan` and `drift` of several portals in one process, each
with its own Portal, release, credentials and URL, grouped by portal with a summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import World, output_of

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
