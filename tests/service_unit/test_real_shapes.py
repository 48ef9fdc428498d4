"""Shapes and sign-in that real portals give and their clients rely on: sharing/rest/info
with authInfo, REST currentVersion, the OAuth2 sign-in flow, empty path segments, and a
wall-time clock when the state fixes none."""

from __future__ import annotations

import copy
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from starlette.testclient import TestClient

from orgctl_service.app import create_app
from orgctl_service.seed import build_world
from orgctl_service.store import Store
from reconciler.versions import REST_VERSIONS, Deployment, Platform, rest_version

from .conftest import CONTROL, CONTROL_SECRET, STATE, Api

AUTHORIZE = "/hq/sharing/rest/oauth2/authorize"


def test_info_names_the_token_service(client: TestClient) -> None:
    body = client.get("/hq/sharing/rest/info", params={"f": "json"}).json()
    assert body["authInfo"] == {
        "isTokenBasedSecurity": True,
        "tokenServicesUrl": "http://testserver/hq/sharing/rest/generateToken",
    }


def test_current_version_is_the_rest_version_and_full_version_the_release(hq: Api) -> None:
    assert hq.get("") == {"currentVersion": "6.2", "fullVersion": "10.6.1"}
    body = hq.get("portals/self")
    assert (body["currentVersion"], body["fullVersion"]) == ("6.2", "10.6.1")
    assert (body["portalName"], body["portalMode"]) == ("Portal for ArcGIS", "singletenant")


def test_every_release_below_10_7_answers_below_the_user_types_rest_version() -> None:
    # The vendor's client refuses level changes from REST 6.4 (10.7, user types) on.
    for release, rest in REST_VERSIONS.items():
        platform = Platform.parse(Deployment.SELF_HOSTED, release)
        below = [int(p) for p in rest.split(".")] < [6, 4]
        assert below == (platform.release < Platform.parse("self-hosted", "10.7").release)
        assert rest_version(platform) == rest


def test_an_empty_path_segment_is_tolerated(hq: Api) -> None:
    reply = hq.post("/portals/self/updateUserLevel", user="cy", level=2)
    assert reply == {"success": True}  # `…/rest//portals/self/updateUserLevel`


def authorize(client: TestClient, **fields: str) -> tuple[int, str, str | None]:
    params = {"response_type": "token", "state": "s1", **fields}
    response = client.get(AUTHORIZE, params=params, follow_redirects=False)
    return response.status_code, response.text, response.headers.get("location")


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"client_id": "nosuchapp", "redirect_uri": "urn:ietf:wg:oauth:2.0:oob"}, "client_id"),
        ({"client_id": "pythonapi", "redirect_uri": "https://evil.example/"}, "redirect_uri"),
    ],
    ids=["unknown-client", "unknown-redirect"],
)
def test_oauth_refuses_unknown_apps_and_addresses_without_redirecting(
    client: TestClient, fields: dict[str, str], said: str
) -> None:
    status, text, location = authorize(client, **fields)
    assert (status, location) == (400, None)
    assert f"Invalid {said}" in text


def test_oauth_implicit_grant_redirects_with_a_working_token(client: TestClient) -> None:
    status, page, _ = authorize(
        client, client_id="pythonapi", redirect_uri="urn:ietf:wg:oauth:2.0:oob"
    )
    assert status == 200
    oauth_state = page.split('"oauth_state":"', 1)[1].split('"', 1)[0]
    wrong = client.post(
        "/hq/sharing/oauth2/signin",
        data={"oauth_state": oauth_state, "username": "admin", "password": "nope"},
        follow_redirects=False,
    )
    assert wrong.status_code == 200 and "Invalid username or password." in wrong.text
    signed = client.post(
        "/hq/sharing/oauth2/signin",
        data={"oauth_state": oauth_state, "username": "admin", "password": "pw"},
        follow_redirects=False,
    )
    assert signed.status_code == 302
    landing = urlsplit(signed.headers["location"])
    assert landing.path == "/hq/sharing/oauth2/approval"
    fragment = {k: v[0] for k, v in parse_qs(landing.fragment).items()}
    assert (fragment["state"], fragment["username"]) == ("s1", "admin")
    assert int(fragment["expires_in"]) > 0
    api = Api(client, "hq")
    api.token = fragment["access_token"]
    assert api.get("portals/self")["user"]["username"] == "admin"


def test_a_state_without_clock_runs_on_wall_time() -> None:
    state = copy.deepcopy(STATE)
    del state["clock"]
    world = build_world(state)
    store = Store(None)
    store.save_all(world)
    with TestClient(create_app(store, world, CONTROL_SECRET, ticking=True)) as client:
        before = time.time() * 1000
        token = Api(client, "hq").post("generateToken", username="admin", password="pw")
        assert token["expires"] >= before + 60 * 60_000 - 1000
        first = world.clock
        time.sleep(0.05)
        client.get("/hq/sharing/rest", params={"f": "json"})
        assert world.clock >= first + 50
        # --control still moves it forward
        client.post("/_control/clock", data={"advanceHours": 1, "f": "json"}, headers=CONTROL)
        assert world.clock >= first + 3_600_000
