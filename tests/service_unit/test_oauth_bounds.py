"""What an OAuth sign-in page keeps is bounded (count, age, size), `expiration` keeps to
the vendor's range, and the portal's own addresses come from configuration, not from
the `Host` header a client writes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from orgctl_service.app import ServiceApp, create_app
from orgctl_service.oauth import MAX_KEPT_CHARS, PENDING_SECONDS, OAuthFlows
from orgctl_service.seed import build_world
from orgctl_service.store import Store

from .conftest import STATE

AUTHORIZE = "/hq/sharing/rest/oauth2/authorize"
SIGN_IN = "/hq/sharing/oauth2/signin"
OOB = "urn:ietf:wg:oauth:2.0:oob"


class FakeClock:
    """Real seconds that a test moves on by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def app() -> ServiceApp:
    store = Store(None)
    world = build_world(STATE)  # its clock stands still
    store.save_all(world)
    return create_app(store, world, origins=("https://gis.example.com:7443",))


@pytest.fixture
def client(app: ServiceApp) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def oauth(app: ServiceApp) -> OAuthFlows:
    return app.service.oauth


def authorize(client: TestClient, **fields: str) -> tuple[int, str]:
    params = {"client_id": "pythonapi", "response_type": "token", "redirect_uri": OOB}
    response = client.get(AUTHORIZE, params={**params, **fields}, follow_redirects=False)
    return response.status_code, response.text


def oauth_state_of(page: str) -> str:
    return page.split('"oauth_state":"', 1)[1].split('"', 1)[0]


@pytest.mark.parametrize(
    ("response_type", "expiration"),
    [
        ("token", "0"),
        ("token", "-1"),
        ("token", "20161"),
        ("token", "two"),
        ("code", "0"),
        ("code", "-5"),
        ("code", "129601"),
    ],
)
def test_an_expiration_outside_the_vendor_range_is_refused(
    client: TestClient, response_type: str, expiration: str
) -> None:
    status, page = authorize(client, response_type=response_type, expiration=expiration)
    assert status == 400 and "Invalid expiration" in page, page[:300]


def test_an_expiration_inside_the_range_lasts_as_asked(client: TestClient) -> None:
    status, page = authorize(client, expiration="20160")
    assert status == 200
    signed = client.post(
        SIGN_IN,
        data={"oauth_state": oauth_state_of(page), "username": "admin", "password": "pw"},
        follow_redirects=False,
    )
    assert "expires_in=1209600" in signed.headers["location"]  # two weeks, in seconds


def test_a_code_grant_may_ask_for_the_longest_refresh_token_with_minus_one(
    client: TestClient,
) -> None:
    assert authorize(client, response_type="code", expiration="-1")[0] == 200


def test_pending_sign_ins_are_bounded_in_count_oldest_first(
    app: ServiceApp, client: TestClient
) -> None:
    oauth(app).max_pending = 10
    states = [oauth_state_of(authorize(client)[1]) for _ in range(15)]
    assert list(oauth(app).pending) == states[5:]


def test_a_pending_sign_in_expires_on_real_time_when_the_clock_stands_still(
    app: ServiceApp, client: TestClient
) -> None:
    clock = oauth(app).clock = FakeClock()
    oauth_state = oauth_state_of(authorize(client)[1])
    clock.now += PENDING_SECONDS + 1
    late = client.post(
        SIGN_IN, data={"oauth_state": oauth_state, "username": "admin", "password": "pw"}
    )
    assert late.status_code == 400 and "Invalid or expired oauth_state" in late.text
    assert not oauth(app).pending


def test_an_oversized_state_or_redirect_is_refused_and_not_kept(
    app: ServiceApp, client: TestClient
) -> None:
    status, page = authorize(client, state="s" * (MAX_KEPT_CHARS + 1))
    assert status == 400 and "Invalid state" in page
    long_redirect = "https://gis.example.com:7443/" + "a" * MAX_KEPT_CHARS
    assert authorize(client, redirect_uri=long_redirect)[0] == 400
    assert not oauth(app).pending
    assert authorize(client, state="s" * MAX_KEPT_CHARS)[0] == 200


def test_the_host_header_does_not_make_an_address_the_portals_own(client: TestClient) -> None:
    evil = "https://evil.example/landing"
    response = client.get(
        AUTHORIZE,
        params={"client_id": "pythonapi", "response_type": "token", "redirect_uri": evil},
        headers={"Host": "evil.example"},
    )
    assert response.status_code == 400 and "Invalid redirect_uri" in response.text
    own = "https://gis.example.com:7443/hq/apps/landing"
    assert authorize(client, redirect_uri=own)[0] == 200  # the configured origin is


def test_the_out_of_band_landing_is_on_the_configured_origin(client: TestClient) -> None:
    page = authorize(client)[1]
    signed = client.post(
        SIGN_IN,
        data={"oauth_state": oauth_state_of(page), "username": "admin", "password": "pw"},
        headers={"Host": "evil.example"},
        follow_redirects=False,
    )
    location = signed.headers["location"]
    assert location.startswith("https://gis.example.com:7443/hq/sharing/oauth2/approval#")
