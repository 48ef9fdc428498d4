"""`plan --format json`: the contract's shape, the order of calls and their dependencies,
byte-identical output, and that the ordered plan really applies."""

from __future__ import annotations

from typing import Any

import pytest

from .harness import EXAMPLES, MANIFESTS, Serve, World, one_call, output_of, plan_json

pytestmark = pytest.mark.e2e

ORDER = MANIFESTS / "order"


def json_plan(world: World, directory: object, portal: str) -> dict[str, Any]:
    result = world.orgctl("plan", str(directory), "--format", "json", portal=portal)
    assert result.returncode == 0, output_of(result)
    return plan_json(result)


def assert_well_formed(plan: dict[str, Any]) -> None:
    """README: plan JSON: every key, seqs 1..n in send order, dependencies only on earlier calls."""
    assert plan["formatVersion"] == 1
    assert set(plan) >= {
        "formatVersion",
        "portal",
        "changes",
        "calls",
        "errors",
        "warnings",
        "summary",
        "liveFingerprint",
    }
    assert set(plan["portal"]) >= {"url", "portalId", "deployment", "version"}
    assert [c["seq"] for c in plan["calls"]] == list(range(1, len(plan["calls"]) + 1))
    for call in plan["calls"]:
        assert set(call) >= {"seq", "address", "method", "url", "params", "dependsOn"}
        assert all(dep < call["seq"] for dep in call["dependsOn"]), call
    actions = [c["action"] for c in plan["changes"]]
    assert plan["summary"] == {
        "create": actions.count("create"),
        "update": actions.count("update"),
        "delete": actions.count("delete"),
        "calls": len(plan["calls"]),
    }
    assert plan["liveFingerprint"].startswith("sha256:")


def test_role_creation_member_role_level_quota_and_deletion_order(serve: Serve) -> None:
    world = serve("rules")
    plan = json_plan(world, ORDER, "hq")
    assert_well_formed(plan)
    assert not plan["errors"], plan["errors"]

    # createRole first; setPrivileges waits for it and addresses the id it will return.
    create = one_call(plan, "Role/Surveyor", "/createRole")
    privileges = one_call(plan, "Role/Surveyor", "/setPrivileges")
    assert create["params"]["name"] == "Surveyor"
    assert create["seq"] < privileges["seq"]
    assert create["seq"] in privileges["dependsOn"]
    assert "${Role/Surveyor.id}" in privileges["url"]

    # alice: assigned the new role (by placeholder) before her level changes.
    role = one_call(plan, "Member/alice", "/updateuserrole")
    level = one_call(plan, "Member/alice", "/updateUserLevel")
    assert role["params"]["role"] == "${Role/Surveyor.id}"
    assert create["seq"] in role["dependsOn"]
    assert role["seq"] < level["seq"] and role["seq"] in level["dependsOn"]
    assert level["params"]["level"] == "1"

    # Level 1 is full (quota 1, erin): erin leaves it before alice enters, and alice waits.
    erin = one_call(plan, "Member/erin", "/updateUserLevel")
    assert erin["params"]["level"] == "2"
    assert erin["seq"] < level["seq"] and erin["seq"] in level["dependsOn"]

    # Deletions last: Old Role goes after every other call, once hank has moved off it.
    delete = one_call(plan, "Role/Old Role", "/delete")
    hank = one_call(plan, "Member/hank", "/updateuserrole")
    assert delete["seq"] == plan["calls"][-1]["seq"]
    assert hank["seq"] in delete["dependsOn"]
    assert {c["address"]: c["action"] for c in plan["changes"]}["Role/Old Role"] == "delete"


def test_ordered_plan_applies_and_converges(serve: Serve) -> None:
    world = serve("rules")
    applied = world.orgctl("apply", ORDER, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    again = world.orgctl("plan", ORDER, "--detailed-exitcode", portal="hq")
    assert again.returncode == 0, output_of(again)

    api = world.api("hq")
    roles = api.roles()
    assert "Old Role" not in roles
    assert set(roles["Surveyor"]["privileges"]) == {
        "portal:user:joinGroup",
        "portal:user:viewOrgItems",
        "premium:user:geocode",
    }
    members = api.members()
    assert (members["alice"]["roleId"], members["alice"]["level"]) == (roles["Surveyor"]["id"], "1")
    assert members["erin"]["level"] == "2"
    assert members["hank"]["roleId"] == roles["Analyst"]["id"]


def test_level_one_member_rises_before_taking_a_built_in_role(demo: World) -> None:
    directory = MANIFESTS / "level-one-to-builtin"
    plan = json_plan(demo, directory, "hq")
    rise = one_call(plan, "Member/erin", "/updateUserLevel")
    role = one_call(plan, "Member/erin", "/updateuserrole")
    assert (rise["params"]["level"], role["params"]["role"]) == ("2", "org_user")
    assert rise["seq"] < role["seq"] and rise["seq"] in role["dependsOn"]

    applied = demo.orgctl("apply", directory, "--auto-approve", portal="hq")
    assert applied.returncode == 0, output_of(applied)
    erin = demo.api("hq").members()["erin"]
    assert (erin["role"], erin["level"]) == ("org_user", "2")


def test_full_level_two_demotion_comes_before_promotion(serve: Serve) -> None:
    world = serve("level2full")
    directory = MANIFESTS / "level2full"
    plan = json_plan(world, directory, "full")
    assert_well_formed(plan)
    demotion = one_call(plan, "Member/ann", "/updateUserLevel")
    promotion = one_call(plan, "Member/bea", "/updateUserLevel")
    assert (demotion["params"]["level"], promotion["params"]["level"]) == ("1", "2")
    assert demotion["seq"] < promotion["seq"]
    assert demotion["seq"] in promotion["dependsOn"]

    applied = world.orgctl("apply", directory, "--auto-approve", portal="full")
    assert applied.returncode == 0, output_of(applied)
    members = world.api("full").members()
    assert (members["ann"]["level"], members["bea"]["level"]) == ("1", "2")


def test_json_plan_is_byte_identical_across_runs(demo: World) -> None:
    directory = EXAMPLES / "hq"
    first = demo.orgctl("plan", directory, "--format", "json", portal="hq")
    second = demo.orgctl("plan", directory, "--format", "json", portal="hq")
    assert first.returncode == second.returncode == 0, output_of(first)
    assert first.stdout == second.stdout
    assert_well_formed(plan_json(first))

    for name in ("a.json", "b.json"):
        saved = demo.orgctl("plan", directory, "-o", demo.workdir / name, portal="hq")
        assert saved.returncode == 0, output_of(saved)
    assert (demo.workdir / "a.json").read_bytes() == (demo.workdir / "b.json").read_bytes()


def test_target_limits_the_plan_to_the_member_and_the_role_she_needs(demo: World) -> None:
    result = demo.orgctl(
        "plan", EXAMPLES / "hq", "--format", "json", "--target", "Member/alice", portal="hq"
    )
    assert result.returncode == 0, output_of(result)
    plan = plan_json(result)
    wanted = {"Member/alice", "Role/Field Analyst"}
    assert {c["address"] for c in plan["changes"]} == wanted
    assert {c["address"] for c in plan["calls"]} <= wanted
    create = one_call(plan, "Role/Field Analyst", "/createRole")
    # The role she needs is kept whole: created with its privileges, not as an empty shell.
    assert create["seq"] in one_call(plan, "Role/Field Analyst", "/setPrivileges")["dependsOn"]
    role = one_call(plan, "Member/alice", "/updateuserrole")
    level = one_call(plan, "Member/alice", "/updateUserLevel")
    assert create["seq"] in role["dependsOn"] and role["seq"] in level["dependsOn"]


def test_targeted_apply_changes_only_the_target_and_what_it_needs(demo: World) -> None:
    api = demo.api("hq")
    before = api.snapshot()
    applied = demo.orgctl(
        "apply", EXAMPLES / "hq", "--auto-approve", "--target", "Member/alice", portal="hq"
    )
    assert applied.returncode == 0, output_of(applied)
    after = api.snapshot()
    field_analyst = after["roles"]["Field Analyst"]
    assert len(field_analyst["privileges"]) == 5
    assert (after["members"]["alice"]["roleId"], after["members"]["alice"]["level"]) == (
        field_analyst["id"],
        "1",
    )
    # Everything else the example would change is untouched.
    assert after["members"]["bob"] == before["members"]["bob"]
    assert after["members"]["erin"] == before["members"]["erin"]
    assert after["roles"]["Analyst"] == before["roles"]["Analyst"]
    assert "Legacy Viewer" in after["roles"]
    assert after["collaborations"] == before["collaborations"]
