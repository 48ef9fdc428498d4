"""Custom roles: createRole (spec §4.2), setPrivileges (§4.3), role update and delete."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reconciler.catalog import LEVEL_ONE_PRIVILEGES
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
    "form",
    [
        {"name": "n" * 129, "description": "d"},
        {"name": "Long description", "description": "d" * 251},
        {"description": "no name"},
        {"name": ""},
    ],
    ids=["name-129", "description-251", "name-missing", "name-empty"],
)
def test_create_role_refuses_bad_input(world_ro: Api, form: dict[str, str]) -> None:
    error_of(world_ro.post("hq", f"portals/{HQ}/createRole", **form), 400)


def test_create_role_refused_to_a_non_default_administrator(world_ro: Api) -> None:
    token = world_ro.token("hq", "admin2")
    error_of(world_ro.post("hq", f"portals/{HQ}/createRole", auth=token, name="X"), 403)


def test_create_role_refused_to_a_member(world_ro: Api) -> None:
    token = world_ro.token("hq", "alice")
    error_of(world_ro.post("hq", f"portals/{HQ}/createRole", auth=token, name="X"), 403)


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
    ("portal", "pid", "role", "value"),
    [
        ("hq", HQ, ANALYST, privileges_json("portal:user:noSuchThing")),
        ("hq", HQ, ANALYST, privileges_json("portal:user:joinNonOrgGroup")),
        ("hq", HQ, ANALYST, privileges_json("marketplace:admin:manage")),
        ("cloud", CLOUD, "r0000000000101", privileges_json("portal:admin:manageServers")),
        ("cloud", CLOUD, "r0000000000101", privileges_json("features:user:manageVersions")),
        ("v109", V109, MOVER, privileges_json("portal:user:reassignItems")),
        ("v109", V109, MOVER, privileges_json("portal:user:receiveItems")),
        ("hq", HQ, ANALYST, "{privileges: [}"),
        ("hq", HQ, ANALYST, "not json"),
        ("hq", HQ, ANALYST, json.dumps(["portal:user:viewOrgItems"])),
        ("hq", HQ, ANALYST, json.dumps({"privs": ["portal:user:viewOrgItems"]})),
        ("hq", HQ, ANALYST, json.dumps({"privileges": "portal:user:viewOrgItems"})),
        ("hq", HQ, ANALYST, json.dumps({"privileges": [1, 2]})),
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
    world_ro: Api, versions_ro: Api, portal: str, pid: str, role: str, value: str
) -> None:
    api = versions_ro if portal.startswith("v1") else world_ro
    error_of(set_privileges(api, portal, pid, role, value), 400)


def test_set_privileges_refusal_keeps_the_old_set(world_ro: Api) -> None:
    before = world_ro.get("hq", f"portals/{HQ}/roles/{ANALYST}/privileges")["privileges"]
    value = privileges_json("portal:user:viewOrgItems", "portal:user:noSuchThing")
    error_of(set_privileges(world_ro, "hq", HQ, ANALYST, value), 400)
    after = world_ro.get("hq", f"portals/{HQ}/roles/{ANALYST}/privileges")["privileges"]
    assert sorted(after) == sorted(before)


def test_set_privileges_without_the_field_is_refused(world_ro: Api) -> None:
    error_of(world_ro.post("hq", f"portals/{HQ}/roles/{ANALYST}/setPrivileges"), 400)


def test_set_privileges_refused_to_a_non_default_administrator(world_ro: Api) -> None:
    token = world_ro.token("hq", "admin2")
    body = set_privileges(world_ro, "hq", HQ, ANALYST, privileges_json(), auth=token)
    error_of(body, 403)


def test_set_privileges_of_an_unknown_role(world_ro: Api) -> None:
    error_of(set_privileges(world_ro, "hq", HQ, "rnosuchrole", privileges_json()), 404)


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
    "form",
    [{"name": "n" * 129}, {"description": "d" * 251}],
    ids=["name-129", "description-251"],
)
def test_update_role_refuses_over_long_text(world_ro: Api, form: dict[str, str]) -> None:
    error_of(world_ro.post("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/update", **form), 400)


def test_update_role_refused_to_a_non_default_administrator(world_ro: Api) -> None:
    token = world_ro.token("hq", "admin2")
    path = f"portals/{HQ}/roles/{LEGACY_VIEWER}/update"
    error_of(world_ro.post("hq", path, auth=token, name="x"), 403)


def test_update_unknown_role(world_ro: Api) -> None:
    error_of(world_ro.post("hq", f"portals/{HQ}/roles/rnosuchrole/update", name="x"), 404)


def test_delete_role_removes_it(world: Api) -> None:
    succeeded(world.post("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/delete"))
    assert LEGACY_VIEWER not in role_listing(world, "hq", HQ)
    error_of(world.get("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/privileges"), 404)


def test_delete_role_refused_to_a_non_default_administrator(world_ro: Api) -> None:
    token = world_ro.token("hq", "admin2")
    error_of(world_ro.post("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/delete", auth=token), 403)


def test_delete_unknown_role(world_ro: Api) -> None:
    error_of(world_ro.post("hq", f"portals/{HQ}/roles/rnosuchrole/delete"), 404)


def test_delete_role_assigned_to_members_is_refused(world_ro: Api) -> None:
    error_of(world_ro.post("hq", f"portals/{HQ}/roles/{ANALYST}/delete"), 400)
    assert ANALYST in role_listing(world_ro, "hq", HQ)
