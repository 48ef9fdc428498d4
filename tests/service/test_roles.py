"""Custom roles: createRole (docs/rules.md §4.2), setPrivileges (§4.3), role update and delete."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reconciler.catalog import LEVEL_ONE_PRIVILEGES, privileges_for
from reconciler.versions import Platform
from tests.service.harness import Api, error_of, succeeded
from tests.service.world import ANALYST, CLOUD, FIELD, HQ, LEGACY_VIEWER, MOVER, V109


def privileges_json(*names: str) -> str:
    return json.dumps({"privileges": list(names)})


def role_listing(api: Api, portal: str, pid: str) -> dict[str, Any]:
    roles = api.listing(portal, f"portals/{pid}/roles", "roles", returnPrivileges="true")
    return {role["id"]: role for role in roles}


# --- createRole ---------------------------------------------------------------------------


def test_create_role_returns_an_id_listed_without_privileges(world: Api) -> None:
    body = succeeded(world.post("hq", f"portals/{HQ}/createRole", name="Auditor", description="d"))
    role = role_listing(world, "hq", HQ)[body["id"]]
    assert (role["name"], role["description"]) == ("Auditor", "d")
    assert role.get("privileges", []) == []


def test_create_role_at_the_length_limits(world: Api) -> None:
    body = world.post("hq", f"portals/{HQ}/createRole", name="n" * 128, description="d" * 250)
    role = role_listing(world, "hq", HQ)[succeeded(body)["id"]]
    assert (len(role["name"]), len(role["description"])) == (128, 250)


@pytest.mark.parametrize(
    ("form", "message_code"),
    [
        ({"name": "n" * 129, "description": "d"}, "ROLE_1001"),
        ({"name": "Long description", "description": "d" * 251}, "ROLE_1002"),
        # A missing or blank name is refused as a missing required field.
        ({"description": "no name"}, "GWM_0001"),
        ({"name": ""}, "GWM_0001"),
    ],
    ids=["name-129", "description-251", "name-missing", "name-empty"],
)
def test_create_role_refuses_bad_input(
    world_ro: Api, form: dict[str, str], message_code: str
) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/createRole", **form)
    error_of(body, 400, message_code=message_code)


def test_create_role_refused_to_a_member(world_ro: Api) -> None:
    token = world_ro.token("hq", "alice")
    body = world_ro.post("hq", f"portals/{HQ}/createRole", auth=token, name="X")
    error_of(body, 403, message_code="GWM_0003")


# --- setPrivileges ------------------------------------------------------------------------


def set_privileges(api: Api, portal: str, pid: str, role: str, value: str, **kw: Any) -> Any:
    path = f"portals/{pid}/roles/{role}/setPrivileges"
    return api.post(portal, path, privileges=value, **kw)


def test_set_privileges_replaces_the_set(world: Api) -> None:
    wanted = ["portal:user:viewOrgItems", "portal:admin:manageServers"]
    succeeded(set_privileges(world, "hq", HQ, LEGACY_VIEWER, privileges_json(*wanted)))
    read = world.get("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/privileges")
    assert sorted(read["privileges"]) == sorted(wanted)
    assert sorted(role_listing(world, "hq", HQ)[LEGACY_VIEWER]["privileges"]) == sorted(wanted)


def test_set_privileges_on_cloud_accepts_cloud_only_privileges(world: Api) -> None:
    wanted = privileges_json("portal:user:joinNonOrgGroup", "premium:user:demographics")
    succeeded(set_privileges(world, "cloud", CLOUD, "r0000000000101", wanted))


def test_set_privileges_accepts_11_0_privileges_on_11_3(world: Api) -> None:
    wanted = privileges_json("portal:user:reassignItems", "portal:user:receiveItems")
    succeeded(set_privileges(world, "field", FIELD, "r0000000000201", wanted))


@pytest.mark.parametrize(
    ("portal", "pid", "role", "value", "message_code"),
    [
        ("hq", HQ, ANALYST, privileges_json("portal:user:noSuchThing"), "ROLE_1003"),
        ("hq", HQ, ANALYST, privileges_json("portal:user:joinNonOrgGroup"), "ROLE_1003"),
        ("hq", HQ, ANALYST, privileges_json("marketplace:admin:manage"), "ROLE_1003"),
        (
            "cloud",
            CLOUD,
            "r0000000000101",
            privileges_json("portal:admin:manageServers"),
            "ROLE_1003",
        ),
        (
            "cloud",
            CLOUD,
            "r0000000000101",
            privileges_json("features:user:manageVersions"),
            "ROLE_1003",
        ),
        ("v109", V109, MOVER, privileges_json("portal:user:reassignItems"), "ROLE_1003"),
        ("v109", V109, MOVER, privileges_json("portal:user:receiveItems"), "ROLE_1003"),
        # Text that is not JSON at all is refused as a malformed field, before its shape.
        ("hq", HQ, ANALYST, "{privileges: [}", "GWM_0001"),
        ("hq", HQ, ANALYST, "not json", "GWM_0001"),
        ("hq", HQ, ANALYST, json.dumps(["portal:user:viewOrgItems"]), "ROLE_1003"),
        ("hq", HQ, ANALYST, json.dumps({"privs": ["portal:user:viewOrgItems"]}), "ROLE_1003"),
        (
            "hq",
            HQ,
            ANALYST,
            json.dumps({"privileges": "portal:user:viewOrgItems"}),
            "ROLE_1003",
        ),
        ("hq", HQ, ANALYST, json.dumps({"privileges": [1, 2]}), "ROLE_1003"),
    ],
    ids=[
        "unknown",
        "cloud-only-on-self-hosted",
        "cloud-only-marketplace-on-self-hosted",
        "self-hosted-only-on-cloud",
        "manage-versions-on-cloud",
        "reassign-items-on-10.9",
        "receive-items-on-10.9",
        "malformed-json",
        "not-json",
        "json-array",
        "wrong-key",
        "string-not-array",
        "numbers",
    ],
)
def test_set_privileges_refuses(
    world_ro: Api,
    versions_ro: Api,
    portal: str,
    pid: str,
    role: str,
    value: str,
    message_code: str,
) -> None:
    api = versions_ro if portal.startswith("v1") else world_ro
    error_of(set_privileges(api, portal, pid, role, value), 400, message_code=message_code)


def test_set_privileges_refusal_keeps_the_old_set(world_ro: Api) -> None:
    before = world_ro.get("hq", f"portals/{HQ}/roles/{ANALYST}/privileges")["privileges"]
    value = privileges_json("portal:user:viewOrgItems", "portal:user:noSuchThing")
    error_of(set_privileges(world_ro, "hq", HQ, ANALYST, value), 400, message_code="ROLE_1003")
    after = world_ro.get("hq", f"portals/{HQ}/roles/{ANALYST}/privileges")["privileges"]
    assert sorted(after) == sorted(before)


def test_set_privileges_without_the_field_is_refused(world_ro: Api) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/roles/{ANALYST}/setPrivileges")
    error_of(body, 400, message_code="GWM_0001")


def test_set_privileges_of_an_unknown_role(world_ro: Api) -> None:
    body = set_privileges(world_ro, "hq", HQ, "rnosuchrole", privileges_json())
    error_of(body, 404, message_code="GWM_0006")


def test_level_one_member_keeps_only_the_nine_privileges(world: Api) -> None:
    erin = world.get("hq", "community/users/erin")
    assert set(erin["privileges"]) <= LEVEL_ONE_PRIVILEGES
    assert set(erin["privileges"]) == {
        "portal:user:joinGroup",
        "portal:user:viewOrgItems",
        "portal:user:viewOrgUsers",
    }
    dave = world.get("hq", "community/users/dave")
    assert "portal:user:createItem" in dave["privileges"]
    # A privilege added to the role later is reduced the same way.
    value = privileges_json("portal:user:viewOrgGroups", "portal:user:createGroup")
    succeeded(set_privileges(world, "hq", HQ, ANALYST, value))
    assert set(world.get("hq", "community/users/erin")["privileges"]) == {
        "portal:user:viewOrgGroups"
    }
    assert "portal:user:createGroup" in world.get("hq", "community/users/dave")["privileges"]


# --- role update and delete (extension writes) -----------------------------------------------


def test_update_role_changes_name_and_description(world: Api) -> None:
    path = f"portals/{HQ}/roles/{LEGACY_VIEWER}/update"
    succeeded(world.post("hq", path, name="Viewer 2", description="new"))
    role = role_listing(world, "hq", HQ)[LEGACY_VIEWER]
    assert (role["name"], role["description"]) == ("Viewer 2", "new")


@pytest.mark.parametrize(
    ("form", "message_code"),
    [({"name": "n" * 129}, "ROLE_1001"), ({"description": "d" * 251}, "ROLE_1002")],
    ids=["name-129", "description-251"],
)
def test_update_role_refuses_over_long_text(
    world_ro: Api, form: dict[str, str], message_code: str
) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/update", **form)
    error_of(body, 400, message_code=message_code)


def test_update_unknown_role(world_ro: Api) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/roles/rnosuchrole/update", name="x")
    error_of(body, 404, message_code="GWM_0006")


def test_delete_role_removes_it(world: Api) -> None:
    succeeded(world.post("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/delete"))
    assert LEGACY_VIEWER not in role_listing(world, "hq", HQ)
    body = world.get("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/privileges")
    error_of(body, 404, message_code="GWM_0006")


def test_delete_unknown_role(world_ro: Api) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/roles/rnosuchrole/delete")
    error_of(body, 404, message_code="GWM_0006")


def test_delete_role_assigned_to_members_is_refused(world_ro: Api) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/roles/{ANALYST}/delete")
    error_of(body, 400, message_code="ROLE_1004")
    assert ANALYST in role_listing(world_ro, "hq", HQ)


# --- who is a default administrator (docs/rules.md §5) ---------------------------------------
# The vendor's createRole page: "only available to members assigned the default
# administrator role", the built-in Administrator role; every member holding it qualifies.

ADMINISTRATIVE = sorted(
    p
    for p in privileges_for(Platform.parse("self-hosted", "10.6.1"))
    if p.startswith("portal:admin:")
)


def test_a_second_administrator_creates_sets_renames_and_deletes_roles(world: Api) -> None:
    token = world.token("hq", "admin2")
    created = succeeded(world.post("hq", f"portals/{HQ}/createRole", auth=token, name="Audit"))
    role = created["id"]
    value = privileges_json("portal:user:viewOrgItems")
    succeeded(set_privileges(world, "hq", HQ, role, value, auth=token))
    path = f"portals/{HQ}/roles/{role}"
    succeeded(world.post("hq", f"{path}/update", auth=token, name="Audit 2"))
    assert role_listing(world, "hq", HQ)[role]["privileges"] == ["portal:user:viewOrgItems"]
    succeeded(world.post("hq", f"{path}/delete", auth=token))
    assert role not in role_listing(world, "hq", HQ)


def test_a_custom_role_holding_every_administrative_privilege_makes_no_default_administrator(
    world: Api,
) -> None:
    created = succeeded(world.post("hq", f"portals/{HQ}/createRole", name="All admin"))
    role = created["id"]
    succeeded(set_privileges(world, "hq", HQ, role, privileges_json(*ADMINISTRATIVE)))
    succeeded(world.post("hq", f"portals/{HQ}/updateuserrole", user="alice", role=role))
    assert set(ADMINISTRATIVE) <= set(world.get("hq", "community/users/alice")["privileges"])
    token = world.token("hq", "alice")
    path = f"portals/{HQ}/roles/{LEGACY_VIEWER}"
    refused = [
        world.post("hq", f"portals/{HQ}/createRole", auth=token, name="X"),
        set_privileges(world, "hq", HQ, LEGACY_VIEWER, privileges_json(), auth=token),
        world.post("hq", f"{path}/update", auth=token, name="x"),
        world.post("hq", f"{path}/delete", auth=token),
    ]
    for body in refused:
        assert "default administrator role" in error_of(body, 403)["details"][0]
    assert LEGACY_VIEWER in role_listing(world, "hq", HQ)
