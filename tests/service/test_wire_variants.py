"""Where clients and the vendor's documentation disagree on the wire, the service either
accepts the variant or refuses it with a clear 400 envelope (docs/rules.md §B)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.service.conftest import Serve
from tests.service.harness import Api
from tests.service.world import ANALYST, FIELD, HQ, LEGACY_VIEWER

SCHEDULE = f"portals/{FIELD}/collaborations/c1/workspaces/ws1/schedule"
NODE_REFERER = "@esri/arcgis-rest-js"  # what ArcGIS REST JS sends from Node


def test_update_user_role_in_either_spelling(serve: Serve) -> None:
    world = serve("world")
    for path in ("updateUserRole", "updateuserrole"):
        role = ANALYST if path == "updateUserRole" else LEGACY_VIEWER
        answer = world.post("hq", f"portals/{HQ}/{path}", user="alice", role=role)
        assert answer == {"success": True, "username": "alice"}, (path, answer)
        alice = world.get("hq", "community/users/alice")
        assert alice["roleId"] == role


def test_privileges_as_arcrest_sends_them(serve: Serve) -> None:
    """ArcREST urlencodes `str(dict)`: single quotes, plus the role's id as a field."""
    world = serve("world")
    repr_text = str({"privileges": ["portal:user:joinGroup", "portal:user:viewOrgUsers"]})
    assert repr_text.startswith("{'privileges'")
    path = f"portals/{HQ}/roles/{LEGACY_VIEWER}/setPrivileges"
    assert world.post("hq", path, privileges=repr_text, id=LEGACY_VIEWER) == {"success": True}
    privileges = world.get("hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/privileges")["privileges"]
    assert sorted(privileges) == ["portal:user:joinGroup", "portal:user:viewOrgUsers"]


def test_an_id_field_naming_another_role_is_refused(serve: Serve) -> None:
    world = serve("world")
    path = f"portals/{HQ}/roles/{LEGACY_VIEWER}/setPrivileges"
    answer = world.post("hq", path, privileges="{'privileges': []}", id=ANALYST)
    assert answer["error"]["code"] == 400
    assert (
        f"names role '{ANALYST}' but the path names role '{LEGACY_VIEWER}'"
        in (answer["error"]["message"])
    )


def test_privileges_that_are_neither_json_nor_a_literal_are_refused(world_ro: Api) -> None:
    path = f"portals/{HQ}/roles/{LEGACY_VIEWER}/setPrivileges"
    for text in ("privileges: [a]", "__import__('os').getcwd()", "{'privileges': [x]}"):
        answer = world_ro.post("hq", path, privileges=text)
        assert answer["error"]["code"] == 400, (text, answer)
        assert "is not JSON" in answer["error"]["message"], (text, answer)


def referer_token(api: Api, referer: str) -> str:
    body = api.generate_token("hq", "admin", "admin-pass", client="referer", referer=referer)
    assert "token" in body, body
    return str(body["token"])


def read_self(api: Api, headers: dict[str, str], **fields: Any) -> Any:
    url = api.sharing("hq", "portals/self")
    return api.http.get(url, params={"f": "json", **fields}, headers=headers).json()


def test_a_referer_that_is_not_a_url_binds_the_token(world_ro: Api) -> None:
    token = referer_token(world_ro, NODE_REFERER)
    bearer = {"X-Esri-Authorization": f"Bearer {token}"}
    assert read_self(world_ro, {**bearer, "Referer": NODE_REFERER})["id"] == HQ
    elsewhere = read_self(world_ro, {**bearer, "Referer": "https://other.example"})
    assert elsewhere["error"]["code"] == 498
    assert read_self(world_ro, bearer)["error"]["code"] == 498  # no Referer at all


def test_the_token_in_either_bearer_header_or_as_a_field(world_ro: Api) -> None:
    token = world_ro.token("hq")
    for headers, fields in (
        ({"X-Esri-Authorization": f"Bearer {token}"}, {}),
        ({"Authorization": f"Bearer {token}"}, {}),
        ({}, {"token": token}),
    ):
        assert read_self(world_ro, headers, **fields)["id"] == HQ, headers


def test_a_start_time_in_seconds_is_refused_naming_both_readings(serve: Serve) -> None:
    world = serve("world")
    sample = {"startTime": 1615586200, "interval": 5, "repeatCount": -1}
    answer = world.post("field", f"{SCHEDULE}/update", **sample)
    assert answer["error"]["code"] == 400 and answer["error"]["messageCode"] == "COLL_1002"
    message = answer["error"]["message"]
    assert "1970-01-19T16:46:26Z in milliseconds" in message
    assert "looks like seconds (2021-03-12T21:56:40Z)" in message
    assert "1615586200000" in message
    before = world.get("field", SCHEDULE)
    assert before["interval"] == 24  # unchanged
    in_ms = {**sample, "startTime": 1615586200000}
    assert world.post("field", f"{SCHEDULE}/update", **in_ms) == {"success": True}
    assert world.get("field", SCHEDULE)["startTime"] == 1615586200000


def test_the_refusals_are_envelopes_with_http_200(world_ro: Api) -> None:
    """As the Sharing API answers errors: clients read the envelope, not the status."""
    response = world_ro.http.post(
        world_ro.sharing("field", f"{SCHEDULE}/update"),
        data={"startTime": "1615586200", "f": "json"},
        headers=world_ro.auth_headers("field"),
    )
    assert isinstance(response, httpx.Response) and response.status_code == 200
    assert set(response.json()["error"]) == {"code", "messageCode", "message", "details"}
