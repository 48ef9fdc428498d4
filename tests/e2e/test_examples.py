"""Each example manifest set, planned and applied against the demo world: the plan shows
changes, apply converges, the next plan is empty and the API shows the intended state."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from .harness import EXAMPLES, PortalApi, World, output_of, plan_json

pytestmark = pytest.mark.e2e


def converge(world: World, example: str) -> None:
    """plan shows changes (2), apply converges (0), the next plan is empty (0)."""
    directory = EXAMPLES / example
    before = world.orgctl("plan", directory, "--detailed-exitcode", portal=example)
    assert before.returncode == 2, output_of(before)
    planned = plan_json(world.orgctl("plan", directory, "--format", "json", portal=example))
    assert planned["changes"] and planned["calls"] and not planned["errors"], planned
    for change in planned["changes"]:
        assert change["address"] in before.stdout, output_of(before)

    applied = world.orgctl("apply", directory, "--auto-approve", portal=example)
    assert applied.returncode == 0, output_of(applied)
    # No terminal: no progress bar, no cursor or colour codes.
    assert "\x1b[" not in applied.stdout + applied.stderr, output_of(applied)

    after = world.orgctl("plan", directory, "--detailed-exitcode", portal=example)
    assert after.returncode == 0, output_of(after)
    drift = world.orgctl("drift", directory, portal=example)
    assert drift.returncode == 0, output_of(drift)


def test_hq_example_converges(demo: World) -> None:
    converge(demo, "hq")
    api = demo.api("hq")
    roles = api.roles()
    assert "Legacy Viewer" not in roles
    field_analyst = roles["Field Analyst"]
    assert field_analyst["description"] == (
        "Views organization content and members, and geocodes addresses"
    )
    assert set(field_analyst["privileges"]) == {
        "portal:user:joinGroup",
        "portal:user:viewOrgGroups",
        "portal:user:viewOrgItems",
        "portal:user:viewOrgUsers",
        "premium:user:geocode",
    }
    assert roles["Analyst"]["description"] == "Creates content and shares it with groups"
    assert "portal:user:shareToGroup" in roles["Analyst"]["privileges"]

    members = api.members()
    assert (members["alice"]["roleId"], members["alice"]["level"]) == (field_analyst["id"], "1")
    assert members["bob"]["role"] == "org_publisher"
    assert (members["erin"]["roleId"], members["erin"]["level"]) == (roles["Analyst"]["id"], "2")

    collaboration = api.collaboration_state()["c1"]
    (workspace,) = [w for w in collaboration["workspaces"] if w["id"] == "ws1"]
    assert workspace["name"] == "Field data"
    assert workspace["description"] == "Layers edited by the field office"
    assert workspace["config"]["maxItemSizeInMB"] == 2048
    assert workspace["config"]["maxReplicationPackageSizeInMB"] == 4096
    assert workspace["config"]["copyByRefIfCopyFail"] in (True, "true")
    statuses = {i["id"]: i["status"] for i in collaboration["invitations"]}
    assert statuses == {"inv1": "host_created", "inv2": "invalidated"}


def _runs(api: PortalApi, user: str) -> dict[str, list[dict[str, object]]]:
    """Each task id of `user` with its runs."""
    tasks = api.get(f"community/users/{user}/tasks", num=100)["tasks"]
    return {
        task["id"]: api.get(f"community/users/{user}/tasks/{task['id']}/runs", num=100)["runs"]
        for task in tasks
    }


def test_field_example_converges(demo: World) -> None:
    api = demo.api("field")
    tasks = {t["id"]: t for t in api.get("community/users/frank/tasks", num=100)["tasks"]}
    runs_before = _runs(api, "frank")
    # keepLast 10: of t1's 12 runs, at least the two oldest go, with their resource files.
    oldest = sorted(runs_before["t1"], key=lambda r: int(str(r["created"])))[:2]

    converge(demo, "field")

    assert api.members()["frank"]["role"] == "org_publisher"
    hooks = api.get(f"portals/{api.portal_id}/webhooks")["webhooks"]
    assert sorted(h["name"] for h in hooks) == ["audit-hook", "scratch-hook"]
    settings = api.admin_get("services/webhooks/settings")
    assert {k: settings[k] for k in settings if k != "status"} == {
        "notificationAttempts": 4,
        "notificationTimeOutInSeconds": 10,
        "notificationElapsedTimeInSeconds": 5,
        "numberOfFailures": 10,
        "daysInPast": 7,
    }

    workspace_path = f"portals/{api.portal_id}/collaborations/c1/workspaces/ws1"
    schedule = api.get(f"{workspace_path}/schedule")
    start = int(datetime(2026, 12, 1, 2, tzinfo=UTC).timestamp() * 1000)
    assert (schedule["startTime"], schedule["interval"], schedule["repeatCount"]) == (
        start,
        12,
        -1,
    )
    workspaces = api.listing(f"portals/{api.portal_id}/collaborations/c1/workspaces", "workspaces")
    (workspace,) = [w for w in workspaces if w["id"] == "ws1"]
    (link,) = [g for g in workspace["participantGroupLinks"] if g["portalId"] == api.portal_id]
    assert link["portalGroupId"] == "g1"
    assert {k: link["config"][k] in (True, "true") for k in link["config"]} == {
        "enableRealtimeSync": False,
        "copyFeatureServiceData": True,
        "enableFeatureServiceBidirectionalSync": True,
    }

    runs_after = _runs(api, "frank")
    assert len(runs_after["t1"]) <= 10, runs_after
    remaining = {r["runId"] for r in runs_after["t1"]}
    resources = api.get(f"content/items/{tasks['t1']['itemId']}/resources")["resources"]
    files = {r["resource"] for r in resources}
    for run in oldest:
        assert run["runId"] not in remaining
        assert f"{run['runId']}.log" not in files, files


def test_cloud_example_converges(demo: World) -> None:
    api = demo.api("cloud")
    editor_description = api.roles()["Editor"]["description"]

    converge(demo, "cloud")

    roles = api.roles()
    assert set(roles["Editor"]["privileges"]) == {
        "portal:user:createItem",
        "features:user:edit",
        "premium:user:places",
    }
    # The Editor document declares no description: it is not managed, so it is unchanged.
    assert roles["Editor"]["description"] == editor_description
    curator = roles["Open Data Curator"]
    assert curator["description"] == "Designates and publishes open data groups"
    assert set(curator["privileges"]) == {
        "opendata:user:designateGroup",
        "portal:user:createGroup",
        "portal:user:shareGroupToPublic",
    }
    assert api.members()["gina"]["roleId"] == curator["id"]
