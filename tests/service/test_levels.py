"""Member levels (docs/rules.md §4.1, §3 rows 1-2) and role assignment (updateuserrole)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service.harness import Api, error_of, succeeded
from tests.service.world import ANALYST, CLOUD, EDITOR, FULL, HQ, LEGACY_VIEWER, V107


def members(api: Api, portal: str, pid: str) -> dict[str, Any]:
    users = api.listing(portal, f"portals/{pid}/users", "users")
    return {user["username"]: user for user in users}


def set_level(api: Api, portal: str, pid: str, user: str, level: Any, **kw: Any) -> Any:
    return api.post(portal, f"portals/{pid}/updateUserLevel", user=user, level=level, **kw)


def test_level_one_for_a_custom_role_member(world: Api) -> None:
    succeeded(set_level(world, "hq", HQ, "hank", 1))
    assert members(world, "hq", HQ)["hank"]["level"] == "1"
    hank = world.get("hq", "community/users/hank")
    assert str(hank["level"]) == "1"
    assert "portal:user:createItem" not in hank["privileges"]


def test_level_two_restores_the_role_privileges(world: Api) -> None:
    succeeded(set_level(world, "hq", HQ, "erin", 2))
    assert members(world, "hq", HQ)["erin"]["level"] == "2"
    assert "portal:user:createItem" in world.get("hq", "community/users/erin")["privileges"]


def test_level_accepts_the_sample_field_name_user_name(world: Api) -> None:
    succeeded(world.post("hq", f"portals/{HQ}/updateUserLevel", userName="hank", level=1))
    assert members(world, "hq", HQ)["hank"]["level"] == "1"


def test_level_change_by_a_non_default_administrator(world: Api) -> None:
    token = world.token("hq", "admin2")
    succeeded(set_level(world, "hq", HQ, "hank", 1, auth=token))


@pytest.mark.parametrize(
    ("user", "level", "code", "message_code"),
    [
        ("alice", 1, 400, "ORG_1085"),  # built-in role: level 1 needs a custom role
        ("carol", 1, 400, "ORG_1085"),  # built-in role, owns items: the role is checked first
        ("hank", 3, 400, "GWM_0001"),
        ("hank", 0, 400, "GWM_0001"),
        ("hank", "two", 400, "GWM_0001"),
        ("nobody", 2, 404, "GWM_0006"),
    ],
    ids=["builtin-role", "builtin-publisher", "level-3", "level-0", "level-word", "unknown-user"],
)
def test_level_change_refused(
    world_ro: Api, user: str, level: Any, code: int, message_code: str
) -> None:
    error_of(set_level(world_ro, "hq", HQ, user, level), code, message_code=message_code)
    if user != "nobody":
        assert members(world_ro, "hq", HQ)[user]["level"] == "2"


def test_level_change_without_user_is_refused(world_ro: Api) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/updateUserLevel", level=2)
    error_of(body, 400, message_code="GWM_0001")


def test_level_one_refused_for_owned_items(world_ro: Api) -> None:
    error_of(set_level(world_ro, "hq", HQ, "oscar", 1), 400, message_code="ORG_1084")
    assert members(world_ro, "hq", HQ)["oscar"]["level"] == "2"


def test_level_one_refused_for_owned_groups(world_ro: Api) -> None:
    error_of(set_level(world_ro, "hq", HQ, "grace", 1), 400, message_code="ORG_1084")


def test_level_one_refused_for_a_disallowed_premium_app(world_ro: Api) -> None:
    error_of(set_level(world_ro, "hq", HQ, "dave", 1), 400, message_code="ORG_1087")
    assert members(world_ro, "hq", HQ)["dave"]["level"] == "2"


def test_level_two_refused_for_a_disallowed_premium_app(world_ro: Api) -> None:
    error_of(set_level(world_ro, "hq", HQ, "kim", 2), 400, message_code="ORG_1087")
    assert members(world_ro, "hq", HQ)["kim"]["level"] == "1"


def test_level_one_refused_when_its_quota_is_full(world_ro: Api) -> None:
    error_of(set_level(world_ro, "full", FULL, "ann", 1), 400, message_code="ORG_1086")
    assert members(world_ro, "full", FULL)["ann"]["level"] == "2"


def test_level_two_refused_when_its_quota_is_full(world_ro: Api) -> None:
    error_of(set_level(world_ro, "full", FULL, "bea", 2), 400, message_code="ORG_1086")
    assert members(world_ro, "full", FULL)["bea"]["level"] == "1"


def test_level_change_refused_to_a_member(world_ro: Api) -> None:
    token = world_ro.token("hq", "alice")
    error_of(set_level(world_ro, "hq", HQ, "hank", 1, auth=token), 403, message_code="GWM_0003")


def test_level_change_refused_on_10_7(versions_ro: Api) -> None:
    error_of(set_level(versions_ro, "v107", V107, "ann", 2), 400, message_code="GWM_0002")


def test_level_change_refused_on_hosted_cloud(world_ro: Api) -> None:
    error_of(set_level(world_ro, "cloud", CLOUD, "gina", 2), 400, message_code="GWM_0002")


# --- updateuserrole (extension write) -----------------------------------------------------


def set_role(api: Api, portal: str, pid: str, user: str, role: str, **kw: Any) -> Any:
    return api.post(portal, f"portals/{pid}/updateuserrole", user=user, role=role, **kw)


def test_assign_a_custom_role(world: Api) -> None:
    succeeded(set_role(world, "hq", HQ, "alice", LEGACY_VIEWER))
    alice = members(world, "hq", HQ)["alice"]
    assert (alice["role"], alice["roleId"]) == ("org_user", LEGACY_VIEWER)


def test_assign_a_builtin_role(world: Api) -> None:
    succeeded(set_role(world, "hq", HQ, "dave", "org_publisher"))
    dave = members(world, "hq", HQ)["dave"]
    assert (dave["role"], dave.get("roleId")) == ("org_publisher", None)


def test_assign_a_role_on_cloud(world: Api) -> None:
    succeeded(set_role(world, "cloud", CLOUD, "gina", "org_user"))
    gina = members(world, "cloud", CLOUD)["gina"]
    assert (gina["role"], gina.get("roleId")) == ("org_user", None)


@pytest.mark.parametrize(
    ("user", "role", "code", "message_code"),
    [
        ("alice", "rnosuchrole", 400, "GWM_0001"),
        ("nobody", ANALYST, 404, "GWM_0006"),
        ("alice", EDITOR, 400, "GWM_0001"),
    ],
    ids=["unknown-role", "unknown-user", "role-of-another-portal"],
)
def test_assign_role_refused(
    world_ro: Api, user: str, role: str, code: int, message_code: str
) -> None:
    error_of(set_role(world_ro, "hq", HQ, user, role), code, message_code=message_code)


def test_assign_role_refused_to_a_member(world_ro: Api) -> None:
    token = world_ro.token("hq", "alice")
    error_of(
        set_role(world_ro, "hq", HQ, "dave", LEGACY_VIEWER, auth=token),
        403,
        message_code="GWM_0003",
    )


def test_builtin_role_refused_to_a_level_one_member(world_ro: Api) -> None:
    # docs/rules.md §2: level 1 exists only for members with a custom role.
    error_of(set_role(world_ro, "hq", HQ, "erin", "org_user"), 400, message_code="ORG_1090")
    assert members(world_ro, "hq", HQ)["erin"]["roleId"] == ANALYST


def test_custom_role_accepted_for_a_level_one_member(world: Api) -> None:
    succeeded(set_role(world, "hq", HQ, "erin", LEGACY_VIEWER))
    erin = members(world, "hq", HQ)["erin"]
    assert (erin["roleId"], erin["level"]) == (LEGACY_VIEWER, "1")


# --- the default administrators (docs/rules.md §5) ------------------------------------------


def test_an_administrator_demotes_another_of_several_and_the_last_one_stays(world: Api) -> None:
    """Whichever member holds org_admin last is the one the portal cannot lose."""
    admin2 = world.token("hq", "admin2")
    succeeded(set_role(world, "hq", HQ, "admin", "org_user", auth=admin2))
    assert world.get("hq", "community/users/admin", auth=admin2)["role"] == "org_user"
    refused = error_of(set_role(world, "hq", HQ, "admin2", "org_user", auth=admin2), 400)
    assert refused["messageCode"] == "ORG_1090"
    assert "last default administrator" in refused["message"]
    assert world.get("hq", "community/users/admin2", auth=admin2)["role"] == "org_admin"


def test_demoting_an_administrator_needs_the_administrator_role(world: Api) -> None:
    succeeded(set_role(world, "hq", HQ, "alice", LEGACY_VIEWER))
    succeeded(set_privileges_of(world, LEGACY_VIEWER, "portal:admin:changeUserRoles"))
    token = world.token("hq", "alice")
    error_of(set_role(world, "hq", HQ, "admin2", "org_user", auth=token), 403)
    assert members(world, "hq", HQ)["admin2"]["role"] == "org_admin"


def set_privileges_of(api: Api, role: str, *privileges: str) -> Any:
    value = json.dumps({"privileges": list(privileges)})
    return api.post("hq", f"portals/{HQ}/roles/{role}/setPrivileges", privileges=value)
