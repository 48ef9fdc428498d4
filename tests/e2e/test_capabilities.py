"""Who applies decides what a plan may do (docs/rules.md §5): a call the portal would
refuse to the applying member is an error naming its capability, and `apply` sends
nothing, where it used to fail halfway with 403s. The default administrators are every
member assigned the built-in Administrator role (the vendor's createRole page: "members
assigned the default administrator role"), never a custom role however privileged; the
last one is what the portal cannot lose."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reconciler.catalog import privileges_for
from reconciler.versions import Platform

from .harness import (
    DEMO_HQ_ADMIN,
    DEMO_HQ_ROLES,
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
# A second member assigned the built-in Administrator role.
ADMIN2 = {"username": "admin2", "password": "admin2-pass"}
ADMIN2_LINE = "      - {username: admin2, password: admin2-pass, role: org_admin, level: 2}\n"
# A member whose custom role holds every administrative privilege of hq's release.
DEPUTY = {"username": "deputy", "password": "deputy-pass"}
EVERY_ADMINISTRATIVE = sorted(
    p
    for p in privileges_for(Platform.parse("self-hosted", "10.6.1"))
    if p.startswith("portal:admin:")
)
DEPUTY_ROLE = (
    "      - {id: r0000000000077, name: Deputy, description: Every administrative privilege,\n"
    f"         privileges: [{', '.join(EVERY_ADMINISTRATIVE)}]}}\n"
)
DEPUTY_LINE = "      - {username: deputy, password: deputy-pass, role: Deputy, level: 2}\n"


@pytest.fixture
def hq(serve: Serve, tmp_path: Path) -> World:
    """The demo world with admin2, a second org_admin, and deputy on the Deputy role."""
    lines = {DEMO_HQ_ADMIN: ADMIN2_LINE + DEPUTY_LINE, DEMO_HQ_ROLES: DEPUTY_ROLE}
    return serve(demo_state_with(tmp_path, lines))


def with_applier(tmp_path: Path, applier: str) -> Path:
    """examples/hq, its Portal naming `applier` as the member that applies."""
    folder = tmp_path / "hq"
    shutil.copytree(HQ, folder)
    portal = folder / "portal.yaml"
    text = portal.read_text()
    portal.write_text(text.replace("  safety:\n", f"  applier: {applier}\n  safety:\n", 1))
    return folder


def test_a_second_administrator_s_plan_predicts_no_error_and_it_creates_the_roles(
    hq: World, tmp_path: Path
) -> None:
    folder = with_applier(tmp_path, "admin2")
    planned = hq.orgctl("plan", folder, "--format", "json", portal="hq", **ADMIN2)
    assert planned.returncode == 0, output_of(planned)
    plan = plan_json(planned)
    assert (plan["errors"], plan["warnings"]) == ([], []), plan
    assert any(c["operation"] == "createRole" for c in plan["calls"])

    applied = hq.orgctl("apply", folder, "--auto-approve", portal="hq", **ADMIN2)
    assert applied.returncode == 0, output_of(applied)
    roles = hq.api("hq").listing("portals/self/roles", "roles")
    assert "Field Analyst" in {role["name"] for role in roles}


def test_a_custom_role_holding_every_administrative_privilege_still_cannot(
    hq: World, tmp_path: Path
) -> None:
    folder = with_applier(tmp_path, "deputy")
    before = hq.api("hq").snapshot()["roles"]
    planned = hq.orgctl("plan", folder, "--format", "json", portal="hq", **DEPUTY)
    assert planned.returncode == 1, output_of(planned)
    errors = {e["address"]: e["message"] for e in plan_json(planned)["errors"]}
    assert errors["Role/Field Analyst"] == (
        "createRole, setPrivileges need a default administrator (the built-in org_admin role);"
        " spec.applier deputy (Deputy) is not, so the portal would refuse them (403)"
    )
    applied = hq.orgctl("apply", folder, "--auto-approve", portal="hq", **DEPUTY)
    assert applied.returncode == 1, output_of(applied)
    assert hq.api("hq").snapshot()["roles"] == before  # nothing sent: no role made


def test_one_of_two_administrators_is_demoted_by_the_other(hq: World) -> None:
    directory = MANIFESTS / "default-admin-role"  # admin: {role: org_user}
    planned = hq.orgctl("plan", directory, "--format", "json", portal="hq", **ADMIN2)
    assert planned.returncode == 0, output_of(planned)
    assert plan_json(planned)["errors"] == []
    applied = hq.orgctl("apply", directory, "--auto-approve", portal="hq", **ADMIN2)
    assert applied.returncode == 0, output_of(applied)
    admin = hq.api("hq").get("community/users/admin")
    assert admin["role"] == "org_user"


def test_the_last_administrator_s_role_cannot_change(serve: Serve) -> None:
    alone = serve(EXAMPLES / "demo" / "state.yaml")  # admin is hq's only org_admin
    directory = MANIFESTS / "default-admin-role"
    planned = alone.orgctl("plan", directory, "--format", "json", portal="hq")
    assert planned.returncode == 1, output_of(planned)
    (error,) = plan_json(planned)["errors"]
    assert error["address"] == "Portal"
    assert "(admin)" in error["message"] and "ORG_1090" in error["message"]


def test_drift_reports_changes_whoever_is_signed_in(hq: World) -> None:
    drift = hq.orgctl("drift", HQ, portal="hq", **DEPUTY)
    assert drift.returncode == 2, output_of(drift)  # drift, not an error


def test_demoting_every_organization_administrator_is_an_error(hq: World) -> None:
    directory = MANIFESTS / "demote-every-admin"
    planned = hq.orgctl("plan", directory, "--format", "json", portal="hq", **ADMIN2)
    assert planned.returncode == 1, output_of(planned)
    plan = plan_json(planned)
    portal = [e["message"] for e in plan["errors"] if e["address"] == "Portal"]
    assert portal == [
        "this plan leaves the portal without a default administrator: it moves every"
        " org_admin (admin, admin2) to another role, and the portal refuses to move the last"
        " one (ORG_1090); keep at least one"
    ]
    # admin2 demotes itself alongside admin: the other change needs what it gives up.
    assert [w["address"] for w in plan["warnings"]] == ["Member/admin2"], plan["warnings"]
