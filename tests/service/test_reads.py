"""The reads of docs/rules.md §A and their paging (`start`, `num` <= 100, `total`, `nextStart`)."""

from __future__ import annotations

from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.service.harness import STATES, Api, error_of
from tests.service.world import ANALYST, CLOUD, FIELD, HQ, LEGACY_VIEWER, WS1


def test_portal_self_of_a_self_hosted_host(world_ro: Api) -> None:
    body = world_ro.get("hq", "portals/self")
    assert (body["id"], body["name"], body["isPortal"]) == (HQ, "Headquarters", True)
    assert body["fullVersion"] == "10.6.1"
    assert "currentVersion" in body
    assert body["user"]["username"] == "admin"
    # No real portal sends these: the quotas are the licenses resource's (test_licenses).
    assert not {"deployment", "levelQuotas", "levelDisallowedApps"} & set(body)


def test_portal_self_of_hosted_cloud(world_ro: Api) -> None:
    body = world_ro.get("cloud", "portals/self", auth=world_ro.token("cloud", "gina"))
    assert (body["id"], body["isPortal"], body["fullVersion"]) == (CLOUD, False, "2026-06")
    assert body["user"]["username"] == "gina"


def test_role_listing_with_privileges(world_ro: Api) -> None:
    roles = world_ro.listing("hq", f"portals/{HQ}/roles", "roles", returnPrivileges="true")
    by_id = {role["id"]: role for role in roles}
    # Every portal lists the pre-built Viewer and Data Editor beside its custom roles.
    assert set(by_id) == {ANALYST, LEGACY_VIEWER, "iAAAAAAAAAAAAAAA", "iBBBBBBBBBBBBBBB"}
    assert by_id["iAAAAAAAAAAAAAAA"]["name"] == "Viewer"
    # Not on the wire: clients know the pre-built roles by their ids.
    assert not any("editable" in role for role in roles)
    assert by_id[ANALYST]["name"] == "Analyst"
    assert "portal:user:createItem" in by_id[ANALYST]["privileges"]


def test_role_privileges_read(world_ro: Api) -> None:
    body = world_ro.get("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/privileges")
    assert body["privileges"] == ["portal:user:viewOrgItems"]


def test_member_listing(world_ro: Api) -> None:
    users = {u["username"]: u for u in world_ro.listing("hq", f"portals/{HQ}/users", "users")}
    assert users["admin"] == {**users["admin"], "role": "org_admin", "level": "2"}
    assert users["erin"] == {**users["erin"], "role": "org_user", "roleId": ANALYST, "level": "1"}
    # as real organizations answer: only a custom role's member carries `roleId`
    assert users["carol"]["role"] == "org_publisher"
    assert "roleId" not in users["carol"] and "roleId" not in users["admin"]
    assert not any("defaultAdmin" in user for user in users.values())


def test_one_member(world_ro: Api) -> None:
    body = world_ro.get("hq", "community/users/grace")
    assert body["roleId"] == ANALYST and body["role"] == "org_user"
    assert str(body["level"]) == "2"
    assert [group["owner"] for group in body["groups"]] == ["grace"]
    assert "appLicenses" not in world_ro.get("hq", "community/users/dave")


def test_member_items_total(world_ro: Api) -> None:
    assert world_ro.get("hq", "content/users/carol", num=1)["total"] == 3
    assert world_ro.get("hq", "content/users/alice", num=1)["total"] == 0


def test_workspaces_as_the_guest_see_only_their_own_group_link(world_ro: Api) -> None:
    path = f"portals/{FIELD}/collaborations/c1/workspaces"
    (ws,) = world_ro.listing("field", path, "workspaces")
    assert ws["config"] == {
        "maxItemSizeInMB": 1024,
        "maxReplicationPackageSizeInMB": 4096,
        "copyByRefIfCopyFail": False,
    }
    (link,) = ws["participantGroupLinks"]
    assert (link["portalId"], link["portalGroupId"]) == (FIELD, "g1")


def test_collaboration_listing_names_the_host(world_ro: Api) -> None:
    for portal, pid in (("hq", HQ), ("field", FIELD)):
        listing = world_ro.listing(portal, f"portals/{pid}/collaborations", "collaborations")
        assert [(c["id"], c["collaborationHostPortalId"]) for c in listing] == [("c1", HQ)]


def test_schedule_read(world_ro: Api) -> None:
    body = world_ro.get("field", WS1.format(portal=FIELD) + "/schedule")
    assert (body["interval"], body["repeatCount"]) == (24, -1)
    assert body["startTime"] == 1_767_225_600_000  # 2026-01-01T00:00:00Z
    assert {"timesTriggered", "state"} <= set(body)


def test_schedule_read_on_the_host_has_no_job(world_ro: Api) -> None:
    error_of(world_ro.get("hq", WS1.format(portal=HQ) + "/schedule"), 404, message_code="GWM_0006")


def test_invitation_listing(world_ro: Api) -> None:
    body = world_ro.get("hq", f"portals/{HQ}/collaborations/c1/invitations")
    statuses = {i["id"]: i["status"] for i in body["collaborationInvitations"]}
    assert statuses == {"inv1": "host_created", "inv2": "host_created"}


def test_webhook_reads(world_ro: Api) -> None:
    hooks = world_ro.get("field", f"portals/{FIELD}/webhooks")["webhooks"]
    assert {(h["id"], h["name"]) for h in hooks} >= {("w1", "audit-hook")}
    service = world_ro.admin_get("field", "services/webhooks")["webhooks"]
    assert {(h["id"], h["active"]) for h in service} == {("sw1", True), ("sw2", True)}
    settings = world_ro.admin_get("field", "services/webhooks/settings")
    assert settings["numberOfFailures"] == 5 and settings["daysInPast"] == 5


def test_task_and_run_reads(world_ro: Api) -> None:
    tasks = world_ro.listing("field", "community/users/frank/tasks", "tasks")
    assert {t["id"] for t in tasks} == {"t1", "t2"}
    runs = world_ro.get("field", "community/users/frank/tasks/t1/runs")["runs"]
    assert {(r["runId"], r["status"]) for r in runs} == {
        ("run1", "succeeded"),
        ("run2", "succeeded"),
        ("run3", "failed"),
    }
    assert all(isinstance(r["created"], int) for r in runs)


@pytest.mark.parametrize(
    "path",
    [
        f"portals/{HQ}/roles/rnosuchrole/privileges",
        f"portals/{HQ}/collaborations/cnone/workspaces",
        "community/users/frank/tasks/tnone/runs",
        "content/items/inone/resources",
        "no/such/endpoint",
    ],
)
def test_reads_of_unknown_ids(world_ro: Api, path: str) -> None:
    portal = "field" if "frank" in path or "items" in path else "hq"
    error_of(world_ro.get(portal, path), 404, message_code="GWM_0006")


# --- paging --------------------------------------------------------------------------------

PAGED = [
    ("hq", f"portals/{HQ}/roles", "roles", "id"),
    ("hq", f"portals/{HQ}/users", "users", "username"),
    ("hq", f"portals/{HQ}/collaborations", "collaborations", "id"),
    ("hq", f"portals/{HQ}/collaborations/c1/workspaces", "workspaces", "id"),
    ("field", "community/users/frank/tasks", "tasks", "id"),
]


@pytest.mark.parametrize(("portal", "path", "key", "ident"), PAGED, ids=[p[2] for p in PAGED])
def test_paging_one_at_a_time_walks_the_whole_listing(
    world_ro: Api, portal: str, path: str, key: str, ident: str
) -> None:
    whole = world_ro.get(portal, path, start=1, num=100)
    assert whole["nextStart"] == -1 and whole["total"] == len(whole[key])
    seen = []
    start = 1
    while start != -1:
        page = world_ro.get(portal, path, start=start, num=1)
        assert (page["start"], page["num"], page["total"]) == (start, 1, whole["total"])
        assert len(page[key]) == 1
        seen.append(page[key][0][ident])
        start = page["nextStart"]
        assert start == -1 or start == page["start"] + 1
    assert seen == [entry[ident] for entry in whole[key]]


def many_roles_state(count: int) -> dict[str, Any]:
    state = YAML().load((STATES / "world.yaml").read_text())
    hq = state["portals"][0]
    hq["roles"] = [
        {"id": f"r{n:013d}", "name": f"Role {n}", "description": "", "privileges": []}
        for n in range(1, count + 1)
    ]
    for user in hq["users"]:
        if user["role"] == "Analyst":
            user["role"] = "r0000000000001"
    return dict(state)


def test_paging_caps_num_at_100_and_defaults_to_10(serve: Any) -> None:
    api = serve(many_roles_state(120))
    first = api.get("hq", f"portals/{HQ}/roles", num=500)
    # 120 custom roles and the two pre-built ones
    assert (len(first["roles"]), first["total"], first["nextStart"]) == (100, 122, 101)
    last = api.get("hq", f"portals/{HQ}/roles", start=101, num=100)
    assert (len(last["roles"]), last["nextStart"]) == (22, -1)
    default = api.get("hq", f"portals/{HQ}/roles")
    assert (len(default["roles"]), default["start"], default["nextStart"]) == (10, 1, 11)
    beyond = api.get("hq", f"portals/{HQ}/roles", start=500)
    assert (beyond["roles"], beyond["nextStart"]) == ([], -1)


@pytest.mark.parametrize(
    "params",
    [{"start": "x"}, {"num": "many"}, {"start": "1.5"}],
    ids=["start-word", "num-word", "start-float"],
)
def test_paging_refuses_bad_values(world_ro: Api, params: dict[str, Any]) -> None:
    error_of(world_ro.get("hq", f"portals/{HQ}/roles", **params), 400, message_code="GWM_0001")
