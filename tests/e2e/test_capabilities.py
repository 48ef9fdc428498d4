"""Who applies decides what a plan may do (docs/rules.md §5): a call the portal would
refuse to the applying member is an error naming its capability, and `apply` sends
nothing, where it used to fail halfway with 403s; so are a change to the default
administrator's role (ORG_1090) and a plan that leaves no organization administrator."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import (
    DEMO_HQ_ADMIN,
    EXAMPLES,
    MANIFESTS,
    Serve,
    World,
    demo_state_with,
    output_of,
    plan_json,
)

pytestmark = pytest.mark.e2e

HQ = EXAMPLES / "hq"
# An organization administrator who is not the default administrator.
ADMIN2 = {"username": "admin2", "password": "admin2-pass"}
ADMIN2_LINE = "      - {username: admin2, password: admin2-pass, role: org_admin, level: 2}\n"


@pytest.fixture
def hq(serve: Serve, tmp_path: Path) -> World:
    """The demo world with a second organization administrator, admin2, on hq."""
    return serve(demo_state_with(tmp_path, {DEMO_HQ_ADMIN: ADMIN2_LINE}))


def test_apply_refuses_every_call_an_administrator_who_is_not_the_default_one_may_not_make(
    hq: World,
) -> None:
    """A plan cannot know who applies it (README: a reviewer's read-only account): it
    warns; `apply`, which sends the calls as the signed-in member, refuses them."""
    planned = hq.orgctl("plan", HQ, "--format", "json", portal="hq", **ADMIN2)
    assert planned.returncode == 0, output_of(planned)
    warnings = {w["address"]: w["message"] for w in plan_json(planned)["warnings"]}
    assert set(warnings) == {"Portal", "Role/Analyst", "Role/Field Analyst", "Role/Legacy Viewer"}
    assert warnings["Role/Field Analyst"].startswith(
        "createRole, setPrivileges need the default organization administrator; the signed-in"
        " user admin2 (org_admin, not the default administrator) is not: the account that"
        " applies must be"
    )
    assert warnings["Role/Legacy Viewer"].startswith("deleteRole needs the default organization")

    before = hq.api("hq").snapshot()
    applied = hq.orgctl("apply", HQ, "--auto-approve", portal="hq", **ADMIN2)
    assert applied.returncode == 1, output_of(applied)
    assert "403" in applied.stdout and "failed" not in applied.stdout, output_of(applied)
    assert "is not, so the portal would refuse them (403)" in applied.stdout
    assert hq.api("hq").snapshot() == before  # nothing sent: no half-changed portal


def test_the_default_administrator_plans_the_same_manifests_cleanly(hq: World) -> None:
    planned = hq.orgctl("plan", HQ, "--format", "json", portal="hq")
    assert planned.returncode == 0, output_of(planned)
    assert plan_json(planned)["errors"] == []


def test_drift_reports_changes_whoever_is_signed_in(hq: World) -> None:
    drift = hq.orgctl("drift", HQ, portal="hq", **ADMIN2)
    assert drift.returncode == 2, output_of(drift)  # drift, not an error


def test_the_default_administrator_s_role_cannot_change(hq: World) -> None:
    planned = hq.orgctl("plan", MANIFESTS / "default-admin-role", "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    (error,) = plan_json(planned)["errors"]
    assert error["address"] == "Member/admin"
    assert "default administrator" in error["message"] and "ORG_1090" in error["message"]


def test_demoting_every_organization_administrator_is_an_error(hq: World) -> None:
    directory = MANIFESTS / "demote-every-admin"
    planned = hq.orgctl("plan", directory, "--format", "json", portal="hq", **ADMIN2)
    assert planned.returncode == 1, output_of(planned)
    plan = plan_json(planned)
    portal = [e["message"] for e in plan["errors"] if e["address"] == "Portal"]
    assert portal == [
        "this plan leaves the portal without an organization administrator: it moves every"
        " org_admin (admin, admin2) to another role; keep at least one"
    ]
    # admin2 demotes itself alongside admin: the other change needs what it gives up.
    assert [w["address"] for w in plan["warnings"]] == ["Member/admin2"], plan["warnings"]
