"""The service in-process: auth, envelopes, formats, rules and the docs/rules.md §3 behaviours."""

from __future__ import annotations

from starlette.testclient import TestClient

from tests.service_unit.conftest import CONTROL, Api, advance


def error_code(body: dict[str, object]) -> tuple[object, object]:
    error = body["error"]
    assert isinstance(error, dict)
    return error["code"], error["messageCode"]


def test_reads_need_a_token_of_the_same_portal(client: TestClient, field: Api) -> None:
    anonymous = Api(client, "hq")
    assert error_code(anonymous.get("portals/self")) == (499, "GWM_0003")
    stranger = Api(client, "hq")
    stranger.token = field.token
    assert error_code(stranger.get("portals/self")) == (498, "GWM_0004")


def test_token_expires_by_the_service_clock(client: TestClient) -> None:
    api = Api(client, "hq")
    api.token = api.post("generateToken", username="admin", password="pw", expiration=60)["token"]
    assert api.get("portals/self")["id"] == "hq00000000000000"
    advance(client, 1)
    assert error_code(api.get("portals/self")) == (498, "GWM_0004")


def test_wrong_password_is_refused_without_a_token(client: TestClient) -> None:
    body = Api(client, "hq").post("generateToken", username="admin", password="nope")
    assert "token" not in body
    assert error_code(body)[0] == 400


def test_formats_default_to_html_and_pjson_is_indented(client: TestClient, hq: Api) -> None:
    headers = {"Authorization": f"Bearer {hq.token}"}
    page = client.get("/hq/sharing/rest/portals/self", headers=headers)
    assert page.headers["content-type"].startswith("text/html")
    assert "hq00000000000000" in page.text
    pretty = client.get("/hq/sharing/rest/portals/self?f=pjson", headers=headers)
    assert pretty.text.startswith("{\n  ")
    assert error_code(hq.get("portals/self", f="xml"))[0] == 400


def test_unknown_path_and_get_on_write_are_envelopes(client: TestClient, hq: Api) -> None:
    assert error_code(hq.get("portals/self/nothing")) == (404, "GWM_0006")
    assert error_code(hq.get("portals/self/createRole")) == (405, "GWM_0007")
    admin_reply = hq.get("admin/services/nothing")
    assert admin_reply["status"] == "error" and admin_reply["code"] == 404


def test_malformed_fields_answer_400(client: TestClient, hq: Api) -> None:
    headers = {
        "Authorization": f"Bearer {hq.token}",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    reply = client.post(
        "/hq/sharing/rest/portals/self/createRole?f=json", content=b"name=%ff", headers=headers
    )
    assert reply.status_code == 200 and error_code(reply.json())[0] == 400
    assert error_code(hq.post("portals/self/updateUserLevel", user="ann", level="two"))[0] == 400
    bad_json = hq.post("portals/self/roles/r1/setPrivileges", privileges="{oops")
    assert error_code(bad_json)[0] == 400


def test_create_role_names_are_unique_and_bounded(hq: Api) -> None:
    created = hq.post("portals/self/createRole", name="Auditor", description="d")
    assert created["success"] is True
    assert error_code(hq.post("portals/self/createRole", name="auditor")) == (400, "ROLE_1001")
    # the pre-built roles' names are taken too
    assert error_code(hq.post("portals/self/createRole", name="viewer")) == (400, "ROLE_1001")
    assert error_code(hq.post("portals/self/createRole", name="x" * 129)) == (400, "ROLE_1001")
    listed = hq.get("portals/self/roles", returnPrivileges="true")
    names = {r["name"] for r in listed["roles"]}
    assert names == {"Analyst", "Auditor", "Viewer", "Data Editor"}


def test_only_the_default_admin_creates_roles(client: TestClient) -> None:
    ann = Api(client, "hq").login("ann")
    assert error_code(ann.post("portals/self/createRole", name="Mine")) == (403, "GWM_0003")


def test_set_privileges_checks_the_catalog_per_deployment(hq: Api) -> None:
    cloud_only = '{"privileges": ["portal:user:joinNonOrgGroup"]}'
    refused = hq.post("portals/self/roles/r1/setPrivileges", privileges=cloud_only)
    assert error_code(refused) == (400, "ROLE_1003")
    too_new = '{"privileges": ["portal:user:reassignItems"]}'
    assert error_code(hq.post("portals/self/roles/r1/setPrivileges", privileges=too_new))[0] == 400


def test_level_one_member_loses_privileges_beyond_the_nine(hq: Api) -> None:
    assert hq.post("portals/self/updateUserLevel", user="ann", level=1) == {"success": True}
    detail = hq.get("community/users/ann")
    assert detail["level"] == "1"
    assert detail["privileges"] == ["portal:user:joinGroup"]


def test_level_change_conditions_in_order(hq: Api) -> None:
    assert error_code(hq.post("portals/self/updateUserLevel", user="cy", level=1))[1] == "ORG_1085"
    assert error_code(hq.post("portals/self/updateUserLevel", userName="ben", level=1)) == (
        400,
        "ORG_1084",
    )
    assert hq.post("portals/self/updateUserLevel", user="ann", level=1)["success"]
    hq.post("portals/self/updateuserrole", user="cy", role="r1")
    # quota of level 1 is 2: ann plus one more, so a third is refused
    assert hq.post("portals/self/updateUserLevel", user="cy", level=1)["success"]
    quota = hq.post("portals/self/updateUserLevel", user="ben", level=1)
    assert error_code(quota)[1] == "ORG_1086"


def test_host_only_operation_from_a_guest_is_refused(field: Api) -> None:
    reply = field.post("portals/self/collaborations/c1/workspaces/ws1/updateInfo", name="New")
    assert error_code(reply)[0] == 403
    assert "host" in " ".join(reply["error"]["details"])


def test_bidirectional_sync_needs_copy(field: Api) -> None:
    path = "portals/self/collaborations/c1/workspaces/ws1/updatePortalGroupLink"
    refused = field.post(path, portalGroupId="g1", enableFeatureServiceBidirectionalSync="true")
    assert error_code(refused) == (400, "COLL_1003")
    ok = field.post(
        path,
        portalGroupId="g1",
        copyFeatureServiceData="TRUE",
        enableFeatureServiceBidirectionalSync="true",
    )
    assert ok == {"success": True}


def test_deleted_collaboration_leaves_guest_at_its_next_refresh(
    client: TestClient, hq: Api, field: Api
) -> None:
    assert hq.post("portals/self/collaborations/c1/delete")["success"]
    assert hq.get("portals/self/collaborations")["total"] == 0
    assert field.get("portals/self/collaborations")["total"] == 1
    advance(client, 6)  # the guest's schedule fires at 06:00
    assert field.get("portals/self/collaborations")["total"] == 0


def test_remove_participation_is_immediate_on_both_sides(hq: Api, field: Api) -> None:
    assert field.post("portals/self/collaborations/c1/removeParticipation")["success"]
    assert field.get("portals/self/collaborations")["total"] == 0
    roles = [
        p["collaborationRole"]
        for p in hq.get("portals/self/collaborations/c1/participants")["participants"]
    ]
    assert roles == ["Host"]


def test_invalidated_invitation_does_not_import(hq: Api) -> None:
    assert hq.post("portals/self/collaborations/c1/invitations/inv1/invalidate")["success"]
    response = '{"invitationId": "inv1", "guestPortalId": "fd00000000000000"}'
    reply = hq.post(
        "portals/self/collaborations/c1/importInvitationResponse", invitationResponse=response
    )
    assert error_code(reply) == (400, "COLL_1004")
    assert "invalid" in reply["error"]["message"]


def test_finite_schedule_is_deleted_after_its_last_trigger(client: TestClient, field: Api) -> None:
    path = "portals/self/collaborations/c1/workspaces/ws1/schedule"
    assert field.post(path + "/update", interval=1, repeatCount=2)["success"]
    assert field.get(path)["timesTriggered"] == 1
    advance(client, 1)
    assert field.get(path)["timesTriggered"] == 2
    advance(client, 1)
    assert error_code(field.get(path))[0] == 404


def test_deleted_run_takes_its_resource_files(client: TestClient) -> None:
    fay = Api(client, "field").login("fay")
    assert fay.post("community/users/fay/tasks/t1/runs/a/delete") == {
        "success": True,
        "taskId": "t1",
        "runId": "a",
    }
    files = [r["resource"] for r in fay.get("content/items/i1/resources")["resources"]]
    assert files == ["b.log"]


def test_webhook_settings_keep_omitted_fields_and_deactivate(
    client: TestClient, field: Api
) -> None:
    first = field.post("admin/services/webhooks/settings", numberOfFailures=2, daysInPast=1)
    assert first == {
        "notificationAttempts": 3,
        "notificationTimeOutInSeconds": 10,
        "notificationElapsedTimeInSeconds": 5,
        "daysInPast": 1,
        "numberOfFailures": 2,
        "status": "success",
    }
    assert field.post("admin/services/webhooks/settings")["numberOfFailures"] == 2
    field.post("admin/services/webhooks/settings", numberOfFailures=2, daysInPast=1)
    failures = "/_control/field/services/webhooks/sw1/failures"
    client.post(failures, data={"count": 1}, headers=CONTROL)
    advance(client, 24)  # a one-day window ended: the count restarts
    recorded = client.post(failures, data={"count": 1, "f": "json"}, headers=CONTROL)
    assert recorded.json()["active"] is True
    recorded = client.post(failures, data={"count": 1, "f": "json"}, headers=CONTROL)
    assert recorded.json()["active"] is False
    hooks = field.get("admin/services/webhooks")["webhooks"]
    assert hooks == [
        {
            "id": "sw1",
            "name": "edits",
            "active": False,
            "serviceName": "edits",
            "serviceType": "FeatureServer",
        }
    ]


def test_paging_reports_next_start(hq: Api) -> None:
    first = hq.get("portals/self/users", num=3)
    assert (first["total"], first["nextStart"], len(first["users"])) == (4, 4, 3)
    last = hq.get("portals/self/users", start=4, num=3)
    assert last["nextStart"] == -1 and [u["username"] for u in last["users"]] == ["cy"]


def test_date_header_states_the_service_clock(client: TestClient, hq: Api) -> None:
    assert client.get("/hq/sharing/rest/info").headers["date"] == "Sun, 01 Nov 2026 00:00:00 GMT"
    advance(client, 36)
    assert client.get("/nope").headers["date"] == "Mon, 02 Nov 2026 12:00:00 GMT"


def test_odd_path_segments_still_answer_the_envelope(client: TestClient, hq: Api) -> None:
    for path in ("/hq/sharing/rest/portals/%0A/createRole", "/%0A/sharing/rest/x"):
        reply = client.post(
            path, data={"f": "json"}, headers={"Authorization": f"Bearer {hq.token}"}
        )
        assert reply.json()["error"]["code"] == 404
