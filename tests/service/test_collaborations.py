"""Distributed collaborations: docs/rules.md §4.4-§4.8, §4.10, importInvitationResponse
and the §3 rows (section numbers below are those of docs/rules.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service.harness import Api, error_of, succeeded
from tests.service.world import BRANCH, CLOUD21, FIELD, HOUR_MS, HQ, START_MS, V105, V108

C1 = "collaborations/c1"
WS = "collaborations/c1/workspaces/ws1"


def collaboration_ids(api: Api, portal: str, pid: str) -> set[str]:
    listing = api.listing(portal, f"portals/{pid}/collaborations", "collaborations")
    return {c["id"] for c in listing}


def workspace(api: Api, portal: str, pid: str, cid: str = "c1", wid: str = "ws1") -> Any:
    path = f"portals/{pid}/collaborations/{cid}/workspaces"
    return {w["id"]: w for w in api.listing(portal, path, "workspaces")}[wid]


def schedule(api: Api, **kw: Any) -> Any:
    return api.get("field", f"portals/{FIELD}/{WS}/schedule", **kw)


def update_schedule(api: Api, **form: Any) -> Any:
    return api.post("field", f"portals/{FIELD}/{WS}/schedule/update", **form)


# --- delete (§4.4) and the guest's next refresh (§3) -----------------------------------------


def test_delete_reaches_the_guest_at_its_next_scheduled_refresh(world: Api) -> None:
    succeeded(world.post("hq", f"portals/{HQ}/{C1}/delete"))
    assert "c1" not in collaboration_ids(world, "hq", HQ)
    assert "c1" in collaboration_ids(world, "field", FIELD)
    # ws1 refreshes daily at 00:00; the clock starts at 06:00, 18 hours before.
    world.advance(17)
    assert "c1" in collaboration_ids(world, "field", FIELD)
    world.advance(2)
    assert "c1" not in collaboration_ids(world, "field", FIELD)


def test_delete_refused_to_the_guest(world_ro: Api) -> None:
    error_of(world_ro.post("field", f"portals/{FIELD}/{C1}/delete"), 403, message_code="GWM_0003")
    assert "c1" in collaboration_ids(world_ro, "hq", HQ)


def test_delete_refused_to_a_host_member(world_ro: Api) -> None:
    token = world_ro.token("hq", "alice")
    body = world_ro.post("hq", f"portals/{HQ}/{C1}/delete", auth=token)
    error_of(body, 403, message_code="GWM_0003")


def test_delete_unknown_collaboration(world_ro: Api) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/collaborations/cnone/delete")
    error_of(body, 404, message_code="GWM_0006")


# --- removeParticipation (§4.10) ---------------------------------------------------------------


def participant_ids(api: Api) -> set[str]:
    body = api.get("hq", f"portals/{HQ}/{C1}/participants")
    return {p["portalInfo"]["id"] for p in body["participants"]}


def test_remove_participation_is_immediate_on_both_sides(world: Api) -> None:
    assert FIELD in participant_ids(world)
    succeeded(world.post("field", f"portals/{FIELD}/{C1}/removeParticipation"))
    assert "c1" not in collaboration_ids(world, "field", FIELD)
    assert FIELD not in participant_ids(world)
    assert "c1" in collaboration_ids(world, "hq", HQ)
    # Replication stops at once: the guest's sync job is gone with its participation.
    error_of(schedule(world), 404, message_code="GWM_0006")


def test_remove_participation_refused_to_the_host(world_ro: Api) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/{C1}/removeParticipation")
    error_of(body, 403, message_code="GWM_0003")


def test_remove_participation_refused_to_a_guest_member(world_ro: Api) -> None:
    token = world_ro.token("field", "frank")
    path = f"portals/{FIELD}/{C1}/removeParticipation"
    error_of(world_ro.post("field", path, auth=token), 403, message_code="GWM_0003")


def test_remove_participation_of_an_unknown_collaboration(world_ro: Api) -> None:
    path = f"portals/{FIELD}/collaborations/cnone/removeParticipation"
    error_of(world_ro.post("field", path), 404, message_code="GWM_0006")


# --- schedule update (§4.5) and the job's repeat count (§3) -----------------------------------


def test_schedule_update_sets_every_field(world: Api) -> None:
    start = START_MS + 48 * HOUR_MS
    succeeded(update_schedule(world, startTime=start, interval=6, repeatCount=4))
    read = schedule(world)
    assert (read["startTime"], read["interval"], read["repeatCount"]) == (start, 6, 4)


def test_schedule_update_defaults(world: Api) -> None:
    succeeded(update_schedule(world))
    read = schedule(world)
    assert (read["startTime"], read["interval"], read["repeatCount"]) == (START_MS, 24, -1)


def test_schedule_fires_at_start_then_repeat_count_times_then_is_deleted(world: Api) -> None:
    start = START_MS + HOUR_MS // 2  # 06:30, between whole-hour clock steps
    succeeded(update_schedule(world, startTime=start, interval=1, repeatCount=2))
    assert schedule(world)["timesTriggered"] == 0
    world.advance(1)  # 07:00: fired at 06:30
    assert schedule(world)["timesTriggered"] == 1
    world.advance(1)  # 08:00: first re-trigger at 07:30
    assert schedule(world)["timesTriggered"] == 2
    world.advance(1)  # 09:00: second and last re-trigger at 08:30
    error_of(schedule(world), 404, message_code="GWM_0006")


def test_schedule_forever_keeps_firing(world: Api) -> None:
    start = START_MS + HOUR_MS // 2
    succeeded(update_schedule(world, startTime=start, interval=1, repeatCount=-1))
    world.advance(5)
    assert schedule(world)["timesTriggered"] == 5


@pytest.mark.parametrize(
    ("form", "message_code"),
    [
        ({"interval": 0}, "COLL_1002"),
        ({"interval": -1}, "COLL_1002"),
        ({"interval": "daily"}, "GWM_0001"),  # not an integer: malformed, not out of range
        ({"interval": 1.5}, "GWM_0001"),
        ({"repeatCount": 0}, "COLL_1002"),
        ({"repeatCount": -2}, "COLL_1002"),
        ({"repeatCount": "x"}, "GWM_0001"),
        ({"startTime": "tomorrow"}, "GWM_0001"),
    ],
    ids=[
        "interval-0",
        "interval--1",
        "interval-word",
        "interval-float",
        "repeat-0",
        "repeat--2",
        "repeat-word",
        "start-word",
    ],
)
def test_schedule_update_refuses(world_ro: Api, form: dict[str, Any], message_code: str) -> None:
    before = schedule(world_ro)
    error_of(update_schedule(world_ro, **form), 400, message_code=message_code)
    after = schedule(world_ro)
    assert (after["interval"], after["repeatCount"]) == (before["interval"], before["repeatCount"])


def test_schedule_update_refused_to_the_host(world_ro: Api) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/{WS}/schedule/update", interval=6)
    error_of(body, 403, message_code="GWM_0003")


def test_schedule_update_refused_on_10_5(versions_ro: Api) -> None:
    path = f"portals/{V105}/collaborations/c6/workspaces/ws6/schedule/update"
    error_of(versions_ro.post("v105", path, interval=6), 400, message_code="GWM_0002")


def test_schedule_update_of_an_unknown_workspace(world_ro: Api) -> None:
    path = f"portals/{FIELD}/collaborations/c1/workspaces/wsnone/schedule/update"
    error_of(world_ro.post("field", path, interval=6), 404, message_code="GWM_0006")


# --- updateInfo (§4.6) ----------------------------------------------------------------------


def update_info(api: Api, portal: str = "hq", pid: str = HQ, **form: Any) -> Any:
    return api.post(portal, f"portals/{pid}/{WS}/updateInfo", **form)


def test_update_info_sets_every_field(world: Api) -> None:
    form = {
        "name": "n" * 100,
        "description": "d" * 250,
        "maxItemSizeInMB": 10,
        "maxReplicationPackageSizeInMB": 20,
        "copyByRefIfCopyFail": True,
    }
    succeeded(update_info(world, **form))
    read = workspace(world, "hq", HQ)
    assert (read["name"], read["description"]) == (form["name"], form["description"])
    config = read["config"]
    assert config["maxItemSizeInMB"] == 10
    assert config["maxReplicationPackageSizeInMB"] == 20
    assert config["copyByRefIfCopyFail"] is True


def test_update_info_keeps_omitted_fields(world: Api) -> None:
    succeeded(update_info(world, description="only this"))
    read = workspace(world, "hq", HQ)
    assert (read["name"], read["description"]) == ("Field data", "only this")
    assert read["config"]["maxItemSizeInMB"] == 1024


@pytest.mark.parametrize(
    ("form", "message_code"),
    [
        ({"name": "n" * 101}, "COLL_1001"),
        ({"description": "d" * 251}, "COLL_1001"),
        ({"copyByRefIfCopyFail": "maybe"}, "GWM_0001"),
        ({"maxItemSizeInMB": "big"}, "GWM_0001"),
        ({"maxReplicationPackageSizeInMB": "big"}, "GWM_0001"),
        ({"config": "{}"}, "GWM_0002"),
    ],
    ids=[
        "name-101",
        "description-251",
        "copy-by-ref-word",
        "item-size-word",
        "package-size-word",
        "config-removed-at-10.6",
    ],
)
def test_update_info_refuses(world_ro: Api, form: dict[str, Any], message_code: str) -> None:
    error_of(update_info(world_ro, **form), 400, message_code=message_code)
    assert workspace(world_ro, "hq", HQ)["name"] == "Field data"


def test_update_info_refused_to_the_guest(world_ro: Api) -> None:
    error_of(update_info(world_ro, "field", FIELD, name="x"), 403, message_code="GWM_0003")


def test_update_info_of_an_unknown_workspace(world_ro: Api) -> None:
    path = f"portals/{HQ}/collaborations/c1/workspaces/wsnone/updateInfo"
    error_of(world_ro.post("hq", path, name="x"), 404, message_code="GWM_0006")


@pytest.mark.parametrize(
    "form",
    [{"maxItemSizeInMB": 10}, {"maxReplicationPackageSizeInMB": 10}, {"copyByRefIfCopyFail": True}],
    ids=["item-size", "package-size", "copy-by-ref"],
)
def test_update_info_sizes_refused_on_10_5(versions_ro: Api, form: dict[str, Any]) -> None:
    path = f"portals/{V105}/collaborations/c5/workspaces/ws5/updateInfo"
    error_of(versions_ro.post("v105", path, **form), 400, message_code="GWM_0002")


def test_update_info_name_accepted_on_10_5(serve: Any) -> None:
    api = serve("versions")
    path = f"portals/{V105}/collaborations/c5/workspaces/ws5/updateInfo"
    succeeded(api.post("v105", path, name="Renamed", config="{}"))
    assert workspace(api, "v105", V105, "c5", "ws5")["name"] == "Renamed"


# --- updatePortalGroupLink (§4.7) ------------------------------------------------------------


def update_link(api: Api, portal: str = "field", pid: str = FIELD, **form: Any) -> Any:
    return api.post(portal, f"portals/{pid}/{WS}/updatePortalGroupLink", **form)


def own_link(api: Api, pid: str = FIELD) -> Any:
    links = workspace(api, "field", pid)["participantGroupLinks"]
    return next(link for link in links if link["portalId"] == pid)


def test_update_group_link_with_bidirectional_sync(world: Api) -> None:
    form = {
        "portalGroupId": "g2",
        "enableRealtimeSync": True,
        "copyFeatureServiceData": True,
        "enableFeatureServiceBidirectionalSync": True,
    }
    succeeded(update_link(world, **form))
    link = own_link(world)
    assert link["portalGroupId"] == "g2"
    assert link["config"] == {
        "enableRealtimeSync": True,
        "copyFeatureServiceData": True,
        "enableFeatureServiceBidirectionalSync": True,
    }


def test_update_group_link_bidirectional_defaults_to_false(world: Api) -> None:
    both = {"copyFeatureServiceData": True, "enableFeatureServiceBidirectionalSync": True}
    succeeded(update_link(world, portalGroupId="g1", enableRealtimeSync=False, **both))
    succeeded(update_link(world, portalGroupId="g1", copyFeatureServiceData=True))
    assert own_link(world)["config"]["enableFeatureServiceBidirectionalSync"] is False


def test_update_group_link_accepts_the_sample_copy_by_ref_field(world: Api) -> None:
    succeeded(update_link(world, portalGroupId="g1", copyByRefIfCopyFail=True))


@pytest.mark.parametrize(
    ("form", "message_code"),
    [
        ({"enableFeatureServiceBidirectionalSync": True}, "COLL_1003"),
        (
            {"copyFeatureServiceData": False, "enableFeatureServiceBidirectionalSync": True},
            "COLL_1003",
        ),
        ({"enableRealtimeSync": "yes"}, "GWM_0001"),
        ({"copyFeatureServiceData": "1"}, "GWM_0001"),
    ],
    ids=[
        "bidirectional-without-copy",
        "bidirectional-copy-false",
        "realtime-word",
        "copy-digit",
    ],
)
def test_update_group_link_refuses(world_ro: Api, form: dict[str, Any], message_code: str) -> None:
    error_of(update_link(world_ro, **form), 400, message_code=message_code)
    assert own_link(world_ro)["config"]["enableFeatureServiceBidirectionalSync"] is False


def test_update_group_link_refused_to_the_host(world_ro: Api) -> None:
    error_of(update_link(world_ro, "hq", HQ, portalGroupId="g9"), 403, message_code="GWM_0003")


def test_update_group_link_of_an_unknown_workspace(world_ro: Api) -> None:
    path = f"portals/{FIELD}/collaborations/c1/workspaces/wsnone/updatePortalGroupLink"
    error_of(world_ro.post("field", path, portalGroupId="g9"), 404, message_code="GWM_0006")


@pytest.mark.parametrize(("portal", "pid"), [("v108", V108), ("cloud21", CLOUD21)])
def test_bidirectional_sync_refused_before_its_release(
    versions_ro: Api, portal: str, pid: str
) -> None:
    path = f"portals/{pid}/collaborations/c5/workspaces/ws5/updatePortalGroupLink"
    form = {"copyFeatureServiceData": True, "enableFeatureServiceBidirectionalSync": True}
    error_of(versions_ro.post(portal, path, **form), 400, message_code="GWM_0002")


def test_copy_without_bidirectional_accepted_on_10_8(serve: Any) -> None:
    api = serve("versions")
    path = f"portals/{V108}/collaborations/c5/workspaces/ws5/updatePortalGroupLink"
    succeeded(api.post("v108", path, portalGroupId="g8", copyFeatureServiceData=True))


# --- invalidate (§4.8) and importInvitationResponse (§3) -------------------------------------


def invitations(api: Api) -> dict[str, Any]:
    body = api.get("hq", f"portals/{HQ}/{C1}/invitations")
    return {i["id"]: i for i in body["collaborationInvitations"]}


def import_response(api: Api, invitation: str, guest: str) -> Any:
    response = json.dumps({"invitationId": invitation, "guestPortalId": guest})
    path = f"portals/{HQ}/{C1}/importInvitationResponse"
    return api.post("hq", path, invitationResponse=response)


def test_invalidated_invitation_response_does_not_import(world: Api) -> None:
    assert invitations(world)["inv1"]["status"] == "host_created"
    succeeded(world.post("hq", f"portals/{HQ}/{C1}/invitations/inv1/invalidate"))
    assert invitations(world)["inv1"]["status"] == "invalidated"
    error = error_of(import_response(world, "inv1", BRANCH), 400, message_code="COLL_1004")
    assert "invalid" in error["message"].lower()
    assert BRANCH not in participant_ids(world)


def test_valid_invitation_response_imports(world: Api) -> None:
    succeeded(import_response(world, "inv2", BRANCH))
    assert BRANCH in participant_ids(world)


@pytest.mark.parametrize(
    "value",
    ["not json", json.dumps({"guestPortalId": BRANCH}), json.dumps(["inv2"])],
    ids=["not-json", "no-invitation-id", "array"],
)
def test_import_response_refuses_malformed_input(world_ro: Api, value: str) -> None:
    path = f"portals/{HQ}/{C1}/importInvitationResponse"
    error_of(world_ro.post("hq", path, invitationResponse=value), 400, message_code="GWM_0001")


def test_import_response_of_an_unknown_invitation(world_ro: Api) -> None:
    error_of(import_response(world_ro, "invnone", BRANCH), 404, message_code="GWM_0006")


def test_invalidate_refused_to_the_guest(world_ro: Api) -> None:
    path = f"portals/{FIELD}/{C1}/invitations/inv1/invalidate"
    error_of(world_ro.post("field", path), 403, message_code="GWM_0003")
    assert invitations(world_ro)["inv1"]["status"] == "host_created"


def test_invalidate_unknown_invitation(world_ro: Api) -> None:
    body = world_ro.post("hq", f"portals/{HQ}/{C1}/invitations/invnone/invalidate")
    error_of(body, 404, message_code="GWM_0006")


def test_copy_feature_service_data_refused_on_10_5(versions_ro: Api) -> None:
    path = f"portals/{V105}/collaborations/c6/workspaces/ws6/updatePortalGroupLink"
    body = versions_ro.post("v105", path, portalGroupId="g5", copyFeatureServiceData=True)
    error_of(body, 400, message_code="GWM_0002")


def test_group_link_without_copy_accepted_on_10_5(serve: Any) -> None:
    api = serve("versions")
    path = f"portals/{V105}/collaborations/c6/workspaces/ws6/updatePortalGroupLink"
    succeeded(api.post("v105", path, portalGroupId="g6", enableRealtimeSync=True))
