"""Authentication: generateToken, and 499 / 498 / foreign and expired tokens on every write."""

from __future__ import annotations

import time

import pytest

from tests.service.harness import Api, admin_error_of, error_of
from tests.service.world import HQ, START_MS, WRITES


def post_write(api: Api, name: str, token: object) -> object:
    root, portal, path, form = WRITES[name]
    send = api.admin_post if root == "admin" else api.post
    return send(portal, path, auth=token, **form)


def assert_refused(api: Api, name: str, token: object, code: int, message_code: str) -> None:
    """Refused with `code`; on the Sharing root also with `message_code` (the admin root's
    errors have none)."""
    body = post_write(api, name, token)
    if WRITES[name][0] == "admin":
        admin_error_of(body, code)
    else:
        error_of(body, code, message_code=message_code)


def wall_ms() -> int:
    return int(time.time() * 1000)


def test_generate_token_expires_in_the_clients_time_frame(world_ro: Api) -> None:
    """The state's clock stands at START_MS; the client judges `expires` by its own clock,
    so the lifetime counts from the wall clock at issue, whatever the state's clock says."""
    before = wall_ms()
    body = world_ro.generate_token("hq", "admin", "admin-pass", expiration=120)
    after = wall_ms()
    assert isinstance(body["token"], str) and body["token"]
    assert before + 120 * 60_000 <= body["expires"] <= after + 120 * 60_000
    assert before > START_MS  # the state's clock is in the past: the old answer was expired


@pytest.mark.parametrize(
    ("user", "password", "message_code"),
    [
        ("admin", "wrong", "GWM_0009"),
        ("nobody", "nobody-pass", "GWM_0009"),
        ("admin", "", "GWM_0001"),  # a blank required field: missing, not a wrong password
    ],
    ids=["wrong-password", "unknown-user", "empty-password"],
)
def test_generate_token_refused(world_ro: Api, user: str, password: str, message_code: str) -> None:
    body = world_ro.generate_token("hq", user, password)
    error_of(body, 400, message_code=message_code)
    assert password not in body["error"]["message"] or not password


def test_generate_token_of_a_user_of_another_portal(world_ro: Api) -> None:
    error_of(world_ro.generate_token("hq", "frank", "frank-pass"), 400, message_code="GWM_0009")


@pytest.mark.parametrize("name", sorted(WRITES))
def test_write_without_token(world_ro: Api, name: str) -> None:
    assert_refused(world_ro, name, None, 499, "GWM_0003")


@pytest.mark.parametrize("name", sorted(WRITES))
def test_write_with_a_bad_token(world_ro: Api, name: str) -> None:
    assert_refused(world_ro, name, "not-a-token", 498, "GWM_0004")


@pytest.mark.parametrize("name", sorted(WRITES))
def test_write_with_a_token_of_another_portal(world_ro: Api, name: str) -> None:
    portal = WRITES[name][1]
    other = "cloud" if portal != "cloud" else "hq"
    assert_refused(world_ro, name, world_ro.token(other), 498, "GWM_0004")


def test_read_without_token_is_refused_for_members(world_ro: Api) -> None:
    error_of(world_ro.get("hq", f"portals/{HQ}/users", auth=None), 499, message_code="GWM_0003")


def test_token_expires_with_the_service_clock(world: Api) -> None:
    token = world.generate_token("hq", "admin", "admin-pass", expiration=120)["token"]
    world.advance(1)
    assert "error" not in world.get("hq", "portals/self", auth=token)
    world.advance(2)
    for name in ("createRole", "updateUserLevel"):
        assert_refused(world, name, token, 498, "GWM_0004")


def test_token_in_a_form_field(world: Api) -> None:
    token = world.token("hq")
    path = f"portals/{HQ}/createRole"
    body = world.post("hq", path, auth=None, token=token, name="Form token")
    assert body.get("success") is True, body


def test_token_lifetime_is_capped_at_two_weeks(world_ro: Api) -> None:
    two_weeks = 14 * 24 * 3_600_000
    before = wall_ms()
    body = world_ro.generate_token("hq", "admin", "admin-pass", expiration=10**6)
    assert before + two_weeks <= body["expires"] <= wall_ms() + two_weeks


def test_a_token_issued_after_a_clock_move_lives_its_whole_lifetime(world: Api) -> None:
    """Moves before the issue do not shorten a token; moves after it do."""
    world.advance(5)
    token = world.generate_token("hq", "admin", "admin-pass", expiration=120)["token"]
    assert "error" not in world.get("hq", "portals/self", auth=token)
    world.advance(1)
    assert "error" not in world.get("hq", "portals/self", auth=token)
    world.advance(1)
    error_of(world.get("hq", "portals/self", auth=token), 498, message_code="GWM_0004")


def get_self(api: Api, token: str, **headers: str) -> object:
    response = api.http.get(
        api.sharing("hq", "portals/self"),
        params={"f": "json"},
        headers={"X-Esri-Authorization": f"Bearer {token}", **headers},
    )
    return response.json()


def test_a_referer_bound_token_needs_its_referer(world_ro: Api) -> None:
    site = "https://apps.example.com/admin"
    body = world_ro.generate_token("hq", "admin", "admin-pass", client="referer", referer=site)
    token = body["token"]
    assert get_self(world_ro, token, Referer=site)["id"] == HQ  # type: ignore[index]
    error_of(get_self(world_ro, token), 498, message_code="GWM_0004")
    error_of(
        get_self(world_ro, token, Referer="https://elsewhere.example.com"),
        498,
        message_code="GWM_0004",
    )


def test_an_ip_bound_token_needs_its_address(world_ro: Api) -> None:
    here = world_ro.generate_token("hq", "admin", "admin-pass", client="ip", ip="127.0.0.1")
    assert get_self(world_ro, here["token"])["id"] == HQ  # type: ignore[index]
    there = world_ro.generate_token("hq", "admin", "admin-pass", client="ip", ip="192.0.2.7")
    error_of(get_self(world_ro, there["token"]), 498, message_code="GWM_0004")


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"client": "referer"}, "'referer' is required"),
        ({"client": "ip"}, "'ip' is required"),
        ({"client": "browser"}, "must be referer, ip or requestip"),
    ],
    ids=["referer-missing", "ip-missing", "unknown-client"],
)
def test_a_token_binding_must_be_complete(world_ro: Api, form: dict[str, str], words: str) -> None:
    body = world_ro.generate_token("hq", "admin", "admin-pass", **form)
    error_of(body, 400, message_code="GWM_0001")
    assert words in body["error"]["message"] + " ".join(body["error"]["details"])
