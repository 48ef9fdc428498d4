"""Operations and reads the vendor's clients make beside orgctl's own (docs/rules.md §D):
collaboration participants, pausing and deleting a workspace's job, activating and
updating organization webhooks, user types, a member's own account and content, group
search, the organization's settings and an app's access check. Each answers in the
vendor's documented shape."""

from __future__ import annotations

import json
from typing import Any

from tests.service.harness import Api, error_of, succeeded
from tests.service.world import FIELD, HQ, WS1

PARTICIPANTS = f"portals/{HQ}/collaborations/c1/participants"
FIELD_WS = WS1.format(portal=FIELD)
HOOK = f"portals/{FIELD}/webhooks/w1"


# --- participants ------------------------------------------------------------------------


def test_participants_answer_the_vendors_keys_and_values(world_ro: Api) -> None:
    body = world_ro.get("hq", PARTICIPANTS)
    by_id = {p["portalInfo"]["id"]: p for p in body["participants"]}
    host, guest = by_id[HQ], by_id[FIELD]
    assert (host["collaborationRole"], guest["collaborationRole"]) == ("Host", "Guest")
    assert {host["status"], guest["status"]} == {"active"}
    assert host["collaborationId"] == "c1"
    info = guest["portalInfo"]
    assert info["url"].startswith(("http://", "https://")) and info["url"].endswith("/field")
    assert info["portalType"] == "onpremises"
    assert isinstance(info["description"], str)
    assert isinstance(guest["config"], dict) and guest["config"]["portalVersion"] == "11.3"


def test_one_participant_is_served_and_a_stranger_is_not(world_ro: Api) -> None:
    one = world_ro.get("hq", f"{PARTICIPANTS}/{FIELD}")
    assert one["portalInfo"]["id"] == FIELD and one["collaborationRole"] == "Guest"
    error_of(world_ro.get("hq", f"{PARTICIPANTS}/ffffffffffffffff"), 404, "GWM_0006")


# --- workspace job: pause, resume, delete --------------------------------------------------


def test_a_guest_pauses_resumes_and_deletes_its_job(world: Api) -> None:
    schedule = f"{FIELD_WS}/schedule"
    assert world.get("field", schedule)["state"] == "NORMAL"
    succeeded(world.post("field", f"{schedule}/pause"))
    paused = world.get("field", schedule)
    assert (paused["state"], paused["nextFireTime"]) == ("PAUSED", None)
    succeeded(world.post("field", f"{schedule}/resume"))
    resumed = world.get("field", schedule)
    assert resumed["state"] == "NORMAL" and isinstance(resumed["nextFireTime"], int)
    succeeded(world.post("field", f"{schedule}/delete"))
    error_of(world.get("field", schedule), 404, "GWM_0006")
    error_of(world.post("field", f"{schedule}/pause"), 404, "GWM_0006")


def test_pausing_is_refused_before_10_7(world_ro: Api) -> None:
    # hq runs 10.6.1 and hosts c1: pausing came at 10.7 whoever asks.
    body = world_ro.post("hq", WS1.format(portal=HQ) + "/schedule/pause")
    assert "10.7" in error_of(body, 400, "GWM_0002")["message"]


def test_a_paused_job_does_not_bring_the_hosts_deletion_to_the_guest(world: Api) -> None:
    # ws1's guest job fires daily at 00:00; paused, it no longer refreshes the guest, so a
    # deleted collaboration leaves the guest at the next UTC midnight instead, the same
    # moment here: what is checked is that the paused job is not counted as firing.
    succeeded(world.post("field", f"{FIELD_WS}/schedule/pause"))
    succeeded(world.post("hq", f"portals/{HQ}/collaborations/c1/delete"))
    listing = f"portals/{FIELD}/collaborations"
    assert [c["id"] for c in world.listing("field", listing, "collaborations")] == ["c1"]
    world.advance(19)
    assert world.listing("field", listing, "collaborations") == []


# --- organization webhooks -----------------------------------------------------------------


def test_a_webhook_is_deactivated_activated_and_updated(world: Api) -> None:
    succeeded(world.post("field", f"{HOOK}/deactivate"))
    assert world.get("field", HOOK)["isActive"] is False
    succeeded(world.post("field", f"{HOOK}/activate"))
    assert world.get("field", HOOK)["isActive"] is True
    config = {"deactivationPolicy": {"numberOfFailures": 7, "daysInPast": 9}}
    succeeded(
        world.post(
            "field",
            f"{HOOK}/update",
            name="audit-hook-2",
            url="https://hooks.example.com/audit",
            events="/items,/groups",
            config=json.dumps(config),
        )
    )
    hook = world.get("field", HOOK)
    assert (hook["name"], hook["payloadUrl"]) == ("audit-hook-2", "https://hooks.example.com/audit")
    assert hook["events"] == ["/items", "/groups"]
    assert hook["config"]["deactivationPolicy"] == {"numberOfFailures": 7, "daysInPast": 9}
    other = world.get("field", f"portals/{FIELD}/webhooks/w2")
    assert other["config"]["deactivationPolicy"]["numberOfFailures"] != 7


def test_a_webhook_update_out_of_range_changes_nothing(world: Api) -> None:
    config = {"deactivationPolicy": {"numberOfFailures": 31}}
    body = world.post("field", f"{HOOK}/update", name="x", config=json.dumps(config))
    assert "numberOfFailures must be from 1 to 30" in error_of(body, 400, "WHK_1001")["details"][0]
    error_of(world.post("field", f"{HOOK}/update", url="http://plain.example"), 400, "WHK_1002")
    assert world.get("field", HOOK)["name"] == "audit-hook"


def test_notification_status_pages_the_deliveries(world_ro: Api) -> None:
    body = world_ro.post("field", f"{HOOK}/notificationStatus", num=100, start=1)
    assert body["WebhookStatus"] == [] and body["nextStart"] == -1


def test_webhook_operations_need_the_webhook_capability(world_ro: Api) -> None:
    token = world_ro.token("field", "frank")
    error_of(world_ro.post("field", f"{HOOK}/deactivate", auth=token), 403)
    assert world_ro.get("field", HOOK)["isActive"] is True


# --- user types ------------------------------------------------------------------------------


def test_user_types_are_listed_with_their_levels(world_ro: Api) -> None:
    body = world_ro.get("field", "portals/self/userLicenseTypes", start=1, num=255)
    types = {t["id"]: t for t in body["userLicenseTypes"]}
    assert types["creatorUT"]["level"] == 2 and types["viewerUT"]["level"] == 1
    assert body["nextStart"] == -1
    assert world_ro.get("field", "community/users/frank/userLicenseType")["id"] == "creatorUT"


def test_the_member_listing_names_each_members_user_type(world_ro: Api) -> None:
    users = world_ro.listing("field", f"portals/{FIELD}/users", "users")
    assert {u["userLicenseTypeId"] for u in users} == {"creatorUT"}
    # A 10.6.1 portal has levels, not user types.
    assert all(
        "userLicenseTypeId" not in u for u in world_ro.listing("hq", f"portals/{HQ}/users", "users")
    )


def test_a_user_type_change_moves_the_level_under_its_rules(world: Api) -> None:
    path = f"portals/{FIELD}/updateUserLicenseType"
    body = world.post("field", path, users='["admin2"]', userLicenseType="GISProfessionalAdvUT")
    assert body == {"results": [{"username": "admin2", "status": True}]}
    assert (
        world.get("field", "community/users/admin2")["userLicenseTypeId"] == "GISProfessionalAdvUT"
    )
    # frank holds a built-in role: the Viewer type is level 1, which needs a custom role.
    refused = world.post("field", path, users="frank", userLicenseType="viewerUT")
    error_of(refused, 400, "ORG_1085")
    assert world.get("field", "community/users/frank/userLicenseType")["id"] == "creatorUT"
    error_of(world.post("field", path, users="frank", userLicenseType="noSuchUT"), 400)


def test_user_types_are_refused_before_10_7(world_ro: Api) -> None:
    body = world_ro.post(
        "hq", f"portals/{HQ}/updateUserLicenseType", users="alice", userLicenseType="creatorUT"
    )
    error_of(body, 400, "GWM_0002")


# --- a member's own account ------------------------------------------------------------------


def test_a_member_updates_its_own_account_and_sees_it(world: Api) -> None:
    token = world.token("field", "frank")
    body = world.post(
        "field",
        "community/users/frank/update",
        auth=token,
        description="Field engineer",
        tags="water,survey",
        access="private",
        fullname="Frank Field",
        clearEmptyFields="true",
    )
    assert succeeded(body)["username"] == "frank"
    frank = world.get("field", "community/users/frank", auth=token)
    assert (frank["description"], frank["access"], frank["fullName"]) == (
        "Field engineer",
        "private",
        "Frank Field",
    )
    assert frank["tags"] == ["water", "survey"]
    tags = world.get("field", "community/users/frank/tags", auth=token)["tags"]
    assert [t["tag"] for t in tags] == ["water", "survey"]


def test_another_members_account_needs_update_users(world_ro: Api) -> None:
    token = world_ro.token("field", "frank")
    body = world_ro.post("field", "community/users/hooker/update", auth=token, description="x")
    error_of(body, 403)
    error_of(world_ro.post("field", "community/users/frank/update", access="everyone"), 400)


def test_invitations_and_notifications_are_empty_lists(world_ro: Api) -> None:
    token = world_ro.token("field", "frank")
    base = "community/users/frank"
    assert world_ro.get("field", f"{base}/invitations", auth=token) == {"userInvitations": []}
    assert world_ro.get("field", f"{base}/notifications", auth=token) == {"notifications": []}


# --- content, groups, settings, app access -----------------------------------------------------


def test_a_members_items_are_read_one_by_one(world_ro: Api) -> None:
    listing = world_ro.get("hq", "content/users/carol")
    ids = [item["id"] for item in listing["items"]]
    assert ids == ["carol-item-1", "carol-item-2", "carol-item-3"] and listing["folders"] == []
    item = world_ro.get("hq", f"content/items/{ids[0]}")
    assert (item["owner"], item["type"]) == ("carol", "Web Map")
    missing = world_ro.get("hq", "content/items/carol-item-4")
    assert error_of(missing, 400)["message"] == "Item does not exist or is inaccessible."
    error_of(world_ro.get("hq", f"content/items/{ids[0]}", auth=world_ro.token("hq", "alice")), 403)


def test_group_search_finds_a_members_groups(world_ro: Api) -> None:
    body = world_ro.get("hq", "community/groups", q=f"owner:grace AND orgid:{HQ}")
    assert [g["owner"] for g in body["results"]] == ["grace"]
    assert world_ro.get("hq", "community/groups", q="owner:alice")["results"] == []


def test_settings_and_subscription_answer_for_the_organization(world_ro: Api) -> None:
    settings = world_ro.post("field", "portals/self/settings")
    assert isinstance(settings["allowedRedirectUris"], list)
    info = world_ro.get("hq", "portals/self/subscriptionInfo")
    assert info["id"] == HQ and info["state"] == "active"
    error_of(world_ro.get("hq", "portals/ffffffffffffffff/settings"), 404)


def test_validate_app_access_is_a_json_read(world_ro: Api) -> None:
    token = world_ro.token("hq", "alice")
    body: Any = world_ro.post(
        "hq", "oauth2/validateAppAccess", auth=token, client_id="arcgisonline"
    )
    assert body == {"valid": True, "viewOnlyUserTypeApp": False}
    error_of(
        world_ro.post("hq", "oauth2/validateAppAccess", auth=token, client_id="nope"),
        400,
        "GWM_0007",
    )
    error_of(
        world_ro.post("hq", "oauth2/validateAppAccess", auth=None, client_id="arcgisonline"), 499
    )
