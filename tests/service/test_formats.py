"""Response formats (`f`: html default, json, pjson) and boolean parameters."""

from __future__ import annotations

import json

import pytest

from tests.service.harness import Api, error_of, succeeded
from tests.service.world import FIELD, HQ, WS1

LINK = WS1.format(portal=FIELD) + "/updatePortalGroupLink"


def test_read_without_f_answers_html(world_ro: Api) -> None:
    response = world_ro.http.get(
        world_ro.sharing("hq", "portals/self"), headers=world_ro.auth_headers("hq")
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<html" in response.text.lower()


def test_write_without_f_answers_html(world: Api) -> None:
    response = world.http.post(
        world.sharing("hq", f"portals/{HQ}/createRole"),
        data={"name": "Html role"},
        headers=world.auth_headers("hq"),
    )
    assert response.headers["content-type"].startswith("text/html")
    roles = world.listing("hq", f"portals/{HQ}/roles", "roles")
    assert "Html role" in {role["name"] for role in roles}


def test_error_without_f_answers_html(world_ro: Api) -> None:
    response = world_ro.http.post(world_ro.sharing("hq", f"portals/{HQ}/createRole"))
    assert response.status_code != 500
    assert response.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("f", ["html", "HTML"])
def test_explicit_html(world_ro: Api, f: str) -> None:
    response = world_ro.http.get(
        world_ro.sharing("hq", "portals/self"),
        params={"f": f},
        headers=world_ro.auth_headers("hq"),
    )
    assert response.headers["content-type"].startswith("text/html")


def test_pjson_is_indented_json(world_ro: Api) -> None:
    response = world_ro.http.get(
        world_ro.sharing("hq", "portals/self"),
        params={"f": "pjson"},
        headers=world_ro.auth_headers("hq"),
    )
    assert response.headers["content-type"].startswith("application/json")
    assert "\n  " in response.text
    assert json.loads(response.text)["id"] == HQ


def test_json_is_json(world_ro: Api) -> None:
    response = world_ro.http.get(
        world_ro.sharing("hq", "portals/self"),
        params={"f": "json"},
        headers=world_ro.auth_headers("hq"),
    )
    assert response.headers["content-type"].startswith("application/json")
    assert json.loads(response.text)["id"] == HQ


def test_unknown_f_is_refused(world_ro: Api) -> None:
    # An unknown format cannot promise JSON, but the answer must still be a clean refusal.
    response = world_ro.http.get(world_ro.sharing("hq", "portals/self"), params={"f": "xml"})
    error_of(response.json(), 400, message_code="GWM_0001")


@pytest.mark.parametrize(
    ("word", "value"),
    [("true", True), ("TRUE", True), ("false", False), ("True", True), ("FALSE", False)],
)
def test_boolean_words(world: Api, word: str, value: bool) -> None:
    succeeded(world.post("field", LINK, portalGroupId="g1", enableRealtimeSync=word))
    links = world.listing("field", f"portals/{FIELD}/collaborations/c1/workspaces", "workspaces")
    (link,) = links[0]["participantGroupLinks"]
    assert link["config"]["enableRealtimeSync"] is value


@pytest.mark.parametrize("word", ["yes", "1", "0", "on", "tru"])
def test_non_boolean_is_refused(world_ro: Api, word: str) -> None:
    body = world_ro.post("field", LINK, portalGroupId="g1", enableRealtimeSync=word)
    error_of(body, 400, message_code="GWM_0001")


def date_headers(api: Api, url: str) -> list[str]:
    return api.http.get(url, params={"f": "json"}).headers.get_list("date")


def test_date_header_states_the_service_clock(world: Api) -> None:
    # orgctl reads the portal's time from `Date`; it must be the service clock, once.
    url = world.sharing("hq", "nowhere")
    assert date_headers(world, url) == ["Sun, 01 Nov 2026 06:00:00 GMT"]
    world.advance(30)
    assert date_headers(world, url) == ["Mon, 02 Nov 2026 12:00:00 GMT"]
    admin = world.admin("field", "services/webhooks")
    assert date_headers(world, admin) == ["Mon, 02 Nov 2026 12:00:00 GMT"]


@pytest.mark.parametrize(
    ("path", "auth", "message_code"),
    [
        (f"portals/{HQ}/roles/rnosuchrole/privileges", True, "GWM_0006"),
        (f"portals/{HQ}/users", False, "GWM_0003"),
        ("no/such/endpoint", True, "GWM_0006"),
    ],
    ids=["unknown-id", "missing-token", "unknown-path"],
)
def test_sharing_errors_come_with_http_200(
    world_ro: Api, path: str, auth: bool, message_code: str
) -> None:
    headers = world_ro.auth_headers("hq") if auth else {}
    response = world_ro.http.get(
        world_ro.sharing("hq", path), params={"f": "json"}, headers=headers
    )
    assert response.status_code == 200
    error_of(response.json(), message_code=message_code)
