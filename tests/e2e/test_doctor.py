"""`orgctl doctor` against `orgctl serve`: the example portal as it is (exit 0), and the
same portal behind a proxy that rewrites one read's answers as a vendor's change or a
rewriting gateway would: a key renamed, a value of another JSON type, a privilege the
catalog does not know. Each is named in the report, with exit 2 or 1."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from orgctl_service.testing.forwarding import FORWARD, Action, ForwardingServer, Request, whole
from tests.e2e.harness import EXAMPLES, World, closed_port, output_of

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
ROLES = "/hq/sharing/rest/portals/self/roles"
MEMBERS = "/hq/sharing/rest/portals/self/users"
UNKNOWN = "portal:admin:manageEverything"

Rewrite = Callable[[dict[str, Any]], None]


class Rewriting(ForwardingServer):
    """Forwards every request; the answers to `path` are rewritten by `rewrite`."""

    def __init__(self, upstream: str, path: str, rewrite: Rewrite) -> None:
        super().__init__(upstream)
        self.path = path
        self.rewrite = rewrite
        self.rewritten = 0

    def decide(self, request: Request) -> Action:
        if request.path != self.path:
            return FORWARD
        answer = self.forward(request).json()
        self.rewrite(answer)
        with self._lock:
            self.rewritten += 1
        return whole(200, {"Content-Type": "application/json"}, json.dumps(answer).encode())


@contextmanager
def proxied(demo: World, path: str, rewrite: Rewrite) -> Iterator[tuple[Rewriting, dict[str, str]]]:
    with Rewriting(demo.service.url, path, rewrite) as proxy:
        env = demo.env("hq")
        env["ORGCTL_PORTAL_URL"] = f"{proxy.url}/hq/sharing/rest"
        yield proxy, env


def each_entry(key: str, change: Callable[[dict[str, Any]], None]) -> Rewrite:
    def rewrite(answer: dict[str, Any]) -> None:
        for entry in answer.get(key) or []:
            change(entry)

    return rewrite


def test_the_example_portal_can_be_managed_as_it_is(demo: World) -> None:
    done = demo.orgctl("doctor", HQ, portal="hq")
    assert done.returncode == 0, output_of(done)
    assert "orgctl can manage this portal as it is" in done.stdout
    for checked in ("reachability", "sign-in", "release", "capabilities", "privileges", "lock"):
        assert checked in done.stdout, done.stdout
    assert "admin-pass" not in done.stdout + done.stderr


def test_doctor_changes_nothing(demo: World) -> None:
    before = demo.api("hq").snapshot()
    assert demo.orgctl("doctor", HQ, "--format", "json", portal="hq").returncode == 0
    assert demo.api("hq").snapshot() == before


def test_a_renamed_key_is_named_with_what_the_answers_hold_instead(demo: World) -> None:
    def rename(role: dict[str, Any]) -> None:
        role["privilegeList"] = role.pop("privileges")

    with proxied(demo, ROLES, each_entry("roles", rename)) as (proxy, env):
        done = demo.orgctl("doctor", HQ, "--format", "json", portal="hq", env=env)
    assert proxy.rewritten >= 1
    assert done.returncode == 2, output_of(done)
    report = json.loads(done.stdout)
    missing = [f for f in report["findings"] if "roles[].privileges is missing" in f["message"]]
    assert len(missing) == 1, report["findings"]
    assert "'privilegeList' instead" in missing[0]["message"]
    assert missing[0]["severity"] == "difference"


def test_a_value_of_another_type_is_named_and_stops_the_plan(demo: World) -> None:
    def as_object(member: dict[str, Any]) -> None:
        member["level"] = {"value": member["level"]}

    with proxied(demo, MEMBERS, each_entry("users", as_object)) as (_, env):
        done = demo.orgctl("doctor", HQ, portal="hq", env=env)
    assert done.returncode == 1, output_of(done)
    assert "members: users[].level is a JSON object; orgctl reads a number or string" in done.stdout
    assert "BLOCKER  reads: Member/alice: the portal answered Member/alice: level" in done.stdout


def test_a_privilege_the_catalog_does_not_know_is_named_with_its_holders(demo: World) -> None:
    def grant(role: dict[str, Any]) -> None:
        if role["name"] == "Analyst":
            role["privileges"].append(UNKNOWN)

    with proxied(demo, ROLES, each_entry("roles", grant)) as (_, env):
        done = demo.orgctl("doctor", HQ, "--format", "markdown", portal="hq", env=env)
    assert done.returncode == 2, output_of(done)
    line = next(line for line in done.stdout.splitlines() if UNKNOWN in line)
    assert line.startswith("| DIFFERS | privileges |"), line
    assert "Role/Analyst" in line
    assert "spec.extraPrivileges" in line


def test_a_wrong_password_is_a_sign_in_blocker_with_its_fix(demo: World) -> None:
    done = demo.orgctl("doctor", HQ, portal="hq", password="not-the-password")
    assert done.returncode == 1, output_of(done)
    assert "BLOCKER  sign-in:" in done.stdout
    assert "fix: set the credentials" in done.stdout
    assert "not-the-password" not in done.stdout + done.stderr


def test_a_member_that_may_not_apply_is_a_capability_blocker(demo: World) -> None:
    done = demo.orgctl("doctor", HQ, portal="hq", username="alice", password="alice-pass")
    assert done.returncode == 1, output_of(done)
    assert "BLOCKER  capabilities:" in done.stdout, done.stdout


def test_a_fleet_is_checked_portal_by_portal_with_the_worst_exit_code(demo: World) -> None:
    """examples/fleet: hq as it is (0), field and cloud each on their own portal; one
    portal pointed at a closed port makes the fleet's exit 1 and is named alone."""
    portals = {"fleet-hq": "hq", "fleet-field": "field", "fleet-cloud": "cloud"}
    closed = f"http://127.0.0.1:{closed_port()}/cloud/sharing/rest"
    env = demo.fleet_env(portals, ORGCTL_FLEET_CLOUD_PORTAL_URL=closed)
    done = demo.orgctl("doctor", EXAMPLES / "fleet", "--format", "json", portal="hq", env=env)
    assert done.returncode == 1, output_of(done)
    report = json.loads(done.stdout)
    assert report["fleet-hq"]["exitCode"] == 0, report["fleet-hq"]
    assert report["fleet-cloud"]["exitCode"] == 1
    assert report["fleet-cloud"]["findings"][0]["check"] == "reachability"
    assert "3 portals: 1 not manageable" in done.stderr


def test_spec_applier_is_the_member_whose_capabilities_are_checked(
    demo: World, tmp_path: Path
) -> None:
    """Signed in as the default administrator, with spec.applier naming alice (org_user):
    the plan's calls, the writes the documents may need beyond today's plan and the apply
    lock are checked for alice, and refused."""
    manifests = tmp_path / "hq"
    shutil.copytree(HQ, manifests)
    portal = manifests / "portal.yaml"
    declared = "  deployment: self-hosted\n"
    portal.write_text(portal.read_text().replace(declared, declared + "  applier: alice\n"))
    done = demo.orgctl("doctor", manifests, portal="hq")
    assert done.returncode == 1, output_of(done)
    assert "checked against spec.applier alice (org_user)" in done.stdout
    assert "BLOCKER  capabilities: Role/Field Analyst: createRole, setPrivileges" in done.stdout
    # Not in today's plan, but the Collaboration document may need it:
    assert "BLOCKER  capabilities: Collaboration/c1 may need deleteCollaboration" in done.stdout
    lock = "BLOCKER  apply lock: apply takes and gives back its lock with addResource and"
    assert lock in done.stdout
    assert "DIFFERS" not in done.stdout  # alice's listing entry names no privileges: allowed


def test_a_catalog_privilege_the_administrator_lacks_is_named(demo: World) -> None:
    """The built-in Administrator holds every privilege the portal offers: one that its
    list in portals/self leaves out is a catalog privilege the portal may not have."""

    def drop(answer: dict[str, Any]) -> None:
        answer["user"]["privileges"].remove("portal:admin:manageWebhooks")

    with proxied(demo, "/hq/sharing/rest/portals/self", drop) as (proxy, env):
        done = demo.orgctl("doctor", HQ, portal="hq", env=env)
    assert proxy.rewritten >= 1
    assert done.returncode == 2, output_of(done)
    assert (
        "DIFFERS  privileges: 1 privilege(s) of orgctl's catalog for self-hosted 10.6.1 are not"
        " among the built-in Administrator admin's privileges: portal:admin:manageWebhooks"
    ) in done.stdout
